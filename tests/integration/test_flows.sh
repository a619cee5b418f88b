#!/usr/bin/env bash
# `pathscope flows` (feature flows) on the testbed's 4-queue veth, each flow's
# RX queue known independently of pathscope: flows are sent one at a time and
# veth's own per-queue counter (ethtool -S rx_queue_N_xdp_packets) says which
# queue each went to and how many frames it had (tests/tools/flowsend.py
# binds each flow's source port, so its 5-tuple is known before it is sent).
#   1. --flow-sample 1: 12 IPv4 UDP flows of distinct counts and sizes: each
#      one is on its queue with exactly its packets and bytes (the frame at
#      XDP: 14 + 20 + 8 + payload); each queue's packets are the driver's.
#   2. Keys: an IPv6 UDP flow (14 + 40 + 8 + payload), a TCP connection (its
#      frames per queue as the driver counted them, its ports, proto tcp), 5
#      pings (icmp, a 3-tuple: sport and dport null, 98-byte frames).
#   3. --flow-sample 16: a flow of 16,000 datagrams is counted within the
#      binomial bound: 16 x Binomial(16000, 1/16) has mean 16,000 and sd
#      sqrt(16000 x 15/16 x 16) = 490; 4 sd (1,960) fail by chance once in
#      16,000 runs. Its queue's packets are exact.
#   4. The elephant: 500 flows of 2 datagrams (300 pinned to queue 2 with
#      XPS, 200 where their socket's hash sends them), then one flow sized
#      from the driver's counters to be 60% of the interface's packets (over
#      2/4 alone): it is queue 2's top flow with exactly its share, queue 2
#      is hot and its verdict is elephant, not collision.
#   5. A collision: flows of 300 and 290 datagrams on queue 1 and one of 250
#      on queue 3: queue 1 is hot (70%; queue 3's 30% is not over 2/4), its
#      two flows each over a fair share (1/4 of 840): the verdict is
#      collision, with the ethtool rule that steers the second flow to the
#      coolest queue; not an elephant (300 is under 2/4); few holds too (3
#      distinct flows for 4 queues).
#   7. Overflow: 20,000 one-datagram flows into the table of 16,384: the
#      flows it holds plus those it counts as evicted are exactly the flows
#      sent; flows' text says so, and stats --json's evicted is the same.
#   6. Bad input: one line each, exit 2 (options) or 1 (interface unknown,
#      not attached, feature flows not attached); --flow of a flow seen
#      names the driver's queue for it, and no prediction (veth: no RSS).
# Also: the hot queues are those over 2/4 of the driver's packets; the
# text's rows equal the JSON; at N=16 the count is a multiple of 16 (40 such
# flows measured here: mean 15,955, sd 501); the elephant's run has 501 flows;
# a --flow not seen says so. Mutants it fails: bytes without the Ethernet
# header, every flow keyed to queue 0, counts not scaled by N, a skip draw
# halved, a hot queue over 1/n.
. "$(dirname "$0")/lib.sh"
ps_require_root flows
ps_require_cmd flows ip ethtool jq ping nsenter python3
ps_require_file flows "$PATHSCOPE"
ps_require_file flows "$UDPSEND"

ps_testbed_create 4 || {
	ps_fail flows "testbed setup failed"
	ps_done
}
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'
SEND=$PS_ROOT/tests/tools/flowsend.py
A=$PS_IP4_A B=$PS_IP4_B DPORT=9000

# veth's per-RX-queue XDP frames of vB: "q0 q1 q2 q3".
xq() {
	ps_in_b ethtool -S vB | awk '$1 ~ /^rx_queue_[0-3]_xdp_packets:$/ { q = substr($1, 10) + 0; v[q] = $2 }
		END { print v[0] + 0, v[1] + 0, v[2] + 0, v[3] + 0 }'
}
# "a0 a1 a2 a3" - "b0 b1 b2 b3"
xq_sub() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y); print x[1] - y[1], x[2] - y[2], x[3] - y[3], x[4] - y[4] }'; }
xq_sum() { awk -v a="$1" 'BEGIN { split(a, x); print x[1] + x[2] + x[3] + x[4] }'; }

