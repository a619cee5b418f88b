// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nic/placement.c on a sysfs and procfs tree written here, as a virtio-net NIC with 4
 * queue pairs shows them: each RX queue's IRQ and affinities, RPS, XPS, the NAPI
 * knobs and each queue's NAPI from netdev netlink. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/check.h"
#include "nic/netdev.h"
#include "nic/placement.h"

static char root[64];

static void put(const char *path, const char *text)
{
	char full[512], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (slash = strchr(full + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(full, 0755);
		*slash = '/';
	}
	f = fopen(full, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void tree(void)
{
	char path[256];
	int q;

	/* the NIC: its device is the virtio device, whose parent is the PCI one */
	mkdir(strcat(strcpy(path, root), "/pci"), 0755);
	put("pci/virtio3/x", "");
	put("pci/msi_irqs/40", "msix\n");
	for (q = 0; q < 4; q++) {
		snprintf(path, sizeof(path), "pci/msi_irqs/%d", 41 + 2 * q);
		put(path, "msix\n");
		snprintf(path, sizeof(path), "pci/msi_irqs/%d", 42 + 2 * q);
		put(path, "msix\n");
	}
	put("pci/numa_node", "1\n");
	put("sys/devices/system/node/node1/cpulist", "2-3\n");
	put("sys/class/net/eth9/threaded", "0\n");
	put("sys/class/net/eth9/napi_defer_hard_irqs", "2\n");
	put("sys/class/net/eth9/gro_flush_timeout", "500000\n");
	for (q = 0; q < 4; q++) {
		snprintf(path, sizeof(path), "sys/class/net/eth9/queues/rx-%d/rps_cpus", q);
		put(path, q == 2 ? "00000000,0000000c\n" : "00000000,00000000\n");
		snprintf(path, sizeof(path), "sys/class/net/eth9/queues/rx-%d/rps_flow_cnt", q);
		put(path, "0\n");
		snprintf(path, sizeof(path), "sys/class/net/eth9/queues/tx-%d/xps_cpus", q);
		put(path, q == 1 ? "2\n" : "0\n");
		snprintf(path, sizeof(path), "sys/class/net/eth9/queues/tx-%d/xps_rxqs", q);
		put(path, "0\n");
		snprintf(path, sizeof(path), "proc/irq/%d/smp_affinity_list", 41 + 2 * q);
		put(path, q == 3 ? "0-3\n" : "1\n");
		snprintf(path, sizeof(path), "proc/irq/%d/effective_affinity_list", 41 + 2 * q);
		put(path, q == 3 ? "2\n" : "1\n");
	}
	snprintf(path, sizeof(path), "%s/sys/class/net/eth9/device", root);
	symlink("../../../../pci/virtio3", path);
	put("proc/interrupts",
	    "           CPU0       CPU1\n"
	    " 38:         10          2   PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
	    " 40:          0          0   PCI-MSIX-0000:00:04.0   0-edge      virtio3-config\n"
	    " 41:        100          0   PCI-MSIX-0000:00:04.0   1-edge      virtio3-input.0\n"
	    " 42:          0          0   PCI-MSIX-0000:00:04.0   2-edge      virtio3-output.0\n"
	    " 43:        100          0   PCI-MSIX-0000:00:04.0   3-edge      virtio3-input.1\n"
	    " 44:          0          0   PCI-MSIX-0000:00:04.0   4-edge      virtio3-output.1\n"
	    " 45:          0        100   PCI-MSIX-0000:00:04.0   5-edge      virtio3-input.2\n"
	    " 46:          0          0   PCI-MSIX-0000:00:04.0   6-edge      virtio3-output.2\n"
	    " 47:          7          9   PCI-MSIX-0000:00:04.0   7-edge      virtio3-input.3\n"
	    " 48:          0          0   PCI-MSIX-0000:00:04.0   8-edge      virtio3-output.3\n"
	    "NMI:          0          0   Non-maskable interrupts\n");
	put("proc/sys/net/core/busy_poll", "50\n");
	put("proc/sys/net/core/busy_read", "0\n");
	/* a veth: queues, no device */
	put("sys/class/net/veth9/queues/rx-0/rps_cpus", "1\n");
	put("sys/class/net/veth9/queues/tx-0/xps_cpus", "0\n");
}

/* NAPI_GET says: queue 0's NAPI 8193 has IRQ 45 (not 41 as its name says:
 * the NAPI wins), threaded (pid 812), defer 2, gro 500000; queue 1's NAPI
 * 8194 IRQ 43 (as named); queue 2's NAPI 8195 no IRQ (its name match, 45,
 * stays); queue 3 no NAPI id; a TX queue's NAPI is not an RX one's. */
static void napi(struct ps_nic_placement *p)
{
	static struct ps_nic_queue qs[] = {
		{ .type = PS_NIC_Q_RX, .id = 0, .napi_id = 8193 },
		{ .type = PS_NIC_Q_RX, .id = 1, .napi_id = 8194 },
		{ .type = PS_NIC_Q_RX, .id = 2, .napi_id = 8195 },
		{ .type = PS_NIC_Q_RX, .id = 3, .napi_id = 0 },
		{ .type = PS_NIC_Q_TX, .id = 3, .napi_id = 8193 },
	};
	static struct ps_nic_napis n = {
		.valid = true,
		.n = 3,
		.napi = { { 8193, 45, 812, 2, 500000 },
			  { 8194, 43, -1, 0, 0 },
			  { 8195, -1, -1, 0, 0 } },
	};
	struct ps_nic_queues q = { .valid = true, .q = qs, .n = 5 };
	unsigned int i;

	ps_nic_place_apply_napi(root, p, &q, &n);
	CHECK_TRUE("RX queue 0: NAPI 8193's IRQ 45 over the name's 41, from netdev netlink",
		   p->rx[0].irq == 45 && p->rx[0].irq_src == PS_NIC_IRQ_NETDEV &&
		       p->rx[0].napi_id == 8193);
	CHECK_STR("RX queue 0: IRQ 45's name", p->rx[0].irq_name, "virtio3-input.2");
	CHECK_STR("RX queue 0: IRQ 45's effective affinity, read again", p->rx[0].effective, "1");
	CHECK_TRUE("RX queue 0: NAPI thread 812, defer 2, gro_flush_timeout 500000",
		   p->rx[0].napi_pid == 812 && p->rx[0].napi_defer_hard_irqs == 2 &&
		       p->rx[0].napi_gro_flush_timeout == 500000);
	CHECK_TRUE("RX queue 1: IRQ 43 from netdev netlink, no thread",
		   p->rx[1].irq == 43 && p->rx[1].irq_src == PS_NIC_IRQ_NETDEV &&
		       p->rx[1].napi_pid == -1);
	CHECK_TRUE("RX queue 2: NAPI without IRQ: the name's 45 stays",
		   p->rx[2].irq == 45 && p->rx[2].irq_src == PS_NIC_IRQ_PROC &&
		       p->rx[2].napi_id == 8195);
	CHECK_TRUE("RX queue 3: no NAPI id: as named, 47",
		   p->rx[3].irq == 47 && p->rx[3].irq_src == PS_NIC_IRQ_PROC &&
		       p->rx[3].napi_id == 0 && p->rx[3].napi_pid == -1);
	CHECK_EQ_U64("still 4 RX queues with an IRQ", p->irqs_mapped, 4);
	CHECK_STR("NAPI answered: no reason", p->napi_why, "");
	/* veth on 6.18: NAPI instances, but QUEUE_GET names none of them */
	for (i = 0; i < 4; i++)
		qs[i].napi_id = 0;
	ps_nic_place_apply_napi(root, p, &q, &n);
	CHECK_STR("no queue maps to a NAPI: said", p->napi_why,
		  "3 NAPI instances, but the driver maps no queue to one");
}

/* The tree: (its vectors on its PCI parent, named virtioN-input.Q in
 * /proc/interrupts beside another device's): each RX queue's IRQ, affinity and
 * effective affinity, RPS, XPS, the NAPI knobs; a veth-like device without
 * vectors; CPU masks as lists; IRQ names of several drivers. */
int main(void)
{
	static struct ps_nic_placement p;
	char buf[64], cmd[128];

	snprintf(root, sizeof(root), "/tmp/ps-placement.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	tree();
	CHECK_EQ_U64("eth9: read", ps_nic_read_placement(root, "eth9", &p), 0);
	CHECK_TRUE("eth9: 4 RX and 4 TX queues", p.nrx == 4 && p.ntx == 4);
	CHECK_EQ_U64("eth9: its 9 vectors (on its PCI parent)", p.nvectors, 9);
	CHECK_EQ_U64("eth9: every RX queue's IRQ named after it", p.irqs_mapped, 4);
	CHECK_TRUE("RX queues 0..3: IRQs 41, 43, 45, 47 (not virtio2's 38, not the output ones)",
		   p.rx[0].irq == 41 && p.rx[1].irq == 43 && p.rx[2].irq == 45 &&
		       p.rx[3].irq == 47);
	CHECK_STR("RX queue 3's IRQ name", p.rx[3].irq_name, "virtio3-input.3");
	CHECK_TRUE("RX queue 3: affinity 0-3, effective 2",
		   !strcmp(p.rx[3].affinity, "0-3") && !strcmp(p.rx[3].effective, "2"));
	CHECK_STR("RX queue 2's RPS CPUs (mask 0000000c)", p.rx[2].rps, "2-3");
	CHECK_STR("RX queue 0: no RPS", p.rx[0].rps, "");
	CHECK_STR("TX queue 1's XPS CPUs (mask 2)", p.tx[1].xps_cpus, "1");
	CHECK_TRUE("the NUMA node of its PCI parent: 1", p.numa_node == 1);
	CHECK_STR("NUMA node 1's CPUs", p.numa_cpus, "2-3");
	CHECK_TRUE("RX queue 0's IRQ source: /proc/interrupts, no NAPI yet",
		   p.rx[0].irq_src == PS_NIC_IRQ_PROC && p.rx[0].napi_id == 0 &&
		       p.rx[0].napi_pid == -1);
	napi(&p);
	CHECK_TRUE("NAPI threads off, defer 2, gro_flush_timeout 500000, busy_poll 50, busy_read 0",
		   p.threaded == 0 && p.defer_hard_irqs == 2 && p.gro_flush_timeout == 500000 &&
		       p.busy_poll == 50 && p.busy_read == 0);
	CHECK_EQ_U64("veth9: read", ps_nic_read_placement(root, "veth9", &p), 0);
	CHECK_TRUE("veth9: no vectors, no IRQ, its RPS 0, NUMA node unknown",
		   p.nvectors == 0 && p.rx[0].irq == -1 && !strcmp(p.rx[0].rps, "0") &&
		       p.numa_node == -1 && p.threaded == -1);
	CHECK_TRUE("an interface without sysfs: -ENODEV",
		   ps_nic_read_placement(root, "nope0", &p) < 0);

	ps_nic_mask_list("00000000,00000003", buf, sizeof(buf));
	CHECK_STR("mask 00000000,00000003", buf, "0-1");
	ps_nic_mask_list("00000001,00000005", buf, sizeof(buf));
	CHECK_STR("mask 00000001,00000005: CPUs 0, 2 and 32", buf, "0,2,32");
	ps_nic_mask_list("ff", buf, sizeof(buf));
	CHECK_STR("mask ff", buf, "0-7");
	ps_nic_mask_list("0", buf, sizeof(buf));
	CHECK_STR("mask 0: none", buf, "");
	CHECK_TRUE("IRQ names: virtio, Intel TxRx, mlx5, an rx- vector, none",
		   ps_nic_irq_queue("virtio0-input.7") == 7 &&
		       ps_nic_irq_queue("ice-eth1-TxRx-12") == 12 &&
		       ps_nic_irq_queue("mlx5_comp5@pci:0000:3b:00.0") == 5 &&
		       ps_nic_irq_queue("eth1-rx-2") == 2 &&
		       ps_nic_irq_queue("virtio0-config") == -1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		return 1;
	return check_exit_code();
}
