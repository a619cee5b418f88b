// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* firsthop's wire -> XDP line: each state on the fixture, from not
 * device-bound to a NIC clock within 1 ms of TAI, with its exact words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/families/families.h"
#include "tests/lib/check.h"
#include "tests/unit/snapshot_fixture.h"

extern const struct ps_family ps_family_firsthop;

/* The table's "wire -> XDP" line for this snapshot (its counts since 0). */
static void wire_line(struct ps_snapshot *s, char *line, size_t len)
{
	struct ps_snapshot zero = *s;
	struct ps_report r;
	char *text = NULL, *p, *e;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	zero.fh = calloc(s->nslots, sizeof(*s->fh));
	ps_report_init(&r, s, &zero);
	ps_family_firsthop.table(f, &r);
	fclose(f);
	p = strstr(text, "wire -> XDP");
	e = p ? strchr(p, '\n') : NULL;
	snprintf(line, len, "%.*s", p && e ? (int)(e - p) : 0, p ? p : "");
	free(zero.fh);
	free(text);
}

int main(void)
{
	static struct ps_snapshot snaps[2][2];
	struct ps_snapshot *s;
	struct ps_fh_qstats *q;
	char got[256];

	fx_fill(snaps);
	s = &snaps[0][1];
	q = &s->fh[0];
	wire_line(s, got, sizeof(got));
	CHECK_STR("not device-bound", got,
		  "wire -> XDP: not available (XDP is not device-bound: that needs it alone, in "
		  "native mode, on Linux 6.3+)");
	s->meta.flags |= PS_META_RX_HASH;
	wire_line(s, got, sizeof(got));
	CHECK_STR("bound, nothing placed", got, "wire -> XDP: no frame sampled yet");
	q->hw_unsupported = 7;
	wire_line(s, got, sizeof(got));
	CHECK_STR("the driver has none", got,
		  "wire -> XDP: not available (the driver has no XDP RX timestamp: 7 of 7 sampled "
		  "frames refused)");
	q->hw_unsupported = 0;
	q->hw_nodata = 9;
	wire_line(s, got, sizeof(got));
	CHECK_STR("none stamped", got,
		  "wire -> XDP: not available (no hardware RX timestamp on its 9 sampled frames: "
		  "timestamping off, or none on this device)");
	q->hw_stamped = 100;
	q->wire_sum_ns = 100 * 4000ULL;
	q->wire_hist[ps_hist_bucket(4000, PS_LAT_BUCKETS)] = 100;
	wire_line(s, got, sizeof(got));
	CHECK_STR("stamped, clock unchecked", got,
		  "wire -> XDP: not comparable: the NIC clock was not checked (another network "
		  "namespace)");
	s->phc = (struct ps_phc){ .checked = true, .index = -1 };
	wire_line(s, got, sizeof(got));
	CHECK_STR("no PTP clock", got,
		  "wire -> XDP: not comparable: the NIC has no PTP clock to check against TAI");
	s->phc = (struct ps_phc){ .checked = true, .index = 2, .offset_ns = 37000000000LL };
	wire_line(s, got, sizeof(got));
	CHECK_STR("a clock 37 s off (UTC, not TAI)", got,
		  "wire -> XDP: not comparable: the NIC clock is not synchronised (/dev/ptp2 is "
		  "37.000 s from TAI; ptp4l, phc2sys)");
	s->phc.offset_ns = -999999;
	wire_line(s, got, sizeof(got));
	CHECK_STR(
	    "a clock within 1 ms of TAI: the figures", got,
	    "wire -> XDP (the NIC's RX timestamp to XDP, TAI): 100 frames stamped, AVG 4.0us, "
	    "P50 4.0us, P99 4.0us");
	return check_exit_code();
}