# run WANT CMD...: run CMD, then wait until vB's driver counted WANT more
# frames (at most 5 s; WANT "quiet": until the link is quiet). Sets DELTA (per
# queue, "d0 d1 d2 d3") and FQ: the one queue that moved, or "split".
run() {
	local want=$1 before now i q n
	shift
	before=$(xq)
	if ! "$@"; then
		ps_fail "workload '$*'" "exit $?"
		now=$(xq)
	elif [ "$want" = quiet ]; then
		ps_wait_quiet 5
		now=$(xq)
	else
		for i in $(seq 50); do
			now=$(xq)
			[ "$(xq_sum "$(xq_sub "$now" "$before")")" -ge "$want" ] && break
			sleep 0.1
		done
	fi
	DELTA=$(xq_sub "$now" "$before")
	FQ=split n=0 q=0
	for i in $DELTA; do
		[ "$i" -ne 0 ] && FQ=$q n=$((n + 1))
		q=$((q + 1))
	done
	[ "$n" -eq 1 ] || FQ="split"
}
udp4() { ps_in_a python3 "$SEND" udp "$A" "$@"; } # SPORT DST DPORT COUNT BYTES [NFLOWS]

# pathscope flows vB ARGS... --json: the JSON in J ("" if it failed).
fj() { J=$(ps_pathscope_b flows vB --json "$@") || J=; }
jqj() { [ -n "$J" ] && jq -c "$1" <<<"$J" || echo "no output"; }

attach() { # N: features default,flows, --flow-sample N; "none": default alone
	ps_pathscope_b detach vB >/dev/null 2>&1
	if [ "$1" = none ]; then
		ps_pathscope_b attach vB >/dev/null || ps_fail "attach (default features)" "exit $?"
	else
		ps_pathscope_b attach vB --features default,flows --flow-sample "$1" >/dev/null ||
			ps_fail "attach --flow-sample $1" "exit $?"
	fi
	ps_wait_quiet 5 || ps_fail "quiet link after attach" "vA<->vB still busy"
	BASE=$(xq)
}

ps_sink_start "$NS_B" $DPORT || ps_fail sink "no UDP sink on $DPORT"

# ---- 6a. not attached, feature not attached --------------------------------------
ps_expect_error "flows of an interface not attached: one line, exit 1" \
	"^pathscope: 'vB' is not attached \(run 'pathscope attach vB'\)$" ps_pathscope_b flows vB
ps_check_eq "... exit 1" "$(ps_pathscope_b flows vB >/dev/null 2>&1; echo $?)" 1
attach none
err=$(ps_pathscope_b flows vB 2>&1 >/dev/null) && rc=0 || rc=$?
ps_check_eq "attached without flows: one line naming the feature, exit 1" "$rc $err" \
	"1 pathscope: vB: feature flows is not attached (pathscope attach vB --features default,flows)"

# ---- 1. N = 1: 12 IPv4 UDP flows, exact ------------------------------------------
attach 1
EXP=() # "queue sport packets bytes", as the driver and the sizes give them
for i in $(seq 0 11); do
	sport=$((40000 + i)) count=$((5 + 7 * i)) size=$((18 + 97 * i))
	run $count udp4 $sport "$B" $DPORT $count $size
	if [ "$FQ" = split ] || [ "$(xq_sum "$DELTA")" -ne $count ]; then
		ps_fail "UDP flow $sport: the driver counted its $count frames on one queue" "deltas $DELTA"
		continue
	fi
	EXP+=("$FQ $sport $count $((count * (14 + 20 + 8 + size)))")
done
ps_check_eq "the driver counted each of the 12 flows on one queue" "${#EXP[@]}" 12
QUEUES_USED=$(printf '%s\n' "${EXP[@]}" | cut -d' ' -f1 | sort -u | wc -l)
echo "# the 12 flows landed on $QUEUES_USED queues: $(printf '%s\n' "${EXP[@]}" | cut -d' ' -f1 | tr '\n' ' ')"
FLOW40003Q=$(printf '%s\n' "${EXP[@]}" | awk '$2 == 40003 { print $1 }')

# ---- 2. keys: IPv6 UDP, TCP, ICMP --------------------------------------------------
run 7 ps_in_a python3 "$SEND" udp "$PS_IP6_A" 40100 "$PS_IP6_B" $DPORT 7 77
if [ "$FQ" = split ]; then ps_fail "IPv6 flow on one queue" "deltas $DELTA"; fi
V6="$FQ 7,$((7 * (14 + 40 + 8 + 77)))"

