#!/usr/bin/env bash
# Known TX completion delay: a tap device whose "wire" is this test
# (tests/tools/tapwire) reads the frames the host transmits only every 30 ms.
# A frame's skb is freed when it is read, so the driver TX completion
# pathscope measures (net_dev_start_xmit -> consume_skb) must spread over
# 0..30 ms: median near 15 ms, nothing far beyond 30 ms, one sample per frame.
. "$(dirname "$0")/lib.sh"
ps_require_root txcompletion
ps_require_file txcompletion "$PATHSCOPE"
ps_require_file txcompletion "$UDPSEND"
TAPWIRE=$PS_BIN/tests/tapwire
ps_require_file txcompletion "$TAPWIRE"

NS=pstap-$$ PERIOD_MS=30 N=200
cleanup() {
	nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" detach tapw0 >/dev/null 2>&1
	[ -n "${wire:-}" ] && kill "$wire" 2>/dev/null && wait "$wire" 2>/dev/null
	[ -e "/var/run/netns/$NS" ] && ip netns del "$NS"
	rm -f "${out:-}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add "$NS"
ip netns exec "$NS" sysctl -q -w net.ipv6.conf.default.addr_gen_mode=1 \
	net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.router_solicitations=0
out=$(mktemp)
# The wire lives 4 s (longer where pathscope runs slower: make test-valgrind).
ip netns exec "$NS" "$TAPWIRE" tapw0 "$PERIOD_MS" $((4 * PS_SLOW)) >"$out" &
wire=$!
for i in $(seq 50); do grep -q ready "$out" && break; sleep 0.1; done
ip -n "$NS" link set tapw0 up
ip -n "$NS" addr add 198.18.1.1/24 dev tapw0
ip -n "$NS" neigh add 198.18.1.2 lladdr 02:00:c6:12:01:02 dev tapw0 nud permanent
nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" attach tapw0 --features all ||
	ps_fail "attach tapw0" "exit $?"
# 200 datagrams 5 ms apart: their phase against the 30 ms drain is uniform.
ip netns exec "$NS" "$UDPSEND" -n "$N" -i 5000 198.18.1.2 9000 || ps_fail "udpsend" "exit $?"
sleep 0.1 # past the next drain
# The tap goes away with its wire: read and detach while it exists.
js=$(nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" stats tapw0 --json)
nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" detach tapw0 || ps_fail "detach tapw0" "exit $?"
wait "$wire"
wire=
read_frames=$(tail -1 "$out")
c() { jq -r ".interfaces[0].totals.tx_latency.completion_ns.$1" <<<"$js"; }
n=$(c count) p50=$(c p50) max=$(c max)
[ "$n" -eq "$read_frames" ] && [ "$read_frames" -ge "$N" ] &&
	ps_ok "one completion per frame read by the wire ($n samples, $N sent, $read_frames read)" ||
	ps_fail "one completion per frame read" "$n samples, $N sent, $read_frames read"
[ "$p50" -ge 10000000 ] && [ "$p50" -le 20000000 ] &&
	ps_ok "completion median $p50 ns is near half the drain period (15 ms)" ||
	ps_fail "completion median near 15 ms" "$p50 ns"
[ "$max" -le 45000000 ] && [ "$max" -ge 25000000 ] &&
	ps_ok "completion max $max ns is about one drain period (30 ms)" ||
	ps_fail "completion max about 30 ms" "$max ns"
ps_done
