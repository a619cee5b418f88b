#!/usr/bin/env bash
# The series /metrics exports per detail level, on a 64-queue veth (vB of the
# testbed, 64 RX and 64 TX queues). The bound: at most 1,500 series for a
# 64-queue interface with the default features at serve's default detail
# level (--detail interface). pathscope is attached once per feature set
# (default, all), and serve adopts the attachment (--keep) at each level:
# --detail interface, --detail queue, and --queue-detail d2s. For each: the
# sample lines of /metrics are counted (idle interface: the peer families
# hold only their "other" entry), promtool check metrics accepts it, and the
# families carrying a queue label are the ones the level says; the driver's
# per-queue series (ethtool -S on veth: one per RX queue) are at every level.
# Prints the counts (the table of docs/prometheus.md). With --native-histograms (Prometheus' Accept
# header: the protobuf exposition), at both levels: the series Prometheus
# stores (tests/promdump --series) are those of the text with every histogram
# one series instead of its buckets, _sum and _count, exactly.
. "$(dirname "$0")/lib.sh"
ps_require_root series
ps_require_file series "$PATHSCOPE"
ps_require_cmd series curl promtool
ps_require_file series "$PS_BIN/tests/promdump"
PB_ACCEPT='application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,text/plain;version=0.0.4;q=0.5'

NQ=64
ps_testbed_create $NQ || {
	ps_fail series "testbed setup failed"
	ps_done
}
TMP=$(mktemp -d)
PORT=9464 URL=http://127.0.0.1:9464
SERVE_PID=''
ps_at_exit 'kill "$SERVE_PID" 2>/dev/null; _ps_reap "$SERVE_PID"; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'
in_b() { ip netns exec "$NS_B" "$@"; }

