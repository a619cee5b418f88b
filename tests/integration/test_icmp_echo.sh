#!/usr/bin/env bash
# ICMP/ICMPv6 echo matched in the datapath, on the veth testbed: every echo
# of the pinger is matched (request at tc egress -> reply at XDP) and counted
# once per peer and per RX queue; the pinged host's response time (request at
# XDP -> reply at tc egress) is counted for every echo and lies within the
# pinger's RTT; the pending map is an LRU hash of 4096 entries, which a flood
# to an address that never answers fills without keeping new echoes from
# being matched; peers beyond 64 are counted under "other". The RTT itself is
# checked against ping through a known delay in test_icmp_rtt.
# Numbers: 200 echoes per IP version; a flood of 6000 requests to a dead
# address (ping -l: sent at once; ping paces unanswered requests to 100/s)
# leaves more than 3000 entries; 72 peers are 64 entries of their own plus
# "other", every echo counted once.
. "$(dirname "$0")/lib.sh"
ps_require_root icmp_echo
ps_require_file icmp_echo "$PATHSCOPE"
ps_require_cmd icmp_echo ping bpftool

N=200
INTERVAL=0.002
ps_testbed_create 4 || { ps_fail icmp_echo "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1; ps_pathscope_b detach vB >/dev/null 2>&1'
ps_pathscope_a attach vA || ps_fail "attach vA" "exit $?"
ps_pathscope_b attach vB || ps_fail "attach vB" "exit $?"
ps_wait_quiet 5

peer() { ps_pathscope_a stats vA --json | jq -c ".interfaces[0].icmp_peers[] | select(.peer == \"$1\") | $2"; }

for v in 4 6; do
	if [ "$v" = 4 ]; then dst=$PS_IP4_B; else dst=$PS_IP6_B; fi
	ps_in_a ping -"$v" -q -c "$N" -i "$INTERVAL" "$dst" >/dev/null || ps_fail "ping -$v $dst" "failed"
	ps_check_eq "IPv$v: every echo matched for peer $dst" "$(peer "$dst" .rtt_count)" "$N"
done

a=$(ps_pathscope_a stats vA --json)
b=$(ps_pathscope_b stats vB --json)
ja() { jq -c ".interfaces[0] | $1" <<<"$a"; }
jb() { jq -c ".interfaces[0] | $1" <<<"$b"; }
ps_check_eq "vA: requests sent, replies matched" \
	"$(ja '.totals.icmp_echo | [.requests_sent, .replies_matched, .expired]')" "[$((2 * N)),$((2 * N)),0]"
ps_check_eq "vA: RTT samples per RX queue add up" \
	"$(ja '[.queues[].icmp_echo.rtt_ns.count] | add')" $((2 * N))
ps_check_eq "vB: requests received, replies sent, response times" \
	"$(jb '.totals.icmp_echo | [.requests_received, .replies_sent, .response_ns.count]')" \
	"[$((2 * N)),$((2 * N)),$((2 * N))]"
ps_check_eq "vB: response samples per RX queue of the request add up" \
	"$(jb '[.queues[].icmp_echo.response_ns.count] | add')" $((2 * N))
resp=$(jb .totals.icmp_echo.response_ns.p50)
rtt=$(ja .totals.icmp_echo.rtt_ns.p50)
[ "$resp" -gt 0 ] && [ "$resp" -lt "$rtt" ] && ps_ok "vB response time ($resp ns) is within vA's RTT ($rtt ns)" ||
	ps_fail "vB response time within the RTT" "response $resp ns, rtt $rtt ns"
ps_check_eq "vA: the two addresses have their own peer entry, and all others an empty one" \
	"$(ja '[.icmp_peers[] | select(.peer == "'"$PS_IP4_B"'" or .peer == "'"$PS_IP6_B"'" or .peer == "other") | "\(.peer)=\(.rtt_count)"] | sort')" \
	"[\"$PS_IP4_B=$N\",\"$PS_IP6_B=$N\",\"other=0\"]"
ps_check_eq "table: ICMP echo section with the all-queues row" \
	"$(ps_pathscope_a stats vA | awk '/^ICMP echo/ { s = 1 } s && $1 == "all" { print $2, $3; exit }')" \
	"$((2 * N)) $((2 * N))"

# A flood to an address that never answers: the pending map stays bounded.
# ping sends at most 100 unanswered requests a second (104 s for these) unless
# preloaded: -l sends them all at once (10-25 ms here), then waits -W for replies.
FLOOD=6000
ps_in_a ip neigh add 198.18.0.99 lladdr 02:00:c6:12:00:99 dev vA nud permanent
ps_in_a ping -q -c "$FLOOD" -l "$FLOOD" -i 0.0002 -W 0.1 198.18.0.99 >/dev/null 2>&1
pin=$(ps_pathscope_a status --json | jq -r '.[] | select(.ifname == "vA" and .current_netns) | .pin_dir')/icmp_pending
sent=$(ps_pathscope_a stats vA --json | jq '.interfaces[0].totals.icmp_echo.requests_sent')
ps_check_eq "flood: every request seen at tc egress" "$sent" $((2 * N + FLOOD))
ps_check_eq "flood: the pending map is an LRU hash of 4096 entries" \
	"$(bpftool map show pinned "$pin" -j | jq -c '[.type, .max_entries]')" '["lru_hash",4096]'
# The flood's requests stay pending (they are never answered), more of them
# than the map holds: the map evicted the oldest.
pending=$(bpftool map dump pinned "$pin" -j | jq length)
[ "$pending" -ge 3000 ] && ps_ok "flood: the map is full of unanswered requests ($pending entries)" ||
	ps_fail "flood: the map is full of unanswered requests" "$pending entries"
out=$(ps_in_a ping -c 5 -i "$INTERVAL" "$PS_IP4_B") || ps_fail "ping after flood" "failed"
ps_check_eq "after the flood, new echoes still match (the LRU makes room)" "$(peer "$PS_IP4_B" .rtt_count)" $((N + 5))
# Per-peer entries are bounded: 64 peers of their own, the rest as "other".
# 70 more peers (addresses on vB), one echo each.
for i in $(seq 100 169); do echo "addr add 198.18.0.$i/32 dev vB"; done | ip -n "$NS_B" -batch - ||
	ps_fail "peers: 70 addresses on vB" "exit $?"
for i in $(seq 100 169); do echo "neigh add 198.18.0.$i lladdr $PS_MAC_B dev vA nud permanent"; done |
	ip -n "$NS_A" -batch - || ps_fail "peers: 70 neighbours on vA" "exit $?"
for i in $(seq 100 169); do ps_in_a ping -c 1 -W 1 -q "198.18.0.$i" >/dev/null || ps_fail "ping 198.18.0.$i" "no reply"; done
a=$(ps_pathscope_a stats vA --json)
ps_check_eq "peers: 64 entries of their own plus one for all others" \
	"$(ja '[.icmp_peers[] | select(.peer != "other")] | length') $(ja '[.icmp_peers[] | select(.peer == "other")] | length')" \
	"64 1"
ps_check_eq "peers: every echo is counted once, own entry or other" \
	"$(ja '[.icmp_peers[].rtt_count] | add')" $((2 * N + 5 + 70))
ps_done
