#!/usr/bin/env bash
# TX completion per TX queue, against the wire's own clock. The "wire" of a
# two-queue tap device is tests/tools/tapwire: it reads queue 0 only every
# 30 ms and queue 1 every 10 ms, and a frame's skb is freed when it is read.
# Each datagram carries its send time (udpsend --stamp, CLOCK_MONOTONIC, the
# clock of bpf_ktime_get_ns); the wire times each frame from that stamp to
# the return of the read() that freed it. Datagrams go to 32 ports, 32 flows
# that the tap's flow hash spreads over both queues.
#
# Per queue, pathscope's driver completion (net_dev_start_xmit -> the skb
# freed) plus its qdisc sojourn (net_dev_queue -> start_xmit) is the wire's
# time less the paths around them: send() to net_dev_queue and the free to
# read()'s return. Their exact means must lie in [wire - SLACK, wire].
# SLACK_US is the send path's measured ceiling (below), so +-200 us, x1.2,
# x0.8 and the wrong queue (15 vs 5 ms) cannot pass. One sample per frame read.
# 300 datagrams, 5 ms apart; SLACK_US is 150 (measured 34-43 us below the
# wire).
. "$(dirname "$0")/lib.sh"
ps_require_root txcompletion
ps_require_file txcompletion "$PATHSCOPE"
ps_require_file txcompletion "$UDPSEND"
TAPWIRE=$PS_BIN/tests/tapwire
ps_require_file txcompletion "$TAPWIRE"

NS=pstap-$$ PERIODS_MS=(30 10) N=300
# The wire's mean less pathscope's: measured 34-43 us here (2026-11-26, 8
# queue means); a 10 ms stall between one stamp and its send adds 65 us to
# its queue's mean. Under valgrind (PS_SLOW) the sender is slower.
SLACK_US=$((150 * PS_SLOW))
cleanup() {
	nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" detach tapw0 >/dev/null 2>&1
	[ -n "${wire:-}" ] && kill "$wire" 2>/dev/null && wait "$wire" 2>/dev/null
	[ -e "/var/run/netns/$NS" ] && ip netns del "$NS"
	rm -f "${out:-}"
}
ps_at_exit cleanup

ip netns add "$NS"
ip netns exec "$NS" sysctl -q -w net.ipv6.conf.default.addr_gen_mode=1 \
	net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.router_solicitations=0
out=$(mktemp)
# The wire lives 5 s (longer where pathscope runs slower: make test-valgrind).
ip netns exec "$NS" "$TAPWIRE" tapw0 "$(
	IFS=,
	echo "${PERIODS_MS[*]}"
)" $((5 * PS_SLOW)) >"$out" &
wire=$!
for _ in $(seq 50); do grep -q ready "$out" && break; sleep 0.1; done
ip -n "$NS" link set tapw0 up
ip -n "$NS" addr add 198.18.1.1/24 dev tapw0
ip -n "$NS" neigh add 198.18.1.2 lladdr 02:00:c6:12:01:02 dev tapw0 nud permanent
ps_check_eq "the tap has two TX queues" \
	"$(ip netns exec "$NS" ls /sys/class/net/tapw0/queues | grep -c '^tx-')" 2
nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" attach tapw0 --features all ||
	ps_fail "attach tapw0" "exit $?"
HEAT=$(mktemp) # a recording around the datagrams, for heatmaps
ps_at_exit "rm -f $HEAT"
ps_heat_mark "$HEAT" "$NS" tapw0
# 300 datagrams 5 ms apart (6 phases against the 30 ms drain, 2 against the
# 10 ms one; the wire times the same frames, so the reference needs no more).
ip netns exec "$NS" "$UDPSEND" -n "$N" -i 5000 -s 64 --stamp --ports 32 198.18.1.2 9000 ||
	ps_fail "udpsend" "exit $?"
sleep 0.1 # past the next drain of both queues
# The tap goes away with its wire: read and detach while it exists.
js=$(nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" stats tapw0 --json)
ps_heat_mark "$HEAT" "$NS" tapw0
nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" detach tapw0 || ps_fail "detach tapw0" "exit $?"
wait "$wire" || ps_fail "tapwire" "exit $?"
wire=
cat "$out"
ps_check_budget "tap" "$js" qdisc_sojourn tx_completion
# wire Q FIELD: a figure of queue Q from the wire's report.
wire() { awk -v q="$1" -v f="$2" '$1 == "queue" && $2 == q { for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }' "$out"; }
ps_check_eq "every datagram stamped and read once" \
	"$(($(wire 0 stamped) + $(wire 1 stamped))) $(tail -1 "$out")" "$N $N"
for q in 0 1; do
	tl() { jq -r ".interfaces[0].queues[] | select(.queue == $q) | .tx_latency.$1" <<<"$js"; }
	frames=$(wire "$q" frames)
	# Both queues carry a fair share of the 32 flows (all on one queue:
	# about 1 run in 2^31).
	[ "$frames" -ge $((N / 8)) ] && ps_ok "tx-$q: the flows spread onto it ($frames frames)" ||
		ps_fail "tx-$q: the flows spread onto it" "$frames of $N frames"
	ps_check_eq "tx-$q: one completion and one sojourn per frame the wire read" \
		"$(tl completion_ns.count) $(tl sojourn_ns.count)" "$frames $frames"
	ref=$(($(wire "$q" sum_ns) / $(wire "$q" stamped)))
	soj=$(tl sojourn_avg_ns) compl=$(tl completion_avg_ns)
	got=$((soj + compl))
	[ "$got" -le "$ref" ] && [ "$got" -ge $((ref - SLACK_US * 1000)) ] &&
		ps_ok "tx-$q: sojourn + completion mean $got ns = the wire's $ref ns less $(((ref - got) / 1000)) us (within $SLACK_US us; period ${PERIODS_MS[$q]} ms)" ||
		ps_fail "tx-$q: sojourn + completion mean within [wire - $SLACK_US us, wire]" \
			"$soj + $compl = $got ns, wire $ref ns"
done
for stage in qdisc_sojourn tx_completion; do
	ps_heat_check tap "$HEAT" "$stage" tapw0 $(($(wire 0 frames) + $(wire 1 frames)))
done
ps_done
