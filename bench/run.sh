#!/usr/bin/env bash
# bench/run.sh: `make bench`. Runs the micro benchmark, the map memory
# figures, the cost of a Prometheus scrape and the live benchmark, then
# writes bench/results/<UTC time>.json, <UTC time>.md and latest.md (see
# bench/README.md). It asserts nothing about time: targets are printed beside
# the figures as met / missed.
#
# Environment (defaults in brackets):
#   PS_BENCH_BUILD      build directory with pathscope, the skeletons and
#                       bench/micro [build]
#   PS_BENCH_PHASES     which phases to run ["micro memory scrape hostile live"]
#   PS_BENCH_SCRAPES    scrapes per detail level in the scrape phase [100]
#   PS_BENCH_REPEAT     BPF_PROG_TEST_RUN repeat per micro run [1000000]
#   PS_BENCH_MICRO_RUNS micro runs per figure, median taken [5]
#   PS_BENCH_RUNS       live rounds (runs per configuration) [5]
#   PS_BENCH_TCP_S, PS_BENCH_UDP_S, PS_BENCH_STATS_S, PS_BENCH_QUEUES,
#   PS_BENCH_PAIRS, PS_BENCH_PAIR_S,
#   PS_BENCH_CONFIGS    see bench/live.sh
#   PS_BENCH_RESULTS    output directory [bench/results]
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BUILD_DIR=${PS_BENCH_BUILD:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
export PS_BENCH_BUILD=$BUILD_DIR
PHASES=${PS_BENCH_PHASES:-micro memory scrape hostile live}
RESULTS=${PS_BENCH_RESULTS:-$BENCH_DIR/results}

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (BPF, network namespaces)" >&2
	exit 1
fi
bash "$BENCH_DIR/deps.sh" || exit 1
for f in "$BUILD_DIR/pathscope" "$BUILD_DIR/bench/micro" "$BUILD_DIR/bench/empty.bpf.o" "$BUILD_DIR/tests/promdump"; do
	[ -e "$f" ] || {
		echo "bench: $f is missing: run 'make bench' (or make the bench targets)" >&2
		exit 1
	}
done

TMP=$(mktemp -d /tmp/psbench-run.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

STAMP=$(date -u +%Y-%m-%dT%H%M%SZ)
START=$SECONDS
STATUS=0
declare -A DUR=()

phase() {
	local name=$1 t0=$SECONDS rc=0
	shift
	echo "bench: $name ..." >&2
	"$@" || rc=$?
	DUR[$name]=$((SECONDS - t0))
	if [ "$rc" -ne 0 ]; then
		echo "bench: $name failed (exit $rc); the report has what was measured" >&2
		STATUS=1
	fi
	echo "bench: $name took ${DUR[$name]} s" >&2
	return 0
}

micro() {
	"$BUILD_DIR/bench/micro" "$BUILD_DIR/bench/empty.bpf.o" --repeat "${PS_BENCH_REPEAT:-1000000}" \
		--runs "${PS_BENCH_MICRO_RUNS:-5}" >"$TMP/micro.json"
}

for p in $PHASES; do
	case $p in
	micro) phase micro micro ;;
	memory) phase memory bash "$BENCH_DIR/memory.sh" "$TMP/memory.json" ;;
	scrape) phase scrape bash "$BENCH_DIR/scrape.sh" "$TMP/scrape.json" ;;
	hostile) phase hostile bash "$BENCH_DIR/serve_hostile.sh" "$TMP/hostile.json" "$TMP/hostile.md" ;;
	live) phase live bash "$BENCH_DIR/live.sh" "$TMP/live.jsonl" ;;
	*)
		echo "bench: unknown phase '$p'" >&2
		exit 2
		;;
	esac
done
[ -s "$TMP/micro.json" ] && ! jq -e . "$TMP/micro.json" >/dev/null 2>&1 && rm -f "$TMP/micro.json"
[ -s "$TMP/memory.json" ] && ! jq -e . "$TMP/memory.json" >/dev/null 2>&1 && rm -f "$TMP/memory.json"
[ -s "$TMP/scrape.json" ] && ! jq -e . "$TMP/scrape.json" >/dev/null 2>&1 && rm -f "$TMP/scrape.json"

commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && commit="$commit (with uncommitted changes)"
durations=$(for k in "${!DUR[@]}"; do echo "$k ${DUR[$k]}"; done |
	jq -R -s -c --argjson total $((SECONDS - START)) \
		'split("\n") | map(select(length > 0) | split(" ") | {(.[0]): (.[1] | tonumber)}) | add + {total: $total}')
jq -n --arg date "$STAMP" --arg commit "$commit" \
	--arg kernel "$(uname -r)" \
	--arg cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
	--argjson vcpus "$(nproc)" \
	--arg possible "$(cat /sys/devices/system/cpu/possible)" \
	--arg os "$(. /etc/os-release && echo "$PRETTY_NAME")" \
	--arg mem "$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)" \
	--arg tools "$(iperf3 --version | head -1 | cut -d' ' -f1-2), $(bpftrace --version), $(tcpdump --version 2>&1 | head -1), $(bpftool version | head -1)" \
	--argjson durations "$durations" \
	--arg phases "$PHASES" \
	--arg params "repeat ${PS_BENCH_REPEAT:-1000000} x ${PS_BENCH_MICRO_RUNS:-5}; live rounds ${PS_BENCH_RUNS:-5}, TCP ${PS_BENCH_TCP_S:-5}+1 s, UDP ${PS_BENCH_UDP_S:-3} s, bpf_stats runs ${PS_BENCH_STATS_S:-2} s; throughput pairs ${PS_BENCH_PAIRS:-20} x ${PS_BENCH_PAIR_S:-3} s; ${PS_BENCH_QUEUES:-4} queues" \
	'{date: $date, commit: $commit, phases: $phases, params: $params, durations: $durations, tools: $tools,
	  machine: {kernel: $kernel, cpu_model: $cpu, vcpus: $vcpus, os: $os, memory: $mem,
	            possible_cpus: ($possible | if test("-") then (split("-")[1] | tonumber) + 1 else 1 end)}}' \
	>"$TMP/meta.json"

mkdir -p "$RESULTS"
python3 "$BENCH_DIR/report.py" --meta "$TMP/meta.json" --micro "$TMP/micro.json" --live "$TMP/live.jsonl" \
	--memory "$TMP/memory.json" --scrape "$TMP/scrape.json" --json "$RESULTS/$STAMP.json" --md "$RESULTS/$STAMP.md" || exit 1
# serve under hostile clients: its own table and figures, after the report's
if [ -s "$TMP/hostile.md" ]; then
	{ echo; cat "$TMP/hostile.md"; } >>"$RESULTS/$STAMP.md"
	cp "$TMP/hostile.json" "$RESULTS/$STAMP-hostile.json"
fi
cp "$RESULTS/$STAMP.md" "$RESULTS/latest.md"
cat "$RESULTS/$STAMP.md"
echo "bench: results in $RESULTS/$STAMP.json, $RESULTS/$STAMP.md (and latest.md); $((SECONDS - START)) s" >&2
exit "$STATUS"
