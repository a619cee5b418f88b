#!/usr/bin/env bash
# ICMP/ICMPv6 echo matched in the datapath, against ping's own RTT: the
# pinger's RTT (request at tc egress -> reply at XDP) agrees with ping's
# median within 10% or 20 us, whichever is larger; the pinged host's response
# time (request at XDP -> reply at tc egress) is counted for every echo; a
# flood to an address that never answers leaves the pending map bounded.
. "$(dirname "$0")/lib.sh"
ps_require_root icmp_echo
ps_require_file icmp_echo "$PATHSCOPE"
ps_require_cmd icmp_echo ping bpftool

# ping at 500 echoes/s: at low rates (-i 0.05) ping's own RTT on this VM
# includes 30-40 us of host send/receive path that lies outside the datapath
# (measured: ping 87-92 us vs pathscope 51 us; at -i 0.002 ping 43-53 us).
N=200
INTERVAL=0.002
ps_testbed_create 4 || { ps_fail icmp_echo "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1; ps_pathscope_b detach vB >/dev/null 2>&1'
ps_pathscope_a attach vA || ps_fail "attach vA" "exit $?"
ps_pathscope_b attach vB || ps_fail "attach vB" "exit $?"
ps_wait_quiet 5

# Median of ping's own per-echo times, in ns.
ping_median_ns() {
	grep -o 'time=[0-9.]*' | cut -d= -f2 | sort -g |
		awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%d\n", m * 1000000 }'
}
# |a - b| <= max(10% of b, 20 us)
close_enough() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; t = b / 10; if (t < 20000) t = 20000; exit !(d <= t) }'
}
peer() { ps_pathscope_a stats vA --json | jq -c ".interfaces[0].icmp_peers[] | select(.peer == \"$1\") | $2"; }

# A timing comparison on a shared machine: when the medians disagree, try
# again (at most twice) against a fresh peer address, so that each attempt
# has a per-peer histogram of its own. EXTRA counts the echoes retries add.
EXTRA=0
for i in 21 22; do
	ps_in_b ip addr add "198.18.0.$i/32" dev vB
	ps_in_b ip addr add "2001:db8::$i/128" dev vB nodad
	ps_in_a ip neigh add "198.18.0.$i" lladdr "$PS_MAC_B" dev vA nud permanent
	ps_in_a ip neigh add "2001:db8::$i" lladdr "$PS_MAC_B" dev vA nud permanent
done
for v in 4 6; do
	if [ "$v" = 4 ]; then dst=$PS_IP4_B alt=198.18.0.; else dst=$PS_IP6_B alt=2001:db8::; fi
	tried=""
	for attempt in 1 2 3; do
		[ "$attempt" -gt 1 ] && dst=$alt$((19 + attempt)) && EXTRA=$((EXTRA + N))
		out=$(ps_in_a ping -"$v" -c "$N" -i "$INTERVAL" "$dst") || ps_fail "ping -$v $dst" "failed"
		[ "$attempt" = 1 ] &&
			ps_check_eq "IPv$v: every echo matched for peer $dst" "$(peer "$dst" .rtt_count)" "$N"
		ping_ns=$(ping_median_ns <<<"$out")
		ps_ns=$(peer "$dst" .rtt_ns.p50)
		tried="$tried ${ps_ns}/${ping_ns}"
		close_enough "$ps_ns" "$ping_ns" && break
	done
	if close_enough "$ps_ns" "$ping_ns"; then
		ps_ok "IPv$v: RTT median ${ps_ns} ns agrees with ping's ${ping_ns} ns (attempt $attempt)"
	else
		ps_fail "IPv$v: RTT median agrees with ping" "pathscope/ping ns per attempt:$tried"
	fi
done

a=$(ps_pathscope_a stats vA --json)
b=$(ps_pathscope_b stats vB --json)
ja() { jq -c ".interfaces[0] | $1" <<<"$a"; }
jb() { jq -c ".interfaces[0] | $1" <<<"$b"; }
ps_check_eq "vA: requests sent, replies matched" \
	"$(ja '.totals.icmp_echo | [.requests_sent, .replies_matched, .expired]')" "[$((2 * N + EXTRA)),$((2 * N + EXTRA)),0]"
