// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ps_netns_enter_fd: entering a namespace by fd returns the one left, by inode,
 * and ps_netns_leave goes back; a bad fd is an error, not a namespace change. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "tests/lib/check.h"

static uint64_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

static void expect(const char *name, long long got, long long want)
{
	check_report(got == want, name, "got %lld, want %lld", got, want);
}

int main(void)
{
	uint64_t home_ino, new_ino;
	int home, null, back;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	home_ino = ps_netns_ino();
	CHECK_TRUE("the own namespace opens",
		   home >= 0 && home_ino != 0 && ino_of(home) == home_ino);

	expect("fd -1 is EBADF", ps_netns_enter_fd(-1), -EBADF);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	expect("a file that is no namespace is EINVAL", ps_netns_enter_fd(null), -EINVAL);
	close(null);
	expect("a failed enter leaves the namespace", ps_netns_ino(), home_ino);
	expect("ps_netns_enter of the current namespace does nothing", ps_netns_enter(home_ino),
	       -1);

	back = ps_netns_enter_fd(home);
	CHECK_TRUE("entering the own namespace returns an fd of it",
		   back >= 0 && ino_of(back) == home_ino && ps_netns_ino() == home_ino);
	ps_netns_leave(back);
	CHECK_TRUE("leaving closes that fd", fcntl(back, F_GETFD) == -1 && errno == EBADF);

	if (geteuid() != 0 || unshare(CLONE_NEWNET)) {
		check_skip("entering another namespace and back",
			   "unshare(CLONE_NEWNET) needs root");
		close(home);
		return check_failures ? 1 : 0;
	}
	/* Now in a new namespace: enter the first by fd, then come back. */
	new_ino = ps_netns_ino();
	CHECK_TRUE("unshare made a new namespace", new_ino != 0 && new_ino != home_ino);
	back = ps_netns_enter_fd(home);
	expect("entered: the current namespace is the first", ps_netns_ino(), home_ino);
	expect("the fd returned is of the namespace left", ino_of(back), new_ino);
	CHECK_TRUE("the target fd stays open", fcntl(home, F_GETFD) != -1);
	ps_netns_leave(back);
	expect("left: back in the new namespace", ps_netns_ino(), new_ino);
	close(home);
	return check_failures ? 1 : 0;
}
