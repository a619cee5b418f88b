// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where each queue runs (placement.h): sysfs and procfs, as irqbalance and
 * ethtool's users read them; a file that is not there is n/a. */
#include "nic/placement.h"

#include "nic/ethtool.h"
#include "nic/netdev.h"
#include "nic/netlink.h"

#include <ctype.h>
#include <net/if.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first line of root/path, without its newline: 0, or -1. */
static int read_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static long read_long(const char *root, const char *path)
{
	char buf[64], *end;
	long v;

	if (read_line(root, path, buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

/* The digits right after the first occurrence of key in name, or -1. */
static int number_after(const char *name, const char *key)
{
	const char *p = strstr(name, key);

	if (!p || !isdigit((unsigned char)p[strlen(key)]))
		return -1;
	return atoi(p + strlen(key));
}

int ps_nic_irq_queue(const char *name)
{
	static const char *const keys[] = {
		"-input.", "TxRx-", "txrx-", "-rx-", "mlx5_comp", "-fp-"
	};
	size_t i;
	int q;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((q = number_after(name, keys[i])) >= 0)
			return q;
	return -1;
}

void ps_nic_mask_list(const char *mask, char *buf, size_t len)
{
	unsigned int nbits = 0, bit, start = 0;
	unsigned char bits[1024] = { 0 };
	size_t n = 0;
	int i, in = 0;

	buf[0] = 0;
	/* from the last hex digit (CPU 0) backwards, commas skipped */
	for (i = (int)strlen(mask) - 1; i >= 0 && nbits + 4 <= sizeof(bits); i--) {
		int d = mask[i];

		if (d == ',')
			continue;
		d = isdigit(d) ? d - '0' : isxdigit(d) ? tolower(d) - 'a' + 10 : 0;
		for (bit = 0; bit < 4; bit++)
			bits[nbits++] = (d >> bit) & 1;
	}
	for (bit = 0; bit <= nbits && n + 24 < len; bit++) {
		int set = bit < nbits && bits[bit];

		if (set && !in)
			start = bit, in = 1;
		else if (!set && in) {
			n += (size_t)snprintf(buf + n, len - n, n ? ",%u" : "%u", start);
			if (bit - 1 > start)
				n += (size_t)snprintf(buf + n, len - n, "-%u", bit - 1);
			in = 0;
		}
	}
}

/* rx's IRQ, and that IRQ's affinity and effective affinity. */
static void set_irq(const char *root, struct ps_nic_place_rx *rx, int irq, enum ps_nic_irq_src src)
{
	char path[128];

	rx->irq = irq;
	rx->irq_src = src;
	rx->affinity[0] = rx->effective[0] = 0;
	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	read_line(root, path, rx->affinity, sizeof(rx->affinity));
	snprintf(path, sizeof(path), "/proc/irq/%d/effective_affinity_list", irq);
	read_line(root, path, rx->effective, sizeof(rx->effective));
}

/* The name /proc/interrupts gives irq (its last field), or "". */
static void irq_name(const char *root, int irq, char *buf, size_t len)
{
	char path[512], line[4096], *last, *t;
	int n;
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/proc/interrupts", root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %d:", &n) != 1 || n != irq)
			continue;
		line[strcspn(line, "\n")] = 0;
		for (last = NULL, t = strtok(line, " \t"); t; t = strtok(NULL, " \t"))
			last = t;
		snprintf(buf, len, "%s", last ? last : "");
		break;
	}
	if (f)
		fclose(f);
}

/* The device's MSI/MSI-X vectors, and the IRQ of each RX queue their names
 * in /proc/interrupts give. */