ip netns exec "$NS_B" python3 "$SEND" tcp-sink "$B" 9100 2>"$PS_SINK_OUT.tcp" &
TCP_SINK=$!
ps_at_exit '[ -n "$TCP_SINK" ] && kill "$TCP_SINK" 2>/dev/null'
for _ in $(seq 50); do grep -q ready "$PS_SINK_OUT.tcp" 2>/dev/null && break; sleep 0.1; done
run quiet ps_in_a python3 "$SEND" tcp "$A" 25000 "$B" 9100 100000
wait "$TCP_SINK" || ps_fail "TCP sink" "exit $?"
TCP_SINK=
rm -f "$PS_SINK_OUT.tcp"
# The connection's frames into vB per queue, as the driver counted them.
TCP_Q=$(awk -v d="$DELTA" 'BEGIN { n = split(d, x); for (i = 1; i <= n; i++) if (x[i]) printf "%s[%d,%d]", s++ ? "," : "", i - 1, x[i] }')
echo "# TCP: the driver's frames per queue $DELTA"

pings() { ps_in_a ping -q -c 5 -i 0.01 -W 1 "$B" >/dev/null; }
run 5 pings
ICMP_Q=$(awk -v d="$DELTA" 'BEGIN { n = split(d, x); for (i = 1; i <= n; i++) if (x[i]) printf "%s[%d,%d,%d]", s++ ? "," : "", i - 1, x[i], 98 * x[i] }')
ps_check_eq "ping: the driver counted 5 echo requests" "$(xq_sum "$DELTA")" 5

ps_wait_quiet 5
TOTAL=$(xq_sub "$(xq)" "$BASE")
fj --top 100
ps_check_eq "JSON: sample 1, 4 queues and no 'other'" "$(jqj '[.sample, [.queues[].queue]]')" '[1,[0,1,2,3]]'
ps_check_eq "every IPv4 UDP flow on its queue (the driver's), exactly its packets and bytes (14 + 20 + 8 + payload each)" \
	"$(jqj '[.queues[] | .queue as $q | .flows[] | select(.proto == "udp" and .src == "198.18.0.1" and .dst == "198.18.0.2" and .dport == 9000) | [$q, .sport, .packets, .bytes]] | sort')" \
	"$(printf '%s\n' "${EXP[@]}" | jq -Rsc 'split("\n") | map(select(. != "") | split(" ") | map(tonumber)) | sort')"
ps_check_eq "each queue's packets: the driver's rx_queue_N_xdp_packets since attach" \
	"$(jqj '[.queues[].packets]')" "[${TOTAL// /,}]"
ps_check_eq "IPv6 UDP: [2001:db8::1]:40100 > [2001:db8::2]:9000 on the driver's queue, 7 packets of 14 + 40 + 8 + 77 bytes" \
	"$(jqj '[.queues[] | .queue as $q | .flows[] | select(.src == "2001:db8::1") | [$q, .dst, .proto, .sport, .dport, .packets, .bytes]]')" \
	"[[${V6%% *},\"2001:db8::2\",\"udp\",40100,9000,${V6#* }]]"
ps_check_eq "TCP: 198.18.0.1:25000 > 198.18.0.2:9100, its frames on each queue as the driver counted them" \
	"$(jqj '[.queues[] | .queue as $q | .flows[] | select(.proto == "tcp") | [$q, .src, .dst, .sport, .dport, .packets]] | map([.[0], .[5]]), (map(.[1:5]) | unique)' | tr '\n' ' ')" \
	"[$TCP_Q] [[\"198.18.0.1\",\"198.18.0.2\",25000,9100]] "
ps_check_eq "ICMP: a 3-tuple (sport, dport null), 5 echo requests of 98 bytes on the driver's queue" \
	"$(jqj '[.queues[] | .queue as $q | .flows[] | select(.proto == "icmp") | [$q, .packets, .bytes, .src, .dst, .sport, .dport]] | map(.[0:3]), (map(.[3:]) | unique)' | tr '\n' ' ')" \
	"[$ICMP_Q] [[\"198.18.0.1\",\"198.18.0.2\",null,null]] "
ps_check_eq "no other flow: each queue's flows_seen is the flows the driver put there" \
	"$(jqj '[.queues[] | .flows_seen] | add') $(jqj '[.queues[] | .flows | length] | add')" \
	"$((12 + 1 + $(jq -n "[$TCP_Q] | length") + $(jq -n "[$ICMP_Q] | length"))) $((12 + 1 + $(jq -n "[$TCP_Q] | length") + $(jq -n "[$ICMP_Q] | length")))"