# serve vB at a detail level (the arguments), adopting the attachment; writes
# its /metrics to FILE (with ACCEPT set: asked for with that Accept header).
scrape() {
	local file=$1 i
	shift
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$PORT" --keep "$@" \
		>"$TMP/serve.out" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	for i in $(seq $((100 * PS_SLOW))); do
		[ "$(in_b curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")" = 200 ] && break
		sleep 0.1
	done
	in_b curl -s --max-time 10 ${ACCEPT:+-H "Accept: $ACCEPT"} "$URL/metrics" >"$file"
	kill -TERM "$SERVE_PID"
	_ps_reap "$SERVE_PID"
	SERVE_PID=
	[ -s "$file" ] || ps_fail "serve $*" "no /metrics: $(cat "$TMP/serve.err")"
}
count() { grep -vc '^#' "$1"; }
# The families (without _bucket, _sum, _count) with a queue label, one line.
queue_families() {
	grep -E '^pathscope_[a-z0-9_]+\{[^}]*\bqueue=' "$1" | sed -E 's/\{.*//; s/_(bucket|sum|count)$//' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
# The series of a text exposition with each histogram as one (native) series.
native_expected() {
	awk '/^# TYPE .* histogram$/ { h[$3] = 1; next } /^#/ { next }
		{ n++; name = $1; sub(/\{.*/, "", name)
		  if (match(name, /_(bucket|sum|count)$/) && (substr(name, 1, RSTART - 1) in h)) {
			n--; if (substr(name, RSTART) == "_count") n++ } }
		END { print n }' "$1"
}
lint() {
	local out rc=0
	out=$(promtool check metrics <"$2" 2>&1) || rc=$?
	ps_check_eq "promtool check metrics: $1" "$rc $out" "0 "
}

declare -A N=()
for feat in default all; do
	ps_pathscope_b attach vB --features "$feat" >/dev/null || {
		ps_fail "attach vB --features $feat" "exit $?"
		continue
	}
	scrape "$TMP/$feat-interface"
	scrape "$TMP/$feat-queue" --detail queue
	ACCEPT=$PB_ACCEPT scrape "$TMP/$feat-interface.pb" --native-histograms
	ACCEPT=$PB_ACCEPT scrape "$TMP/$feat-queue.pb" --detail queue --native-histograms
	N[$feat/interface]=$(count "$TMP/$feat-interface")
	N[$feat/queue]=$(count "$TMP/$feat-queue")
	for lvl in interface queue; do
		N[$feat/$lvl/native]=$("$PS_BIN/tests/promdump" --series <"$TMP/$feat-$lvl.pb")
		ps_check_eq "$feat features, --detail $lvl --native-histograms: the text's series, each histogram one (${N[$feat/$lvl/native]})" \
			"${N[$feat/$lvl/native]}" "$(native_expected "$TMP/$feat-$lvl")"
	done
	lint "$feat features, --detail interface" "$TMP/$feat-interface"
	lint "$feat features, --detail queue" "$TMP/$feat-queue"
	if [ "$feat" = default ]; then
		scrape "$TMP/$feat-d2s" --queue-detail d2s
		N[$feat/d2s]=$(count "$TMP/$feat-d2s")
		lint "$feat features, --queue-detail d2s" "$TMP/$feat-d2s"
	fi
	ps_pathscope_b detach vB || ps_fail "detach vB" "exit $?"
done

echo "# $NQ-queue veth, idle: series of /metrics (text; with --native-histograms)"
for k in "default/interface" "default/d2s" "default/queue" "all/interface" "all/queue"; do
	printf '#   %-20s %6s %6s\n' "${k/\// }" "${N[$k]:-?}" "${N[$k/native]:--}"
done

ps_check_eq "default features, --detail interface: at most 1500 series for $NQ queues (${N[default/interface]})" \
	"$([ "${N[default/interface]:-99999}" -le 1500 ] && echo yes)" yes
ps_check_eq "--detail queue has every queue's series (more than 10x)" \
	"$([ "${N[default/queue]:-0}" -gt $((10 * ${N[default/interface]:-99999})) ] && echo yes)" yes
ps_check_eq "default features, --detail interface: per queue only packets, bytes, CE, d2s samples and the driver's XDP packets" \
	"$(queue_families "$TMP/default-interface")" \
	"pathscope_bytes_total pathscope_ce_packets_total pathscope_d2s_expired_total pathscope_d2s_matched_total pathscope_nic_queue_xdp_packets_total pathscope_packets_total"
# The driver's own per-queue counters, at every level: veth has ethtool -S
# rx_queue_N_xdp_packets for each of its NQ RX queues (1 series each) and no
# per-queue packets (no rx_queue_N_packets, no netdev qstats): NQ + 0 series.
for k in default-interface default-queue default-d2s all-interface all-queue; do
	ps_check_eq "$k: the driver's per-queue series: $NQ xdp_packets (one per RX queue) + 0 packets" \
		"$(grep -c '^pathscope_nic_queue_xdp_packets_total{iface="vB",queue="[0-9]*",source="ethtool"} ' "$TMP/$k") $(grep -c '^pathscope_nic_queue_packets_total{' "$TMP/$k")" \
		"$NQ 0"
done
# docs/prometheus.md's table: 304 + 11 x (queues + 1) of pathscope's own families, + NQ of the driver's.
ps_check_eq "default features, --detail interface: 304 + 11 x ($NQ + 1) + $NQ = $((304 + 11 * (NQ + 1) + NQ)) series" \
	"${N[default/interface]}" $((304 + 11 * (NQ + 1) + NQ))
ps_check_eq "default features, --detail interface: those per queue for every slot ($NQ queues and other)" \
	"$(grep -c '^pathscope_packets_total{' "$TMP/default-interface") $(grep -c '^pathscope_d2s_matched_total{' "$TMP/default-interface")" \
	"$((3 * (NQ + 1))) $((NQ + 1))"
ps_check_eq "default features, --detail interface: one size histogram per hook" \
	"$(grep -c '^pathscope_frame_size_bytes_bucket{' "$TMP/default-interface")" $((3 * 15))
ps_check_eq "--detail queue: a size histogram per hook and queue" \
	"$(grep -c '^pathscope_frame_size_bytes_bucket{' "$TMP/default-queue")" $((3 * 15 * (NQ + 1)))
ps_check_eq "--queue-detail d2s: the d2s histogram per queue, sizes per interface" \
	"$(grep -c '^pathscope_d2s_latency_seconds_bucket{[^}]*queue=' "$TMP/default-d2s") $(grep -c '^pathscope_frame_size_bytes_bucket{' "$TMP/default-d2s")" \
	"$((27 * (NQ + 1))) $((3 * 15))"
ps_check_eq "--queue-detail d2s: --detail interface plus the d2s histogram and sampled counter of each queue" \
	"${N[default/d2s]}" $((${N[default/interface]} + NQ * (29 + 1)))
ps_check_eq "all features, --detail interface: per queue only packets, bytes, CE, drops, samples, the driver's counters, the flows' three gauges and the first hop's counts" \
	"$(queue_families "$TMP/all-interface" | tr ' ' '\n' | grep -vxE 'pathscope_(packets|bytes|ce_packets)_total|pathscope_d2s_(matched|expired)_total|pathscope_sock_samples_total|pathscope_txlat_(queued|dropped)_total|pathscope_kernel_drops_total|pathscope_nic_queue_(xdp_)?packets_total|pathscope_flows_(distinct|top_share|second_share)|pathscope_firsthop_(irqs|polls|softirq_waits|softirq_wait_seconds|thread_waits|thread_wait_seconds)_total' | tr '\n' ' ')" ""
ps_done
