#!/usr/bin/env bash
# The Grafana dashboard (packaging/grafana/pathscope.json) without Grafana:
# the static checks of tests/tools/dashboard_check.py (well formed, the
# generator's output, unique ids, variables defined, metrics that exist, every
# latency family per interface and per queue, panels that need per-queue
# detail say so), then every panel's PromQL, variables substituted, through
# the HTTP API of Debian's Prometheus scraping 'pathscope serve --features all'
# in namespace B at both detail levels (the default, interface, and a second
# serve adopting the attachment with --detail queue), as test_serve runs them:
# each must parse and return data after a workload that gives every feature
# something to count (UDP with Not-ECT and CE, UDP to a closed port, TCP both
# ways, the TCP from A through GRO, pings both ways); the per-queue histogram
# panels return series per queue at --detail queue, per interface by default.
. "$(dirname "$0")/lib.sh"
ps_require_root dashboard
ps_require_file dashboard "$PATHSCOPE"
ps_require_file dashboard "$UDPSEND"
ps_require_cmd dashboard curl jq python3 prometheus iperf3 ping
DASH=$PS_ROOT/packaging/grafana/pathscope.json
CHECK=$PS_ROOT/tests/tools/dashboard_check.py
# Run the checker (its ok / not ok lines count); a failure it did not report
# (a crash) is one more.
check() {
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	echo "$out"
	PS_FAILURES=$((PS_FAILURES + $(grep -c '^not ok' <<<"$out")))
	[ "$rc" -eq 0 ] || grep -q '^not ok' <<<"$out" || ps_fail "dashboard_check" "exit $rc"
}

check python3 "$CHECK" static "$DASH" "$PS_ROOT/tests/golden/metrics.prom" \
	"$PS_ROOT/packaging/grafana/gen-dashboard.py"

ps_testbed_create 4 || { ps_fail dashboard "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
PORT=9464 PORT_Q=9465 PROM_PORT=9090 # namespace B's loopback
SERVE_PID='' SERVE_Q_PID='' PROM_PID='' IPERF_PID=''
ps_at_exit 'for p in $SERVE_Q_PID $SERVE_PID $PROM_PID $IPERF_PID; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'
in_b() { ip netns exec "$NS_B" "$@"; }

nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$PORT" --features all \
	>"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE_PID=$!
ps_wait_healthz_b "$PORT" "$SERVE_PID"
ps_check_eq "serve vB --features all answers /healthz" \
	"$(in_b curl -s "http://127.0.0.1:$PORT/healthz")" ok || { cat "$TMP/serve.err"; ps_done; }
# The same attachment exported per queue: a second serve adopts it (--keep).
nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$PORT_Q" --detail queue --keep \
	>"$TMP/serve-q.out" 2>"$TMP/serve-q.err" &
SERVE_Q_PID=$!
for _ in $(seq $((100 * PS_SLOW))); do
	[ "$(in_b curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT_Q/healthz")" = 200 ] && break
	sleep 0.1
done
ps_check_eq "serve vB --detail queue adopts it" "$(cat "$TMP/serve-q.out")" \
	"serving vB (adopted) on http://127.0.0.1:$PORT_Q/metrics"

ps_prometheus_b "$TMP" "$PROM_PORT" "'127.0.0.1:$PORT', '127.0.0.1:$PORT_Q'"
PROM_PID=$PS_PROM_PID
for _ in $(seq 300); do
	[ "$(ps_promq 'count_over_time(pathscope_up{iface="vB"}[1m])')" -ge 2 ] 2>/dev/null && break
	sleep 0.1
done
ps_check_eq "prometheus scrapes both serves" "$(ps_promq 'count(pathscope_up{iface="vB"} == 1)')" 2

# The workload: every datagram and segment from A leaves on TX queue 2, so
# arrives on vB's RX queue 2 (the queue the per-queue run selects).
ps_txq_pin "$NS_A" vA 2
ps_sink_start "$NS_B" 9000 --expect 600 --timeout 20
ps_in_a "$UDPSEND" -n 500 -s 1000 "$PS_IP4_B" 9000 || ps_fail "udpsend Not-ECT" "exit $?"
ps_in_a "$UDPSEND" -n 100 -s 200 -t 3 "$PS_IP4_B" 9000 || ps_fail "udpsend CE" "exit $?"
ps_check_eq "the sink received 600 datagrams" "$(ps_sink_wait)" 600
ps_in_a "$UDPSEND" -r -n 50 "$PS_IP4_B" 9001 || ps_fail "udpsend to a closed port" "exit $?"
# TCP A -> B through GRO; and B -> A (-R), which gives B's TCP RTT samples
# (B's data out, A's echoes in).
iperf() {
	in_b iperf3 -s -1 -B "$PS_IP4_B" -p 5201 >/dev/null 2>&1 &
	IPERF_PID=$!
	for _ in $(seq 50); do
		[ -n "$(in_b ss -Hntl 'sport = :5201')" ] && break
		sleep 0.1
	done
	ps_in_a iperf3 -c "$PS_IP4_B" -p 5201 "$@" >/dev/null 2>&1 || ps_fail "iperf3 $*" "exit $?"
	_ps_reap "$IPERF_PID"
	IPERF_PID=
}
iperf -t 2
iperf -t 1 -R
# A peer's series appear with its first match: one echo each first, and two
# scrapes, so that rate() sees the 20 after it (a series' first sample is no rate).
ps_in_b ping -c 1 -q "$PS_IP4_A" >/dev/null || ps_fail "ping B -> A" "exit $?"
ps_in_b ping -6 -c 1 -q "$PS_IP6_A" >/dev/null || ps_fail "ping -6 B -> A" "exit $?"
sleep 2.5
iperf -t 1 -R # the TCP peer subnet's entry exists now: rate() sees these samples
ps_in_b ping -c 20 -i 0.02 -q "$PS_IP4_A" >/dev/null || ps_fail "ping B -> A" "exit $?"
ps_in_a ping -c 20 -i 0.02 -q "$PS_IP4_B" >/dev/null || ps_fail "ping A -> B" "exit $?"
ps_in_b ping -6 -c 5 -i 0.02 -q "$PS_IP6_A" >/dev/null || ps_fail "ping -6 B -> A" "exit $?"
ps_txq_unpin "$NS_A" vA

# Two scrapes after the workload, then every query.
sleep 2.5
in_b curl -s "http://127.0.0.1:$PORT/metrics" >"$TMP/metrics"
in_b curl -s "http://127.0.0.1:$PORT_Q/metrics" >"$TMP/metrics-q"
echo "# --detail interface: $(grep -vc '^#' "$TMP/metrics") series; --detail queue: $(grep -vc '^#' "$TMP/metrics-q")"
check in_b python3 "$CHECK" live "$DASH" "http://127.0.0.1:$PROM_PORT" "$TMP/metrics" \
	"127.0.0.1:$PORT" vB 2 interface
check in_b python3 "$CHECK" live "$DASH" "http://127.0.0.1:$PROM_PORT" "$TMP/metrics-q" \
	"127.0.0.1:$PORT_Q" vB 2 queue

kill "$PROM_PID"
_ps_reap "$PROM_PID"
PROM_PID=
kill -TERM "$SERVE_Q_PID"
_ps_reap "$SERVE_Q_PID"
SERVE_Q_PID=
kill -TERM "$SERVE_PID"
_ps_reap "$SERVE_PID"
SERVE_PID=
ps_done
