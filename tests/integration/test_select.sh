#!/usr/bin/env bash
# Queue selection (--queues), feature switches (--features), the live L4
# classes of ping and the heatmap of their response times (from a recording
# and live), and `stats --interval --count`.
# --queues 1: 100 datagrams on queue 2 move neither the XDP nor the tc ingress
# totals, 50 CE datagrams on queue 1 are counted there, the JSON lists only
# queue 1. --features ecn and none leave out the other counters (10 datagrams
# are exactly 10 packets and 1000 bytes). ping's echoes are classed exactly (5
# ICMP and 4 ICMPv6 requests, their replies, frame sizes), and `pathscope
# heatmap` of their 9 response times from the two reports around them, and
# live (--duration 2 --record) around 3 more, has cells equal to the
# recording's differences, exactly (the heatmap command under ASan);
# --interval 0.3 --count 3.
. "$(dirname "$0")/lib.sh"
ps_require_root select
ps_require_file select "$PATHSCOPE"
ps_require_file select "$UDPSEND"

ps_testbed_create 4 || { ps_fail select "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'
# One value of vB's stats; "no stats" when they cannot be read, which matches
# no expected value.
jb() {
	local out
	out=$(ps_pathscope_b stats vB --json) && jq -c ".interfaces[0] | $1" <<<"$out" || echo "no stats"
}
send() { # NS_A's TX queue, count, then udpsend options
	local q=$1 n=$2
	shift 2
	ps_txq_pin "$NS_A" vA "$q"
	ps_sink_start "$NS_B" 9000 --expect "$n" --timeout 10
	ps_in_a "$UDPSEND" -n "$n" "$@" || ps_fail "udpsend" "exit $?"
	ps_sink_wait >/dev/null || ps_fail "sink" "did not receive $n"
}

# 1. --queues 1 --features ecn: queue 2 costs nothing and counts nothing.
ps_pathscope_b attach vB --queues 1 --features ecn || ps_fail "attach --queues 1" "exit $?"
ps_wait_quiet 5
base=$(jb '[.totals.xdp.total.packets, .totals.tc_ingress.total.packets]')
[[ $base =~ ^\[[0-9]+,[0-9]+\]$ ]] || ps_fail "--queues 1: stats readable" "$base"
send 2 100 -t 0x03 "$PS_IP4_B" 9000
ps_check_eq "--queues 1: 100 datagrams on queue 2 counted neither at xdp nor at tc ingress" \
	"$(jb '[.totals.xdp.total.packets, .totals.tc_ingress.total.packets]')" "$base"
send 1 50 -t 0x03 "$PS_IP4_B" 9000
ps_check_eq "--queues 1: 50 CE datagrams on queue 1 counted at xdp queue 1" \
	"$(jb '.queues[0] | [.queue, .xdp.total.ecn.ipv4.ce]')" "[1,50]"
ps_check_eq "--queues 1: JSON lists only queue 1" "$(jb '[.queues[].queue]')" "[1]"
ps_check_eq "--queues 1: queues_selected" "$(jb '.queues_selected')" '"1"'
ps_check_eq "--features ecn: no class, size or gro counters" \
	"$(jb '.totals.tc_ingress.total | [has("l3"), has("size"), has("gro"), has("ecn")]')" \
	"[false,false,false,true]"
ps_pathscope_b detach vB

# 2. --features none: packets and bytes only.
ps_pathscope_b attach vB --features none || ps_fail "attach --features none" "exit $?"
ps_wait_quiet 5
base=$(jb '.totals.xdp.total.packets')
send 3 10 -s 58 "$PS_IP4_B" 9000 # 58 + 8 + 20 + 14 = 100-byte frames
ps_check_eq "--features none: 10 packets, 1000 bytes, nothing else" \
	"$(jb "[.totals.xdp.total.packets - $base, (.queues[3].xdp.total | keys)]")" \
	'[10,["bytes","packets"]]'
ps_check_eq "--features none: xdp queue 3 bytes" "$(jb '.queues[3].xdp.total.bytes')" 1000
ps_pathscope_b detach vB

# 3. ping: ICMP and ICMPv6 echo in both directions, classified exactly.
ps_pathscope_b attach vB || ps_fail "attach (all features)" "exit $?"
ps_wait_quiet 5
ps_txq_unpin "$NS_A" vA
b=$(ps_pathscope_b stats vB --json)
ps_in_a ping -c 5 -i 0.1 -q "$PS_IP4_B" >/dev/null || ps_fail "ping" "failed"
ps_in_a ping -6 -c 4 -i 0.1 -q "$PS_IP6_B" >/dev/null || ps_fail "ping -6" "failed"
a=$(ps_pathscope_b stats vB --json)
d() { echo $(($(jq ".interfaces[0] | $1" <<<"$a") - $(jq ".interfaces[0] | $1" <<<"$b"))); }
ps_check_eq "ping: vB xdp sees 5 ICMP echo requests" "$(d .totals.xdp.total.l4.icmp)" 5
ps_check_eq "ping: vB xdp sees 4 ICMPv6 echo requests" "$(d .totals.xdp.total.l4.icmpv6)" 4
ps_check_eq "ping: vB xdp sees nothing else" "$(d .totals.xdp.total.packets)" 9
ps_check_eq "ping: vB tc_egress sends 5 ICMP + 4 ICMPv6 replies" \
	"$(d .totals.tc_egress.total.l4.icmp) $(d .totals.tc_egress.total.l4.icmpv6) $(d .totals.tc_egress.total.packets)" \
	"5 4 9"
ps_check_eq "ping: echo request frames 98 B (IPv4) and 118 B (IPv6)" \
	"$(d .totals.xdp.total.bytes)" $((5 * 98 + 4 * 118))
ps_check_eq "classes sum to the total: l3, l4, ecn, size" \
	"$(jq -c '.interfaces[0].totals.xdp.total | [([.l3[]] | add) == .packets, ([.l4[]] | add) == .l3.ipv4 + .l3.ipv6, ([.ecn.ipv4[]] | add) == .l3.ipv4, ([.ecn.ipv6[]] | add) == .l3.ipv6, .size.count == .packets]' <<<"$a")" \
	"[true,true,true,true,true]"

# The heatmap of vB's response time: from the two reports around the pings
# (a recording), then live with its own recording around 3 more.
TMP=$(mktemp -d)
ps_at_exit "rm -rf $TMP"
printf '%s\n' "$b" "$a" >"$TMP/rec.jsonl"
ps_heat_check ping "$TMP/rec.jsonl" icmp_response vB 9
nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" heatmap icmp_response vB --duration 2 --interval 1 \
	--record "$TMP/live.jsonl" -o "$TMP/live.svg" &
live=$!
for _ in $(seq 50); do [ -s "$TMP/live.jsonl" ] && break; sleep 0.1; done
ps_in_a ping -c 3 -i 0.05 -q "$PS_IP4_B" >/dev/null || ps_fail "ping (live heatmap)" "failed"
wait "$live" || ps_fail "heatmap live" "exit $?"
cells=$(/usr/bin/python3 "$PS_ROOT/tests/tools/heatmap_cells.py" svg "$TMP/live.svg")
ps_check_eq "live heatmap: its cells are its own recording's differences" \
	"$cells" "$(/usr/bin/python3 "$PS_ROOT/tests/tools/heatmap_cells.py" recording "$TMP/live.jsonl" icmp_response)"
ps_check_eq "live heatmap: the 3 responses" "$(awk '{ n += $4 } END { print n + 0 }' <<<"$cells")" 3
a=$(ps_pathscope_b stats vB --json)

# 4. --interval/--count: one JSON object per interval with its own window.
out=$(ps_pathscope_b stats vB --json --interval 0.3 --count 3)
ps_check_eq "stats --interval 0.3 --count 3: three JSON objects" "$(wc -l <<<"$out")" 3
# (under 1 s; under ASan beside the guests, PS_SLOW s)
ps_check_eq "stats --interval: every window about 0.3 s" \
	"$(jq -c --argjson max "$PS_SLOW" '.window_s > 0.25 and .window_s < ([$max, 1] | max)' <<<"$out" | sort -u)" true
ps_check_eq "stats --interval: idle link, zero pps in every window" \
	"$(jq -c '.interfaces[0].totals.xdp.rate.pps' <<<"$out" | sort -u)" 0
ps_check_eq "stats --interval: cumulative totals carried in every object" \
	"$(jq -c '.interfaces[0].totals.xdp.total.packets' <<<"$out" | sort -u)" \
	"$(jq '.interfaces[0].totals.xdp.total.packets' <<<"$a")"
ps_done
