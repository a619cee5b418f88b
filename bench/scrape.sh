#!/usr/bin/env bash
# bench/scrape.sh OUT.json: what one Prometheus scrape of `pathscope serve`
# costs, for two interfaces of 64 queues each with every feature. In a
# namespace of our own, two veth pairs (s0-s1, s2-s3) of 64 RX and 64 TX
# queues; pathscope attached to s0 and s2 with --features all; a little
# traffic on each (UDP, TCP, pings) so that the histograms and peers have
# samples. Then, for each detail level (serve --detail interface, the
# default, and queue), in the text format and in the protobuf one with native
# histograms (serve --native-histograms, scraped with Prometheus' Accept
# header), serve adopts both attachments (--keep) and is scraped
# PS_BENCH_SCRAPES times (default 100) after 5 warm-up scrapes, one at a time:
#   - CPU time per scrape: the serve process's on-CPU time over the scrapes
#     (the sum of /proc/PID/task/*/schedstat, ns; utime+stime as a check),
#     divided by the scrapes;
#   - wall time per scrape: curl's time_total (median, max), loopback;
#   - the body's size and its series (sample lines; protobuf: the series
#     Prometheus stores for it, a native histogram one, by tests/promdump);
#   - resident memory before the scrapes, after them, and its high-water mark;
#   - with valgrind: heap allocations per scrape (memcheck's total heap usage
#     with 11 scrapes minus with 1, over 10) and the peak heap (massif).
# Last, s2 attached again with the default features: the series of one
# 64-queue interface at the default level (the bound: 1,500).
# Environment: PS_BENCH_BUILD (build dir, default build), PS_BENCH_SCRAPES,
# PS_BENCH_SCRAPE_QUEUES (64).
set -u
OUT=${1:?usage: scrape.sh OUT.json}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${PS_BENCH_BUILD:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
PATHSCOPE=$BUILD_DIR/pathscope
PROMDUMP=$BUILD_DIR/tests/promdump
PB_ACCEPT='application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
NQ=${PS_BENCH_SCRAPE_QUEUES:-64}
SCRAPES=${PS_BENCH_SCRAPES:-100}
NS=psbenchS-$$
PORT=9464
URL=http://127.0.0.1:$PORT/metrics
TMP=$(mktemp -d /tmp/psbench-scrape.XXXXXX)
ATTACHED=() SERVE=''

cleanup() {
	local i
	if [ -n "$SERVE" ]; then
		kill "$SERVE" 2>/dev/null
		for i in $(seq 100); do kill -0 "$SERVE" 2>/dev/null || break; sleep 0.1; done
	fi
	for i in "${ATTACHED[@]}"; do ps_ detach "$i" >/dev/null 2>&1; done
	[ -e "/var/run/netns/$NS" ] && ip netns del "$NS"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ps_() { nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" "$@"; }
in_ns() { ip netns exec "$NS" "$@"; }

# ---- the two interfaces -------------------------------------------------------------
ip netns add "$NS" || exit 1
in_ns sysctl -q -w net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.addr_gen_mode=1
ip -n "$NS" link set lo up
for p in 0 2; do
	a=s$p b=s$((p + 1))
	ip -n "$NS" link add "$a" numtxqueues "$NQ" numrxqueues "$NQ" type veth peer name "$b" \
		numtxqueues "$NQ" numrxqueues "$NQ" || exit 1
	ip -n "$NS" link set "$a" up && ip -n "$NS" link set "$b" up || exit 1
done
for p in 0 2; do
	ps_ attach "s$p" --features all >/dev/null || {
		echo "scrape: cannot attach s$p" >&2
		exit 1
	}
	ATTACHED+=("s$p")
done

# A little traffic on s0 and s2 (frames in and out), so that the histograms,
# classes and peers are not all zero: raw frames need no routing between the
# pairs' ends, which share one namespace.
traffic() {
	local dev
	for dev in s1 s3; do
		in_ns python3 - "$dev" <<'EOF' || true
import socket, struct, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
def csum(b):
    if len(b) % 2: b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
for i in range(3000):
    size = (64, 200, 576, 1000, 1400)[i % 5]
    proto = (17, 6, 1)[i % 3]
    payload = bytes(size)
    src = bytes([198, 18, 200 + i % 8, 1 + i % 50])
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, (i % 4), 20 + len(payload), i & 0xffff, 0, 64, proto, 0,
                     src, bytes([198, 19, 0, 1]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = b"\x02\x00\x00\x00\x00\x01" + b"\x02\x00\x00\x00\x00\x02" + b"\x08\x00"
    s.send(eth + ip + payload)
EOF
	done
}
traffic

# ---- one level ------------------------------------------------------------------------
task_ns() { # on-CPU ns of every thread of $1
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }
kib() { awk -v k="$2" '$1 == k":" { print $2 }' /proc/"$1"/status; }

# LOG LEVEL FORMAT [WRAPPER...]: serve s0 s2 --detail LEVEL in the background
# (FORMAT native: with --native-histograms)
start_serve() {
	local log=$1 level=$2 format=$3 i more=()
	shift 3
	[ "$format" = native ] && more=(--native-histograms)
	nsenter --net="/var/run/netns/$NS" "$@" "$PATHSCOPE" serve s0 s2 --listen "127.0.0.1:$PORT" \
		--keep --detail "$level" "${more[@]}" >"$log.out" 2>"$log.err" &
	SERVE=$!
	for i in $(seq 600); do
		[ "$(in_ns curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")" = 200 ] && return 0
		kill -0 "$SERVE" 2>/dev/null || break
		sleep 0.1
	done
	echo "scrape: serve did not come up: $(cat "$log.err")" >&2
	return 1
}
stop_serve() {
	local i
	kill -TERM "$SERVE"
	for i in $(seq 600); do kill -0 "$SERVE" 2>/dev/null || break; sleep 0.1; done
	wait "$SERVE" 2>/dev/null
	SERVE=
}
curl_n() { # N FORMAT: scrape N times one after another; one time_total per line
	in_ns curl -s -o /dev/null -w '%{time_total}\n' -H "Accept: $(accept "$2")" "$URL?[1-$1]"
}
accept() { [ "$1" = native ] && echo "$PB_ACCEPT" || echo '*/*'; }

# heap usage of serve under memcheck with N scrapes: "allocs bytes"
heap_usage() {
	local level=$1 format=$2 n=$3 log=$TMP/vg-$1-$2-$3
	start_serve "$log" "$level" "$format" valgrind --tool=memcheck --leak-check=no --log-file="$log.vg" ||
		return 1
	curl_n "$n" "$format" >/dev/null
	stop_serve
	sed -n 's/.*total heap usage: \([0-9,]*\) allocs, [0-9,]* frees, \([0-9,]*\) bytes allocated.*/\1 \2/p' \
		"$log.vg" | tr -d ,
}

first=1
echo "{\"queues\": $NQ, \"interfaces\": 2, \"features\": \"all\", \"scrapes\": $SCRAPES," \
	"\"online_cpus\": $(nproc), \"clk_tck\": $(getconf CLK_TCK), \"levels\": [" >"$OUT"
for lf in "interface text" "queue text" "interface native" "queue native"; do
	read -r level format <<<"$lf"
	start_serve "$TMP/serve-$level-$format" "$level" "$format" || exit 1
	curl_n 5 "$format" >/dev/null
	in_ns curl -s -H "Accept: $(accept "$format")" "$URL" >"$TMP/body-$level-$format"
	if [ "$format" = native ]; then
		series=$("$PROMDUMP" --series <"$TMP/body-$level-$format") || exit 1
	else
		series=$(grep -vc '^#' "$TMP/body-$level-$format")
	fi
	rss0=$(kib "$SERVE" VmRSS) ns0=$(task_ns "$SERVE") t0=$(ticks "$SERVE")
	curl_n "$SCRAPES" "$format" >"$TMP/times-$level-$format"
	ns1=$(task_ns "$SERVE") t1=$(ticks "$SERVE") rss1=$(kib "$SERVE" VmRSS) hwm=$(kib "$SERVE" VmHWM)
	stop_serve
	allocs=null abytes=null peak=null
	if command -v valgrind >/dev/null; then
		read -r a1 b1 < <(heap_usage "$level" "$format" 1)
		read -r a11 b11 < <(heap_usage "$level" "$format" 11)
		if [ -n "${a1:-}" ] && [ -n "${a11:-}" ]; then
			allocs=$(((a11 - a1) / 10)) abytes=$(((b11 - b1) / 10))
		fi
		start_serve "$TMP/massif-$level-$format" "$level" "$format" valgrind --tool=massif \
			--massif-out-file="$TMP/massif-$level-$format.out" && {
			curl_n 3 "$format" >/dev/null
			stop_serve
			peak=$(awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { if (h + $2 > m) m = h + $2 } END { print m + 0 }' \
				"$TMP/massif-$level-$format.out")
		}
	fi
	[ $first = 1 ] || echo ',' >>"$OUT"
	first=0
	jq -n -c --arg level "$level" --arg format "$format" --argjson n "$SCRAPES" \
		--argjson series "$series" \
		--argjson bytes "$(wc -c <"$TMP/body-$level-$format")" \
		--argjson cpu_ns "$((ns1 - ns0))" --argjson ticks "$((t1 - t0))" \
		--argjson rss0 "$rss0" --argjson rss1 "$rss1" --argjson hwm "$hwm" \
		--argjson allocs "$allocs" --argjson abytes "$abytes" --argjson peak "$peak" \
		--slurpfile times <(jq -R 'tonumber' "$TMP/times-$level-$format" | jq -s .) \
		'{level: $level, format: $format, scrapes: $n, series: $series, body_bytes: $bytes,
		  cpu_ns_total: $cpu_ns, cpu_ticks_total: $ticks, cpu_ms_per_scrape: ($cpu_ns / $n / 1e6),
		  wall_s: $times[0], rss_kib_before: $rss0, rss_kib_after: $rss1, hwm_kib: $hwm,
		  allocs_per_scrape: $allocs, alloc_bytes_per_scrape: $abytes, peak_heap_bytes: $peak}' >>"$OUT"
done
echo '],' >>"$OUT"

# The bound of the default: one 64-queue interface with the default features at
# the default detail level (s2 attached again with the default features).
ps_ detach s2 >/dev/null && ps_ attach s2 >/dev/null || exit 1
SERIES_DEFAULT=null
nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" serve s2 --listen "127.0.0.1:$PORT" --keep \
	>"$TMP/serve-default.out" 2>"$TMP/serve-default.err" &
SERVE=$!
for i in $(seq 600); do
	[ "$(in_ns curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")" = 200 ] && break
	sleep 0.1
done
in_ns curl -s "$URL" >"$TMP/body-default" && SERIES_DEFAULT=$(grep -vc '^#' "$TMP/body-default")
stop_serve
echo "\"default_features_interface_series\": $SERIES_DEFAULT}" >>"$OUT"
jq -e . "$OUT" >/dev/null
