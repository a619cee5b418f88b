// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The kernel memory of an attachment's maps, for `pathscope status` (map_memory.h). */
#include "loader/map_memory.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loader/pins.h"

#define MAX_MAPS 256

struct id_set {
	__u32 id[MAX_MAPS];
	unsigned int n;
};

static void add_id(struct id_set *s, __u32 id)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return;
	if (s->n < MAX_MAPS)
		s->id[s->n++] = id;
}

/* The kernel's own figure for a map: "memlock:" in its fdinfo. */
static uint64_t memlock_of(int fd)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void add_prog_maps(struct id_set *s, int prog_fd)
{
	__u32 ids[64] = { 0 }, len; /* zeroed: valgrind does not see the kernel fill it */
	struct bpf_prog_info info;
	unsigned int i;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 64;
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return;
	for (i = 0; i < info.nr_map_ids && i < 64; i++)
		add_id(s, ids[i]);
}

int ps_map_memory(const char *dir, struct ps_map_memory *out)
{
	struct bpf_map_info info;
	struct id_set ids = { .n = 0 };
	struct dirent *de;
	unsigned int i;
	__u32 len;
	int fd, pfd;
	DIR *d = opendir(dir);

	memset(out, 0, sizeof(*out));
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fd = ps_pin_open(dir, de->d_name);
		if (fd < 0)
			continue;
		if (ps_pin_is(fd, PS_PIN_MAP)) {
			memset(&info, 0, sizeof(info));
			len = sizeof(info);
			if (!bpf_obj_get_info_by_fd(fd, &info, &len))
				add_id(&ids, info.id);
		} else if ((pfd = ps_pin_prog_fd(fd)) >= 0) {
			add_prog_maps(&ids, pfd);
			close(pfd);
		}
		close(fd);
	}
	closedir(d);
	for (i = 0; i < ids.n; i++) {
		fd = bpf_map_get_fd_by_id(ids.id[i]);
		if (fd < 0) {
			out->nmissed++;
			continue;
		}
		out->bytes += memlock_of(fd);
		out->nmaps++;
		close(fd);
	}
	return 0;
}
