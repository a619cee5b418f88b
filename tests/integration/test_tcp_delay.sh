#!/usr/bin/env bash
# TCP latency (feature tcp) against independent references, through a known
# delay: the host's tap dA is joined by the delay line (tests/tools/delayline)
# to peer 1 at 500 us each way (its frames into dA's RX queue 1), peer 2 at
# 5000 us each way (queue 2) and peer 3 with no delay (queue 3), which gives
# the base RTT: ping's median through it. For peers 1 and 2 the reference RTT
# is twice the delay plus that base, and pathscope on dA must show:
#   - handshakes: N connections from the host to the peer (SYN out -> SYN-ACK
#     in) and N from the peer to the host (SYN-ACK out -> ACK in), IPv4 and
#     IPv6: exactly 2N handshakes in each subnet's entry and 4N on the peer's
#     RX queue, their median within max(5%, 100 us) of the reference;
#   - iperf3 (host -> peer, 20 Mbit/s, so no queue builds up anywhere): the
#     RTT median of the peer's subnet within max(5%, 100 us) of the reference,
#     and within TOL_SS of the kernel's own smoothed RTT of the same flow
#     (ss -tin, read during the run; see below);
#   - sockperf ping-pong --tcp from the host: the RTT median within
#     max(5%, 100 us) of twice sockperf's median (sockperf reports half the
#     round trip);
#   - per RX queue, exactly: every RTT sample and handshake on the peer's
#     queue, none on any other.
# And a server on the host that thinks 3 ms before it answers each request
# (tests/tools/tcpthink.py) shows a data response time median within 5% of
# 3 ms, on peer 1's queue and in peer 1's subnet.
#
# ss -tin: the kernel times a segment from its transmission (before tc egress
# and the qdisc) to the processing of its ACK (after the host's receive path,
# past XDP), so its RTT holds the host's own paths that pathscope's does not;
# its srtt is an average (7/8 of the old value plus 1/8 of each sample).
# TOL_SS is max(5%, 150 us) here (measured: see README, Tests).
. "$(dirname "$0")/lib.sh"
ps_require_root tcp_delay
ps_require_file tcp_delay "$PATHSCOPE"
ps_require_file tcp_delay "$DELAYLINE"
ps_require_cmd tcp_delay ping jq iperf3 sockperf ss python3
THINK=$PS_ROOT/tests/tools/tcpthink.py
THINK_OUT=$(mktemp)
ps_at_exit 'rm -f "$THINK_OUT"'

N=50
DELAY_US=(0 500 5000 0) # one way, per peer
QUEUE=(0 1 2 3)         # the host RX queue of each peer's frames
ps_delay_testbed_create 4 "${DELAY_US[1]}:${DELAY_US[1]}:${QUEUE[1]}" \
	"${DELAY_US[2]}:${DELAY_US[2]}:${QUEUE[2]}" "0:0:${QUEUE[3]}" ||
	{
		ps_fail tcp_delay "delay testbed setup failed"
		ps_done
	}
ps_at_exit 'ps_pathscope_a detach dA >/dev/null 2>&1'
ps_pathscope_a attach dA --features default,tcp || ps_fail "attach dA" "exit $?"
ps_wait_quiet 5

# The median of ping's per-echo times, in ns.
ping_median_ns() {
	grep -o 'time=[0-9.]*' | cut -d= -f2 | sort -g |
		awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%d\n", m * 1000000 + 0.5 }'
}
out=$(ps_in_a taskset -c 1 ping -4 -n -c 200 -i 0.005 -W 2 "$(ps_peer_ip4 3)")
BASE=$(ping_median_ns <<<"$out")
echo "# base RTT (ping's median through peer 3, no delay): $BASE ns"

