#!/usr/bin/env bash
# TCP latency (feature tcp) against independent references, through a known
# delay: the host's tap dA is joined by the delay line (tests/tools/delayline)
# to peer 1 at 500 us each way (its frames into dA's RX queue 1), peer 2 at
# 4900 us each way (queue 2) and peer 3 with no delay (queue 3). Each peer's
# route to the host carries quickack (it ACKs every segment at once, in its
# kernel, as it answers a ping); the host's route to peer 3 carries
# tcp_usec_ts (tests/tools/usec_ts.py; TCP_INFO confirms it): below 1 ms of
# RTT, TSvals in ms would let only the first segment of each ms be timed
# (see docs/known-limits.md). pathscope on dA must show, for each peer,
# on exact means (sum / count), against the host kernel's own RTT of the
# same exchanges (TCP_INFO; pathscope's mean at most 2 us above it and at
# most max(2%, 100 us) below; why, and why not ping's on the same path,
# printed beside, at "The windows" below):
#   - TCP RTT of a request/response, one request in flight (tcpthink.py),
#     ping over IPv4 and IPv6 interleaved: one sample per request and one
#     for the FIN, exactly, as the kernel's; the mean in the window; the
#     median's bucket not wholly below twice the delay;
#   - handshakes: N connections from the host to the peer (SYN out -> SYN-ACK
#     in) and N from the peer to the host (SYN-ACK out -> ACK in), IPv4 and
#     IPv6, ping beside them: exactly 2N in each subnet's entry and 4N on the
#     peer's RX queue; each subnet's mean in the window;
#   - iperf3 (host -> peer, 10 Mbit/s in writes of 2 segments, so that no
#     queue builds up in the delay line, whose write() into a tap runs the
#     receiver's stack: 70 us a frame when busy): the RTT median not wholly
#     below twice the delay, nor wholly above the kernel's own highest srtt
#     of the same flow (ss -tin, read 6 times during the run) + 100 us;
#   - sockperf ping-pong --tcp from the host: one RTT sample per request sent
#     (and the FIN's; less the first at ms TSvals), +-2; the mean between
#     twice the delay and twice sockperf's mean (sockperf reports half the
#     round trip; its round trip also holds the host's own stack);
# and per RX queue, exactly: every handshake and RTT sample of a peer on its
# own queue, none on queue 0. A server on the host that thinks 3 ms before it
# answers each request of peer 1 (tests/tools/tcpthink.py) shows one echo
# timed per request (the first a pure ACK) and a data response mean from
# the server's own hold time (the kernel's receive stamp to its send()) to
# 80 us above it. The host's ACK delay, with quickack off and on, against
# the sender kernel's exact mean RTT less the path's, and under 100 us with
# quickack (at the end, below).
#
# ss -tin: the kernel times a segment from its transmission (before tc egress
# and the qdisc) to the processing of its ACK (after the host's receive path,
# past XDP), so its RTT holds the host's own paths that pathscope's does not,
# and times every segment where pathscope times one per RTT; its srtt is an
# average (7/8 of the old value plus 1/8 of each sample).
# About 110 s.
. "$(dirname "$0")/lib.sh"
ps_require_root tcp_delay
ps_require_file tcp_delay "$PATHSCOPE"
ps_require_file tcp_delay "$DELAYLINE"
ps_require_cmd tcp_delay ping jq iperf3 sockperf ss python3
THINK=$PS_ROOT/tests/tools/tcpthink.py
USEC_TS=$PS_ROOT/tests/tools/usec_ts.py
THINK_OUT=$(mktemp) PING4=$(mktemp) PING6=$(mktemp)
ps_at_exit 'rm -f "$THINK_OUT" "$PING4" "$PING6"'

