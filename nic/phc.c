// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The NIC's PTP hardware clock, read once per check: its index from ethtool
 * (ETHTOOL_GET_TS_INFO), its time bracketed by two CLOCK_TAI reads. */
#include "nic/phc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A dynamic POSIX clock of an open /dev/ptpN (the kernel's FD_TO_CLOCKID). */
#define PS_FD_TO_CLOCKID(fd) ((~(clockid_t)(fd) << 3) | 3)

static long long ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static int phc_index(const char *ifname, int *index)
{
	struct ethtool_ts_info info = { .cmd = ETHTOOL_GET_TS_INFO };
	struct ifreq ifr = {};
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		err = -errno;
	close(fd);
	*index = info.phc_index;
	return err;
}

int ps_nic_phc_read(const char *ifname, struct ps_phc *p)
{
	struct timespec a, b, c;
	char path[32];
	int fd, err;

	memset(p, 0, sizeof(*p));
	p->checked = true;
	p->index = -1;
	err = phc_index(ifname, &p->index);
	if (err) {
		snprintf(p->why, sizeof(p->why), "ethtool's timestamping info: %s", strerror(-err));
		return err;
	}
	if (p->index < 0)
		return 0;
	snprintf(path, sizeof(path), "/dev/ptp%d", p->index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(p->why, sizeof(p->why), "%s: %s", path, strerror(errno));
		return err;
	}
	err = clock_gettime(CLOCK_TAI, &a) || clock_gettime(PS_FD_TO_CLOCKID(fd), &b) ||
		      clock_gettime(CLOCK_TAI, &c)
		  ? -errno
		  : 0;
	close(fd);
	if (err) {
		snprintf(p->why, sizeof(p->why), "%s: %s", path, strerror(-err));
		return err;
	}
	p->offset_ns = ns(&b) - (ns(&a) + ns(&c)) / 2;
	return 0;
}

bool ps_phc_synced(const struct ps_phc *p)
{
	return p->checked && !*p->why && p->index >= 0 && p->offset_ns > -PS_PHC_SYNC_NS &&
	       p->offset_ns < PS_PHC_SYNC_NS;
}
