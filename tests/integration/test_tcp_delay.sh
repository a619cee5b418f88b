#!/usr/bin/env bash
# TCP latency (feature tcp) against independent references, through a known
# delay: the host's tap dA is joined by the delay line (tests/tools/delayline)
# to peer 1 at 500 us each way (its frames into dA's RX queue 1), peer 2 at
# 4900 us each way (queue 2; 2 x 4900 us plus the base sits mid-bucket, in
# [9437184, 10485760) ns) and peer 3 with no delay (queue 3). Handshakes run
# through peer 3 first: their median there is the base, and for peers 1 and
# 2 their reference is twice the delay plus the base. The
# host's route to peer 3 carries tcp_usec_ts (tests/tools/usec_ts.py; TCP_INFO
# confirms it): below 1 ms of RTT, TSvals in ms would let only the first
# segment of each ms be timed, which skews the medians there (see README, Known
# limits). pathscope on dA must show, for each peer:
#   - handshakes: N connections from the host to the peer (SYN out -> SYN-ACK
#     in) and N from the peer to the host (SYN-ACK out -> ACK in), IPv4 and
#     IPv6: exactly 2N in each subnet's entry and 4N on the peer's RX queue,
#     whose median is within max(5%, 100 us) of the reference;
#   - iperf3 (host -> peer, 10 Mbit/s in writes of 2 segments, so that no
#     queue builds up in the delay line, whose write() into a tap runs the
#     receiver's stack: 70 us a frame when busy): the RTT median of the
#     peer's subnet not below twice the delay, and between the kernel's own
#     min_rtt and highest srtt of the same flow (ss -tin, read 6 times during
#     the run), 100 us either side;
#   - sockperf ping-pong --tcp from the host: the RTT median not below twice
#     the delay and at most max(5%, 100 us) above twice sockperf's median
#     (sockperf reports half the round trip; its round trip also holds the
#     host's own stack, pathscope's does not);
# and per RX queue, exactly: every handshake and RTT sample of a peer on its
# own queue, none on queue 0. A server on the host that thinks 3 ms before it
# answers each request of peer 1 (tests/tools/tcpthink.py) shows a data
# response time median within 5% of 3 ms on queue 1.
#
# A median is known to its histogram bucket only (1/8 of a power of two), so
# "within TOL of REF" means the median's bucket reaches within TOL of REF.
# ss -tin: the kernel times a segment from its transmission (before tc egress
# and the qdisc) to the processing of its ACK (after the host's receive path,
# past XDP), so its RTT holds the host's own paths that pathscope's does not,
# and times every segment where pathscope times one per RTT; its srtt is an
# average (7/8 of the old value plus 1/8 of each sample), min_rtt a minimum.
. "$(dirname "$0")/lib.sh"
ps_require_root tcp_delay
ps_require_file tcp_delay "$PATHSCOPE"
ps_require_file tcp_delay "$DELAYLINE"
ps_require_cmd tcp_delay ping jq iperf3 sockperf ss python3
THINK=$PS_ROOT/tests/tools/tcpthink.py
USEC_TS=$PS_ROOT/tests/tools/usec_ts.py
THINK_OUT=$(mktemp)
ps_at_exit 'rm -f "$THINK_OUT"'

N=50
DELAY_US=(0 500 4900 0) # one way, per peer
QUEUE=(0 1 2 3)         # the host RX queue of each peer's frames
ps_delay_testbed_create 4 "${DELAY_US[1]}:${DELAY_US[1]}:${QUEUE[1]}" \
	"${DELAY_US[2]}:${DELAY_US[2]}:${QUEUE[2]}" "0:0:${QUEUE[3]}" ||
	{
		ps_fail tcp_delay "delay testbed setup failed"
		ps_done
	}
ps_at_exit 'ps_pathscope_a detach dA >/dev/null 2>&1'
# Peer 3's base RTT is below 1 ms, where TSvals in ms would let only the
# first segment of each ms be timed (see README, Known limits): the host's
# route to it carries tcp_usec_ts, and a connection says so.
ps_in_a python3 "$USEC_TS" set dA 198.18.3.0/24 "$(ps_host_ip4 3)" || ps_fail "tcp_usec_ts on the route to peer 3" "exit $?"
ip netns exec "$(ps_peer_ns 3)" timeout 10 python3 "$THINK" accept --bind "$(ps_peer_ip4 3)" --port 6999 --count 1 --seconds 5 >/dev/null 2>&1 &
srv=$!
sleep 0.3
ps_check_eq "the host's TSvals to peer 3 are in microseconds (TCP_INFO)" \
	"$(ps_in_a python3 "$USEC_TS" check "$(ps_peer_ip4 3)" 6999)" usec
