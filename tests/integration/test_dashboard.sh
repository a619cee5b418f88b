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
# Then the same with native histograms: two more serves of the attachment with
# --native-histograms (both levels), scraped with the two text ones by a second
# Prometheus with --enable-feature=native-histograms (a fleet of both formats):
# every panel returns data there too, the latency panels from their native arm
# (the classic arm has nothing for a native instance), per queue at --detail
# queue; no query gives a series twice or a label outside its by clauses. That
# Prometheus also evaluates packaging/alerts.yml: its p99 per stage has the
# same stages for the native serve as for the text one.
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

ps_testbed_create 4 || { ps_fail dashboard "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
PORT=9464 PORT_Q=9465 PROM_PORT=9090 # namespace B's loopback
PORT_N=9466 PORT_NQ=9467 PROM_N_PORT=9091 # the same with native histograms
SERVE_PID='' SERVE_Q_PID='' SERVE_N_PID='' SERVE_NQ_PID='' PROM_PID='' PROM_N_PID='' IPERF_PID=''
ps_at_exit 'for p in $SERVE_NQ_PID $SERVE_N_PID $SERVE_Q_PID $SERVE_PID $PROM_N_PID $PROM_PID $IPERF_PID; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'
in_b() { ip netns exec "$NS_B" "$@"; }

# Prometheus with native histograms (a directory of its own), scraping all four
# serves: the text ones stay classic; then the plain one of the text serves.
# Both start first: their first scrapes come 5-7 s later (lib.sh), while the
# static checks run and the serves start (until then no pathscope_up).
mkdir "$TMP/native"
PS_PROM_RULES=$PS_ROOT/packaging/alerts.yml ps_prometheus_b "$TMP/native" "$PROM_N_PORT" \
	"'127.0.0.1:$PORT', '127.0.0.1:$PORT_Q', '127.0.0.1:$PORT_N', '127.0.0.1:$PORT_NQ'" \
	--enable-feature=native-histograms
PROM_N_PID=$PS_PROM_PID
ps_prometheus_b "$TMP" "$PROM_PORT" "'127.0.0.1:$PORT', '127.0.0.1:$PORT_Q'"
PROM_PID=$PS_PROM_PID
promq_n() { PS_PROM_PORT=$PROM_N_PORT ps_promq "$1"; }
# N scrapes of every target by both servers, waited for side by side.
wait_scrapes_both() {
	PS_PROM_PORT=$PROM_N_PORT ps_wait_scrapes "$1" &
	ps_wait_scrapes "$1"
	wait $!
}

check python3 "$CHECK" static "$DASH" "$PS_ROOT/tests/golden/metrics.prom" \
	"$PS_ROOT/packaging/grafana/gen-dashboard.py"

nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$PORT" --features all \
	>"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE_PID=$!
ps_wait_healthz_b "$PORT" "$SERVE_PID"
ps_check_eq "serve vB --features all answers /healthz" \
	"$(in_b curl -s "http://127.0.0.1:$PORT/healthz")" ok || { cat "$TMP/serve.err"; ps_done; }
# The same attachment exported per queue, and both levels with native
# histograms: more serves adopt it (--keep). adopt NAME PORT OPTION...: its PID
# in ADOPTED.
adopt() {
	local name=$1 port=$2
	shift 2
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$port" --keep "$@" \
		>"$TMP/serve-$name.out" 2>"$TMP/serve-$name.err" &
	ADOPTED=$!
	ps_wait_healthz_b "$port" "$ADOPTED"
	ps_check_eq "serve vB $* adopts it" "$(cat "$TMP/serve-$name.out")" \
		"serving vB (adopted) on http://127.0.0.1:$port/metrics" || cat "$TMP/serve-$name.err"
}
adopt q "$PORT_Q" --detail queue
SERVE_Q_PID=$ADOPTED
adopt n "$PORT_N" --native-histograms
SERVE_N_PID=$ADOPTED
adopt nq "$PORT_NQ" --native-histograms --detail queue
SERVE_NQ_PID=$ADOPTED

for _ in $(seq 300); do
	[ "$(ps_promq 'min(count_over_time(pathscope_up{iface="vB"}[1m]))')" -ge 2 ] 2>/dev/null &&
		[ "$(ps_promq 'count(pathscope_up{iface="vB"})')" = 2 ] &&
		[ "$(promq_n 'min(count_over_time(pathscope_up{iface="vB"}[1m]))')" -ge 2 ] 2>/dev/null &&
		[ "$(promq_n 'count(pathscope_up{iface="vB"})')" = 4 ] && break
	sleep 0.1
done
ps_check_eq "prometheus scrapes both serves" "$(ps_promq 'count(pathscope_up{iface="vB"} == 1)')" 2
ps_check_eq "prometheus with native histograms scrapes all four" \
	"$(promq_n 'count(pathscope_up{iface="vB"} == 1)')" 4

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
wait_scrapes_both 2
iperf -t 1 -R # the TCP peer subnet's entry exists now: rate() sees these samples
ps_in_b ping -c 20 -i 0.02 -q "$PS_IP4_A" >/dev/null || ps_fail "ping B -> A" "exit $?"
ps_in_a ping -c 20 -i 0.02 -q "$PS_IP4_B" >/dev/null || ps_fail "ping A -> B" "exit $?"
ps_in_b ping -6 -c 5 -i 0.02 -q "$PS_IP6_A" >/dev/null || ps_fail "ping -6 B -> A" "exit $?"
ps_txq_unpin "$NS_A" vA

# Two scrapes after the workload, by both servers, then every query.
wait_scrapes_both 2
in_b curl -s "http://127.0.0.1:$PORT/metrics" >"$TMP/metrics"
in_b curl -s "http://127.0.0.1:$PORT_Q/metrics" >"$TMP/metrics-q"
in_b curl -s "http://127.0.0.1:$PORT_N/metrics" >"$TMP/metrics-n" # curl gets the text
in_b curl -s "http://127.0.0.1:$PORT_NQ/metrics" >"$TMP/metrics-nq"
echo "# --detail interface: $(grep -vc '^#' "$TMP/metrics") series; --detail queue: $(grep -vc '^#' "$TMP/metrics-q")"
check in_b python3 "$CHECK" live "$DASH" "http://127.0.0.1:$PROM_PORT" "$TMP/metrics" \
	"127.0.0.1:$PORT" vB 2 interface
check in_b python3 "$CHECK" live "$DASH" "http://127.0.0.1:$PROM_PORT" "$TMP/metrics-q" \
	"127.0.0.1:$PORT_Q" vB 2 queue
# Native histograms: Prometheus holds them as such (one series, no _bucket).
for p in "$PORT_N" "$PORT_NQ"; do
	i="instance=\"127.0.0.1:$p\""
	n=$(promq_n "count(pathscope_tcp_rtt_seconds{$i})") b=$(promq_n "count(pathscope_tcp_rtt_seconds_bucket{$i})")
	ps_check_eq "prometheus with native histograms: $i's TCP RTTs are native ($n series), no _bucket series" \
		"$([ "$n" -ge 1 ] 2>/dev/null && echo native) $b" "native none"
done
# alerts.yml's p99 per stage (loaded by this Prometheus) from either exposition:
# the same stages for the text serve and the native one of the same attachment.
stages() {
	in_b curl -s --max-time 5 --data-urlencode "query=iface_stage:pathscope_latency_seconds:p99_5m{instance=\"127.0.0.1:$1\"}" \
		"http://127.0.0.1:$PROM_N_PORT/api/v1/query" | jq -r '[.data.result[].metric.stage] | sort | join(" ")'
}
ps_check_eq "alerts.yml: p99 per stage of the native serve, as of the text one (veth has no TX completion)" \
	"$(stages "$PORT_N") / $(stages "$PORT")" "driver_to_stack qdisc_sojourn socket_read / driver_to_stack qdisc_sojourn socket_read"
check in_b python3 "$CHECK" live "$DASH" "http://127.0.0.1:$PROM_N_PORT" "$TMP/metrics-n" \
	"127.0.0.1:$PORT_N" vB 2 interface native
check in_b python3 "$CHECK" live "$DASH" "http://127.0.0.1:$PROM_N_PORT" "$TMP/metrics-nq" \
	"127.0.0.1:$PORT_NQ" vB 2 queue native

for p in "$PROM_N_PID" "$PROM_PID"; do
	kill "$p"
	_ps_reap "$p"
done
PROM_N_PID='' PROM_PID=''
for p in "$SERVE_NQ_PID" "$SERVE_N_PID" "$SERVE_Q_PID"; do
	kill -TERM "$p"
	_ps_reap "$p"
done
SERVE_NQ_PID='' SERVE_N_PID='' SERVE_Q_PID=''
kill -TERM "$SERVE_PID"
_ps_reap "$SERVE_PID"
SERVE_PID=
ps_done
