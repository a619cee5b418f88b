// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What pathscope can tell of someone else's XDP program (xdp_peer.h). */
#include "loader/xdp_peer.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/pins.h"

#define BPFFS		"/sys/fs/bpf"
#define WALK_MAX_DEPTH	6
#define WALK_MAX_VISITS 4096

struct walk {
	struct ps_xdp_peer *p;
	const char *ifname;
	int budget;    /* entries still to look at */
	bool tool_pin; /* found where a tool pins per interface: stop */
};

/* Is path BPFFS/TOOL/programs/IFNAME/NAME, where xdp-tools pin the program
 * they attach to IFNAME? Then copy TOOL. */
static bool tool_pin(const char *path, const char *ifname, char *tool, size_t len)
{
	const char *rel = path + strlen(BPFFS "/"), *slash = strchr(rel, '/');
	char want[96];
	size_t n;

	if (!slash || (size_t)(slash - rel) >= len)
		return false;
	n = (size_t)snprintf(want, sizeof(want), "/programs/%s/", ifname);
	if (n >= sizeof(want) || strncmp(slash, want, n) != 0 || strchr(slash + n, '/'))
		return false;
	snprintf(tool, len, "%.*s", (int)(slash - rel), rel);
	return true;
}

/* Keep path as the pin found, unless it is too long to show whole. */
static void keep_pin(struct ps_xdp_peer *p, const char *path)
{
	size_t n = strlen(path);

	if (n < sizeof(p->pin))
		memcpy(p->pin, path, n + 1);
}

static void look_at(struct walk *w, const char *path)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(path);

	if (fd < 0)
		return;
	if (ps_pin_is(fd, PS_PIN_PROG) && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.id == w->p->id) {
		if (tool_pin(path, w->ifname, w->p->tool, sizeof(w->p->tool))) {
			w->p->libxdp = true;
			w->tool_pin = true;
			keep_pin(w->p, path);
		} else if (!w->p->pin[0]) {
			keep_pin(w->p, path);
		}
	}
	close(fd);
}

static void walk_dir(struct walk *w, const char *dir, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while (!w->tool_pin && w->budget > 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		w->budget--;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (!strcmp(path, PS_PIN_ROOT))
			continue; /* pathscope's own pins (xdp_chained is one of them) */
		if (de->d_type == DT_UNKNOWN && lstat(path, &st) == 0)
			de->d_type = S_ISDIR(st.st_mode)   ? DT_DIR
				     : S_ISREG(st.st_mode) ? DT_REG
							   : 0;
		if (de->d_type == DT_DIR && depth < WALK_MAX_DEPTH)
			walk_dir(w, path, depth + 1);
		else if (de->d_type == DT_REG)
			look_at(w, path);
	}
	closedir(d);
}

/* Sections of libxdp in a program's BTF: ".xdp_run_config" (XDP_RUN_CONFIG
 * of xdp_helpers.h, a program written for libxdp) and "xdp_metadata" (the
 * dispatcher's and libxdp's AF_XDP program's version). */
static void btf_marks(__u32 btf_id, bool *run_config, bool *metadata)
{
	struct btf *btf;
	__u32 i, n;

	*run_config = *metadata = false;
	if (!btf_id)
		return;
	btf = btf__load_from_kernel_by_id(btf_id); /* CAP_SYS_ADMIN */
	if (!btf || libbpf_get_error(btf))
		return;
	n = btf__type_cnt(btf);
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *name;

		if (!t || !btf_is_datasec(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (name && !strcmp(name, ".xdp_run_config"))
			*run_config = true;
		else if (name && !strcmp(name, "xdp_metadata"))
			*metadata = true;
	}
	btf__free(btf);
}

void ps_xdp_peer_describe(int prog_fd, const char *ifname, struct ps_xdp_peer *p)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct walk w = { .p = p, .ifname = ifname, .budget = WALK_MAX_VISITS };
	bool run_config, metadata;

	memset(p, 0, sizeof(*p));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return;
	p->id = info.id;
	snprintf(p->name, sizeof(p->name), "%s", info.name);
	btf_marks(info.btf_id, &run_config, &metadata);
	p->dispatcher = metadata && !strcmp(p->name, "xdp_dispatcher");
	walk_dir(&w, BPFFS, 1);
	if (run_config || metadata) {
		p->libxdp = true;
		if (!p->tool[0])
			snprintf(p->tool, sizeof(p->tool), "libxdp");
	}
}

int ps_xdp_peer_describe_id(__u32 id, const char *ifname, struct ps_xdp_peer *p)
{
	int fd = bpf_prog_get_fd_by_id(id);

	memset(p, 0, sizeof(*p));
	if (fd < 0)
		return -1;
	ps_xdp_peer_describe(fd, ifname, p);
	close(fd);
	return 0;
}

void ps_xdp_peer_format(const struct ps_xdp_peer *p, char *buf, size_t len)
{
	const char *sep = p->tool[0] && p->pin[0] ? ", " : "";

	if (p->tool[0] || p->pin[0])
		snprintf(buf, len, "XDP program %u '%s' (%s%s%s%s)", p->id, p->name, p->tool, sep,
			 p->pin[0] ? "pinned at " : "", p->pin);
	else
		snprintf(buf, len, "XDP program %u '%s'", p->id, p->name);
}
