#!/usr/bin/env bash
# The pathscope demo: a throwaway testbed (two network namespaces joined by a
# 4-queue veth pair, GRO on), pathscope attached to both ends, about 10 s of
# traffic (iperf3 TCP, a CE-marked UDP stream, ping) with a one-second stats
# sample mid-run, a check over 1 s of ping, then the per-queue report of each
# end, with the TCP RTT of the iperf3 flows, and how to read it. Everything is removed at
# the end, also on Ctrl-C, but the heatmaps recorded during the traffic (the
# iperf3 flows' TCP RTT on vA, driver to stack on vB, vA's latency budget):
# SVG files in DEMO_OUT (default build/demo), with the recordings they come from.
# Run as root: `make demo` (or `sudo make demo`).
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/integration/lib.sh

DURATION=${DEMO_SECONDS:-10}
OUT=${DEMO_OUT:-$PWD/${PS_BUILD:-build}/demo}
CE_COUNT=$((DURATION * 500)) # one CE-marked datagram every 2 ms

[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (or with sudo)" >&2; exit 1; }
for f in "$PATHSCOPE" "$UDPSEND"; do
	[ -x "$f" ] || { echo "demo: $f is not built (run make)" >&2; exit 1; }
done

echo "== testbed: $PS_DEV_A ($PS_IP4_A) <-> $PS_DEV_B ($PS_IP4_B), 4 queues, GRO on"
ps_testbed_create 4 "psdemoA-$$" "psdemoB-$$" || exit 1
ps_at_exit 'ps_pathscope_a detach vA 2>/dev/null; ps_pathscope_b detach vB 2>/dev/null'

echo "== pathscope attach vA (sender) and vB (receiver), default features and tcp (vB: and flows,"
echo "   firsthop)"
ps_pathscope_a attach vA --features default,tcp || exit 1
ps_pathscope_b attach vB --features default,tcp,flows,firsthop || exit 1
"$PATHSCOPE" status

mkdir -p "$OUT" || exit 1
echo "== recording heatmaps while the traffic runs: the TCP RTT of vA, driver to stack of vB"
echo "   (pathscope heatmap tcp_rtt vA --duration $((DURATION + 1)) --record $OUT/vA.jsonl ...)"
ps_pathscope_a heatmap tcp_rtt vA --duration $((DURATION + 1)) --record "$OUT/vA.jsonl" \
	-o "$OUT/tcp_rtt.svg" &
heat_a=$!
ps_pathscope_b heatmap d2s vB --duration $((DURATION + 1)) --record "$OUT/vB.jsonl" \
	-o "$OUT/d2s.svg" &
heat_b=$!

echo "== traffic for ${DURATION} s: iperf3 TCP (2 streams), $CE_COUNT CE-marked UDP datagrams, ping"
ps_in_b iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
iperf_server=$!
ps_sink_start "$NS_B" 9000 || exit 1
sleep 0.3
ps_in_a iperf3 -c "$PS_IP4_B" -p 5201 -t "$DURATION" -P 2 >/tmp/pathscope-demo-iperf.$$ 2>&1 &
iperf_client=$!
ps_in_a "$UDPSEND" -t 0x03 -n "$CE_COUNT" -i 2000 -s 200 "$PS_IP4_B" 9000 &
udp_client=$!
ps_in_a ping -q -c $((DURATION * 5)) -i 0.2 "$PS_IP4_B" >/dev/null &
ping_client=$!
# While the traffic runs: one sample over a second (a one-shot stats averages
# over the whole time since attach).
sleep $((DURATION / 2 > 1 ? DURATION / 2 - 1 : 0))
echo
echo "== pathscope stats vA --interval 1 --count 1   (mid-run: rates over that one second)"
ps_pathscope_a stats vA --interval 1 --count 1
wait "$iperf_client" "$udp_client" "$ping_client"
wait "$iperf_server" 2>/dev/null
sleep 0.2
echo "   udp sink received $(ps_sink_stop) datagrams; iperf3: $(grep -E 'SUM.*receiver|  receiver' /tmp/pathscope-demo-iperf.$$ | tail -1 | awk '{print $(NF-2), $(NF-1)}')"
rm -f /tmp/pathscope-demo-iperf.$$
wait "$heat_a" "$heat_b"
ps_pathscope_a heatmap budget --from "$OUT/vA.jsonl" -o "$OUT/budget.svg"

# check over 1 s of ping inside its 3 s window: traffic at the window's
# edges, where the layers are read one after the other, shows up as a
# difference (a qemu guest without KVM took 120 ms to read them all).
echo
echo "== pathscope check vB --duration 3   (over 1 s of ping: do XDP, GRO, the stack, tc and"
echo "   the link agree on what vB received? exit 0: they do)"
ckerr=$(mktemp)
ps_at_exit "rm -f '$ckerr'"
ps_pathscope_b check vB --duration 3 2>"$ckerr" &
check=$!
ps_wait_check_counting "$ckerr" || echo "   (check did not say its interval began)"
ps_in_a ping -q -c 50 -i 0.02 "$PS_IP4_B" >/dev/null
wait "$check"
echo "   check: exit $?"
echo
echo "== pathscope stats vA   (sender: tc egress sees GSO skbs and the CE marks it sends;"
echo "   TCP: the iperf3 flows' network RTT, their handshakes, and vB's ACK delay)"
ps_pathscope_a stats vA
echo
echo "== pathscope stats vA --latency   (sender: the latency budget per RX queue)"
ps_pathscope_a stats vA --latency
echo
echo "== pathscope stats vA --heatmap tcp_rtt   (the TCP RTT per RX queue and bucket, since attach)"
ps_pathscope_a stats vA --heatmap tcp_rtt
echo
echo "== pathscope stats vB --hist   (receiver: XDP sees wire frames, tc ingress sees GRO'd skbs)"
ps_pathscope_b stats vB --hist
echo
echo "== pathscope stats vB --latency   (receiver: the first hop, NET_RX softirq wait and place"
echo "   in the run, then driver to stack, per RX queue)"
ps_pathscope_b stats vB --latency
echo
echo "== pathscope flows vB --top 3   (receiver: the flows behind each RX queue, 1 in 32"
echo "   frames sampled; a verdict for a queue over 2/n of the packets; veth has no RSS)"
ps_pathscope_b flows vB --top 3
echo
echo "== how to read it"
echo "   - A one-shot stats gives rates since attach, idle time included; --interval S gives"
echo "     them over the last S seconds (the mid-run sample above)."
echo "   - XDP counts wire frames; tc counts skbs, which GRO (ingress) and GSO (egress) merge:"
echo "     PACKETS and CE% there are per skb, SEGS is the frames per skb."
echo "   - Where each RX queue runs: RX QUEUES BY CPU (its XDP frames by CPU) and First hop"
echo "     (what started its polls, the softirq's wait, each frame's place in its run); on veth"
echo "     the sender's CPU runs the receiver's queue; 'pathscope nic vB' shows IRQs and RPS."
echo "   - Percentiles (P50, P99, ...) are estimates from log-linear buckets (1/8 of a power of"
echo "     two wide); --json carries exact means (*_avg_ns) where the datapath keeps sums."
echo "   - Heatmaps, one panel per queue, time on x, latency on y, colour for the count (open"
echo "     them in a browser): $OUT/tcp_rtt.svg, $OUT/d2s.svg,"
echo "     and the budget $OUT/budget.svg; 'man pathscope-heatmap' says how to draw others."
echo "   - More: man pathscope-stats, man pathscope-metrics (installed by make install)."
echo
echo "== detaching and removing the testbed"
ps_pathscope_a detach vA && ps_pathscope_b detach vB
"$PATHSCOPE" status
