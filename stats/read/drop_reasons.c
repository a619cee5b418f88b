// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Names of the kernel's drop reasons, read from the running kernel's BTF (drop_reasons.h). */
#include "stats/read/drop_reasons.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#define PREFIX "SKB_DROP_REASON_"

static struct btf *vmlinux_btf;
static const struct btf_type *reason_enum;

static const struct btf_type *load_enum(void)
{
	static int tried;
	int id;

	if (tried)
		return reason_enum;
	tried = 1;
	vmlinux_btf = btf__load_vmlinux_btf();
	if (libbpf_get_error(vmlinux_btf)) {
		vmlinux_btf = NULL;
		return NULL;
	}
	id = btf__find_by_name_kind(vmlinux_btf, "skb_drop_reason", BTF_KIND_ENUM);
	if (id > 0)
		reason_enum = btf__type_by_id(vmlinux_btf, id);
	return reason_enum;
}

static const char *strip(const char *name)
{
	return strncmp(name, PREFIX, strlen(PREFIX)) == 0 ? name + strlen(PREFIX) : name;
}

const char *ps_drop_reason_name(__u32 reason, char *buf, size_t len)
{
	const struct btf_type *t = load_enum();
	const struct btf_enum *e;
	int i;

	for (i = 0; t && i < btf_vlen(t); i++) {
		e = btf_enum(t) + i;
		if ((__u32)e->val == reason) {
			snprintf(buf, len, "%s",
				 strip(btf__name_by_offset(vmlinux_btf, e->name_off)));
			return buf;
		}
	}
	snprintf(buf, len, "reason_%u", reason);
	return buf;
}

long ps_drop_reason_value(const char *name)
{
	const struct btf_type *t = load_enum();
	const struct btf_enum *e;
	int i;

	for (i = 0; t && i < btf_vlen(t); i++) {
		e = btf_enum(t) + i;
		if (strcmp(strip(btf__name_by_offset(vmlinux_btf, e->name_off)), name) == 0)
			return e->val;
	}
	return -1;
}
