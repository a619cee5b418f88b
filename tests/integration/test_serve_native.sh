#!/usr/bin/env bash
# serve --native-histograms: the protobuf exposition for a scraper that asks
# for it, with each histogram a native one, read by a real Prometheus (Debian's
# 2.42, --enable-feature=native-histograms) at both detail levels. A known
# workload (500 UDP datagrams of 1000 B: 1042 B frames on RX queue 2) must
# show as exactly 500 more in the native bucket of its log-linear bucket
# [1024, 1152) (schema 4, index 162), as histogram_count 500 in Prometheus, and
# as a median within that native bucket (the classic buckets can only say
# (1023, 2047]). One series per histogram: Prometheus holds as many series as
# the scrape has metrics, and per histogram one, where the text format has 17
# to 29. The driver-to-stack median from Prometheus lies in the native bucket
# of the log-linear bucket that holds the median of stats --json's histogram.
# The text is unchanged for every other client (curl), and without the option.
# Series: 3 histograms per interface (15 at --detail queue); the exposition
# holds 181 and 621 series where the text has 363 and 1,419. The median frame
# size lies in (1069.3, 1116.7] B at both levels.
. "$(dirname "$0")/lib.sh"
ps_require_root serve-native
ps_require_file serve-native "$PATHSCOPE"
ps_require_file serve-native "$UDPSEND"
ps_require_file serve-native "$PS_BIN/tests/promdump"
ps_require_cmd serve-native curl jq prometheus python3

ps_testbed_create 4 || {
	ps_fail serve-native "testbed setup failed"
	ps_done
}
TMP=$(mktemp -d)
PORT=9466 PORT_Q=9467 PORT_T=9468 PROM_PORT=9091
PROMDUMP=$PS_BIN/tests/promdump
PB_ACCEPT='application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
PB_TYPE='application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'
TEXT_TYPE='text/plain; version=0.0.4; charset=utf-8'
PIDS=()
ps_at_exit 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'

in_b() { ip netns exec "$NS_B" "$@"; }
# curl PORT PATH [ACCEPT]: the body, to stdout
get() { in_b curl -gs --max-time 10 ${3:+-H "Accept: $3"} "http://127.0.0.1:$1$2"; }
ctype() { in_b curl -gs --max-time 10 -o /dev/null -w '%{content_type}' ${2:+-H "Accept: $2"} "http://127.0.0.1:$1/metrics"; }
# serve vB on PORT with the given options, in the background (PIDS), and wait
# until /healthz answers.
serve_on() {
	local port=$1 i
	shift
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$port" "$@" \
		>"$TMP/serve-$port.out" 2>"$TMP/serve-$port.err" &
	PIDS+=($!)
	for i in $(seq $((100 * PS_SLOW))); do
		[ "$(in_b curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")" = 200 ] && return 0
		sleep 0.1
	done
	ps_fail "serve $*" "not answering: $(cat "$TMP/serve-$port.err")"
	return 1
}
# The native buckets ("I:N,...") of the histogram line of promdump output
# matching SERIES (a fixed string).
native_of() { grep -F "$2 native " <<<"$1" | sed 's/.* buckets=//'; }
# What changed between two bucket lists: "I:+N ..." (sorted by index).
native_delta() {
	python3 - "$1" "$2" <<'EOF'
import sys
def parse(s):
    return {int(i): int(n) for i, n in (p.split(':') for p in s.split(',') if p)}
a, b = parse(sys.argv[1]), parse(sys.argv[2])
print(' '.join(f'{i}:+{b.get(i, 0) - a.get(i, 0)}' for i in sorted(set(a) | set(b)) if b.get(i, 0) != a.get(i, 0)))
EOF
}

# Prometheus with native histograms, scraping both levels from before the
# workload. It starts first: its first scrape comes 5-7 s after it starts
# (lib.sh); until the serves listen, no pathscope_up.
ps_prometheus_b "$TMP" "$PROM_PORT" "'127.0.0.1:$PORT', '127.0.0.1:$PORT_Q'" \
	--enable-feature=native-histograms
PIDS+=("$PS_PROM_PID")

serve_on $PORT --native-histograms || ps_done
serve_on $PORT_Q --native-histograms --detail queue --keep || ps_done
serve_on $PORT_T --keep || ps_done

