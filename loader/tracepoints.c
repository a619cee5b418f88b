// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Tracepoint programs as tp_btf or, as the fallback, classic tracepoints (tracepoints.h). */
#include "loader/tracepoints.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "loader/features.h"
#include "loader/pins.h"
#include "lib/util.h"

int ps_tp_choose_mode(enum ps_probe_request req, bool *classic)
{
	bool tp_btf = ps_tp_btf_supported();

	if (req == PS_PROBE_REQ_TP_BTF && !tp_btf)
		return ps_error("this kernel cannot load tp_btf programs; use --probe-mode "
				"tracepoint");
	*classic = req == PS_PROBE_REQ_TRACEPOINT || !tp_btf;
	return *classic ? ps_tracefs_ensure() : 0;
}

int ps_tp_choose_pinned_mode(enum ps_probe_request req, bool *classic)
{
	if (ps_tp_choose_mode(req, classic))
		return -1;
	if (*classic && !ps_perf_link_supported())
		return ps_error("this kernel cannot pin classic tracepoint links (perf-event "
				"links, Linux 5.15); use --probe-mode tp_btf");
	return 0;
}

void ps_tp_set_autoload(const struct ps_tp_prog *p, unsigned int n, bool classic)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		bpf_program__set_autoload(classic ? p[i].btf : p[i].tp, false);
}

int ps_tp_attach(const struct ps_tp_prog *p, unsigned int n, bool classic, const char *dir,
		 struct bpf_link **links)
{
	struct bpf_link *l;
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		l = bpf_program__attach(classic ? p[i].tp : p[i].btf);
		err = libbpf_get_error(l);
		if (err) {
			ps_error("cannot attach tracepoint probe %s: %s", p[i].pin_name,
				 strerror(-err));
			l = NULL;
		} else if (dir) {
			err = ps_pin_fd(dir, p[i].pin_name, bpf_link__fd(l));
			if (err)
				ps_error("cannot pin %s: %s", p[i].pin_name, strerror(-err));
			bpf_link__disconnect(l); /* the pin holds it (or it goes now) */
			bpf_link__destroy(l);
			l = NULL;
		}
		if (links)
			links[i] = l;
	}
	if (err && links)
		while (i-- > 0) {
			bpf_link__destroy(links[i]);
			links[i] = NULL;
		}
	return err ? -1 : 0;
}

void ps_tp_detach_pinned(const char *dir, const char *const *names, unsigned int n)
{
	unsigned int i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = ps_pin_open(dir, names[i]);
		if (fd >= 0) {
			bpf_link_detach(fd);
			close(fd);
		}
	}
}