peer_entry() { # JSON of the tcp_peers entry of SUBNET
	ps_pathscope_a stats dA --json | jq -c --arg s "$1" '.interfaces[0].tcp_peers[] | select(.subnet == $s)'
}
# max(PCT %, FLOOR ns) of REF
tol() { local t=$(($1 * $2 / 100)); echo $((t > $3 ? t : $3)); }
# NAME VALUE REF TOL: |VALUE - REF| <= TOL
check_near() {
	local d=$(($2 - $3))
	[ "${d#-}" -le "$4" ] &&
		ps_ok "$1: $2 ns, reference $3 ns (difference $d ns, at most $4)" ||
		ps_fail "$1" "$2 ns, reference $3 ns (difference $d ns, more than $4)"
}

port=7000
for p in 1 2; do
	ref=$((2 * DELAY_US[p] * 1000 + BASE))
	tolr=$(tol "$ref" 5 100000)
	sub4="198.18.$p.0/24" sub6="2001:db8:$p::/48"
	name="peer $p (${DELAY_US[p]} us each way, reference $ref ns)"

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
	for sub in "$sub4" "$sub6"; do
		js=$(peer_entry "$sub")
		ps_check_eq "$name: $sub: $((2 * N)) handshakes timed ($N as client, $N as server)" \
			"$(jq .handshake_count <<<"$js")" $((2 * N))
		check_near "$name: $sub: handshake RTT median" "$(jq .handshake_ns.p50 <<<"$js")" "$ref" "$tolr"
	done

	# iperf3 host -> peer, and the kernel's srtt of its data flow while it runs.
	ps_iperf3_server "$(ps_peer_ns "$p")" 5201 || ps_fail "$name: iperf3 server" "not listening"
	ip netns exec "$NS_A" taskset -c 1 timeout 30 iperf3 -c "$(ps_peer_ip4 "$p")" -p 5201 -t 4 -b 20M -l 16K >/dev/null 2>&1 &
	cli=$!
	sleep 3
	# The data connection: the one of the two to port 5201 with more bytes acked.
	ssline=$(ps_in_a ss -Htin "dport = :5201" | paste - - |
		awk '{ b = 0; if (match($0, /bytes_acked:[0-9]+/)) b = substr($0, RSTART + 12, RLENGTH - 12) + 0; print b, $0 }' |
		sort -n | tail -1)
	wait "$cli" || ps_fail "$name: iperf3" "exit $?"
	ps_iperf3_server_wait
	js=$(peer_entry "$sub4")
	pmed=$(jq .rtt_ns.p50 <<<"$js")
	echo "# $name: iperf3: pathscope rtt count $(jq .rtt_count <<<"$js") p50 $pmed avg $(jq .rtt_avg_ns <<<"$js"); ss: $(grep -o 'rtt:[0-9.]*/[0-9.]*\|minrtt:[0-9.]*' <<<"$ssline" | tr '\n' ' ')"
	check_near "$name: iperf3: RTT median" "$pmed" "$ref" "$tolr"
	srtt=$(grep -o ' rtt:[0-9.]*' <<<"$ssline" | awk -F: '{ printf "%d", $2 * 1000000 }')
	minrtt=$(grep -o 'minrtt:[0-9.]*' <<<"$ssline" | awk -F: '{ printf "%d", $2 * 1000000 }')
	check_near "$name: iperf3: RTT median against the kernel's srtt (ss -tin)" "$pmed" "${srtt:-0}" "$(tol "${srtt:-0}" 5 150000)"
	check_near "$name: iperf3: RTT median against the kernel's min_rtt (ss -tin)" "$pmed" "${minrtt:-0}" "$(tol "${minrtt:-0}" 5 150000)"

	# sockperf ping-pong --tcp, client on the host: its RTT samples only.
	before=$(jq .rtt_count <<<"$js")
	before_hist=$(jq -c '.rtt_ns.hist' <<<"$js")
	ip netns exec "$(ps_peer_ns "$p")" timeout 30 sockperf server --tcp -i "$(ps_peer_ip4 "$p")" -p 11111 >/dev/null 2>&1 &
	srv=$!
	sleep 0.5
	sp=$(ps_in_a taskset -c 1 timeout 30 sockperf ping-pong --tcp -i "$(ps_peer_ip4 "$p")" -p 11111 -t 3 --mps=max 2>&1) ||
		ps_fail "$name: sockperf" "exit $?"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	spmed=$(awk '/percentile 50.000 =/ { printf "%d", $NF * 1000 }' <<<"$sp")
	js=$(peer_entry "$sub4")
	# The median of the samples sockperf added: the histogram's difference.
	smed=$(jq -c --argjson b "$before_hist" '.rtt_ns.hist as $h
		| [ $h[] | . as $x | ($b | map(select(.low == $x.low)) | .[0].count // 0) as $c | {low, high, count: (.count - $c)} ]
		| (map(.count) | add) as $n | reduce .[] as $x ({acc: 0, m: null};
			if .m == null and (.acc + $x.count) * 2 >= $n then {acc: (.acc + $x.count), m: (($x.low + $x.high) / 2 | floor)} else .acc += $x.count end) | .m' <<<"$js")
	echo "# $name: sockperf: median $spmed ns (half RTT), $(($(jq .rtt_count <<<"$js") - before)) pathscope samples, their median $smed ns"
	check_near "$name: sockperf ping-pong: RTT median against twice sockperf's median" \
		"${smed:-0}" $((2 * ${spmed:-0})) "$(tol $((2 * ${spmed:-0})) 5 100000)"
done

# Told apart per peer subnet: each subnet's RTTs lie near its own delay.
js=$(ps_pathscope_a stats dA --json)
for p in 1 2; do
	q=${QUEUE[p]}
	ps_check_eq "queue $q: peer $p's $((4 * N)) handshakes, and all of its RTT samples (handshakes, RTTs = peer $p's subnet entries)" \
		"$(jq -c ".interfaces[0] | [.queues[$q].tcp.handshakes_timed, .queues[$q].tcp.rtt_ns.count]" <<<"$js")" \
		"$(jq -c --arg a "198.18.$p.0/24" --arg b "2001:db8:$p::/48" '.interfaces[0].tcp_peers | map(select(.subnet == $a or .subnet == $b))
			| [$((4 * N)), (map(.rtt_count) | add)]' <<<"$js")"
done
ps_check_eq "every other queue: no handshake, no RTT sample" \
	"$(jq -c "[.interfaces[0].queues[] | select(.queue != ${QUEUE[1]} and .queue != ${QUEUE[2]}) | (.tcp.handshakes_timed // 0) + (.tcp.rtt_ns.count // 0)] | add" <<<"$js")" 0

# Host response time: the host thinks 3 ms before each answer.
THINK_US=3000
ip netns exec "$NS_A" taskset -c 1 timeout 60 python3 "$THINK" serve --bind "$(ps_host_ip4 1)" --port 7100 --think-us $THINK_US --seconds 20 >"$THINK_OUT" 2>/dev/null &
srv=$!
sleep 0.3
req=$(ps_in_peer 1 timeout 60 python3 "$THINK" request --dst "$(ps_host_ip4 1)" --port 7100 --count 300) ||
	ps_fail "think: requests" "exit $?"
wait "$srv"
echo "# think server: $(cat "$THINK_OUT"); client: $req"
js=$(peer_entry "198.18.1.0/24")
ps_check_eq "think: 300 requests answered" "$(jq .answered "$THINK_OUT")" 300
check_near "think: data response median, peer 1's subnet" "$(jq .response_data_ns.p50 <<<"$js")" \
	$((THINK_US * 1000)) $((THINK_US * 1000 / 20))
js=$(ps_pathscope_a stats dA --json | jq -c ".interfaces[0].queues[${QUEUE[1]}].tcp")
check_near "think: data response median, queue ${QUEUE[1]}" "$(jq .response_data_ns.p50 <<<"$js")" \
	$((THINK_US * 1000)) $((THINK_US * 1000 / 20))

ps_pathscope_a detach dA || ps_fail "detach dA" "exit $?"
wire=$(ps_delay_stop)
echo "# delay line: $(tr '\n' ';' <<<"$wire")"
ps_check_eq "the delay line dropped nothing" "$(awk '{ d += $7 } END { print d + 0 }' <<<"$wire")" 0
ps_done