N=50
N_RR=300
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
# first segment of each ms be timed (see docs/known-limits.md): the host's
# route to it carries tcp_usec_ts, and a connection says so.
ps_in_a python3 "$USEC_TS" set dA 198.18.3.0/24 "$(ps_host_ip4 3)" || ps_fail "tcp_usec_ts on the route to peer 3" "exit $?"
ip netns exec "$(ps_peer_ns 3)" timeout 10 python3 "$THINK" accept --bind "$(ps_peer_ip4 3)" --port 6999 --count 1 --seconds 5 >/dev/null 2>&1 &
srv=$!
_ps_wait_port "$(ps_peer_ns 3)" tcp 6999
ps_check_eq "the host's TSvals to peer 3 are in microseconds (TCP_INFO)" \
	"$(ps_in_a python3 "$USEC_TS" check "$(ps_peer_ip4 3)" 6999)" usec
wait "$srv"
ps_pathscope_a attach dA --features default,tcp || ps_fail "attach dA" "exit $?"
ps_wait_quiet 5
HEAT=$(mktemp) # a recording of the whole run, for the TCP heatmaps
ps_at_exit "rm -f $HEAT"
ps_heat_mark "$HEAT" "$NS_A" dA

# Checks. A median is known to the width of its histogram bucket (1/8 of a
# power of two: 131 us at 1 ms, 1 ms at 10 ms), so a median is only held to
# a floor or a ceiling; means are exact and hold the windows.
# max(PCT %, FLOOR ns) of REF
tol() { local t=$(($1 * $2 / 100)); echo $((t > $3 ? t : $3)); }
# NAME DIST FLOOR: DIST's median bucket does not lie wholly below FLOOR.
check_floor() {
	local b lo hi
	b=$(jq -c '. as $d | [$d.hist[] | select(.low <= $d.p50 and $d.p50 < .high) | .low, .high]' <<<"$2")
	lo=$(jq '.[0] // -1' <<<"$b") hi=$(jq '.[1] // -1' <<<"$b")
	[ "$hi" -gt "$3" ] &&
		ps_ok "$1: median in [$lo, $hi) ns, floor $3 ns" ||
		ps_fail "$1" "median in [$lo, $hi) ns, wholly below the floor $3 ns"
}
# NAME DIST CEIL: DIST's median bucket does not lie wholly above CEIL.
check_ceiling() {
	local b lo hi
	b=$(jq -c '. as $d | [$d.hist[] | select(.low <= $d.p50 and $d.p50 < .high) | .low, .high]' <<<"$2")
	lo=$(jq '.[0] // -1' <<<"$b") hi=$(jq '.[1] // -1' <<<"$b")
	[ "$lo" -ge 0 ] && [ "$lo" -le "$3" ] &&
		ps_ok "$1: median in [$lo, $hi) ns, ceiling $3 ns" ||
		ps_fail "$1" "median in [$lo, $hi) ns, wholly above the ceiling $3 ns"
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
peer_entry() { ifjs "[.tcp_peers[] | select(.subnet == \"$1\")][0] // {}"; }
queue_tcp() { ifjs ".queues[$1].tcp"; }

# ping's mean (the summary line, in us) in ns.
ping_mean_ns() { awk -F/ '/^rtt / { printf "%d\n", $5 * 1000000 + 0.5 }'; }
# The exact mean of the samples added between two peer entries (JSON, with
# COUNT_FIELD and AVG_FIELD): AFTER BEFORE COUNT_FIELD AVG_FIELD -> "n mean".
# The entries' averages are sums / counts rounded down, so the sum is known
# to within its count: the mean to within (c1 + c0) / n ns.
mean_diff() {
	jq -rn --argjson a "$1" --argjson b "$2" --arg c "$3" --arg m "$4" '
		(($a[$c] // 0) - ($b[$c] // 0)) as $n
		| "\($n) \(if $n > 0 then ((($a[$c] // 0) * ($a[$m] // 0) - ($b[$c] // 0) * ($b[$m] // 0)) / $n | floor) else 0 end)"'
}
# SUBNET FIELD N: wait (up to 3 s) until the peer entry's FIELD reaches N.
wait_count() {
	for _ in $(seq 30); do
		[ "$(peer_entry "$1" | jq ".$2 // 0")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}
# NAME MEAN LO HI: LO <= MEAN <= HI (ns).
check_between() {
	[ "$2" -ge "$3" ] && [ "$2" -le "$4" ] &&
		ps_ok "$1: $2 ns, in [$3, $4] ns" ||
		ps_fail "$1" "$2 ns, want [$3, $4] ns"
}

# Every peer ACKs each segment at once, in its kernel (the route feature
# quickack, RTAX_QUICKACK): an echo of a TSval is then produced in softirq,
# as ping's reply is, and ping is the reference for the RTT of both.
for p in 1 2 3; do
	ip -n "$(ps_peer_ns "$p")" route add "$(ps_host_ip4 "$p")/32" dev "dP$p" quickack 1 &&
		ip -n "$(ps_peer_ns "$p")" -6 route add "$(ps_host_ip6 "$p")/128" dev "dP$p" quickack 1 ||
		ps_fail "peer $p: a quickack route to the host" "ip route add failed"
done

# The windows. The reference for each exchange is the host kernel's own RTT
# of it (TCP_INFO, read by tests/tools/tcpthink.py: the SYN's and the
# SYN-ACK's first sample exactly, a request's from the smoothed RTT read
# before and after it), on its own clock: from the segment's send time
# (tcp_transmit_skb) to the ACK's processing. pathscope's span (tc egress ->
# XDP) lies inside it: its mean is at most 2 us above the kernel's (the
# kernel's stamps are in us; its srtt readings sum to within 7 us), and
# below it by the host's own TCP send and receive paths: measured 8 to
# 35 us over 13 means idle, up to 43 us with the machine busy; held to
# max(2%, 100 us). A constant +-200 us, and x1.2 or x0.8 of a delayed
# peer's RTT, miss that window. Both clocks time the same exchange, so a
# stalled CPU or a late delay line moves both alike: in a busy run here,
# peer 3's mean request RTT was 1.26 ms on pathscope's clock and 1.28 ms on
# the kernel's, with ping at 0.11 ms.
# ping runs beside each measurement, on the same path, and is printed, not
# asserted: its are other packets at other moments of the delay line's
# lateness. With ping's mean as the reference (until this test read the
# kernel's), TCP's exchanges ran 400-700 us above it in a CI run (peer 3:
# ping 140 us, the requester's own median 1.4 ms, sockperf at a tenth of
# its usual rate) and handshakes up to 240 us below it here. Each
# measurement is tried up to TRIES times until its mean is in the window;
# the last try is checked.
below() { tol "$1" 2 100000; }
KABOVE=2000
TRIES=3
# MEAN KERNEL: MEAN within the kernel's window
in_window() { [ "$1" -ge $(($2 - $(below "$2"))) ] && [ "$1" -le $(($2 + KABOVE)) ]; }
# NAME MEAN KERNEL: the check of that window
check_window() {
	check_between "$1, the kernel's own (TCP_INFO) -max(2%, 100 us) +2 us" "$2" \
		$(($3 - $(below "$3"))) $(($3 + KABOVE))
}
declare -a ping_mean hs_total=(0 0 0 0)
port=7000
for p in 3 1 2; do
	d2=$((2 * DELAY_US[p] * 1000))
	q=${QUEUE[p]}
	sub4="198.18.$p.0/24" sub6="2001:db8:$p::/48"
	name="peer $p (${DELAY_US[p]} us each way)"

	# TCP RTT against the host kernel's own, with ping on the same path at
	# the same time: N_RR requests from the host (tests/tools/tcpthink.py,
	# one in flight, a 5 ms gap so that each has a TSval of its own, in ms or
	# us), each ACKed by the peer's kernel at once, interleaved with ping
	# over IPv4 and IPv6 at 75 a second. Up to TRIES tries (see "The
	# windows"): the last one is checked.
	# The requests leave from CPU 0, as ping's do: there the delay line
	# (real-time) runs. When that vCPU stalls (steal time), a sender on it
	# stalls too, so a stall delays the send, which no RTT holds. A sender
	# on CPU 1 went on sending into the stalled wire, and only TCP's RTTs
	# held the stalls: +180 to +370 us over ping at peer 3 in a CI run (the
	# kernel's reference would hold them too).
	for try in $(seq $TRIES); do
		port=$((port + 1))
		ip netns exec "$(ps_peer_ns "$p")" timeout 60 python3 "$THINK" serve --bind "$(ps_peer_ip4 "$p")" --port $port --think-us 0 --seconds 20 >/dev/null 2>&1 &
		srv=$!
		_ps_wait_port "$(ps_peer_ns "$p")" tcp $port
		before=$(peer_entry "$sub4")
		ps_in_a taskset -c 0 ping -4 -n -c "$N_RR" -i 0.013 -W 2 "$(ps_peer_ip4 "$p")" >"$PING4" 2>&1 &
		ping4=$!
		ps_in_a taskset -c 0 ping -6 -n -c "$N_RR" -i 0.013 -W 2 "$(ps_peer_ip6 "$p")" >"$PING6" 2>&1 &
		ping6=$!
		req=$(ps_in_a taskset -c 0 timeout 60 python3 "$THINK" request --dst "$(ps_peer_ip4 "$p")" --port $port --count "$N_RR" --gap-ms 5) ||
			ps_fail "$name: $N_RR requests" "exit $?"
		wait "$srv" "$ping4" "$ping6"
		hs_total[p]=$((hs_total[p] + 1))
		ping_mean[4]=$(ping_mean_ns <"$PING4") ping_mean[6]=$(ping_mean_ns <"$PING6")
		# The last sample, the host's FIN's, comes a round trip after the
		# server read it and left.
		wait_count "$sub4" rtt_count $(($(jq '.rtt_count // 0' <<<"$before") + N_RR + 1))
		read -r n mean <<<"$(mean_diff "$(peer_entry "$sub4")" "$before" rtt_count rtt_avg_ns)"
		kn=$(jq '.kernel_rtt_count // 0' <<<"$req")
		kmean=$(($(jq '.kernel_rtt_sum_ns // 0' <<<"$req") / (kn > 0 ? kn : 1)))
		echo "# $name: try $try: ping mean ${ping_mean[4]} ns (IPv4), ${ping_mean[6]} ns (IPv6); requests: $req; kernel: mean $kmean ns; pathscope: $n RTT samples, mean $mean ns"
		in_window "$mean" "$kmean" && break
	done
	# One sample per request, and one for the host's FIN (a FIN is timed as
	# data is: the peer's ACK of it echoes its TSval). The first request
	# waits 5 ms after the handshake: in the same ms it would carry the
	# handshake ACK's TSval, whose first segment pathscope has seen.
	ps_check_eq "$name: request/response: one RTT sample per request, and the FIN's" "$n" $((N_RR + 1))
	ps_check_eq "$name: request/response: the kernel timed the same $((N_RR + 1))" "$kn" $((N_RR + 1))
	check_window "$name: request/response: exact mean RTT" "$mean" "$kmean"
	if [ "$p" != 3 ]; then
		check_floor "$name: request/response: RTT median at least 2 x delay (the delay line's floor)" \
			"$(dist_diff "$(peer_entry "$sub4" | jq -c .rtt_ns)" "$(jq -c '.rtt_ns // {hist: []}' <<<"$before")")" "$d2"
	fi

	# Handshakes, both directions, each IP version, against the host kernel's
	# own first RTT sample of each connection (the SYN's as client, the
	# SYN-ACK's as server), with ping on the same path at the same time
	# (printed; see "The windows"). The connections are 2 x the
	# delay apart, so that one's FIN and ACKs have crossed the delay line
	# before the next one's SYN. Up to TRIES tries per IP version.
	hs_before=$(queue_tcp "$q" | jq .handshake_ns.count)
	hs_made=0
	gap=$((2 * DELAY_US[p] / 1000 + 2))
	for v in 4 6; do
		pip=$(ps_peer_ip$v "$p") hip=$(ps_host_ip$v "$p")
		sub=$sub4
		[ "$v" = 6 ] && sub=$sub6
		for try in $(seq $TRIES); do
			before=$(peer_entry "$sub")
			# (env: a background job ignores SIGINT, which ends ping with its summary)
			ip netns exec "$NS_A" env --default-signal=INT taskset -c 0 ping -"$v" -n -i 0.01 -W 2 -w 60 "$pip" >"$PING4" 2>&1 &
			pinger=$!
			port=$((port + 1))
			ip netns exec "$(ps_peer_ns "$p")" timeout 60 python3 "$THINK" accept --bind "$pip" --port $port --count $N --seconds 30 >/dev/null 2>&1 &
			srv=$!
			_ps_wait_port "$(ps_peer_ns "$p")" tcp $port
			# from CPU 0, as the requests above (why there)
			conn=$(ps_in_a taskset -c 0 timeout 60 python3 "$THINK" connect --dst "$pip" --port $port --count $N --gap-ms $gap) ||
				ps_fail "$name: IPv$v: $N connections to the peer" "exit $?"
			wait "$srv"
			port=$((port + 1))
			ip netns exec "$NS_A" timeout 60 python3 "$THINK" accept --bind "$hip" --port $port --count $N --seconds 30 >"$THINK_OUT" 2>/dev/null &
			srv=$!
			_ps_wait_port "$NS_A" tcp $port
			ps_in_peer "$p" taskset -c 1 timeout 60 python3 "$THINK" connect --dst "$hip" --port $port --count $N --gap-ms $gap >/dev/null ||
				ps_fail "$name: IPv$v: $N connections from the peer" "exit $?"
			wait "$srv"
			kill -INT "$pinger"
			wait "$pinger"
			hs_made=$((hs_made + 2 * N))
			hs_ping=$(ping_mean_ns <"$PING4")
			read -r n mean <<<"$(mean_diff "$(peer_entry "$sub")" "$before" handshake_count handshake_avg_ns)"
			kn=$(($(jq '.connections // 0' <<<"$conn") + $(jq '.connections // 0' "$THINK_OUT")))
			kmean=$((($(jq '.kernel_rtt_sum_ns // 0' <<<"$conn") + $(jq '.kernel_rtt_sum_ns // 0' "$THINK_OUT")) / (kn > 0 ? kn : 1)))
			echo "# $name: $sub: try $try: $n handshakes, mean $mean ns; the kernel's: $kn, mean $kmean ns; ping's mean over the same time $hs_ping ns"
			in_window "$mean" "$kmean" && break
		done
		# The handshake's both sides (SYN out -> SYN-ACK in, SYN-ACK out ->
		# ACK in) are answered in the peer's kernel: the window of the
		# request/response.
		ps_check_eq "$name: $sub: $((2 * N)) handshakes timed ($N as client, $N as server)" "$n" $((2 * N))
		ps_check_eq "$name: $sub: the kernel timed the same $((2 * N))" "$kn" $((2 * N))
		check_window "$name: $sub: exact mean handshake RTT" "$mean" "$kmean"
	done
	hs_total[p]=$((hs_total[p] + hs_made))
	ps_check_eq "$name: queue $q: $hs_made handshakes timed" \
		"$(($(queue_tcp "$q" | jq .handshake_ns.count) - hs_before))" "$hs_made"

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
	# first): its highest srtt bounds the median from above, 100 us over
	# (an EWMA read 6 times can miss the run's worst). Its min_rtt bounds
	# nothing from below that the delay line's floor does not already.
	check_ceiling "$name: iperf3: RTT median not above the kernel's highest srtt (ss -tin) + 100 us" \
		"$rtt" $((${srtt:-0} + 100000))

	# sockperf ping-pong --tcp, client on the host: one exchange in flight,
	# each request a TSval of its own (us at peer 3; at peers 1 and 2 a
	# round trip is over 1 ms), so one RTT sample per request sent (and one
	# for the FIN), +-2.
	before=$(peer_entry "$sub4")
	ip netns exec "$(ps_peer_ns "$p")" taskset -c 1 timeout 30 sockperf server --tcp -i "$(ps_peer_ip4 "$p")" -p 11111 >/dev/null 2>&1 &
	srv=$!
	_ps_wait_port "$(ps_peer_ns "$p")" tcp 11111
	sp=$(ps_in_a taskset -c 1 timeout 30 sockperf ping-pong --tcp -i "$(ps_peer_ip4 "$p")" -p 11111 -t 3 --mps=max 2>&1) ||
		ps_fail "$name: sockperf" "exit $?"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	sent=$(grep -o 'Total Run.*SentMessages=[0-9]*' <<<"$sp" | grep -o '[0-9]*$')
	spavg=$(grep -o 'avg-latency=[0-9.]*' <<<"$sp" | head -1 | awk -F= '{ printf "%d", $2 * 1000 }')
	# With TSvals in ms (peers 1 and 2), the first request shares the
	# handshake ACK's TSval and is not timed.
	want=$((${sent:-0} + 1))
	[ "$p" != 3 ] && want=$((want - 1))
	wait_count "$sub4" rtt_count $(($(jq '.rtt_count // 0' <<<"$before") + want))
	read -r n mean <<<"$(mean_diff "$(peer_entry "$sub4")" "$before" rtt_count rtt_avg_ns)"
	echo "# $name: sockperf: ${sent:-?} requests sent, mean ${spavg:-?} ns (half the round trip); pathscope: $n RTT samples, mean $mean ns"
	d=$((n - want))
	[ "${sent:-0}" -gt 0 ] && [ "${d#-}" -le 2 ] &&
		ps_ok "$name: sockperf ping-pong: $n RTT samples, one per request sent ($sent) and the FIN's, less the first at ms TSvals: $want, +-2" ||
		ps_fail "$name: sockperf ping-pong: one RTT sample per request sent and the FIN's, less the first at ms TSvals: $want, +-2" "$n samples, ${sent:-?} sent"
	# sockperf's round trip holds pathscope's whole, plus this host's own
	# paths and the client's wakeup (sockperf prints its half, to 1 ns);
	# the delay line's delay is a floor (there is none at peer 3).
	check_between "$name: sockperf ping-pong: exact mean RTT, from 2 x delay to twice sockperf's mean" \
		"$mean" "$d2" $((2 * ${spavg:-0} + 2))
done

# Per RX queue, exactly: each peer's handshakes (4N, and those of the
# request/response, iperf3's two connections and sockperf's one) and RTT
# samples on its own queue.
ps_check_budget "host" "$(ps_pathscope_a stats dA --json)" tcp_rtt tcp_handshake
js=$(ifjs .)
for p in 1 2 3; do
	q=${QUEUE[p]}
	ps_check_eq "queue $q: peer $p's $((hs_total[p] + 3)) handshakes, and its RTT samples (those of its subnets)" \
		"$(jq -c "[.queues[$q].tcp.handshakes_timed, .queues[$q].tcp.rtt_ns.count]" <<<"$js")" \
		"$(jq -c --argjson n $((hs_total[p] + 3)) --arg a "198.18.$p.0/24" --arg b "2001:db8:$p::/48" \
			'[$n, (.tcp_peers | map(select(.subnet == $a or .subnet == $b) | .rtt_count) | add)]' <<<"$js")"
done
ps_check_eq "queue 0: no handshake, no RTT sample" \
	"$(jq -c '[.queues[0].tcp.handshakes_timed, .queues[0].tcp.rtt_ns.count]' <<<"$js")" "[0,0]"

# Host response time: the host thinks 3 ms before each answer to peer 1.
THINK_US=3000
ip netns exec "$NS_A" taskset -c 1 timeout 60 python3 "$THINK" serve --bind "$(ps_host_ip4 1)" --port 7100 --think-us $THINK_US --seconds 20 >"$THINK_OUT" 2>/dev/null &
srv=$!
_ps_wait_port "$NS_A" tcp 7100
before=$(peer_entry 198.18.1.0/24)
# 2 ms between an answer and the next request: peer 1 ACKs the answer at
# once (its quickack route), and a request in the same ms would carry that
# pure ACK's TSval, whose first segment pathscope has already seen.
req=$(ps_in_peer 1 timeout 60 python3 "$THINK" request --dst "$(ps_host_ip4 1)" --port 7100 --count 300 --gap-ms 2) ||
	ps_fail "think: requests" "exit $?"
wait "$srv"
echo "# think server: $(cat "$THINK_OUT"); client: $req"
ps_check_eq "think: 300 requests answered" "$(jq .answered "$THINK_OUT")" 300
read -r n mean <<<"$(mean_diff "$(peer_entry 198.18.1.0/24)" "$before" response_data_count response_data_avg_ns)"
read -r nack _ <<<"$(mean_diff "$(peer_entry 198.18.1.0/24)" "$before" ack_delay_count ack_delay_avg_ns)"
think=$(jq .mean_ns "$THINK_OUT") held=$(jq '.held_mean_ns // 0' "$THINK_OUT")
echo "# think: $n data responses, mean $mean ns, $nack ACK delays; the server's own think mean $think ns, held mean $held ns"
# A new connection ACKs at once (quickack mode, until it answers): the
# first request's echo is the host's pure ACK, an ACK delay sample.
ps_check_eq "think: each request answered by one timed echo: $((300 - 1)) data responses, 1 ACK" "$n $nack" "299 1"
ps_check_eq "think: the server held 300 requests with a kernel receive time" "$(jq '.held_count // 0' "$THINK_OUT")" 300
# The reference: how long the server held each request, from the kernel's
# receive time (SO_TIMESTAMPNS, taken as the stack takes the frame, just
# past XDP) to its send() (its wakeup and think in it). pathscope's span
# (XDP -> tc egress) adds to it the send path to tc egress and the frame's
# first steps (measured 30 us), and spans one request fewer (the
# first, ACKed at once), whose share of the mean is under 1/300.
SEND_NS=80000
check_between "think: exact mean data response, from the server's held mean to $SEND_NS ns above" \
	"$mean" "$held" $((held + SEND_NS))
# ACK delay against the kernel's own figure: a peer trickles 64-byte
# messages 50 ms apart (each after the ACK of the one before) to a sink on
# the host that never answers and reads only once they are all sent (a read
# would send the ACK at once), so each is answered by the host's pure ACK
# alone, timed by pathscope (XDP in -> tc egress out). The sender's kernel
# times the same exchanges: its exact mean RTT of the timed messages (from
# its srtt, read after each; tests/tools/tcpthink.py) is the path's RTT plus
# the host's ACK delay, and its samples of the warm-up that were ACKed at
# once (under 30 ms) are the path's RTT, on the same connection a second
# before. The first 20 messages are left out (a connection ACKs its first
# 16 or so at once: quickack mode), then 40 are timed. The pause between,
# while this test reads the entry (100-140 ms here), must stay under the
# host's RTO, beyond which the host goes back to quickack mode: the host's
# routes to both peers raise it to 1 s (rto_min).
#   - quickack off (peer 1): the host delays each ACK to its delayed-ACK
#     timer, 40 ms (TCP_DELACK_MIN) on a jiffy tick: the mean at least
#     40 ms, and within ACK_NS of the kernel's timed mean less its path RTT.
#     What lies between is the path's RTT in the timed phase less that of
#     the warm-up (the delay line's lateness moves it) and the host's own
#     paths around pathscope's span: -232 to +58 us over 6 runs, +1.03 ms in
#     a busy one.
#   - quickack on (the host's route to peer 2 carries quickack): every ACK at
#     once, in the host's softirq: the mean under 100 us (measured 18-35 us).
#     The kernel cannot hold it closer: its timed mean less its warm-up's
#     moved by -950 to +305 us over 7 runs on this 10 ms path, for an ACK
#     delay of 20 us.
# Until this test read the kernel's exact means, it took the sender's srtt
# (an EWMA) less an RTT measured a minute before: 2.2 ms off at a busy
# moment.
ACK_NS=2000000
ip -n "$NS_A" route add "$(ps_peer_ip4 1)/32" dev dA rto_min 1000ms &&
	ip -n "$NS_A" route add "$(ps_peer_ip4 2)/32" dev dA rto_min 1000ms quickack 1 ||
	ps_fail "the host's routes to peers 1 and 2 for the ACK delay" "ip route add failed"
TRICKLE_ERR=$(mktemp)
ps_at_exit 'rm -f "$TRICKLE_ERR" "$TRICKLE_ERR.go"'
for p in 1 2; do
	case $p in 1) what="quickack off (peer 1)" ;; 2) what="quickack on (peer 2)" ;; esac
	port=$((port + 1))
	ip netns exec "$NS_A" timeout 30 python3 "$THINK" sink --bind "$(ps_host_ip4 "$p")" --port $port --seconds 6 >/dev/null 2>&1 &
	srv=$!
	_ps_wait_port "$NS_A" tcp $port
	: >"$TRICKLE_ERR"
	: >"$THINK_OUT"
	rm -f "$TRICKLE_ERR.go"
	ps_in_peer "$p" timeout 30 python3 "$THINK" trickle --dst "$(ps_host_ip4 "$p")" --port $port --warm 20 --count 40 --gap-ms 50 \
		--go "$TRICKLE_ERR.go" >"$THINK_OUT" 2>"$TRICKLE_ERR" &
	cli=$!
	for _ in $(seq 100); do grep -q warm "$TRICKLE_ERR" && break; sleep 0.05; done
	before=$(peer_entry "198.18.$p.0/24")
	touch "$TRICKLE_ERR.go"
	# Read before the sender closes: the ACK of its FIN is no message's.
	for _ in $(seq 200); do [ -s "$THINK_OUT" ] && break; sleep 0.05; done
	after=$(peer_entry "198.18.$p.0/24")
	wait "$cli" || ps_fail "ack delay, $what: trickle" "exit $?"
	wait "$srv"
	read -r n mean <<<"$(mean_diff "$after" "$before" ack_delay_count ack_delay_avg_ns)"
	path=$(jq '.path_kernel_rtt_mean_ns // 0' "$THINK_OUT")
	kernel=$(($(jq '.timed_kernel_rtt_mean_ns // 0' "$THINK_OUT") - path))
	echo "# ack delay, $what: $n samples, mean $mean ns; sender: $(cat "$THINK_OUT"); its timed mean less its path RTT $path ns = $kernel ns"
	ps_check_eq "ack delay, $what: one sample per message after the warm-up" "$n" 40
	# A pause past the host's rto_min (1 s) would put it back in quickack mode.
	cue=$(jq .cue_wait_ms "$THINK_OUT")
	awk -v c="$cue" 'BEGIN { exit !(c < 1000) }' &&
		ps_ok "ack delay, $what: the pause to read the entry ($cue ms) stayed under the host's 1 s rto_min" ||
		ps_fail "ack delay, $what: the pause to read the entry under the 1 s rto_min" "${cue:-none} ms"
	ps_check_eq "ack delay, $what: the sender's kernel timed the 40 too (none unACKed)" "$(jq .unacked "$THINK_OUT")" 0
	[ "$(jq '.path_kernel_rtt_count // 0' "$THINK_OUT")" -ge 10 ] &&
		ps_ok "ack delay, $what: the path's RTT from $(jq .path_kernel_rtt_count "$THINK_OUT") warm-up samples ACKed at once" ||
		ps_fail "ack delay, $what: the path's RTT from at least 10 warm-up samples ACKed at once" "$(jq -c .path_kernel_rtt_count "$THINK_OUT")"
	if [ "$p" = 2 ]; then
		[ "$mean" -lt 100000 ] && ps_ok "ack delay, $what: exact mean $mean ns, under 100 us" ||
			ps_fail "ack delay, $what: exact mean under 100 us" "$mean ns"
	else
		[ "$mean" -ge 40000000 ] && ps_ok "ack delay, $what: exact mean $mean ns, at least the 40 ms timer" ||
			ps_fail "ack delay, $what: exact mean at least the 40 ms delayed-ACK timer" "$mean ns"
	fi
	if [ "$p" = 1 ]; then
		check_between "ack delay, $what: exact mean, the sender kernel's mean less the path's RTT +-$ACK_NS ns" \
			"$mean" $((kernel - ACK_NS)) $((kernel + ACK_NS))
	fi
done

ps_heat_mark "$HEAT" "$NS_A" dA
for stage in tcp_rtt tcp_handshake tcp_response tcp_ack_delay; do
	ps_heat_check run "$HEAT" "$stage" dA
done
ps_pathscope_a detach dA || ps_fail "detach dA" "exit $?"
wire=$(ps_delay_stop)
echo "# delay line: $(tr '\n' ';' <<<"$wire")"
ps_check_eq "the delay line dropped nothing" "$(awk '{ d += $7 } END { print d + 0 }' <<<"$wire")" 0
ps_done
