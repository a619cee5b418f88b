// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Is the network namespace of an attachment gone, or only out of reach? The kernel's
 * word first (a pinned TCX link without a device), then the namespace's holders. */
#include "loader/netns_gone.h"

#include <bpf/bpf.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/compat.h"
#include "loader/pins.h"

bool ps_tcx_link_defunct(const char *dir)
{
	static const char *const names[] = { "tci_link", "tce_link" };
	struct bpf_link_info info;
	__u32 len, ifindex;
	unsigned int i;
	bool defunct = false;
	int fd, err;

	for (i = 0; i < 2 && !defunct; i++) {
		fd = ps_pin_open(dir, names[i]);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		err = bpf_obj_get_info_by_fd(fd, &info, &len);
		close(fd);
		/* The 6.1 UAPI has no tcx member: its ifindex is the union's
		 * first field, where xdp's is (kernel's struct bpf_link_info). */
		ifindex = info.xdp.ifindex;
		defunct = !err && info.type == PS_BPF_LINK_TYPE_TCX && ifindex == 0;
	}
	return defunct;
}

static bool is_pid(const char *name)
{
	return isdigit((unsigned char)name[0]);
}

/* A task of process pid in the namespace (each thread may setns alone). */
static bool task_in(const char *pid, uint64_t ino)
{
	char path[600];
	struct dirent *de;
	struct stat st;
	bool in = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!in && (de = readdir(d))) {
		if (!is_pid(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/ns/net", pid, de->d_name);
		in = stat(path, &st) == 0 && st.st_ino == ino;
	}
	closedir(d);
	return in;
}

/* An fd of process pid open on the namespace's nsfs file. */
static bool fd_on(const char *pid, const char *want)
{
	char path[600], target[64];
	struct dirent *de;
	bool on = false;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!on && (de = readdir(d))) {
		if (!is_pid(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			on = strcmp(target, want) == 0;
		}
	}
	closedir(d);
	return on;
}

/* A bind mount of the namespace (ip netns add, a runtime's own directory)
 * in the mount namespace of process pid: mountinfo's root field of an nsfs
 * mount names it, "net:[INODE]". */
static bool mounted_in(const char *pid, const char *want)
{
	char path[600], needle[64], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/mountinfo", pid);
	snprintf(needle, sizeof(needle), " %s ", want);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0)
		found = strstr(line, needle) && strstr(line, " - nsfs ");
	free(line);
	fclose(f);
	return found;
}

/* Read each mount namespace's mountinfo once: many processes share one. */
#define MNT_SEEN_MAX 1024

bool ps_netns_held(uint64_t ino)
{
	uint64_t seen[MNT_SEEN_MAX];
	unsigned int nseen = 0, i;
	char want[48], path[600];
	struct dirent *de;
	struct stat st;
	bool held = false;
	DIR *proc;

	snprintf(want, sizeof(want), "net:[%llu]", (unsigned long long)ino);
	proc = opendir("/proc");
	if (!proc)
		return true; /* cannot tell: say it lives */
	while (!held && (de = readdir(proc))) {
		if (!is_pid(de->d_name))
			continue;
		if (task_in(de->d_name, ino) || fd_on(de->d_name, want)) {
			held = true;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%s/ns/mnt", de->d_name);
		if (stat(path, &st))
			continue;
		for (i = 0; i < nseen && seen[i] != st.st_ino; i++)
			;
		if (i < nseen)
			continue;
		if (nseen < MNT_SEEN_MAX)
			seen[nseen++] = st.st_ino;
		held = mounted_in(de->d_name, want);
	}
	closedir(proc);
	return held;
}

/* pathscope enters a namespace by its name (/var/run/netns); a container's
 * has none, so "cannot enter" proves nothing. Nor does the inode in the pin
 * directory's name: the kernel recycles namespace inode numbers, and an
 * unnamed namespace lives as long as a task, an fd or a mount holds it. So
 * the first word is the kernel's own, from the objects pinned: a TCX link
 * whose device was unregistered reports ifindex 0, as when its namespace
 * was deleted. Only then do we look for holders, to tell "namespace gone"
 * from an interface deleted in a namespace that lives. Without a TCX link
 * (clsact, --no-tc), no pinned object says where it is attached: unknown. */
enum ps_reach_fate ps_reach_fate(const char *dir, uint64_t netns_ino)
{
	if (!ps_tcx_link_defunct(dir))
		return PS_FATE_UNKNOWN;
	return ps_netns_held(netns_ino) ? PS_FATE_IFACE : PS_FATE_NETNS_GONE;
}