static void read_irqs(const char *root, const char *ifname, struct ps_nic_placement *p)
{
	/* A PCI NIC's vectors; a virtio NIC's are its PCI parent's. */
	static const char *const dirs[] = { "device/msi_irqs", "device/../msi_irqs" };
	char base[512], path[1024], line[4096];
	struct dirent *e;
	DIR *d = NULL;
	FILE *f;
	size_t k;
	int irq, q;

	for (k = 0; k < sizeof(dirs) / sizeof(dirs[0]) && !d; k++) {
		snprintf(base, sizeof(base), "%s/sys/class/net/%s/%s", root, ifname, dirs[k]);
		d = opendir(base);
	}
	if (!d)
		return;
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			p->nvectors++;
	closedir(d);
	snprintf(path, sizeof(path), "%s/proc/interrupts", root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *last, *t;

		if (sscanf(line, " %d:", &irq) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%d", base, irq);
		if (access(path, F_OK))
			continue; /* not this device's */
		line[strcspn(line, "\n")] = 0;
		for (last = NULL, t = strtok(line, " \t"); t; t = strtok(NULL, " \t"))
			last = t;
		q = last ? ps_nic_irq_queue(last) : -1;
		if (q < 0 || (unsigned int)q >= p->nrx || p->rx[q].irq >= 0)
			continue;
		snprintf(p->rx[q].irq_name, sizeof(p->rx[q].irq_name), "%s", last);
		set_irq(root, &p->rx[q], irq, PS_NIC_IRQ_PROC);
		p->irqs_mapped++;
	}
	if (f)
		fclose(f);
}

static int read_placement(const char *root, const char *ifname, struct ps_nic_placement *p)
{
	char path[512], mask[256];
	unsigned int i;

	memset(p, 0, sizeof(*p));
	ps_nic_coalesce_init(&p->coal);
	snprintf(p->coal.why, sizeof(p->coal.why), "not read");
	snprintf(p->napi_why, sizeof(p->napi_why), "not read");
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/queues/rx-0", root, ifname);
	if (access(path, F_OK))
		return -ENODEV;
	for (i = 0; i < PS_NIC_PLACE_MAXQ; i++) {
		struct ps_nic_place_rx *r = &p->rx[i];

		snprintf(path, sizeof(path), "%s/sys/class/net/%s/queues/rx-%u", root, ifname, i);
		if (access(path, F_OK))
			break;
		r->irq = -1;
		r->napi_pid = r->napi_defer_hard_irqs = r->napi_gro_flush_timeout = -1;
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%u/rps_cpus", ifname, i);
		if (!read_line(root, path, mask, sizeof(mask)))
			ps_nic_mask_list(mask, r->rps, sizeof(r->rps));
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%u/rps_flow_cnt", ifname,
			 i);
		r->rps_flow_cnt = read_long(root, path);
	}
	p->nrx = i;
	for (i = 0; i < PS_NIC_PLACE_MAXQ; i++) {
		snprintf(path, sizeof(path), "%s/sys/class/net/%s/queues/tx-%u", root, ifname, i);
		if (access(path, F_OK))
			break;
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%u/xps_cpus", ifname, i);
		if (!read_line(root, path, mask, sizeof(mask)))
			ps_nic_mask_list(mask, p->tx[i].xps_cpus, sizeof(p->tx[i].xps_cpus));
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%u/xps_rxqs", ifname, i);
		if (!read_line(root, path, mask, sizeof(mask)))
			ps_nic_mask_list(mask, p->tx[i].xps_rxqs, sizeof(p->tx[i].xps_rxqs));
	}
	p->ntx = i;
	read_irqs(root, ifname, p);
	/* a virtio NIC's node is its PCI parent's */
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/numa_node", ifname);
	p->numa_node = (int)read_long(root, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/../numa_node", ifname);
	if (p->numa_node < 0)
		p->numa_node = (int)read_long(root, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/threaded", ifname);
	p->threaded = (int)read_long(root, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/napi_defer_hard_irqs", ifname);
	p->defer_hard_irqs = read_long(root, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/gro_flush_timeout", ifname);
	p->gro_flush_timeout = read_long(root, path);
	if (p->numa_node >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
			 p->numa_node);
		read_line(root, path, p->numa_cpus, sizeof(p->numa_cpus));
	}
	p->busy_poll = read_long(root, "/proc/sys/net/core/busy_poll");
	p->busy_read = read_long(root, "/proc/sys/net/core/busy_read");
	return 0;
}

/* sysfs shows the interfaces of the network namespace that mounted it: for
 * an interface of another (pathscope under nsenter --net), a child mounts a
 * sysfs of its own in a private mount namespace, as `ip netns exec` does,
 * reads there and hands the result back through a pipe. */
static int read_in_own_sysfs(const char *ifname, struct ps_nic_placement *p)
{
	size_t got = 0;
	ssize_t n;
	int fds[2], status, rc;
	pid_t pid;

	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		close(fds[0]);
		rc = unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		     umount2("/sys", MNT_DETACH) || mount("sysfs", "/sys", "sysfs", 0, NULL) ||
		     read_placement("", ifname, p);
		if (!rc)
			for (got = 0; got < sizeof(*p); got += (size_t)n)
				if ((n = write(fds[1], (char *)p + got, sizeof(*p) - got)) <= 0)
					break;
		_exit(rc ? 1 : 0);
	}
	close(fds[1]);
	while (got < sizeof(*p) && (n = read(fds[0], (char *)p + got, sizeof(*p) - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return got == sizeof(*p) && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ENODEV;
}

int ps_nic_read_placement(const char *root, const char *ifname, struct ps_nic_placement *p)
{
	int err = read_placement(root, ifname, p);

	if (err == -ENODEV && !*root && if_nametoindex(ifname))
		err = read_in_own_sysfs(ifname, p);
	return err;
}

void ps_nic_read_placement_nl(int ifindex, unsigned int what, struct ps_nic_placement *p)
{
	struct ps_nl gn;
	int err = ps_nl_open(&gn, NETLINK_GENERIC);

	struct ps_nic_queues q;
	struct ps_nic_napis *n;

	if (err) {
		ps_nic_why(p->coal.why, sizeof(p->coal.why), "netlink", err);
		ps_nic_why(p->napi_why, sizeof(p->napi_why), "netlink", err);
		return;
	}
	if (what & PS_NIC_PLACE_COALESCE)
		ps_nic_read_coalesce(&gn, ifindex, &p->coal);
	if ((what & PS_NIC_PLACE_NAPI) && (n = malloc(sizeof(*n)))) {
		ps_nic_read_napis(&gn, ifindex, &q, n);
		if (n->valid)
			ps_nic_place_apply_napi("", p, &q, n);
		else
			snprintf(p->napi_why, sizeof(p->napi_why), "%s", n->why);
		free(q.q);
		free(n);
	}
	ps_nl_close(&gn);
}

void ps_nic_place_apply_napi(const char *root, struct ps_nic_placement *p,
			     const struct ps_nic_queues *q, const struct ps_nic_napis *n)
{
	unsigned int i, k;

	p->napi_why[0] = 0;
	for (i = 0; i < p->nrx; i++) {
		p->rx[i].napi_id = 0;
		p->rx[i].napi_pid = p->rx[i].napi_defer_hard_irqs = -1;
		p->rx[i].napi_gro_flush_timeout = -1;
	}
	for (i = 0; i < q->n; i++) {
		const struct ps_nic_queue *e = &q->q[i];
		struct ps_nic_place_rx *rx;

		if (e->type != PS_NIC_Q_RX || e->id >= p->nrx || !e->napi_id)
			continue;
		rx = &p->rx[e->id];
		rx->napi_id = e->napi_id;
		for (k = 0; k < n->n && n->napi[k].id != e->napi_id; k++)
			;
		if (k == n->n)
			continue;
		rx->napi_pid = n->napi[k].pid;
		rx->napi_defer_hard_irqs = n->napi[k].defer_hard_irqs;
		rx->napi_gro_flush_timeout = n->napi[k].gro_flush_timeout;
		if (n->napi[k].irq < 0)
			continue; /* none (veth): the name match, if any, stays */
		if (rx->irq < 0)
			p->irqs_mapped++;
		if (rx->irq != (int)n->napi[k].irq)
			irq_name(root, (int)n->napi[k].irq, rx->irq_name, sizeof(rx->irq_name));
		set_irq(root, rx, (int)n->napi[k].irq, PS_NIC_IRQ_NETDEV);
	}
	for (i = 0; i < p->nrx && !p->rx[i].napi_id; i++)
		;
	if (i == p->nrx) /* veth on 6.18: NAPIs (GRO, XDP), no queue names one */
		snprintf(p->napi_why, sizeof(p->napi_why),
			 "%u NAPI instances, but the driver maps no queue to one", n->n);
}
