#!/usr/bin/env bash
# Known queueing delay: two TX queues of a veth shaped differently (mq root,
# tbf children at 20 and 100 Mbit/s, 50 KB queues), each saturated by a UDP
# sender pinned to its queue (XPS + taskset). A full tbf queue of L bytes at
# rate R holds a packet about L/R: 20 ms and 4 ms. pathscope's qdisc sojourn
# (net_dev_queue -> net_dev_start_xmit) must match per queue and tell the two
# apart. Its exact mean is held to Little's law on the qdisc's own counters
# (tests/tools/qdisc_little.py: the integral of the tbf's queue length over
# the run, read from rtnetlink about every ms, over the packets it sent).
# Its drop count per queue must equal the qdisc's; veth has no TX
# completion, which must read "n/a". Run three times: with tp_btf programs,
# with the classic-tracepoint fallback forced (--probe-mode tracepoint), and
# timing 1 skb in 4 (--sample 4).
# Windows: the median within 25% of limit/rate; the exact mean within
# max(2%, 120 us) of Little's law (measured -4 to +177 us); drops equal the
# tbf's exactly when every skb is timed, and within 25% once scaled at
# --sample 4. The kernel path view names each queue's tbf with its drops, and
# its net_dev_xmit calls match the packets each tbf sent within 5%
# (docs/known-limits.md).
. "$(dirname "$0")/lib.sh"
ps_require_root txlat
ps_require_file txlat "$PATHSCOPE"
ps_require_file txlat "$UDPSEND"
ps_require_cmd txlat taskset tc python3
LITTLE=$PS_ROOT/tests/tools/qdisc_little.py
[ "$(nproc)" -ge 2 ] || { ps_skip txlat "needs 2 CPUs (one sender per TX queue)"; ps_done; }