wait "$srv"
ps_pathscope_a attach dA --features default,tcp || ps_fail "attach dA" "exit $?"
ps_wait_quiet 5

# Checks. A median is known to the width of its histogram bucket (1/8 of a
# power of two: 131 us at 1 ms, 1 ms at 10 ms), so a median "within TOL of
# REF" means its bucket [LO, HI) reaches within TOL of REF. Means are exact.
# max(PCT %, FLOOR ns) of REF
tol() { local t=$(($1 * $2 / 100)); echo $((t > $3 ? t : $3)); }
# NAME DIST REF BELOW ABOVE: DIST is a JSON histogram ({p50, hist}); its
# median's bucket meets [REF - BELOW, REF + ABOVE].
check_window() {
	local b lo hi
	b=$(jq -c '. as $d | [$d.hist[] | select(.low <= $d.p50 and $d.p50 < .high) | .low, .high]' <<<"$2")
	lo=$(jq '.[0] // -1' <<<"$b") hi=$(jq '.[1] // -1' <<<"$b")
	[ "$lo" -ge 0 ] && [ "$lo" -le $(($3 + $5)) ] && [ "$hi" -gt $(($3 - $4)) ] &&
		ps_ok "$1: median in [$lo, $hi) ns, reference $3 ns (at most $4 ns below, $5 ns above)" ||
		ps_fail "$1" "median in [$lo, $hi) ns, reference $3 ns: more than $4 ns below or $5 ns above"
}
# NAME DIST REF TOL: the median's bucket lies within TOL of REF.
check_median() { check_window "$1" "$2" "$3" "$4" "$4"; }
# NAME DIST FLOOR: DIST's median bucket does not lie wholly below FLOOR.
check_floor() {
	local b lo hi
	b=$(jq -c '. as $d | [$d.hist[] | select(.low <= $d.p50 and $d.p50 < .high) | .low, .high]' <<<"$2")
	lo=$(jq '.[0] // -1' <<<"$b") hi=$(jq '.[1] // -1' <<<"$b")
	[ "$hi" -gt "$3" ] &&
		ps_ok "$1: median in [$lo, $hi) ns, floor $3 ns" ||
		ps_fail "$1" "median in [$lo, $hi) ns, wholly below the floor $3 ns"
}
# The histogram of the samples added between two stats: AFTER BEFORE (JSON
# histograms) -> {p50, hist}.
dist_diff() {
	jq -cn --argjson a "$1" --argjson b "$2" '
		[$a.hist[] | . as $x | ($b.hist | map(select(.low == $x.low)) | .[0].count // 0) as $c
			| {low, high, count: (.count - $c)} | select(.count > 0)] as $h
		| ($h | map(.count) | add // 0) as $n
		| {hist: $h, p50: (reduce $h[] as $x ({acc: 0, m: null};
			if .m == null and (.acc + $x.count) * 2 >= $n then .m = $x.low else . end | .acc += $x.count) | .m)}'
}
ifjs() { ps_pathscope_a stats dA --json | jq -c ".interfaces[0] | $1"; }
peer_entry() { ifjs ".tcp_peers[] | select(.subnet == \"$1\")"; }
queue_tcp() { ifjs ".queues[$1].tcp"; }

# ping's median through peer 3, for the record only.
out=$(ps_in_a taskset -c 1 ping -4 -n -c 200 -i 0.005 -W 2 "$(ps_peer_ip4 3)")
echo "# ping's median through peer 3 (no delay): $(grep -o 'time=[0-9.]*' <<<"$out" | cut -d= -f2 | sort -g | sed -n 100p) ms"

# Peer 3 first: its handshake median is the base of the others.
declare -A base
port=7000
for p in 3 1 2; do
	d2=$((2 * DELAY_US[p] * 1000))
	q=${QUEUE[p]}
	sub4="198.18.$p.0/24" sub6="2001:db8:$p::/48"
	name="peer $p (${DELAY_US[p]} us each way)"

	# Handshakes, both directions, both IP versions.
	for v in 4 6; do
		pip=$(ps_peer_ip$v "$p") hip=$(ps_host_ip$v "$p")
		port=$((port + 1))
		ip netns exec "$(ps_peer_ns "$p")" timeout 60 python3 "$THINK" accept --bind "$pip" --port $port --count $N --seconds 30 >/dev/null 2>&1 &
		srv=$!
		sleep 0.3
		ps_in_a timeout 60 python3 "$THINK" connect --dst "$pip" --port $port --count $N >/dev/null ||
			ps_fail "$name: IPv$v: $N connections to the peer" "exit $?"
		wait "$srv"
		port=$((port + 1))
		ip netns exec "$NS_A" timeout 60 python3 "$THINK" accept --bind "$hip" --port $port --count $N --seconds 30 >/dev/null 2>&1 &
		srv=$!
		sleep 0.3
		ps_in_peer "$p" timeout 60 python3 "$THINK" connect --dst "$hip" --port $port --count $N >/dev/null ||
			ps_fail "$name: IPv$v: $N connections from the peer" "exit $?"
		wait "$srv"
	done
	hs=$(queue_tcp "$q" | jq -c .handshake_ns)
	ps_check_eq "$name: queue $q: $((4 * N)) handshakes timed" "$(jq .count <<<"$hs")" $((4 * N))
	for sub in "$sub4" "$sub6"; do
		ps_check_eq "$name: $sub: $((2 * N)) handshakes timed ($N as client, $N as server)" \
			"$(peer_entry "$sub" | jq .handshake_count)" $((2 * N))
	done
	if [ "$p" = 3 ]; then
		base[hs]=$(jq .p50 <<<"$hs")
		base[hs_avg]=$(peer_entry "$sub4" | jq .handshake_avg_ns)
	else
		ref=$((d2 + base[hs]))
		check_median "$name: queue $q: handshake RTT median, reference 2 x delay + base" "$hs" "$ref" "$(tol "$ref" 5 100000)"
		echo "# $name: $sub4: handshake RTT mean $(peer_entry "$sub4" | jq .handshake_avg_ns) ns, 2 x delay + base mean $((d2 + base[hs_avg])) ns"
	fi

	# iperf3 host -> peer, and the kernel's RTT of its data flow while it runs.
	before=$(peer_entry "$sub4" | jq -c .rtt_ns)
	ps_iperf3_server "$(ps_peer_ns "$p")" 5201 || ps_fail "$name: iperf3 server" "not listening"
	ip netns exec "$NS_A" taskset -c 1 timeout 30 iperf3 -c "$(ps_peer_ip4 "$p")" -p 5201 -t 4 -b 10M -l 2896 >/dev/null 2>&1 &
	cli=$!
	# The kernel's srtt of the data connection, read 6 times over the run
	# (one reading is a moment of an EWMA: it read 551 us once where
	# pathscope's median of the whole run was 655 us), and its min_rtt.
	srtts=() minrtt=''
	sleep 1
	for _ in 1 2 3 4 5 6; do
		# The data connection: of the two to port 5201, the one with more bytes acked.
		ssline=$(ps_in_a ss -Htin "dport = :5201" | paste - - |
			awk '{ b = 0; if (match($0, /bytes_acked:[0-9]+/)) b = substr($0, RSTART + 12, RLENGTH - 12) + 0; print b, $0 }' |
			sort -n | tail -1)
		val=$(grep -o ' rtt:[0-9.]*' <<<"$ssline" | awk -F: '{ printf "%d", $2 * 1000000 }')
		[ -n "$val" ] && srtts+=("$val")
		val=$(grep -o 'minrtt:[0-9.]*' <<<"$ssline" | awk -F: '{ printf "%d", $2 * 1000000 }')
		[ -n "$val" ] && minrtt=$val
		sleep 0.4
	done
	wait "$cli" || ps_fail "$name: iperf3" "exit $?"
	ps_iperf3_server_wait
	rtt=$(dist_diff "$(peer_entry "$sub4" | jq -c .rtt_ns)" "$before")
	srtt=$(printf '%s\n' "${srtts[@]:-0}" | sort -n | tail -1)
	echo "# $name: iperf3: $(jq '[.hist[].count] | add' <<<"$rtt") RTT samples, median bucket from $(jq .p50 <<<"$rtt") ns; ss: srtt ${srtts[*]:-?} ns, min_rtt ${minrtt:-?} ns"
	# Under bulk load the no-delay base is mostly queueing in the delay line
	# and the stacks (pathscope's median through peer 3 read 164 to 590 us in
	# six runs, beside a min_rtt of 35 to 72 us), and it does not add to a
	# delay: no base stands in for it. The delay line sets the floor, the
	# kernel's own min_rtt and highest srtt below bracket the median.
	if [ "$p" != 3 ]; then
		check_floor "$name: iperf3: RTT median at least 2 x delay (the delay line's floor)" "$rtt" "$d2"
	fi
	# The kernel's RTT holds this host's own send and receive paths (which
	# pathscope's does not) and every segment (pathscope times each write's
	# first): its min_rtt and highest srtt bracket the median.
	check_median "$name: iperf3: RTT median between the kernel's min_rtt and highest srtt (ss -tin), 100 us either side" \
		"$rtt" $(((${minrtt:-0} + ${srtt:-0}) / 2)) $(((${srtt:-0} - ${minrtt:-0}) / 2 + 100000))

	# sockperf ping-pong --tcp, client on the host.
	before=$(peer_entry "$sub4" | jq -c .rtt_ns)
	ip netns exec "$(ps_peer_ns "$p")" taskset -c 1 timeout 30 sockperf server --tcp -i "$(ps_peer_ip4 "$p")" -p 11111 >/dev/null 2>&1 &
	srv=$!
	sleep 0.5
	sp=$(ps_in_a taskset -c 1 timeout 30 sockperf ping-pong --tcp -i "$(ps_peer_ip4 "$p")" -p 11111 -t 3 --mps=max 2>&1) ||
		ps_fail "$name: sockperf" "exit $?"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	spmed=$(awk '/percentile 50.000 =/ { printf "%d", $NF * 1000 }' <<<"$sp")
	rtt=$(dist_diff "$(peer_entry "$sub4" | jq -c .rtt_ns)" "$before")
	echo "# $name: sockperf: median ${spmed:-?} ns (half the round trip); $(jq '[.hist[].count] | add' <<<"$rtt") pathscope RTT samples, median bucket from $(jq .p50 <<<"$rtt") ns"
	# sockperf's round trip also holds this host's own send and receive
	# paths and the client's wakeup, which pathscope's (tc egress to XDP)
	# does not, and that share has no bound on a loaded machine (up to
	# 470 us through peer 1 in a CI run): twice sockperf's median bounds
	# pathscope's from above (within max(5%, 100 us)), the delay line from
	# below.
	ref=$((2 * ${spmed:-0}))
	check_window "$name: sockperf ping-pong: RTT median not above twice sockperf's median" "$rtt" "$ref" \
		"$ref" "$(tol "$ref" 5 100000)"
	if [ "$p" != 3 ]; then
		check_floor "$name: sockperf ping-pong: RTT median at least 2 x delay (the delay line's floor)" "$rtt" "$d2"
	fi
done

# Per RX queue, exactly: each peer's handshakes (4N, and iperf3's two
# connections and sockperf's one) and RTT samples on its own queue.
js=$(ifjs .)
for p in 1 2 3; do
	q=${QUEUE[p]}
	ps_check_eq "queue $q: peer $p's $((4 * N + 3)) handshakes, and its RTT samples (those of its subnets)" \
		"$(jq -c "[.queues[$q].tcp.handshakes_timed, .queues[$q].tcp.rtt_ns.count]" <<<"$js")" \
		"$(jq -c --argjson n $((4 * N + 3)) --arg a "198.18.$p.0/24" --arg b "2001:db8:$p::/48" \
			'[$n, (.tcp_peers | map(select(.subnet == $a or .subnet == $b) | .rtt_count) | add)]' <<<"$js")"
done
ps_check_eq "queue 0: no handshake, no RTT sample" \
	"$(jq -c '[.queues[0].tcp.handshakes_timed, .queues[0].tcp.rtt_ns.count]' <<<"$js")" "[0,0]"

# Host response time: the host thinks 3 ms before each answer to peer 1.
THINK_US=3000
ip netns exec "$NS_A" taskset -c 1 timeout 60 python3 "$THINK" serve --bind "$(ps_host_ip4 1)" --port 7100 --think-us $THINK_US --seconds 20 >"$THINK_OUT" 2>/dev/null &
srv=$!
sleep 0.3
before=$(queue_tcp 1 | jq -c .response_data_ns)
req=$(ps_in_peer 1 timeout 60 python3 "$THINK" request --dst "$(ps_host_ip4 1)" --port 7100 --count 300) ||
	ps_fail "think: requests" "exit $?"
wait "$srv"
echo "# think server: $(cat "$THINK_OUT"); client: $req"
ps_check_eq "think: 300 requests answered" "$(jq .answered "$THINK_OUT")" 300
resp=$(dist_diff "$(queue_tcp 1 | jq -c .response_data_ns)" "$before")
echo "# think: $(jq '[.hist[].count] | add' <<<"$resp") data responses on queue 1"
check_median "think: queue 1: data response median, reference the 3 ms think time" "$resp" $((THINK_US * 1000)) $((THINK_US * 1000 / 20))

ps_pathscope_a detach dA || ps_fail "detach dA" "exit $?"
wire=$(ps_delay_stop)
echo "# delay line: $(tr '\n' ';' <<<"$wire")"
ps_check_eq "the delay line dropped nothing" "$(awk '{ d += $7 } END { print d + 0 }' <<<"$wire")" 0
ps_done
