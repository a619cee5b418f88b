// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* BPF run time of an attachment's programs (kernel.bpf_stats_enabled; prog_stats.h). */
#include "stats/read/prog_stats.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "loader/pins.h"

int ps_bpf_stats_enabled(void)
{
	int v = ps_read_int_file("/proc/sys/kernel/bpf_stats_enabled");

	return v < 0 ? -1 : v != 0;
}

static int by_program(const void *a, const void *b)
{
	return strcmp(((const struct ps_prom_prog *)a)->program,
		      ((const struct ps_prom_prog *)b)->program);
}

int ps_prog_stats_read(const char *dir, const char *ifname, struct ps_prom_prog *out, int max)
{
	struct bpf_prog_info info;
	struct dirent *de;
	__u32 len;
	int n = 0, fd, pfd;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fd = ps_pin_open(dir, de->d_name);
		if (fd < 0)
			continue;
		pfd = ps_pin_prog_fd(fd);
		close(fd);
		if (pfd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(pfd, &info, &len)) {
			snprintf(out[n].ifname, sizeof(out[n].ifname), "%s", ifname);
			snprintf(out[n].program, sizeof(out[n].program), "%.63s", de->d_name);
			out[n].run_time_ns = info.run_time_ns;
			out[n].run_cnt = info.run_cnt;
			n++;
		}
		close(pfd);
	}
	closedir(d);
	qsort(out, (size_t)n, sizeof(*out), by_program);
	return n;
}