ps_testbed_create 2 || { ps_fail txlat "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1'
little_out=$(mktemp) little_stop=$(mktemp -u)
ps_at_exit '[ -n "${little:-}" ] && kill "$little" 2>/dev/null; rm -f "$little_out" "$little_stop"'
LIMIT=50000
# Little's law window: max(LITTLE_PCT of the reference, LITTLE_MIN_US). Measured
# -4..+177 us (0.9%) at 19 ms, -4..+47 us at 3.8 ms over 18 queue runs, 2026-11-26,
# with and without a CPU hog beside; about 2x that.
LITTLE_PCT=2 LITTLE_MIN_US=120
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
# Modes: tp_btf, classic tracepoints, and tp_btf timing 1 in 4 skbs.
for mode in tp_btf tracepoint sampled; do
	shape
	every=1 args=(--probe-mode "$mode")
	[ "$mode" = sampled ] && every=4 args=(--probe-mode tp_btf --sample 4)
	ps_pathscope_a attach vA --features all "${args[@]}" || ps_fail "$mode: attach" "exit $?"
	# Attaching may make the stack send an MLD report through the qdiscs:
	# count the workload from a quiet baseline.
	ps_wait_quiet 5
	q0=$(ps_in_a tc -s -j qdisc show dev vA)
	js0=$(ps_pathscope_a stats vA --json)
	ps_check_eq "$mode: four tracepoint links" "$(tplinks)" $((links0 + 4))
	ps_check_eq "$mode: stats report the probe mode and sampling" \
		"$(ps_pathscope_a stats vA --json | jq -r '.interfaces[0] | "\(.probe_mode) \(.totals.tx_latency.sample_every)"')" \
		"${args[1]} $every"

	ps_sink_start "$NS_B" 9000
	# Little's law from the tbfs themselves, while they fill and drain.
	rm -f "$little_stop"
	# Emptied here: the background job truncates it only once it runs, and
	# the wait below would read the last mode's "ready".
	: >"$little_out"
	ps_in_a python3 "$LITTLE" vA "$little_stop" >"$little_out" &
	little=$!
	for _ in $(seq 100); do grep -q ready "$little_out" && break; sleep 0.05; done
	# About 1 s of backlog on each queue (1042-byte frames).
	ip netns exec "$NS_A" taskset -c 0 "$UDPSEND" -n 2500 -s 1000 "$PS_IP4_B" 9000 &
	s0=$!
	ip netns exec "$NS_A" taskset -c 1 "$UDPSEND" -n 10000 -s 1000 "$PS_IP4_B" 9000 &
	s1=$!
	wait "$s0" || ps_fail "sender on tx-0" "exit $?"
	wait "$s1" || ps_fail "sender on tx-1" "exit $?"
	# Let both queues drain (the tbf's timer may lag on a busy CPU): at
	# most 5 s until both backlogs are empty.
	for i in $(seq 50); do
		[ "$(ps_in_a tc -s -j qdisc show dev vA | jq '[.[] | select(.kind == "tbf") | .qlen] | add')" = 0 ] && break
		sleep 0.1
	done
	touch "$little_stop"
	wait "$little" || ps_fail "$mode: qdisc_little" "exit $?"
	little=
	cat "$little_out"
	ps_sink_stop >/dev/null

	js=$(ps_pathscope_a stats vA --json)
	q=$(ps_in_a tc -s -j qdisc show dev vA)
	tx() { jq -r ".interfaces[0].queues[$1].tx_latency.$2" <<<"$js"; }
	# The workload's share of a tbf counter: now minus the baseline.
	qdisc() {
		echo $(($(jq -r ".[] | select(.handle == \"$1:\") | .$2" <<<"$q") -
			$(jq -r ".[] | select(.handle == \"$1:\") | .$2" <<<"$q0")))
	}
	# |got - want| <= 25% of want
	near() { awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w / 4) }'; }

	for i in 0 1; do
		handle=$((10 * (i + 1)))
		rate=$([ "$i" = 0 ] && echo 20000000 || echo 100000000)
		want=$((LIMIT * 8 * 1000000000 / rate))
		# The median against limit/rate, the sojourn of a full queue at the
		# configured rate: not below it by more than 25%; above it as far as
		# the tbf fell behind its rate (its dequeue timer stalls on a busy
		# CPU), which its own Little's law mean shows: up to 25% above the
		# larger of the two. (A CI run: p50 5.5 ms, limit/rate 4 ms, Little's
		# law 7.9 ms.)
		p50=$(tx "$i" sojourn_ns.p50)
		lref=$(awk -v h="$handle:" '$1 == "handle" && $2 == h { print $10 }' "$little_out")
		top=$(( ${lref:-0} > want ? ${lref:-0} : want ))
		[ "$p50" -ge $((want - want / 4)) ] && [ "$p50" -le $((top + top / 4)) ] &&
			ps_ok "$mode: tx-$i: sojourn p50 ${p50} ns ~ limit/rate ${want} ns (-25%, +25% of max(it, Little's law ${lref:-none} ns))" ||
			ps_fail "$mode: tx-$i: sojourn p50 ~ limit/rate -25%, +25% of max(it, Little's law)" \
				"got $p50 ns, limit/rate $want ns, Little's law ${lref:-none} ns"
		# The exact mean of this run against Little's law: sum delta over
		# count delta (the averages are rounded: under 2 ns off).
		c0=$(jq ".interfaces[0].queues[$i].tx_latency.sojourn_ns.count" <<<"$js0")
		a0=$(jq ".interfaces[0].queues[$i].tx_latency.sojourn_avg_ns" <<<"$js0")
		c1=$(tx "$i" sojourn_ns.count) a1=$(tx "$i" sojourn_avg_ns)
		got=$(((a1 * c1 - a0 * c0) / (c1 - c0)))
		ref=$(awk -v h="$handle:" '$1 == "handle" && $2 == h { print $10 }' "$little_out")
		# The reference saw the whole run: from an empty queue to an empty one.
		ps_check_eq "$mode: tx-$i: Little's law covers every packet the tbf sent" \
			"$(awk -v h="$handle:" '$1 == "handle" && $2 == h { print $6 }' "$little_out")" \
			"$(qdisc "$handle" packets)"
		tol=$((ref * LITTLE_PCT / 100))
		[ "$tol" -lt $((LITTLE_MIN_US * 1000)) ] && tol=$((LITTLE_MIN_US * 1000))
		[ -n "$ref" ] && [ "$got" -ge $((ref - tol)) ] && [ "$got" -le $((ref + tol)) ] &&
			ps_ok "$mode: tx-$i: sojourn mean $got ns = Little's law $ref ns, off by $(((got - ref) / 1000)) us (window +-$((tol / 1000)) us)" ||
			ps_fail "$mode: tx-$i: sojourn mean = Little's law +-max($LITTLE_PCT%, $LITTLE_MIN_US us)" \
				"got $got ns, Little's law ${ref:-none} ns"
		# A stale entry (a drop or requeue not cleaned up, a reused skb
		# address) would time an skb from long before it was queued. The tail
		# itself varies on this VM (p99 of tx-1 from 4 to 13 ms between runs:
		# the tbf's dequeue timer stalls on a busy CPU), so only a coarse
		# bound is asserted here.
		max=$(tx "$i" sojourn_ns.max)
		[ "$max" -lt 250000000 ] && ps_ok "$mode: tx-$i: no outliers (max $max ns < 250 ms)" ||
			ps_fail "$mode: tx-$i: no outliers" "max $max ns, limit/rate $want ns"
		drops=$(qdisc "$handle" drops)
		if [ "$every" = 1 ]; then
			ps_check_eq "$mode: tx-$i: drops equal the tbf's own drop count" "$(tx "$i" dropped)" "$drops"
		else
			near "$(tx "$i" dropped)" "$drops" && ps_ok "$mode: tx-$i: scaled drops ~ the tbf's ($drops)" ||
				ps_fail "$mode: tx-$i: scaled drops ~ the tbf's" "$(tx "$i" dropped) vs $drops"
		fi
		ps_check_eq "$mode: tx-$i: queued counts every skb, sampled or not" \
			$(($(tx "$i" queued) - $(jq ".interfaces[0].queues[$i].tx_latency.queued" <<<"$js0"))) \
			$((drops + $(qdisc "$handle" packets)))
		sent=$(($(qdisc "$handle" packets) / every))
		n=$(($(tx "$i" sojourn_ns.count) - $(jq ".interfaces[0].queues[$i].tx_latency.sojourn_ns.count" <<<"$js0")))
		# All timed when not sampling (a few lost to LRU churn at most);
		# about 1 in 4 of those sent when sampling.
		if [ "$every" = 1 ]; then lo=$((sent * 95 / 100)) hi=$sent; else
			lo=$((sent * 90 / 100)) hi=$((sent * 110 / 100)); fi
		[ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] &&
			ps_ok "$mode: tx-$i: sojourn samples ($n) cover the packets the tbf sent ($sent)" ||
			ps_fail "$mode: tx-$i: sojourn samples cover the packets sent" "$n samples, $sent sent"
		ps_check_eq "$mode: tx-$i: no completion time on veth" "$(tx "$i" completion_ns)" "n/a"
		ps_check_eq "$mode: tx-$i: no stale entries" "$(tx "$i" stale)" 0
		# The kernel path view (feature kernel, in "all") joins the qdisc
		# of each TX queue (rtnetlink) and the driver's xmit return codes.
		ps_check_eq "$mode: tx-$i: the queue's qdisc is the tbf $handle: with its drops" \
			"$(jq -c ".interfaces[0].queues[$i].qdisc | [.kind, .handle, .parent, .drops]" <<<"$js")" \
			"[\"tbf\",\"$handle:0\",\"1:$((i + 1))\",$(jq ".[] | select(.handle == \"$handle:\") | .drops" <<<"$q")]"
		# Every packet the tbf sent passed net_dev_xmit (ok, or dropped by
		# veth when its peer's ring is full). Under this saturation the
		# kernel skips the BPF program for a few events: perf counted all
		# 12500 net_dev_start_xmit events of this workload while the
		# program ran 12414 times, up to 2.6% short on a busy machine
		# (docs/known-limits.md). Within 5%.
		kx() { jq ".interfaces[0].queues[$i].kernel.tx | .xmit_ok + .xmit_dropped + .xmit_busy" <<<"$1"; }
		got=$(($(kx "$js") - $(kx "$js0"))) sent=$(qdisc "$handle" packets)
		[ "$got" -le "$sent" ] && [ $((sent - got)) -le $((sent / 20)) ] &&
			ps_ok "$mode: tx-$i: net_dev_xmit calls ($got) = the packets the tbf sent ($sent), within 5%" ||
			ps_fail "$mode: tx-$i: net_dev_xmit calls = the packets the tbf sent" "$got vs $sent"
