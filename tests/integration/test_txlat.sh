#!/usr/bin/env bash
# Known queueing delay: two TX queues of a veth shaped differently (mq root,
# tbf children at 20 and 100 Mbit/s, 50 KB queues), each saturated by a UDP
# sender pinned to its queue (XPS + taskset). A full tbf queue of L bytes at
# rate R holds a packet about L/R: 20 ms and 4 ms. pathscope's qdisc sojourn
# (net_dev_queue -> net_dev_start_xmit) must match per queue and tell the two
# apart; its drop count per queue must equal the qdisc's; veth has no TX
# completion, which must read "n/a". Run twice: with tp_btf programs and with
# the classic-tracepoint fallback forced (--probe-mode tracepoint).
. "$(dirname "$0")/lib.sh"
ps_require_root txlat
ps_require_file txlat "$PATHSCOPE"
ps_require_file txlat "$UDPSEND"
ps_require_cmd txlat taskset tc
[ "$(nproc)" -ge 2 ] || { ps_skip txlat "needs 2 CPUs (one sender per TX queue)"; ps_done; }

ps_testbed_create 2 || { ps_fail txlat "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1'
LIMIT=50000
shape() { # fresh qdiscs, so their counters start at 0
	ps_in_a tc qdisc del dev vA root 2>/dev/null
	ps_in_a tc qdisc add dev vA root handle 1: mq
	ps_in_a tc qdisc add dev vA parent 1:1 handle 10: tbf rate 20mbit burst 5k limit $LIMIT
	ps_in_a tc qdisc add dev vA parent 1:2 handle 20: tbf rate 100mbit burst 5k limit $LIMIT
}
# XPS: CPU0 transmits on tx-0, CPU1 on tx-1.
ps_in_a sh -c 'echo 1 > /sys/class/net/vA/queues/tx-0/xps_cpus; echo 2 > /sys/class/net/vA/queues/tx-1/xps_cpus'
# Links (tp_btf or perf_event) whose program is one of pathscope's probes.
tplinks() {
	local ids
	ids=$(bpftool prog show -j | jq -c '[.[] | select(.name // "" | test("^pathscope_t[xp]_")) | .id]')
	bpftool link show -j | jq --argjson ids "$ids" '[.[] | select(.prog_id as $p | $ids | index($p))] | length'
}
links0=$(tplinks)
for mode in tp_btf tracepoint; do
	shape
	ps_pathscope_a attach vA --features all --probe-mode "$mode" || ps_fail "$mode: attach" "exit $?"
	ps_check_eq "$mode: four tracepoint links" "$(tplinks)" $((links0 + 4))
	ps_check_eq "$mode: stats report the probe mode" \
		"$(ps_pathscope_a stats vA --json | jq -r '.interfaces[0].probe_mode')" "$mode"

	ps_sink_start "$NS_B" 9000
	# About 1 s of backlog on each queue (1042-byte frames).
	ip netns exec "$NS_A" taskset -c 0 "$UDPSEND" -n 2500 -s 1000 "$PS_IP4_B" 9000 &
	s0=$!
	ip netns exec "$NS_A" taskset -c 1 "$UDPSEND" -n 10000 -s 1000 "$PS_IP4_B" 9000 &
	s1=$!
	wait "$s0" || ps_fail "sender on tx-0" "exit $?"
	wait "$s1" || ps_fail "sender on tx-1" "exit $?"
	sleep 0.5 # let both queues drain
	ps_sink_stop >/dev/null

	js=$(ps_pathscope_a stats vA --json)
	q=$(ps_in_a tc -s -j qdisc show dev vA)
	tx() { jq -r ".interfaces[0].queues[$1].tx_latency.$2" <<<"$js"; }
	qdisc() { jq -r ".[] | select(.handle == \"$1:\") | .$2" <<<"$q"; }
	# |got - want| <= 25% of want
	near() { awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w / 4) }'; }

	for i in 0 1; do
		handle=$((10 * (i + 1)))
		rate=$([ "$i" = 0 ] && echo 20000000 || echo 100000000)
		want=$((LIMIT * 8 * 1000000000 / rate))
		got=$(tx "$i" sojourn_ns.p50)
		near "$got" "$want" && ps_ok "$mode: tx-$i: sojourn p50 ${got} ns ~ limit/rate ${want} ns" ||
			ps_fail "$mode: tx-$i: sojourn p50 ~ limit/rate" "got $got ns, want $want ns +-25%"
		ps_check_eq "$mode: tx-$i: drops equal the tbf's own drop count" "$(tx "$i" dropped)" "$(qdisc "$handle" drops)"
		sent=$(qdisc "$handle" packets)
		n=$(tx "$i" sojourn_ns.count)
		[ "$n" -le "$sent" ] && [ $((n * 100)) -ge $((sent * 95)) ] &&
			ps_ok "$mode: tx-$i: sojourn samples ($n) cover the packets the tbf sent ($sent)" ||
			ps_fail "$mode: tx-$i: sojourn samples cover the packets sent" "$n samples, $sent sent"
		ps_check_eq "$mode: tx-$i: no completion time on veth" "$(tx "$i" completion_ns)" "n/a"
done
p0=$(tx 0 sojourn_ns.p50) p1=$(tx 1 sojourn_ns.p50)
[ "$p0" -gt $((3 * p1)) ] && ps_ok "$mode: the two queues are told apart ($p0 vs $p1 ns)" ||
	ps_fail "$mode: the two queues are told apart" "$p0 vs $p1 ns"
ps_check_eq "$mode: table: TX latency section names both queues" \
	"$(ps_pathscope_a stats vA | awk '/^TX latency/ { s = 1 } s && ($1 == "0" || $1 == "1") { print $1 }' | tr '\n' ' ')" "0 1 "
ps_pathscope_a detach vA || ps_fail "$mode: detach" "exit $?"
ps_check_eq "$mode: detach removes the tracepoint links" "$(tplinks)" "$links0"
done
ps_done

