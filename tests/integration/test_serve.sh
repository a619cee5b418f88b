#!/usr/bin/env bash
# pathscope serve: a known UDP workload read back exactly through /metrics,
# at both detail levels (the default, per interface, and a second serve
# adopting the attachment with --detail queue), through a real Prometheus
# server scraping both (counter query and histogram quantiles per interface
# and per queue), and through the JSON lines (also across SIGHUP rotation);
# /healthz; SIGTERM detaches with nothing left behind, also with scrapes in
# flight; --keep and adoption; usage and runtime errors. The servers run
# inside namespace B, bound to its loopback.
# Numbers: a 500-datagram workload; the size quantile is NaN for RX queue 1
# at --detail queue; the driver-to-stack median per interface equals RX queue
# 2's; no size bucket has a queue label by default; promtool check metrics
# accepts both; bad --detail and --queue-detail values are usage errors.
# After 1000 more scrapes (a new connection each) and 5 SIGHUPs serve holds
# the same file descriptors and at most 1 MiB more resident memory.
. "$(dirname "$0")/lib.sh"
ps_require_root serve
ps_require_file serve "$PATHSCOPE"
ps_require_file serve "$UDPSEND"
ps_require_cmd serve curl jq bpftool promtool prometheus

ps_testbed_create 4 || { ps_fail serve "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
PORT=9464 PORT_Q=9465 PROM_PORT=9090 # namespace B's loopback: no clash with anything else
LISTEN=127.0.0.1:$PORT URL=http://127.0.0.1:$PORT URL_Q=http://127.0.0.1:$PORT_Q
SERVE_PID='' SERVE_Q_PID='' PROM_PID='' LOOP_PID=''
ps_at_exit 'for p in $SERVE_Q_PID $SERVE_PID $PROM_PID $LOOP_PID; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'

in_b() { ip netns exec "$NS_B" "$@"; }
get() { in_b curl -gs --max-time 5 "$URL$1"; }
code() { in_b curl -gs --max-time 5 -o /dev/null -w '%{http_code}' "$URL$1"; }
# Sum of the samples of metric NAME whose labels contain every LABEL="VALUE" given.
msum() {
	local text=$1 name=$2 l
	shift 2
	text=$(grep -E "^$name(\{| )" <<<"$text")
	for l in "$@"; do text=$(grep -F "$l" <<<"$text"); done
	awk '{ s += $NF } END { printf "%.0f\n", s }' <<<"$text"
}
# Run CMD; expect exit status WANT and exactly one line on stderr matching RE.
expect_exit() {
	local name=$1 want=$2 re=$3 err rc
	shift 3
	err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
	if [ "$rc" -eq "$want" ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -qE "$re" <<<"$err"; then
		ps_ok "$name"
	else
		ps_fail "$name" "exit $rc (want $want), stderr '$err'"
	fi
}
# A second serve adopting vB's attachment (--keep) on PORT_Q with options
# ARGS (sets SERVE_Q_PID); waits (at most 10 s, times PS_SLOW) for /healthz 200.
serve_q_start() {
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$PORT_Q" --keep "$@" \
		>"$TMP/serve-q.out" 2>"$TMP/serve-q.err" &
	SERVE_Q_PID=$!
	for _ in $(seq $((100 * PS_SLOW))); do
		[ "$(in_b curl -gs --max-time 5 -o /dev/null -w '%{http_code}' "$URL_Q/healthz")" = 200 ] && break
		sleep 0.1
	done
}
# Start serve in namespace B in the background (sets SERVE_PID) and wait
# (at most 10 s, times PS_SLOW) until /healthz answers.
serve_start() {
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "$LISTEN" "$@" \
		>"$TMP/serve.out" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	for _ in $(seq $((100 * PS_SLOW))); do
		[ "$(code /healthz)" != 000 ] && return 0
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	ps_fail "serve $*" "not answering: $(cat "$TMP/serve.err")"
	return 1
}
# SIGTERM serve and wait (at most 10 s, times PS_SLOW); its exit status goes to SERVE_RC
# ("timeout" if it is still running). Not from $(...): serve is our child.
serve_stop() {
	SERVE_RC=timeout
	kill -TERM "$SERVE_PID"
	for _ in $(seq $((100 * PS_SLOW))); do
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! kill -0 "$SERVE_PID" 2>/dev/null; then
		SERVE_RC=0
		wait "$SERVE_PID" || SERVE_RC=$?
	fi
	SERVE_PID=
}
# What pathscope has in namespace B: every attachment pins its programs and
# links under PIN_NS; XDP and the qdiscs on vB. (A program neither pinned nor
# attached is gone with the serve that loaded it; counting the machine's
# programs would count those of the tests running beside this one.)
census() {
	echo "pins=$(find "$PIN_NS" 2>/dev/null | wc -l)" \
		"xdp=$(ip -n "$NS_B" -d link show vB | grep -c 'prog/xdp')" \
		"qdiscs=$(tc -n "$NS_B" qdisc show dev vB | wc -l)"
}
census_is() { # the kernel frees programs asynchronously: wait (5 s) for WANT
	local now
	for _ in $(seq 50); do
		now=$(census)
		[ "$now" = "$1" ] && break
		sleep 0.1
	done
	echo "$now"
}
PIN_NS=/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")
before=$(census_is "$(census)")

# Prometheus inside B, scraping both serves (section 2) twice a second. It
# starts now: its first scrape comes 5-7 s after it starts (lib.sh), and
# until the serves listen its scrapes fail (no pathscope_up).
ps_prometheus_b "$TMP" "$PROM_PORT" "'127.0.0.1:$PORT', '127.0.0.1:$PORT_Q'"
PROM_PID=$PS_PROM_PID

# 1. Usage and runtime errors: one line each, exit 2 / 1, nothing attached.
expect_exit "no interface: usage error" 2 "expected at least one interface" ps_pathscope_b serve
expect_exit "bad --listen (no port): usage error" 2 "bad --listen '127.0.0.1'" \
	ps_pathscope_b serve vB --listen 127.0.0.1
expect_exit "bad --listen (a name): usage error" 2 "bad --listen 'localhost:9464'" \
	ps_pathscope_b serve vB --listen localhost:9464
expect_exit "bad --listen (port 0): usage error" 2 "bad --listen" \
	ps_pathscope_b serve vB --listen '[::1]:0'
expect_exit "bad --interval: usage error" 2 "bad --interval" ps_pathscope_b serve vB --interval 0
expect_exit "unknown option: usage error" 2 "unknown option '--frob'" ps_pathscope_b serve vB --frob
expect_exit "unknown feature: usage error" 2 "unknown feature 'bogus'" \
	ps_pathscope_b serve vB --features bogus
expect_exit "bad --detail: usage error" 2 "bad --detail 'queues' \\(interface or queue\\)" \
	ps_pathscope_b serve vB --detail queues
expect_exit "bad --queue-detail: usage error" 2 "unknown feature 'bogus'" \
	ps_pathscope_b serve vB --queue-detail d2s,bogus
expect_exit "unknown interface: runtime error" 1 "unknown interface 'nosuch0'" \
	ps_pathscope_b serve nosuch0 --listen "127.0.0.1:$PORT"
expect_exit "second interface fails: one line, exit 1" 1 "unknown interface 'nosuch0'" \
	ps_pathscope_b serve vB nosuch0 --listen "127.0.0.1:$PORT"
ps_check_eq "a failed serve undid its attach of vB" "$(census_is "$before")" "$before"
ps_check_eq "serve --help shows examples" "$("$PATHSCOPE" serve --help | grep -c 'pathscope serve eth1')" 8

# 2. Serve vB; an exact workload from A: 500 UDP datagrams of 1000 B = 1042 B frames.
serve_start --jsonl "$TMP/serve.jsonl" --interval 1 || ps_done
T_SERVE=$EPOCHREALTIME # it serves (its attach took up to 3 s on a loaded machine)
ps_check_eq "serve says it attached vB" "$(cat "$TMP/serve.out")" \
	"serving vB (attached) on http://127.0.0.1:$PORT/metrics"
ps_check_eq "/healthz: 200 ok" "$(code /healthz) $(get /healthz)" "200 ok"
ps_check_eq "anything else: 404" "$(code /nope) $(code /metrics/x)" "404 404"
ps_check_eq "/metrics content type" \
	"$(in_b curl -s -o /dev/null -w '%{content_type}' "$URL/metrics")" \
	"text/plain; version=0.0.4; charset=utf-8"
DIR=$(find "$PIN_NS" -mindepth 1 -maxdepth 1)
PROG_IDS=$(bpftool prog show pinned "$DIR/xdp_prog" -j | jq .id)
LINK_IDS=$(for l in tci_link tce_link; do bpftool link show pinned "$DIR/$l" -j | jq .id; done)
LINK_PROGS=$(for l in tci_link tce_link; do bpftool link show pinned "$DIR/$l" -j | jq .prog_id; done)
ps_check_eq "found the xdp program and two tc links of the attachment" \
	"$(echo "$PROG_IDS" "$LINK_IDS" "$LINK_PROGS" | wc -w)" 5

# The same attachment per queue: a second serve adopts it (--keep), --detail queue.
serve_q_start --detail queue
ps_check_eq "serve --detail queue adopts vB" "$(cat "$TMP/serve-q.out")" \
	"serving vB (adopted) on http://127.0.0.1:$PORT_Q/metrics"

for _ in $(seq 300); do # up to 30 s: ready, and two scrapes of each serve
	[ "$(ps_promq 'min(count_over_time(pathscope_up{iface="vB"}[1m]))')" -ge 2 ] 2>/dev/null &&
		[ "$(ps_promq 'count(pathscope_up{iface="vB"})')" = 2 ] && break
	sleep 0.1
done
ps_check_eq "prometheus scrapes both serves: pathscope_up" "$(ps_promq 'sum(pathscope_up{iface="vB"})')" 2

ps_txq_pin "$NS_A" vA 2 # every datagram leaves vA on TX queue 2, arrives on vB RX queue 2
ps_wait_quiet 5
m0=$(get /metrics) q0=$(in_b curl -gs --max-time 5 "$URL_Q/metrics")
ps_wait_scrapes 1 # a Prometheus scrape of this quiet baseline, before T0
T0=$(date +%s.%3N)
N=500
ps_sink_start "$NS_B" 9000 --expect "$N" --timeout 20
ps_in_a "$UDPSEND" -n "$N" -s 1000 "$PS_IP4_B" 9000 || ps_fail "udpsend" "exit $?"
ps_check_eq "sink received every datagram" "$(ps_sink_wait)" "$N"
ps_wait_quiet 5
m1=$(get /metrics) q1=$(in_b curl -gs --max-time 5 "$URL_Q/metrics")
delta() { echo $(($(msum "$m1" "$@") - $(msum "$m0" "$@"))); }
qdelta() { echo $(($(msum "$q1" "$@") - $(msum "$q0" "$@"))); }
X='hook="xdp"' TI='hook="tc_ingress"' Q2='queue="2"'
ps_check_eq "/metrics: xdp packets = workload" "$(delta pathscope_packets_total "$X")" "$N"
ps_check_eq "/metrics: all of them on RX queue 2" "$(delta pathscope_packets_total "$X" "$Q2")" "$N"
ps_check_eq "/metrics: tc_ingress packets = workload" "$(delta pathscope_packets_total "$TI")" "$N"
ps_check_eq "/metrics: xdp bytes = 500 x 1042" "$(delta pathscope_bytes_total "$X")" $((N * 1042))
ps_check_eq "/metrics: UDP class" "$(delta pathscope_l4_packets_total "$X" 'class="udp"')" "$N"
ps_check_eq "/metrics: Not-ECT IPv4" \
	"$(delta pathscope_ecn_packets_total "$X" 'ipver="ipv4"' 'codepoint="not_ect"')" "$N"
ps_check_eq "/metrics: size buckets le=1023 +0, le=2047 +500, +Inf +500" \
	"$(delta pathscope_frame_size_bytes_bucket "$X" 'le="1023"') $(delta pathscope_frame_size_bytes_bucket "$X" 'le="2047"') $(delta pathscope_frame_size_bytes_bucket "$X" 'le="+Inf"')" \
	"0 $N $N"
ps_check_eq "/metrics: size _sum is the bytes counter" \
	"$(msum "$m1" pathscope_frame_size_bytes_sum "$X")" "$(msum "$m1" pathscope_bytes_total "$X")"
ps_check_eq "/metrics: the same as stats --json" "$(msum "$m1" pathscope_packets_total "$X")" \
	"$(ps_pathscope_b stats vB --json | jq .interfaces[0].totals.xdp.total.packets)"
lint=$(promtool check metrics <<<"$m1" 2>&1) && rc=0 || rc=$?
ps_check_eq "promtool check metrics accepts /metrics" "$rc $lint" "0 "
# --detail interface: histograms and classes once per interface and hook.
ps_check_eq "/metrics: the size histogram has no queue label (default detail)" \
	"$(grep -c '^pathscope_frame_size_bytes_bucket{[^}]*queue=' <<<"$m1") $(grep -c '^pathscope_frame_size_bytes_bucket{' <<<"$m1")" "0 45"
ps_check_eq "/metrics --detail queue: size buckets of RX queue 2 le=2047 +500, RX queue 1 +0" \
	"$(qdelta pathscope_frame_size_bytes_bucket "$X" "$Q2" 'le="2047"') $(qdelta pathscope_frame_size_bytes_bucket "$X" 'queue="1"' 'le="+Inf"')" "$N 0"
ps_check_eq "/metrics --detail queue: the same packets per queue as the default" \
	"$(grep '^pathscope_packets_total{' <<<"$q1" | sort)" "$(grep '^pathscope_packets_total{' <<<"$m1" | sort)"
ps_check_eq "/metrics --detail queue: size histograms of 3 hooks x 5 queue slots" \
	"$(grep -c '^pathscope_frame_size_bytes_bucket{[^}]*queue=' <<<"$q1")" $((3 * 5 * 15))
lint=$(promtool check metrics <<<"$q1" 2>&1) && rc=0 || rc=$?
ps_check_eq "promtool check metrics accepts /metrics --detail queue" "$rc $lint" "0 "
echo "# 4-queue veth, default features, idle peers: --detail interface $(grep -vc '^#' <<<"$m1") series, --detail queue $(grep -vc '^#' <<<"$q1")"

# The same numbers through Prometheus. Every check below reads both serves'
# series: wait (at most 15 s) until Prometheus has, from each, a scrape after
# the workload (each instance is scraped on its own schedule).
since_t0() { # xdp packets of serve on port $1 since T0, in Prometheus
	local s="pathscope_packets_total{instance=\"127.0.0.1:$1\",iface=\"vB\",hook=\"xdp\"}"
	ps_promq "sum($s) - sum($s @ $T0)"
}
for _ in $(seq 150); do
	got=$(since_t0 "$PORT") got_q=$(since_t0 "$PORT_Q")
	[ "$got $got_q" = "$N $N" ] && break
	sleep 0.1
done
ps_check_eq "prometheus: xdp packets since T0 = workload, from both serves" "$got $got_q" "$N $N"
I1="instance=\"127.0.0.1:$PORT\"" IQ="instance=\"127.0.0.1:$PORT_Q\""
ps_check_eq "prometheus, --detail interface: median frame size from the buckets: 1535, the middle of (1023, 2047]" \
	"$(ps_promq "histogram_quantile(0.5, sum by (le) (rate(pathscope_frame_size_bytes_bucket{$I1,iface=\"vB\",hook=\"xdp\"}[5m])))")" 1535
ps_check_eq "prometheus, --detail queue: the same for RX queue 2" \
	"$(ps_promq "histogram_quantile(0.5, sum by (le) (rate(pathscope_frame_size_bytes_bucket{$IQ,iface=\"vB\",hook=\"xdp\",queue=\"2\"}[5m])))")" 1535
ps_check_eq "prometheus, --detail queue: RX queue 1 had no frames (NaN)" \
	"$(ps_promq "histogram_quantile(0.5, sum by (le) (rate(pathscope_frame_size_bytes_bucket{$IQ,iface=\"vB\",hook=\"xdp\",queue=\"1\"}[5m])))")" NaN
d2s_i=$(ps_promq "histogram_quantile(0.5, sum by (le) (rate(pathscope_d2s_latency_seconds_bucket{$I1,iface=\"vB\"}[5m])))")
d2s_q=$(ps_promq "histogram_quantile(0.5, sum by (le) (rate(pathscope_d2s_latency_seconds_bucket{$IQ,iface=\"vB\",queue=\"2\"}[5m])))")
# Equal up to float rounding: the two are interpolated from rates of two
# scrapes (7.160999999999999e-07 against 7.161e-07 once).
ps_check_eq "prometheus: median driver-to-stack latency per interface = that of RX queue 2 ($d2s_i s, $d2s_q s), a number" \
	"$(awk -v i="$d2s_i" -v q="$d2s_q" 'BEGIN { d = i - q; if (d < 0) d = -d
		print (i + 0 > 0 && d <= 1e-9 * i) ? "equal number" : "different" }')" "equal number"
ps_check_eq "prometheus: --detail interface exports no size bucket per queue" \
	"$(ps_promq "count(pathscope_frame_size_bytes_bucket{$I1,queue!=\"\"})")" none
kill "$PROM_PID"
_ps_reap "$PROM_PID"
PROM_PID=
serve_stop_q() {
	kill -TERM "$SERVE_Q_PID"
	_ps_reap "$SERVE_Q_PID"
	SERVE_Q_PID=
}
serve_stop_q
ps_check_eq "serve --detail queue --keep stopped; the attachment stays with the first serve" "$(code /healthz)" 200


# 3. JSON lines: one per second, each what stats --json prints; SIGHUP reopens.
# Wait (at most 10 s) for a line written after the workload.
want=$(msum "$m1" pathscope_packets_total "$X")
for _ in $(seq 100); do
	last=$(tail -n 1 "$TMP/serve.jsonl")
	[ "$(jq .interfaces[0].totals.xdp.total.packets <<<"$last" 2>/dev/null)" = "$want" ] && break
	sleep 0.1
done
keys=$(ps_pathscope_b stats vB --json | jq -c '[keys, (.interfaces[0] | keys)]')
ps_check_eq "jsonl: the last line has the workload" \
	"$(jq .interfaces[0].totals.xdp.total.packets <<<"$last")" "$want"
n1=$(wc -l <"$TMP/serve.jsonl") e1=$(awk -v a="$T_SERVE" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
ps_check_eq "jsonl: every line parses, same keys as stats --json" \
	"$(jq -c '[keys, (.interfaces[0] | keys)]' "$TMP/serve.jsonl" | sort -u)" "$keys"
# A line an interval after serve began serving, then one every interval: never
# early, and late on a loaded machine (8 in 10.4 s under three qemu guests).
ps_check_eq "jsonl: about one line per second ($n1 in the $e1 s since serve answered)" \
	"$(awk -v n="$n1" -v e="$e1" 'BEGIN { print (n >= 1 && n <= e + 1 && n >= e / 2 - 1) ? "yes" : "no" }')" yes
mv "$TMP/serve.jsonl" "$TMP/serve.jsonl.1"
kill -HUP "$SERVE_PID"
for _ in $(seq 50); do
	[ "$(cat "$TMP/serve.jsonl" 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.1
done
n2=$(wc -l <"$TMP/serve.jsonl.1")
ps_check_eq "SIGHUP: new lines go to a new file at the same path" \
	"$(jq -c '[keys, (.interfaces[0] | keys)]' "$TMP/serve.jsonl" | sort -u)" "$keys"
# The next line (at most an interval away) goes to the new file, and none to the old.
m2=$(wc -l <"$TMP/serve.jsonl")
for _ in $(seq 30); do
	[ "$(wc -l <"$TMP/serve.jsonl")" -gt "$m2" ] && break
	sleep 0.1
done
ps_check_eq "SIGHUP: a line later, the renamed file has no more lines" \
	"$(wc -l <"$TMP/serve.jsonl.1") $([ "$(wc -l <"$TMP/serve.jsonl")" -gt "$m2" ] && echo 'a line later')" "$n2 a line later"
ps_check_eq "SIGHUP: serve still serves" "$(code /healthz)" 200

# 3a. --no-peer-metrics: 5 pings from A, answered by B. The first serve names
# A among B's ICMP peers; a second one adopting with --no-peer-metrics has no
# per-peer family, and the same per-interface response count.
r0=$(msum "$(get /metrics)" pathscope_icmp_peer_response_seconds_count "peer=\"$PS_IP4_A\"")
ps_in_a ping -n -q -c 5 -i 0.02 -W 1 "$PS_IP4_B" >/dev/null || ps_fail "ping A -> B" "exit $?"
ps_wait_quiet 3
serve_q_start --no-peer-metrics
m_all=$(get /metrics)
m_np=$(in_b curl -gs --max-time 5 "$URL_Q/metrics")
ps_check_eq "/metrics: A's 5 pings under B's ICMP peer $PS_IP4_A" \
	"$(($(msum "$m_all" pathscope_icmp_peer_response_seconds_count "peer=\"$PS_IP4_A\"") - r0))" 5
ps_check_eq "--no-peer-metrics: no per-peer series, HELP or TYPE" "$(grep -c '_peer_' <<<"$m_np")" 0
ps_check_eq "--no-peer-metrics: the same ICMP responses per interface" \
	"$(msum "$m_np" pathscope_icmp_response_seconds_count 'iface="vB"')" \
	"$(msum "$m_all" pathscope_icmp_response_seconds_count 'iface="vB"')"
ps_check_eq "--no-peer-metrics: promtool check metrics accepts it" \
	"$(promtool check metrics <<<"$m_np" >/dev/null 2>&1 && echo ok)" ok
serve_stop_q

# 3b. The kernel's own drop counters beside pathscope's: vB's root qdisc (a tbf
# of 10 Mbit/s holding 3 frames) drops from a burst of 200 datagrams from B;
# /metrics must say what tc -s qdisc says, exactly, once the queue is drained.
# The host's softnet counters (summed over CPUs) lie between two reads of
# /proc/net/softnet_stat around the scrape.
softnet() {
	local s=0 f
	while read -ra f; do s=$((s + 16#${f[$1 - 1]})); done </proc/net/softnet_stat
	echo "$s"
}
ip netns exec "$NS_B" tc qdisc replace dev vB root tbf rate 10mbit burst 1600 limit 3000
ps_sink_start "$NS_A" 9001 --expect 200 --timeout 2
in_b "$UDPSEND" -n 200 -s 1000 "$PS_IP4_A" 9001 || ps_fail "udpsend from B" "exit $?"
got=$(ps_sink_wait) # 200 x 1042 B take 0.17 s at 10 Mbit/s; the sink waits 2 s
tcq=$(ip netns exec "$NS_B" tc -s -j qdisc show dev vB root | jq -r '.[0] | "\(.kind) \(.packets) \(.drops)"')
sq0=$(softnet 3) sd0=$(softnet 2)
m_q=$(get /metrics)
sq1=$(softnet 3) sd1=$(softnet 2)
ps_check_eq "/metrics: vB's root qdisc packets and drops as tc -s qdisc says ($tcq)" \
	"tbf $(msum "$m_q" pathscope_qdisc_packets_total 'iface="vB"' 'kind="tbf"') $(msum "$m_q" pathscope_qdisc_drops_total 'iface="vB"' 'kind="tbf"')" "$tcq"
ps_check_eq "the tbf sent the 200 datagrams, A received them, after drops (udpsend resends what the qdisc refuses)" \
	"$(cut -d' ' -f2 <<<"$tcq") $got $([ "$(cut -d' ' -f3 <<<"$tcq")" -gt 0 ] && echo drops)" "200 200 drops"
ps_check_eq "/metrics: softnet squeezes and backlog drops between two reads of softnet_stat" \
	"$(awk -v q="$(msum "$m_q" pathscope_softnet_times_squeezed_total)" -v d="$(msum "$m_q" pathscope_softnet_dropped_total)" \
		-v q0="$sq0" -v q1="$sq1" -v d0="$sd0" -v d1="$sd1" 'BEGIN { print (q0 <= q && q <= q1 && d0 <= d && d <= d1) ? "within" : "outside" }')" within
ip netns exec "$NS_B" tc qdisc del dev vB root

# 3d. A long run stays flat: after 1000 more scrapes (each on a new
# connection) and 5 SIGHUPs, serve holds the same file descriptors and at
# most 1 MiB more resident memory (a leak of 1 KiB per scrape would show).
# The sanitizer builds keep freed memory in quarantine, so there only the
# descriptors are compared; their leak checkers run at exit instead.
fds() { find /proc/"$SERVE_PID"/fd -mindepth 1 | wc -l; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' /proc/"$SERVE_PID"/status; }
# N scrapes; prints how many answered 200
scrapes() { in_b curl -s -H 'Connection: close' -o /dev/null -w '%{http_code}\n' "$URL/metrics?[1-$1]" | grep -c '^200$'; }
scrapes 100 >/dev/null
# The count once serve has closed the last of them: no connection of its
# port established or waiting for serve's close (at most 5 s; CI's ASan
# stage once counted one still open: 10, then 9).
serve_idle() { [ "$(in_b ss -Htn state established state close-wait "( sport = :$PORT )" | wc -l)" = 0 ]; }
ps_wait_for 5 serve_idle || ps_fail "serve closed the 100 scrapes' connections" "$(in_b ss -Htn "( sport = :$PORT )" | wc -l) left"
f0=$(fds)
r0=$(rss_kib) ok200=0
for _ in 1 2 3 4 5; do
	ok200=$((ok200 + $(scrapes 200)))
	kill -HUP "$SERVE_PID"
done
# Wait (at most 5 s) for the last connections to close.
for _ in $(seq 50); do
	[ "$(fds)" -le "$f0" ] && break
	sleep 0.1
done
f1=$(fds) r1=$(rss_kib)
echo "# serve over 1000 scrapes: $f0 -> $f1 file descriptors, resident $r0 -> $r1 KiB"
ps_check_eq "1000 scrapes on new connections: all answered 200" "$ok200" 1000
case "$PS_BUILD" in
build-asan | build-valgrind)
	ps_check_eq "1000 scrapes, 5 SIGHUPs: file descriptors as before" "$f1" "$f0" ;;
*)
	ps_check_eq "1000 scrapes, 5 SIGHUPs: file descriptors as before, resident memory +<= 1 MiB" \
		"$f1 $([ $((r1 - r0)) -le 1024 ] && echo flat || echo "grew $r0 -> $r1 KiB")" "$f0 flat" ;;
esac
ps_check_eq "after them: serve still serves" "$(code /healthz)" 200

# 4. SIGTERM with scrapes in flight: exit 0, nothing left behind.
(for i in $(seq 300); do
	in_b curl -s --max-time 2 -o /dev/null "$URL/metrics"
	[ "$i" = 3 ] && touch "$TMP/scraping"
done) &
LOOP_PID=$!
for _ in $(seq 50); do # until 3 scrapes are done and the 4th is under way
	[ -e "$TMP/scraping" ] && break
	sleep 0.05
done
serve_stop
ps_check_eq "SIGTERM during scrapes: exit 0" "$SERVE_RC" 0
kill "$LOOP_PID" 2>/dev/null
_ps_reap "$LOOP_PID"
LOOP_PID=
ps_check_eq "SIGTERM: stderr empty" "$(cat "$TMP/serve.err")" ""
ps_check_eq "SIGTERM: status says nothing is attached" \
	"$(ps_pathscope_b status --json | jq --arg ns "${PIN_NS##*/}" '[.[] | select(.netns == ($ns | tonumber))] | length')" 0
left=0
for id in $PROG_IDS $LINK_PROGS; do bpftool prog show id "$id" >/dev/null 2>&1 && left=$((left + 1)); done
for id in $LINK_IDS; do bpftool link show id "$id" >/dev/null 2>&1 && left=$((left + 1)); done
ps_check_eq "SIGTERM: the attachment's programs and links are gone (by id)" "$left" 0
ps_check_eq "SIGTERM: pins, XDP and qdiscs as before serve" "$(census_is "$before")" "$before"

# 5. Adopt an attachment, --keep it, over IPv6; a second serve on the busy port
# fails; /healthz and pathscope_up when XDP is removed under serve.
LISTEN="[::1]:$PORT" URL="http://[::1]:$PORT"
ps_pathscope_b attach vB || ps_fail "attach vB" "exit $?"
serve_start --keep || ps_done
ps_check_eq "serve says it adopted vB (IPv6 listener)" "$(cat "$TMP/serve.out")" \
	"serving vB (adopted) on http://[::1]:$PORT/metrics"
expect_exit "busy port: runtime error" 1 "cannot listen on \\[::1\\]:$PORT: Address already in use" \
	ps_pathscope_b serve vB --listen "[::1]:$PORT"
ip -n "$NS_B" link set vB xdp off
ps_check_eq "/healthz: 503 with the reason" "$(code /healthz) $(get /healthz)" \
	"503 vB: xdp detached by someone else"
ps_check_eq "pathscope_up 0" "$(msum "$(get /metrics)" pathscope_up 'iface="vB"')" 0
serve_stop
ps_check_eq "--keep: SIGTERM exits 0, the listener is gone" "$SERVE_RC $(code /healthz)" "0 000"
ps_check_eq "--keep: still attached" \
	"$(ps_pathscope_b status --json | jq -r '.[] | select(.ifname == "vB" and .current_netns) | .state')" \
	"xdp detached by someone else"
ps_pathscope_b detach vB || ps_fail "detach after --keep" "exit $?"
ps_check_eq "after --keep and detach: as before serve" "$(census_is "$before")" "$before"
ps_done
