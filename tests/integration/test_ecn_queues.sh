#!/usr/bin/env bash
# Exact counts of a known UDP workload through a 4-queue veth with pathscope
# attached at both ends: ECN codepoints (IPv4 and IPv6) at the receiver's XDP
# and tc ingress and at the sender's tc egress (the CE marks this host sends),
# classes, and per-queue totals that add up to the workload.
# 2800 UDP datagrams with known codepoints, counted exactly per hook, per
# queue and per direction. The table's CE column and --ecn's codepoint
# columns equal the JSON; the rows shown, the rows it says it left out and
# those of idle queues make --all's rows exactly; no line of the report is
# over 120 columns.
. "$(dirname "$0")/lib.sh"
ps_require_root ecn_queues
ps_require_file ecn_queues "$PATHSCOPE"
ps_require_file ecn_queues "$UDPSEND"

ps_testbed_create 4 || { ps_fail ecn_queues "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1; ps_pathscope_b detach vB >/dev/null 2>&1'
ps_pathscope_a attach vA || ps_fail "attach vA" "exit $?"
ps_pathscope_b attach vB || ps_fail "attach vB" "exit $?"
ps_txq_pin "$NS_A" vA 2 # every datagram leaves vA on TX queue 2, arrives on vB RX queue 2
# Attaching XDP to a veth changes its peer's features, and the stack may send
# an MLD report or two: let that pass, then count from a baseline.
ps_wait_quiet 5
rx0=$(ps_pathscope_b stats vB --json)
tx0=$(ps_pathscope_a stats vA --json)

# The workload: codepoint -> count, per IP version. 6 sender sockets in all.
V4_CE=1000 V4_ECT0=500 V4_ECT1=300 V4_NOT=200
V6_CE=700 V6_ECT0=100
V4=$((V4_CE + V4_ECT0 + V4_ECT1 + V4_NOT)) V6=$((V6_CE + V6_ECT0))
TOTAL=$((V4 + V6)) SOCKETS=6

ps_sink_start "$NS_B" 9000 --expect "$TOTAL" --timeout 20
send() { ps_in_a "$UDPSEND" "$@" || ps_fail "udpsend $*" "exit $?"; }
send -t 0x03 -n "$V4_CE" -s 100 "$PS_IP4_B" 9000
send -t 0x02 -n "$V4_ECT0" -s 200 "$PS_IP4_B" 9000
send -t 0x01 -n "$V4_ECT1" -s 300 "$PS_IP4_B" 9000
send -t 0x00 -n "$V4_NOT" -s 400 "$PS_IP4_B" 9000
send -6 -t 0x03 -n "$V6_CE" -s 100 "$PS_IP6_B" 9000
send -6 -t 0x02 -n "$V6_ECT0" -s 100 "$PS_IP6_B" 9000
got=$(ps_sink_wait)
ps_check_eq "sink received every datagram" "$got" "$TOTAL"

rx=$(ps_pathscope_b stats vB --json)
tx=$(ps_pathscope_a stats vA --json)
# The workload's share of a counter: its value now minus the baseline.
jdelta() { echo $(($(jq -r ".interfaces[0] | $1" <<<"$2") - $(jq -r ".interfaces[0] | $1" <<<"$3"))); }
jrx() { jdelta "$1" "$rx" "$rx0"; }
jtx() { jdelta "$1" "$tx" "$tx0"; }

for hook in xdp tc_ingress; do
	t=".totals.$hook.total"
	ps_check_eq "vB $hook: packets = workload" "$(jrx "$t.packets")" "$TOTAL"
	ps_check_eq "vB $hook: IPv4 CE" "$(jrx "$t.ecn.ipv4.ce")" "$V4_CE"
	ps_check_eq "vB $hook: IPv4 ECT(0)" "$(jrx "$t.ecn.ipv4.ect0")" "$V4_ECT0"
	ps_check_eq "vB $hook: IPv4 ECT(1)" "$(jrx "$t.ecn.ipv4.ect1")" "$V4_ECT1"
	ps_check_eq "vB $hook: IPv4 Not-ECT" "$(jrx "$t.ecn.ipv4.not_ect")" "$V4_NOT"
	ps_check_eq "vB $hook: IPv6 CE" "$(jrx "$t.ecn.ipv6.ce")" "$V6_CE"
	ps_check_eq "vB $hook: IPv6 ECT(0)" "$(jrx "$t.ecn.ipv6.ect0")" "$V6_ECT0"
	ps_check_eq "vB $hook: IPv6 ECT(1) + Not-ECT" \
		"$(jrx "$t.ecn.ipv6.ect1 + $t.ecn.ipv6.not_ect")" 0
	ps_check_eq "vB $hook: l3 ipv4" "$(jrx "$t.l3.ipv4")" "$V4"
	ps_check_eq "vB $hook: l3 ipv6" "$(jrx "$t.l3.ipv6")" "$V6"
	ps_check_eq "vB $hook: l4 udp" "$(jrx "$t.l4.udp")" "$TOTAL"
	ps_check_eq "vB $hook: nothing malformed" "$(jrx "$t.l3.malformed + $t.l4.malformed")" 0
	ps_check_eq "vB $hook: all on RX queue 2" "$(jrx ".queues[2].$hook.total.packets")" "$TOTAL"
	ps_check_eq "vB $hook: per-queue packets sum to the total" \
		"$(jq "[.interfaces[0].queues[].$hook.total.packets] | add" <<<"$rx")" \
		"$(jq ".interfaces[0].totals.$hook.total.packets" <<<"$rx")"
done
# Frame sizes: payload + 8 UDP + 20 IPv4 / 40 IPv6 + 14 Ethernet.
ps_check_eq "vB xdp: bytes = sum of frame sizes" "$(jrx .totals.xdp.total.bytes)" \
	$((V4_CE * 142 + V4_ECT0 * 242 + V4_ECT1 * 342 + V4_NOT * 442 + V6 * 162))
ps_check_eq "vB xdp: size histogram counts every frame" "$(jrx .totals.xdp.total.size.count)" "$TOTAL"
ps_check_eq "vB tc_ingress: no GRO merging of plain UDP" \
	"$(jrx .totals.tc_ingress.total.gro.multi_segment_skbs)" 0

t=.totals.tc_egress.total
ps_check_eq "vA tc_egress: packets = workload" "$(jtx "$t.packets")" "$TOTAL"
ps_check_eq "vA tc_egress: IPv4 CE sent" "$(jtx "$t.ecn.ipv4.ce")" "$V4_CE"
ps_check_eq "vA tc_egress: IPv4 ECT(0) sent" "$(jtx "$t.ecn.ipv4.ect0")" "$V4_ECT0"
ps_check_eq "vA tc_egress: IPv4 ECT(1) sent" "$(jtx "$t.ecn.ipv4.ect1")" "$V4_ECT1"
ps_check_eq "vA tc_egress: IPv6 CE sent" "$(jtx "$t.ecn.ipv6.ce")" "$V6_CE"
ps_check_eq "vA tc_egress: IPv6 ECT(0) sent" "$(jtx "$t.ecn.ipv6.ect0")" "$V6_ECT0"
# tc egress runs before the kernel picks the TX queue: a socket's first
# datagram has no cached queue yet (queue "other"), the rest show queue 2.
ps_check_eq "vA tc_egress: TX queue 2 after each socket's first datagram" \
	"$(jtx ".queues[2].tc_egress.total.packets")" $((TOTAL - SOCKETS))
ps_check_eq "vA tc_egress: one first datagram per socket has no queue yet" \
	"$(jtx '[.queues[] | select(.queue == "other") | .tc_egress.total.packets] | add // 0')" "$SOCKETS"
ps_check_eq "vA xdp and tc_ingress: nothing came back" \
	"$(jtx ".totals.xdp.total.packets + .totals.tc_ingress.total.packets")" 0

# The table names the same numbers as the JSON.
line=$(ps_pathscope_b stats vB | grep -E '^all +xdp ')
ps_check_eq "table: all-queues xdp row has the JSON's packets and CE counts" \
	"$(awk '{print $4, $11}' <<<"$line")" \
	"$(jq -r '.interfaces[0].totals.xdp.total | "\(.packets) \(.ecn.ipv4.ce + .ecn.ipv6.ce)"' <<<"$rx")"
ps_check_eq "table: --ecn adds the NOT_ECT, ECT0 and ECT1 counts, as JSON has them, before CE" \
	"$(ps_pathscope_b stats vB --ecn | grep -E '^all +xdp ' | awk '{ print $11, $12, $13, $14 }')" \
	"$(jq -r '.interfaces[0].totals.xdp.total.ecn as $e | [($e.ipv4, $e.ipv6) | [.not_ect, .ect0, .ect1, .ce]] | transpose | map(add) | map(tostring) | join(" ")' <<<"$rx")"
# Rows without packets: left out, and counted; --all shows exactly those.
rows() { grep -cE '^([0-9]+|other|all) +(xdp|tc_ingress|tc_egress) '; }
tab=$(ps_pathscope_b stats vB)
idle=$(sed -n 's/^(not shown: \([0-9]*\) measured queues\? without packets.*/\1/p' <<<"$tab")
hidden=$(sed -n 's/^(not shown: \([0-9]*\) hook rows\? without packets.*/\1/p' <<<"$tab")
ps_check_eq "table: the rows shown, the rows counted as not shown, and those of idle queues make --all's" \
	"$(($(rows <<<"$tab") + ${hidden:-0} + 3 * ${idle:-0}))" "$(ps_pathscope_b stats vB --all | rows)"
ps_check_eq "table: some rows were without packets here (queues 0, 1, 3 and other; tc egress)" \
	"$([ $((${hidden:-0} + ${idle:-0})) -gt 0 ] && echo yes)" yes
ps_check_eq "table: every line of the default report fits 120 columns" \
	"$(ps_pathscope_b stats vB | awk 'length($0) > 120' | wc -l)" 0
ps_done