ps_check_eq "the hot queues: those with more than 2/4 of the packets by the driver's counts" \
	"$(jqj '[.hot[].queue]')" "$(awk -v t="$TOTAL" 'BEGIN { n = split(t, x); for (i = 1; i <= n; i++) s += x[i]
		for (i = 1; i <= n; i++) if (x[i] * n > 2 * s) h = h (h == "" ? "" : ",") (i - 1); print "[" h "]" }')"
ps_check_eq "each queue's bytes are its flows' bytes" \
	"$(jqj '[.queues[] | .bytes == ([.flows[].bytes] | add // 0)] | all')" true
ps_check_eq "each flow's share: its packets over its queue's" \
	"$(jqj '[.queues[] | .packets as $p | .flows[] | (.share - (.packets / $p)) | fabs < 0.00006] | all')" true
# The text: each queue's row says what the JSON says.
text=$(ps_pathscope_b flows vB)
ps_check_eq "text: each queue's packets, bytes and flows as in the JSON" \
	"$(awk '$1 ~ /^[0-3]$/ && NF >= 7 { printf "[%s,%s,%s,%s]", $1, $2, $4, $7 }' <<<"$text")" \
	"$(jqj '.queues[] | [.queue, .packets, .bytes, .flows_seen]' | tr -d '\n')"

# ---- 6b. --flow: where pathscope saw it; veth has no RSS ----------------------------
out=$(ps_pathscope_b flows vB --flow "$A" "$B" udp 40003 $DPORT | grep '^flow ')
ps_check_eq "--flow of a flow seen: the driver's queue and its packets; veth: no prediction" "$out" \
	"flow udp 198.18.0.1:40003 > 198.18.0.2:9000: no prediction (no RSS indirection table); pathscope saw it on queue $FLOW40003Q (26 packets)"
out=$(ps_pathscope_b flows vB --flow "$A" "$B" udp 40099 $DPORT | grep '^flow ')
ps_check_eq "--flow of a flow not seen" "$out" \
	"flow udp 198.18.0.1:40099 > 198.18.0.2:9000: no prediction (no RSS indirection table); pathscope did not see it"
fj --flow "$PS_IP6_A" "$PS_IP6_B" udp 40100 $DPORT
ps_check_eq "--flow IPv6 in JSON: seen on the driver's queue, 7 packets, no prediction" \
	"$(jqj '.flow | [.flow, .predicted, .hash, .seen, .seen_packets, (.no_prediction | type)]')" \
	"[\"udp [2001:db8::1]:40100 > [2001:db8::2]:9000\",null,null,${V6%% *},7,\"string\"]"

# ---- 6c. bad input ------------------------------------------------------------------
bad() { # NAME RE ARGS...: exit 2, one line matching RE
	local name=$1 re=$2 err rc
	shift 2
	err=$(ps_pathscope_b flows "$@" 2>&1 >/dev/null) && rc=0 || rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -qE -- "$re" <<<"$err"; then
		ps_ok "flows $name: exit 2, one line"
	else
		ps_fail "flows $name: exit 2, one line matching '$re'" "exit $rc, stderr '$err'"
	fi
}
bad "--top 0" "bad --top '0' \(1 to 100\)" vB --top 0
bad "--top 101" "bad --top '101'" vB --top 101
bad "--top x" "bad --top 'x'" vB --top x
bad "--interval 0" "bad --interval '0'" vB --interval 0
bad "--interval x" "bad --interval 'x'" vB --interval x
bad "--count 0" "bad --count '0'" vB --count 0
bad "--flow bad address" "bad --flow addresses '198.18.0.300' '198.18.0.2'" vB --flow 198.18.0.300 "$B" udp 1 2
bad "--flow mixed families" "bad --flow addresses" vB --flow "$A" "$PS_IP6_B" udp 1 2
bad "--flow icmp" "bad --flow protocol 'icmp' \(tcp or udp\)" vB --flow "$A" "$B" icmp 1 2
bad "--flow port 65536" "bad --flow ports '1' '65536'" vB --flow "$A" "$B" udp 1 65536
bad "--flow port x" "bad --flow ports 'x' '2'" vB --flow "$A" "$B" udp x 2
bad "--flow 4 arguments" "--flow needs SRC DST PROTO SPORT DPORT" vB --flow "$A" "$B" udp 1
bad "--flow twice" "--flow given twice" vB --flow "$A" "$B" udp 1 2 --flow "$A" "$B" udp 1 2
bad "no interface" "flows: expected one interface name" --top 3
bad "two interfaces" "flows: expected one interface name" vB lo
bad "unknown option" "flows: unknown option '--frob'" vB --frob
err=$(ps_pathscope_b flows nosuch0 2>&1 >/dev/null) && rc=0 || rc=$?
ps_check_eq "an unknown interface: one line, exit 1" "$rc $err" \
	"1 pathscope: unknown interface 'nosuch0' (in this network namespace)"
