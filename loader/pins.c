// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pins under /sys/fs/bpf/pathscope and the attach lock (pins.h). */
#include "loader/pins.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/compat.h"
#include "loader/meta_check.h"
#include "lib/util.h"

void ps_pin_dir(char *buf, size_t len, uint64_t netns_ino, int ifindex)
{
	snprintf(buf, len, PS_PIN_ROOT "/%llu/%d", (unsigned long long)netns_ino, ifindex);
}

void ps_pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* The mount namespace of pid (its inode), 0 when it cannot be read (pid 1's
 * may be refused even to root: a non-dumpable init). */
static unsigned long long mnt_ns_of(const char *pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	return stat(path, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* The host's mount namespace: pid 1's; where that cannot be read, that of
 * kthreadd (pid 2 in the initial pid namespace), whose kernel threads live in
 * the initial mount namespace. *pid says whose; 0 when neither can be read
 * (errno says why). */
static unsigned long long host_mnt_ns(const char **pid)
{
	unsigned long long ino = mnt_ns_of("1");
	int err = errno;
	char comm[32] = "";
	FILE *f;

	*pid = "1";
	if (ino)
		return ino;
	f = fopen("/proc/2/comm", "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	if (strcmp(comm, "kthreadd\n") == 0) {
		*pid = "2";
		ino = mnt_ns_of("2");
		if (ino)
			return ino;
	}
	errno = err;
	return 0;
}

/* Pins must outlive this process and its mount namespace: on the host's
 * bpffs (the one pid 1 sees on /sys/fs/bpf). A bpffs mounted in a private
 * mount namespace (`ip netns exec` makes one and remounts /sys) vanishes with
 * that namespace, and pathscope's XDP program stays behind without its pins. */
int ps_bpffs_ensure(void)
{
	unsigned long long self = mnt_ns_of("self"), init;
	const char *pid;
	char root[64];
	struct stat here, host;
	struct statfs st;
	int init_err;

	init = host_mnt_ns(&pid);
	init_err = errno;
	snprintf(root, sizeof(root), "/proc/%s/root/sys/fs/bpf", pid);

	if (statfs("/sys/fs/bpf", &st) == 0 && st.f_type == BPF_FS_MAGIC) {
		/* Another mount namespace: is it the host's bpffs (bind-mounted,
		 * or propagated), or one of its own? */
		if (self && init && self != init && stat("/sys/fs/bpf", &here) == 0 &&
		    stat(root, &host) == 0 && here.st_dev != host.st_dev)
			return ps_error(
			    "/sys/fs/bpf here is a bpf filesystem of this mount namespace (%llu), "
			    "not the host's (%llu): pins there vanish with it; run pathscope in "
			    "the host's mount namespace (for a network namespace: 'nsenter "
			    "--net=/var/run/netns/NAME', not 'ip netns exec')",
			    self, init);
		return 0;
	}
	if (self && init && self == init) {
		/* The host's mount namespace: a bpffs mounted here lasts. */
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") == 0)
			return 0;
		return ps_error("/sys/fs/bpf is not a bpf filesystem and mounting one failed: %s",
				strerror(errno));
	}
	if (self && init)
		return ps_error(
		    "/sys/fs/bpf is not a bpf filesystem in this mount namespace (%llu), "
		    "which is not the host's (%llu): one mounted here would vanish with "
		    "it, and the pins with it; mount bpffs on /sys/fs/bpf in the host's "
		    "mount namespace ('mount -t bpf bpf /sys/fs/bpf') and use 'nsenter "
		    "--net=/var/run/netns/NAME' instead of 'ip netns exec'",
		    self, init);
	return ps_error("/sys/fs/bpf is not a bpf filesystem, and whether this mount namespace "
			"is the host's cannot be told (/proc/1/ns/mnt: %s): one mounted here might "
			"vanish with it; mount bpffs on /sys/fs/bpf in the host's mount namespace "
			"('mount -t bpf bpf /sys/fs/bpf') and use 'nsenter "
			"--net=/var/run/netns/NAME' instead of 'ip netns exec'",
			strerror(init_err));
}

static int mkdir_one(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

int ps_pin_dir_create(const char *dir)
{
	char parent[256];
	char *slash;
	int err;

	err = mkdir_one(PS_PIN_ROOT);
	if (err)
		return err;
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	err = mkdir_one(parent);
	if (err)
		return err;
	return mkdir(dir, 0700) ? -errno : 0;
}

int ps_meta_pin(const char *dir, const struct ps_meta *meta)
{
	char path[256];
	__u32 key = 0;
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pathscope_meta", sizeof(key), sizeof(*meta), 1,
			    NULL);
	if (fd < 0)
		return -errno;
	err = bpf_map_update_elem(fd, &key, meta, BPF_ANY) ? -errno : 0;
	ps_pin_path(path, sizeof(path), dir, "meta");
	if (!err && bpf_obj_pin(fd, path))
		err = -errno;
	close(fd);
	return err;
}

int ps_meta_write(const char *dir, const struct ps_meta *meta)
{
	__u32 key = 0;
	int fd, err;

	fd = ps_pin_open(dir, "meta");
	if (fd < 0)
		return fd;
	err = bpf_map_update_elem(fd, &key, meta, BPF_ANY) ? -errno : 0;
	close(fd);
	return err;
}

int ps_meta_read_checked(const char *dir, struct ps_meta *meta, const char **why)
{
	const char *problem;
	__u32 key = 0;
	int fd, err;

	if (why)
		*why = NULL;
	fd = ps_pin_open(dir, "meta");
	if (fd < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &key, meta) ? -errno : 0;
	close(fd);
	if (err)
		return err;
	problem = ps_meta_problem(meta);
	if (why)
		*why = problem;
	if (problem)
		return meta->abi_version != PS_ABI_VERSION ? -EPROTO : -EBADMSG;
	return 0;
}

int ps_meta_read(const char *dir, struct ps_meta *meta)
{
	return ps_meta_read_checked(dir, meta, NULL);
}

int ps_pin_fd(const char *dir, const char *name, int fd)
{
	char path[256];

	ps_pin_path(path, sizeof(path), dir, name);
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

int ps_pin_open(const char *dir, const char *name)
{
	char path[256];
	int fd;

	ps_pin_path(path, sizeof(path), dir, name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int ps_pin_dir_remove(const char *dir)
{
	char path[512], parent[256];
	struct dirent *de;
	char *slash;
	DIR *d;
	int err = 0;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && errno != ENOENT)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT)
		return -errno;
	/* Drop the netns directory and the root when they are now empty. */
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		rmdir(parent);
	}
	rmdir(PS_PIN_ROOT);
	return err;
}

int ps_pin_foreach(int (*fn)(const char *dir, void *ctx), void *ctx)
{
	char nsdir[300], ifdir[600];
	struct dirent *ns, *ifd;
	DIR *root, *d;
	int ret = 0;

	root = opendir(PS_PIN_ROOT);
	if (!root)
		return 0;
	while (!ret && (ns = readdir(root))) {
		if (ns->d_name[0] == '.')
			continue;
		snprintf(nsdir, sizeof(nsdir), PS_PIN_ROOT "/%s", ns->d_name);
		d = opendir(nsdir);
		if (!d)
			continue;
		while (!ret && (ifd = readdir(d))) {
			if (ifd->d_name[0] == '.')
				continue;
			snprintf(ifdir, sizeof(ifdir), "%s/%s", nsdir, ifd->d_name);
			ret = fn(ifdir, ctx);
		}
		closedir(d);
	}
	closedir(root);
	return ret;
}

bool ps_pin_is(int fd, const char *kind)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, kind) == 0;
}

