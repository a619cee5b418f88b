// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the renderers (table, histograms, JSON, Prometheus text and protobuf) on
 * any counter contents: the input fills the meta and every per-queue map of a snapshot. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/kernel_path.h"
#include "stats/render/render.h"
#include "stats/render/render.h"

#define NQ 2

static struct ps_qstats hooks[PS_HOOK_COUNT][NQ + 1];
static struct ps_icmp_qstats echo[NQ + 1];
static struct ps_txlat_qstats txlat[NQ + 1];
static struct ps_d2s_qstats d2s[NQ + 1];
static struct ps_kern_qstats kq[NQ + 1];
static struct ps_peer_entry peers[2];
static struct ps_napi_entry napi[2];
static struct ps_drop_entry drops[2];
static struct ps_softirq_cpu sirq[2];

/* Copy as much of the input as fits into dst; the rest stays zero. */
static void take(void *dst, size_t n, const uint8_t **p, size_t *left)
{
	size_t k = n < *left ? n : *left;

	memset(dst, 0, n);
	memcpy(dst, *p, k);
	*p += k;
	*left -= k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_snapshot s = {}, prev;
	struct ps_kern_snapshot k = {};
	struct ps_report r;
	const uint8_t *p = data;
	size_t left = size;
	FILE *out = fopen("/dev/null", "w");

	if (!out)
		return 0;
	take(&s.meta, sizeof(s.meta), &p, &left);
	s.meta.nqueues = NQ; /* the maps below have NQ + 1 slots */
	s.meta.ifname[sizeof(s.meta.ifname) - 1] = '\0';
	s.meta.join_path[sizeof(s.meta.join_path) - 1] = '\0';
	s.nslots = NQ + 1;
	take(&s.mono_ns, sizeof(s.mono_ns), &p, &left);
	take(hooks, sizeof(hooks), &p, &left);
	take(echo, sizeof(echo), &p, &left);
	take(txlat, sizeof(txlat), &p, &left);
	take(d2s, sizeof(d2s), &p, &left);
	take(peers, sizeof(peers), &p, &left);
	take(kq, sizeof(kq), &p, &left);
	take(napi, sizeof(napi), &p, &left);
	take(drops, sizeof(drops), &p, &left);
	take(sirq, sizeof(sirq), &p, &left);
	for (int h = 0; h < PS_HOOK_COUNT; h++)
		s.hook[h] = hooks[h];
	s.echo = echo;
	s.txlat = txlat;
	s.d2s = d2s;
	s.peers = peers;
	s.npeers = 2;
	k.nslots = NQ + 1;
	k.q = kq;
	k.napi = napi;
	k.nnapi = 2;
	k.drops = drops;
	k.ndrops = 2;
	k.softirq = sirq;
	k.ncpus = 2;
	s.kern = &k;

	prev = s;
	prev.mono_ns = s.mono_ns / 2;
	ps_report_init(&r, &s, NULL);
	ps_render_table(out, &r, 1);
	ps_render_hist(out, &r, 1);
	ps_render_json(out, &r, 1);
	ps_report_init(&r, &s, &prev);
	ps_render_json(out, &r, 1);
	ps_render_prom(out, &s, 1, NULL); /* serve's default: per interface */
	{
		struct ps_prom_extra x = { .bpf_stats_enabled = -1,
					   .queue_detail = s.meta.features }; /* per queue */

		ps_render_prom(out, &s, 1, &x);
		x.protobuf = true; /* serve --native-histograms */
		ps_render_prom(out, &s, 1, &x);
	}
	fclose(out);
	return 0;
}