# 1. Negotiation.
ps_check_eq "--native-histograms: Prometheus' Accept gets the protobuf exposition" "$(ctype $PORT "$PB_ACCEPT")" "$PB_TYPE"
ps_check_eq "--native-histograms: curl (*/*) gets the text" "$(ctype $PORT)" "$TEXT_TYPE"
ps_check_eq "without the option: Prometheus' Accept gets the text" "$(ctype $PORT_T "$PB_ACCEPT")" "$TEXT_TYPE"
ps_check_eq "--native-histograms: the protobuf exposition decodes (promdump)" \
	"$(get $PORT /metrics "$PB_ACCEPT" | "$PROMDUMP" >/dev/null && echo ok)" ok

I1="instance=\"127.0.0.1:$PORT\"" IQ="instance=\"127.0.0.1:$PORT_Q\""
for i in $(seq 300); do # up to 30 s: ready, and two scrapes of each serve
	[ "$(ps_promq "count_over_time(pathscope_up{$IQ}[1m])")" -ge 2 ] 2>/dev/null &&
		[ "$(ps_promq "count_over_time(pathscope_up{$I1}[1m])")" -ge 2 ] 2>/dev/null && break
	sleep 0.1
done

# 2. The workload, read back from the protobuf exposition.
ps_txq_pin "$NS_A" vA 2 # every datagram leaves vA on TX queue 2, arrives on vB RX queue 2
ps_wait_quiet 5
p0=$(get $PORT /metrics "$PB_ACCEPT" | "$PROMDUMP") q0=$(get $PORT_Q /metrics "$PB_ACCEPT" | "$PROMDUMP")
ps_wait_scrapes 1 # a Prometheus scrape of this quiet baseline, before T0
T0=$(date +%s.%3N)
N=500
ps_sink_start "$NS_B" 9000 --expect "$N" --timeout 20
ps_in_a "$UDPSEND" -n "$N" -s 1000 "$PS_IP4_B" 9000 || ps_fail "udpsend" "exit $?"
ps_check_eq "sink received every datagram" "$(ps_sink_wait)" "$N"
ps_wait_quiet 5
p1=$(get $PORT /metrics "$PB_ACCEPT" | "$PROMDUMP") q1=$(get $PORT_Q /metrics "$PB_ACCEPT" | "$PROMDUMP")
t1=$(get $PORT /metrics)
X='{iface="vB",hook="xdp",direction="rx"}' X2='{iface="vB",queue="2",hook="xdp",direction="rx"}'
ps_check_eq "native frame sizes (xdp): 500 more at index 162, (1069.3, 1116.7] B, where 1042 B frames go ([1024, 1152) B), nothing else" \
	"$(native_delta "$(native_of "$p0" "pathscope_frame_size_bytes$X")" "$(native_of "$p1" "pathscope_frame_size_bytes$X")")" "162:+$N"
ps_check_eq "--detail queue: the same on RX queue 2" \
	"$(native_delta "$(native_of "$q0" "pathscope_frame_size_bytes$X2")" "$(native_of "$q1" "pathscope_frame_size_bytes$X2")")" "162:+$N"
fams='^pathscope_(packets_total|bytes_total|l4_packets_total|frame_size_bytes_(bucket|sum|count))\{'
ps_check_eq "the protobuf exposition has the text's packets, bytes, classes and classic size buckets, line for line" \
	"$(diff <(grep -E "$fams" <<<"$p1" | sort) <(grep -E "$fams" <<<"$t1" | sort) | head -5)" ""
ps_check_eq "... $(grep -cE "$fams" <<<"$t1") lines of them" "$([ "$(grep -cE "$fams" <<<"$t1")" -gt 100 ] && echo yes)" yes
ps_check_eq "... and they hold the workload (xdp packets of RX queue 2)" \
	"$(grep -F 'pathscope_packets_total{iface="vB",queue="2",hook="xdp"' <<<"$p1" | awk '{ print $2 }')" \
	"$(grep -F 'pathscope_packets_total{iface="vB",queue="2",hook="xdp"' <<<"$t1" | awk '{ print $2 }')"

