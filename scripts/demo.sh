#!/usr/bin/env bash
# The pathscope demo: a throwaway testbed (two network namespaces joined by a
# 4-queue veth pair, GRO on), pathscope attached to both ends, about 10 s of
# traffic (iperf3 TCP, a CE-marked UDP stream, ping), then the per-queue
# report of each end, with the TCP RTT of the iperf3 flows. Everything is
# removed at the end, also on Ctrl-C.
# Run as root: `make demo` (or `sudo make demo`).
set -u
cd "$(dirname "$0")/.."
. tests/integration/lib.sh

DURATION=${DEMO_SECONDS:-10}
CE_COUNT=$((DURATION * 500)) # one CE-marked datagram every 2 ms

[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (or with sudo)" >&2; exit 1; }
for f in "$PATHSCOPE" "$UDPSEND"; do
	[ -x "$f" ] || { echo "demo: $f is not built (run make)" >&2; exit 1; }
done

echo "== testbed: $PS_DEV_A ($PS_IP4_A) <-> $PS_DEV_B ($PS_IP4_B), 4 queues, GRO on"
ps_testbed_create 4 "psdemoA-$$" "psdemoB-$$" || exit 1
ps_at_exit 'ps_pathscope_a detach vA 2>/dev/null; ps_pathscope_b detach vB 2>/dev/null'

echo "== pathscope attach vA (sender) and vB (receiver), default features and tcp"
ps_pathscope_a attach vA --features default,tcp || exit 1
ps_pathscope_b attach vB --features default,tcp || exit 1
"$PATHSCOPE" status

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
wait "$iperf_client" "$udp_client" "$ping_client"
wait "$iperf_server" 2>/dev/null
sleep 0.2
echo "   udp sink received $(ps_sink_stop) datagrams; iperf3: $(grep -E 'SUM.*receiver|  receiver' /tmp/pathscope-demo-iperf.$$ | tail -1 | awk '{print $(NF-2), $(NF-1)}')"
rm -f /tmp/pathscope-demo-iperf.$$

echo
echo "== pathscope stats vA   (sender: tc egress sees GSO skbs and the CE marks it sends;"
echo "   TCP: the iperf3 flows' network RTT, their handshakes, and vB's ACK delay)"
ps_pathscope_a stats vA
echo
echo "== pathscope stats vA --latency   (sender: the latency budget per RX queue)"
ps_pathscope_a stats vA --latency
echo
echo "== pathscope stats vB --hist   (receiver: XDP sees wire frames, tc ingress sees GRO'd skbs)"
ps_pathscope_b stats vB --hist
echo
echo "== detaching and removing the testbed"
ps_pathscope_a detach vA && ps_pathscope_b detach vB
"$PATHSCOPE" status
