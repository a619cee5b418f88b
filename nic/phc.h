/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The NIC's PTP hardware clock against CLOCK_TAI: is its RX timestamp
 * comparable with the kernel's TAI time (ptp4l and phc2sys keep it so)? */
#ifndef PATHSCOPE_NIC_PHC_H
#define PATHSCOPE_NIC_PHC_H

#include <stdbool.h>

/* Within this of TAI a NIC clock counts as disciplined. */
#define PS_PHC_SYNC_NS 1000000LL

struct ps_phc {
	bool checked;	     /* a check was made */
	int index;	     /* /dev/ptpN; -1: the NIC has none */
	long long offset_ns; /* PHC - TAI, when index >= 0 */
	char why[96];	     /* why it could not be read; "" when read */
};

/* Read ifname's PTP clock (ethtool's timestamping info) and its offset from
 * CLOCK_TAI: 0, or -errno with p->why said. */
int ps_nic_phc_read(const char *ifname, struct ps_phc *p);

/* Comparable: read, with a clock, within PS_PHC_SYNC_NS of TAI. */
bool ps_phc_synced(const struct ps_phc *p);

#endif /* PATHSCOPE_NIC_PHC_H */