# 3. What Prometheus made of it.
ps_check_eq "prometheus scrapes both serves" "$(ps_promq 'sum(pathscope_up{iface="vB"})')" 2
ps_check_eq "prometheus: one series per size histogram (3 hooks), no classic bucket series" \
	"$(ps_promq "count(pathscope_frame_size_bytes{$I1})") $(ps_promq "count({__name__=~\"pathscope_frame_size_bytes_(bucket|sum|count)\",$I1})")" "3 none"
ps_check_eq "prometheus, --detail queue: one per hook and queue slot (3 x 5)" \
	"$(ps_promq "count(pathscope_frame_size_bytes{$IQ})")" 15
for lvl in "$PORT interface" "$PORT_Q queue"; do
	read -r port name <<<"$lvl"
	n_pb=$(get "$port" /metrics "$PB_ACCEPT" | "$PROMDUMP" --series)
	n_text=$(get "$port" /metrics | grep -vc '^#')
	n_prom=$(ps_promq "count({__name__=~\"pathscope_.+\",instance=\"127.0.0.1:$port\"})")
	ps_check_eq "prometheus, --detail $name: as many series as the protobuf scrape holds ($n_pb; $n_text in the text)" \
		"$n_prom" "$n_pb"
	echo "# 4-queue veth, --detail $name: $n_text text series, $n_pb with native histograms"
done
Q="histogram_count(pathscope_frame_size_bytes{$I1,hook=\"xdp\"}) - histogram_count(pathscope_frame_size_bytes{$I1,hook=\"xdp\"} @ $T0)"
for i in $(seq 150); do # at most 15 s, for a scrape after the workload
	got=$(ps_promq "$Q")
	[ "$got" = "$N" ] && break
	sleep 0.1
done
ps_check_eq "prometheus: histogram_count of xdp frame sizes since T0 = the workload" "$got" "$N"
got=$(ps_promq "histogram_count(pathscope_frame_size_bytes{$I1,hook=\"xdp\"})")
want=$(grep -F "pathscope_frame_size_bytes_count$X" <<<"$p1" | awk '{ print $2 }')
ps_check_eq "prometheus: histogram_count of xdp frame sizes = the exposition's count ($want)" "$got" "$want"
inside() { # VALUE LOW HIGH: "yes" if LOW < VALUE <= HIGH (relative slack 1e-9)
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { print (v > lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ? "yes" : "no: " v }'
}
lo=$(awk 'BEGIN { print 2 ^ (161 / 16) }') hi=$(awk 'BEGIN { print 2 ^ (162 / 16) }')
med=$(ps_promq "histogram_quantile(0.5, sum(rate(pathscope_frame_size_bytes{$I1,hook=\"xdp\"}[5m])))")
ps_check_eq "prometheus: median xdp frame size over the workload in (1069.3, 1116.7] B (1042 B frames): $med" \
	"$(inside "$med" "$lo" "$hi")" yes
med=$(ps_promq "histogram_quantile(0.5, sum(rate(pathscope_frame_size_bytes{$IQ,hook=\"xdp\",queue=\"2\"}[5m])))")
ps_check_eq "prometheus, --detail queue: the same for RX queue 2: $med" "$(inside "$med" "$lo" "$hi")" yes

# 4. Driver to stack: Prometheus' median against stats --json's histogram.
js=$(ps_pathscope_b stats vB --json | jq -c '.interfaces[0].totals.driver_to_stack.latency_ns')
med=$(ps_promq "histogram_quantile(0.5, pathscope_d2s_latency_seconds{$I1})")
bounds=$(python3 - "$js" <<'EOF'
import json, math, sys
d = json.loads(sys.argv[1])
count, seen = d['count'], 0
for b in d['hist']:
    seen += b['count']
    if seen >= 0.5 * count:
        mid = (b['low'] + b['high'] - 1) / 2 * 1e-9
        i = math.ceil(16 * math.log2(mid))
        print(2 ** ((i - 1) / 16), 2 ** (i / 16), b['low'], b['high'], count)
        break
EOF
)
read -r lo hi blo bhi dcount <<<"$bounds"
ps_check_eq "prometheus: the d2s median ($med s) is in the native bucket of stats' median bucket [$blo, $bhi) ns ($dcount samples)" \
	"$([ "${dcount:-0}" -gt 0 ] && inside "$med" "$lo" "$hi")" yes
ps_done