int ps_pin_prog_fd(int fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (ps_pin_is(fd, PS_PIN_PROG))
		return dup(fd);
	if (!ps_pin_is(fd, PS_PIN_LINK) || bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	return bpf_prog_get_fd_by_id(info.prog_id); /* EPERM without CAP_SYS_ADMIN */
}

/* The lock (see pins.h) is an flock on the bpf filesystem's root: never
 * removed, the same in every network namespace, and dropped by the kernel
 * when its holder exits, killed or not, so it is never stale. */
#define PS_LOCK_PATH   "/sys/fs/bpf"
#define PS_LOCK_WAIT_S 120 /* an attach takes ~1 s, ~30 s under valgrind */

static int lock_fd = -1, lock_depth; /* nested lock calls share the flock */

int ps_pins_lock(void)
{
	struct timespec pause = { .tv_nsec = 100 * 1000 * 1000 };
	int i;

	if (lock_depth++)
		return 0;
	lock_fd = open(PS_LOCK_PATH, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock_fd < 0) {
		lock_depth = 0;
		return ps_error("cannot open %s for the attach lock: %s", PS_LOCK_PATH,
				strerror(errno));
	}
	for (i = 0; i <= PS_LOCK_WAIT_S * 10; i++) {
		if (flock(lock_fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK) {
			ps_error("cannot lock %s: %s", PS_LOCK_PATH, strerror(errno));
			ps_pins_unlock();
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	ps_error("another pathscope has been attaching or detaching for %d s; try again later",
		 PS_LOCK_WAIT_S);
	ps_pins_unlock();
	return -1;
}

void ps_pins_unlock(void)
{
	if (lock_depth == 0 || --lock_depth)
		return;
	close(lock_fd); /* drops the flock */
	lock_fd = -1;
}

/* Someone holds the lock: an attach or detach is at work. */
static bool lock_busy(void)
{
	int fd = open(PS_LOCK_PATH, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool busy;

	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

bool ps_loader_alive(const struct ps_meta *m)
{
	char path[64];

	/* Holding the lock ourselves, no other loader can be at work. */
	if (!m->loader_pid || lock_fd >= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%u", m->loader_pid);
	return access(path, F_OK) == 0 && lock_busy();
}