ps_check_eq "global -j: the same JSON as --json" \
	"$(nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" -j flows vB | jq -c '[.queues[] | [.queue, .packets, .bytes]]')" \
	"$(jqj '[.queues[] | [.queue, .packets, .bytes]]')"

# ---- 3. N = 16: within the binomial bound --------------------------------------------
attach 16
run 16000 udp4 41000 "$B" $DPORT 16000 100
ps_check_eq "N=16: the driver counted the 16,000 datagrams on one queue" \
	"$([ "$FQ" != split ] && xq_sum "$DELTA")" 16000
fj
ps_check_eq "N=16: sample 16; the flow's queue has exactly 16,000 packets and 16,000 x 142 bytes" \
	"$(jqj "[.sample, (.queues[] | select(.queue == ${FQ/split/-1}) | [.packets, .bytes])]")" "[16,[16000,2272000]]"
got=$(jqj "[.queues[] | .queue as \$q | .flows[] | select(.sport == 41000) | [\$q, .packets, .bytes]]")
echo "# N=16: the flow's scaled count $got (queue $FQ)"
ps_check_eq "N=16: the flow on its queue, packets 16,000 +- 1,960 (4 sd of 16 x Bin(16000, 1/16)), a multiple of 16, 142 bytes each" \
	"$(jq -c --argjson q "${FQ/split/-1}" 'if length == 1 and .[0][0] == $q and (.[0][1] - 16000 | fabs) <= 1960 and .[0][1] % 16 == 0 and .[0][2] == .[0][1] * 142 then "ok" else . end' <<<"$got")" '"ok"'

# ---- 4. the elephant -------------------------------------------------------------------
attach 1
QE=2
ps_txq_pin "$NS_A" vA $QE || ps_fail "txq pin $QE" "ps_txq_pin failed"
run 600 udp4 20000 "$B" $DPORT 2 64 300
ps_check_eq "300 small flows pinned to queue $QE: 600 frames there" "$DELTA" "$( ((QE == 2)) && echo "0 0 600 0")"
ps_txq_unpin "$NS_A" vA
run 400 udp4 20300 "$B" $DPORT 2 64 200
SMALL=$(xq_sub "$(xq)" "$BASE")
sq=$(cut -d' ' -f$((QE + 1)) <<<"$SMALL")
# The elephant alone carries 60% of the interface's packets (over 2/4):
# b / (small + b) = 0.6, b = 3 small / 2, rounded.
BIG=$(((3 * $(xq_sum "$SMALL") + 1) / 2))
ps_txq_pin "$NS_A" vA $QE || ps_fail "txq pin $QE" "ps_txq_pin failed"
run $BIG udp4 30000 "$B" $DPORT $BIG 64
ps_txq_unpin "$NS_A" vA
ps_check_eq "the elephant's $BIG frames all on queue $QE (driver)" "$FQ $(xq_sum "$DELTA")" "$QE $BIG"
ps_wait_quiet 5
TOTAL=$(xq_sub "$(xq)" "$BASE")
qtotal=$(cut -d' ' -f$((QE + 1)) <<<"$TOTAL")
all=$(xq_sum "$TOTAL")
want_share=$(awk -v b="$BIG" -v q="$qtotal" 'BEGIN { printf "%.4f", b / q }')
want_pct=$(awk -v b="$BIG" -v a="$all" 'BEGIN { printf "%.0f", 100 * b / a }')
echo "# elephant: small flows per queue $SMALL, queue $QE: $sq small + $BIG = $qtotal of $all"
fj
ps_check_eq "elephant: each queue's packets are the driver's" "$(jqj '[.queues[].packets]')" "[${TOTAL// /,}]"
ps_check_eq "elephant: 501 flows seen" "$(jqj '[.queues[].flows_seen] | add')" 501
ps_check_eq "elephant: queue $QE's top flow is it, $BIG packets, share = driver's $BIG / $qtotal" \
	"$(jqj ".queues[] | select(.queue == $QE) | [.flows[0].sport, .flows[0].packets, .top_share, .flows[0].share]")" \
	"$(jq -c -n "[30000,$BIG,$want_share,$want_share]")"
ps_check_eq "elephant: it carries 60% +- 2 points of the interface's packets (driver)" \
	"$(awk -v b="$BIG" -v a="$all" 'BEGIN { d = b / a - 0.6; print (d < 0 ? -d : d) <= 0.02 }')" 1
