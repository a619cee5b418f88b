#!/usr/bin/env bash
# Driver-to-stack latency (XDP -> tc ingress), sampled 1 in 64 per CPU, under
# iperf3 TCP with GRO on: samples are taken at the expected rate, nearly all
# are recognised in their GRO'd skb, the latency is plausible, and GRO merges
# as much with the feature as without it.
. "$(dirname "$0")/lib.sh"
ps_require_root d2s
ps_require_file d2s "$PATHSCOPE"
ps_require_cmd d2s iperf3

ps_testbed_create 4 || { ps_fail d2s "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'

# Attach with FEATURES, run 2 s of iperf3 A -> B, print stats JSON, detach.
run() {
	local srv
	ps_pathscope_b attach vB --features "$1" || ps_fail "attach --features $1" "exit $?"
	ps_wait_quiet 5
	ip netns exec "$NS_B" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	ps_in_a iperf3 -c "$PS_IP4_B" -p 5201 -t 2 -P 2 >/dev/null 2>&1 || ps_fail "iperf3" "exit $?"
	wait "$srv"
	ps_pathscope_b stats vB --json
	ps_pathscope_b detach vB
}

with=$(run class,ecn,sizes,gro,icmp,d2s)
without=$(run class,ecn,sizes,gro,icmp)
j() { jq -r ".interfaces[0] | $2" <<<"$1"; }

pkts=$(j "$with" .totals.xdp.total.packets)
sampled=$(j "$with" .totals.driver_to_stack.sampled)
matched=$(j "$with" .totals.driver_to_stack.matched)
expired=$(j "$with" .totals.driver_to_stack.expired)
# Every 64th packet of each CPU is a candidate; all iperf3 packets are TCP.
lo=$((pkts / 64 * 9 / 10 - 2)) hi=$((pkts / 64 + $(nproc)))
[ "$sampled" -ge "$lo" ] && [ "$sampled" -le "$hi" ] &&
	ps_ok "sampled $sampled of $pkts packets (1 in 64 per CPU)" ||
	ps_fail "sampling rate 1 in 64" "sampled $sampled of $pkts (want $lo..$hi)"
[ $((matched * 100)) -ge $((sampled * 90)) ] && ps_ok "samples recognised at tc ingress: $matched of $sampled" ||
	ps_fail "samples recognised at tc ingress" "$matched of $sampled"
ps_check_eq "every sample is matched, expired or still pending" \
	$((sampled - matched - expired <= 1 && sampled - matched - expired >= 0)) 1
ps_check_eq "latency histogram holds the matched samples" \
	"$(j "$with" .totals.driver_to_stack.latency_ns.count)" "$matched"
ps_check_eq "per-queue samples add up" \
	"$(j "$with" '[.queues[].driver_to_stack.sampled] | add')" "$sampled"
p50=$(j "$with" .totals.driver_to_stack.latency_ns.p50)
[ "$p50" -gt 1000 ] && [ "$p50" -lt 10000000 ] && ps_ok "median driver-to-stack latency $p50 ns (1 us .. 10 ms)" ||
	ps_fail "median driver-to-stack latency plausible" "$p50 ns"
ps_check_eq "without the feature: no driver_to_stack object" \
	"$(j "$without" '.totals | has("driver_to_stack")')" false
# GRO: the same merging with and without (no metadata rides with packets).
a=$(j "$with" .totals.tc_ingress.total.gro.avg_segments)
b=$(j "$without" .totals.tc_ingress.total.gro.avg_segments)
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= b * 0.75 && a <= b * 1.33) }' &&
	ps_ok "GRO unaffected: $a segments per skb with d2s, $b without" ||
	ps_fail "GRO unaffected" "$a segments per skb with d2s, $b without"
for run in with without; do
	js=${!run}
	ps_check_eq "GRO keeps every frame ($run d2s): xdp frames = tc ingress segments" \
		"$(j "$js" .totals.xdp.total.packets)" "$(j "$js" .totals.tc_ingress.total.gro.segments)"
done
ps_done