ps_check_eq "vA: RTT samples per RX queue add up" \
	"$(ja '[.queues[].icmp_echo.rtt_ns.count] | add')" $((2 * N + EXTRA))
ps_check_eq "vB: requests received, replies sent, response times" \
	"$(jb '.totals.icmp_echo | [.requests_received, .replies_sent, .response_ns.count]')" \
	"[$((2 * N + EXTRA)),$((2 * N + EXTRA)),$((2 * N + EXTRA))]"
ps_check_eq "vB: response samples per RX queue of the request add up" \
	"$(jb '[.queues[].icmp_echo.response_ns.count] | add')" $((2 * N + EXTRA))
resp=$(jb .totals.icmp_echo.response_ns.p50)
rtt=$(ja .totals.icmp_echo.rtt_ns.p50)
[ "$resp" -gt 0 ] && [ "$resp" -lt "$rtt" ] && ps_ok "vB response time ($resp ns) is within vA's RTT ($rtt ns)" ||
	ps_fail "vB response time within the RTT" "response $resp ns, rtt $rtt ns"
ps_check_eq "vA: the two addresses have their own peer entry, and all others an empty one" \
	"$(ja '[.icmp_peers[] | select(.peer == "'"$PS_IP4_B"'" or .peer == "'"$PS_IP6_B"'" or .peer == "other") | "\(.peer)=\(.rtt_count)"] | sort')" \
	"[\"$PS_IP4_B=$N\",\"$PS_IP6_B=$N\",\"other=0\"]"
ps_check_eq "table: ICMP echo section with the all-queues row" \
	"$(ps_pathscope_a stats vA | awk '/^ICMP echo/ { s = 1 } s && $1 == "all" { print $2, $3; exit }')" \
	"$((2 * N + EXTRA)) $((2 * N + EXTRA))"

# A flood to an address that never answers: the pending map stays bounded.
FLOOD=6000
ps_in_a ip neigh add 198.18.0.99 lladdr 02:00:c6:12:00:99 dev vA nud permanent
ps_in_a ping -q -c "$FLOOD" -i 0.0002 -W 1 198.18.0.99 >/dev/null 2>&1
pending=$(bpftool map dump pinned "$(ps_pathscope_a status --json | jq -r '.[] | select(.ifname == "vA" and .current_netns) | .pin_dir')/echo_pending" | grep -c '"key"')
sent=$(ps_pathscope_a stats vA --json | jq '.interfaces[0].totals.icmp_echo.requests_sent')
ps_check_eq "flood: every request seen at tc egress" "$sent" $((2 * N + EXTRA + FLOOD))
[ "$pending" -gt 0 ] && [ "$pending" -le 4096 ] && ps_ok "flood: pending echo map bounded ($pending of 4096 entries)" ||
	ps_fail "flood: pending echo map bounded" "$pending entries"
out=$(ps_in_a ping -c 5 -i "$INTERVAL" "$PS_IP4_B") || ps_fail "ping after flood" "failed"
ps_check_eq "after the flood, new echoes still match" "$(peer "$PS_IP4_B" .rtt_count)" $((N + 5))
# Per-peer entries are bounded: 64 peers of their own, the rest as "other".
# 70 more peers (addresses on vB), one echo each.
for i in $(seq 100 169); do
	ps_in_b ip addr add "198.18.0.$i/32" dev vB
	ps_in_a ip neigh add "198.18.0.$i" lladdr "$PS_MAC_B" dev vA nud permanent
done
for i in $(seq 100 169); do ps_in_a ping -c 1 -W 1 -q "198.18.0.$i" >/dev/null || ps_fail "ping 198.18.0.$i" "no reply"; done
a=$(ps_pathscope_a stats vA --json)
ps_check_eq "peers: 64 entries of their own plus one for all others" \
	"$(ja '[.icmp_peers[] | select(.peer != "other")] | length') $(ja '[.icmp_peers[] | select(.peer == "other")] | length')" \
	"64 1"
ps_check_eq "peers: every echo is counted once, own entry or other" \
	"$(ja '[.icmp_peers[].rtt_count] | add')" $((2 * N + EXTRA + 5 + 70))
ps_done