done
ps_check_eq "$mode: the root qdisc is mq" "$(jq -r '.interfaces[0].qdisc_root.kind' <<<"$js")" mq
# Every skb's entry ends at start_xmit (veth) or at its drop, so once the
# queues are drained the in-flight map is about empty: without the cleanup at
# kfree_skb every drop would leave its entry. A few may remain where the
# kernel skipped the program for an event under load: up to 2.6% of events on
# a busy machine (docs/known-limits.md), so up to 3% of the drops (a CI run:
# 42 left after 3629 drops, 1.2%).
pin=$(ps_pathscope_a status --json | jq -r 'map(select(.current_netns)) | .[0].pin_dir')
left=$(bpftool map dump pinned "$pin/tx_inflight" -j | jq length)
[ "$left" -le $((drops * 3 / 100)) ] &&
	ps_ok "$mode: in-flight map about empty after the drain ($left left after $drops drops)" ||
	ps_fail "$mode: in-flight map about empty after the drain" "$left entries left after $drops drops"
p0=$(tx 0 sojourn_ns.p50) p1=$(tx 1 sojourn_ns.p50)
[ "$p0" -gt $((3 * p1)) ] && ps_ok "$mode: the two queues are told apart ($p0 vs $p1 ns)" ||
	ps_fail "$mode: the two queues are told apart" "$p0 vs $p1 ns"
ps_check_eq "$mode: table: TX latency section names both queues" \
	"$(ps_pathscope_a stats vA | awk '/^TX latency/ { s = 1; next } /^[A-Z][a-z]/ { s = 0 } s && ($1 == "0" || $1 == "1") { print $1 }' | tr '\n' ' ')" "0 1 "
ps_pathscope_a detach vA || ps_fail "$mode: detach" "exit $?"
ps_check_eq "$mode: detach removes the tracepoint links" "$(tplinks)" "$links0"
done
ps_done