ps_check_eq "elephant: queue $QE alone is hot, verdict elephant (no second flow over a fair share: no collision)" \
	"$(jqj '[.hot[] | [.queue, .cause, (.causes | has("collision"))]]')" "[[$QE,\"elephant\",false]]"
ps_check_eq "elephant: the figure behind it" \
	"$(jqj ".hot[0].causes.elephant")" "\"its top flow alone carries $want_pct% of the interface's packets (over 2/n: 50%)\""
ps_check_eq "elephant: not few (501 distinct flows)" "$(jqj '.hot[0].causes | has("few")')" false
ps_check_eq "elephant: the text's verdict, and the figure behind it on the next line" \
	"$(ps_pathscope_b flows vB | grep -A1 '^hot:' | sed 's/ (.*)//' | paste -sd'|')" \
	"hot: queue $QE carries $(jqj ".hot[0].share * 100 | round")% of the packets: elephant|  its top flow alone carries $want_pct% of the interface's packets"

# ---- 5. a collision (and few flows) -----------------------------------------------------
attach 1
ps_txq_pin "$NS_A" vA 1 || ps_fail "txq pin 1" "ps_txq_pin failed"
run 300 udp4 31001 "$B" $DPORT 300 64
ps_check_eq "collision: flow 31001 on queue 1 (driver)" "$FQ $(xq_sum "$DELTA")" "1 300"
run 290 udp4 31002 "$B" $DPORT 290 64
ps_check_eq "collision: flow 31002 on queue 1 (driver)" "$FQ $(xq_sum "$DELTA")" "1 290"
ps_txq_pin "$NS_A" vA 3 || ps_fail "txq pin 3" "ps_txq_pin failed"
run 250 udp4 31003 "$B" $DPORT 250 64
ps_check_eq "collision: flow 31003 on queue 3 (driver)" "$FQ $(xq_sum "$DELTA")" "3 250"
ps_txq_unpin "$NS_A" vA
ps_wait_quiet 5
fj
ps_check_eq "collision: queues' packets" "$(jqj '[.queues[].packets]')" "[$(xq_sub "$(xq)" "$BASE" | tr ' ' ,)]"
ps_check_eq "collision: queue 1 alone hot (590 of 840; queue 3's 250 are not over 2/4), its two flows each over a fair share (210): cause collision, also few; no elephant (300 < 420)" \
	"$(jqj '[.hot[] | [.queue, .share, .cause, (.causes | keys)]]')" '[[1,0.7024,"collision",["bytes","collision","few"]]]'
ps_check_eq "collision: the figures" "$(jqj '.hot[0].causes.collision')" \
	'"its top two flows carry 36% and 35% of the interface'"'"'s packets, each over a fair share (25%)"'
ps_check_eq "collision: the rule that steers the second flow to the coolest queue (0)" "$(jqj '.hot[0].steer')" \
	"\"ethtool -N vB flow-type udp4 src-ip $A dst-ip $B src-port 31002 dst-port $DPORT action 0\""
ps_check_eq "collision: ... in the text too" \
	"$(ps_pathscope_b flows vB | grep -c "^  ethtool -N vB flow-type udp4 src-ip $A dst-ip $B src-port 31002 dst-port $DPORT action 0$")" 1
ps_check_eq "few: the figures" "$(jqj '.hot[0].causes.few')" '"3 distinct flows for 4 queues (fewer than 4 per queue)"'

# ---- 7. a full flow table ---------------------------------------------------------------
attach 1
fj
pre=$(jqj '[.queues[].flows_seen] | add // 0')
run 20000 udp4 20000 "$B" $DPORT 1 18 20000
ps_wait_quiet 5
fj
ps_check_eq "overflow: 20,000 one-datagram flows: held and evicted, they are the 20,000 sent (and the $pre held before)" \
	"$(jqj "[.evicted + ([.queues[].flows_seen] | add) - $pre, .evicted > 3000]")" "[20000,true]"
ps_check_eq "overflow: the text says the table was full, with the count" \
	"$(ps_pathscope_b flows vB | grep -o '^the flow table was full: [0-9]* flows evicted')" \
	"the flow table was full: $(jqj .evicted) flows evicted"
ps_check_eq "overflow: stats --json's per-queue evicted adds up to it" \
	"$(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.flows.evicted')" "$(jqj .evicted)"

ps_sink_stop >/dev/null
ps_done
