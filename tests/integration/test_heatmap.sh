#!/usr/bin/env bash
# Heatmaps (pathscope heatmap, stats --heatmap) of a known workload, against
# references pathscope does not compute: the host's tap dA is joined to one
# peer by the delay line at 1000 us each way. A recording (stats --interval 1
# --count 9 --json) has a baseline and 8 intervals; into each interval goes a
# burst of exactly 20 pings, sent once the report that opens the interval is
# out and over before the next one is. Before interval 4 the delay line
# multiplies its delays by 5 (5000 us each way): the RTT steps from ~2.1 ms
# to ~10.1 ms. Then:
#   - the SVG's cells (queue, interval, bucket, count) equal, exactly, the
#     recording's histogram differences as tests/tools/heatmap_cells.py
#     computes them from the JSON, and each interval holds the 20 echoes;
#   - each interval's cells lie where ping (its own clock) and the delay line
#     put them: no bucket above ping's slowest echo of the burst, none wholly
#     below the delay line's round trip; per interval, no more samples at or
#     above any cell's lower edge than ping had echoes that slow (ping's span
#     holds pathscope's, echo by echo: a stall before the step shows in both);
#     the step first shows in interval 4, whole: from it nothing below 9 ms;
#   - --whole draws the interface's totals, the same way;
#   - Debian's headless Chromium renders the SVG to a PNG of the SVG's size
#     in which each cell's centre has its colour and the same row of an
#     interval without a cell the panel's background: the step is where the
#     cells say;
#   - live (--duration, --record), the 20 echoes of a burst sent inside it;
#   - the budget view: the ICMP RTT bar counts the 160 echoes, its p99 from
#     the step's side;
#   - stats --heatmap icmp_rtt: the queue's row counts every echo, within 120
#     columns.
# PS_HEATMAP_KEEP=DIR keeps the SVGs and the PNG there.
# Every other latency family is drawn from a recording around its own test's
# workload (ps_heat_mark, ps_heat_check in lib.sh), each heatmap's cells equal
# to the recording's differences, exactly: ICMP RTT (4000 samples) and
# response (2000) in test_icmp_rtt, driver to stack (40) in test_d2s, socket
# reads in test_sock, qdisc sojourn and TX completion in test_txcompletion,
# the four TCP latencies in test_tcp_delay; live, the demo draws TCP RTT and
# driver to stack in every guest (test_vm_demo).
. "$(dirname "$0")/lib.sh"
ps_require_root heatmap
ps_require_file heatmap "$PATHSCOPE"
ps_require_file heatmap "$DELAYLINE"
ps_require_cmd heatmap ping jq chromium
PY=/usr/bin/python3 # Debian's, with python3-pil
CELLS=$PS_ROOT/tests/tools/heatmap_cells.py
"$PY" -c 'import PIL' 2>/dev/null || { ps_fail heatmap "python3-pil is not installed (make deps)"; ps_done; }

DELAY_US=1000 N=20 IV=1 NI=8 STEP_AT=4
export PS_DELAY_FACTOR=5
ps_delay_testbed_create 1 "$DELAY_US" || { ps_fail heatmap "delay testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach dA >/dev/null 2>&1'
TMP=$(mktemp -d)
ps_at_exit "rm -rf $TMP"
[ -n "${PS_HEATMAP_KEEP:-}" ] && ps_at_exit "cp $TMP/*.svg $TMP/*.png $PS_HEATMAP_KEEP/"
ps_pathscope_a attach dA --features icmp >/dev/null || ps_fail "attach dA" "exit $?"
ps_wait_quiet 5
PEER=$(ps_peer_ip4 1)

lines() {
	local n
	n=$(grep -c . "$1" 2>/dev/null)
	echo "${n:-0}"
}
# Wait until file $1 has $2 lines (at most $3 s).
wait_lines() {
	local _
	for _ in $(seq $(($3 * 10))); do
		[ "$(lines "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# A burst of N pings from the host (on the delay line's CPU); prints how
# many were answered and the slowest RTT in ns; each echo's RTT in ns, one a
# line, goes to file $1 (if given).
burst() {
	ps_in_a taskset -c 0 ping -n -c "$N" -i 0.005 -W 2 "$PEER" |
		sed -n 's/.* time=\([0-9.]*\) ms$/\1/p' |
		awk -v f="${1:-/dev/null}" '{ v = $1 * 1e6; printf "%d\n", v > f; if (v > max) max = v; n++ }
			END { printf "%d %d\n", n, max }'
}

# ---- the recording ------------------------------------------------------------------
REC=$TMP/rec.jsonl
nsenter --net="/var/run/netns/$NS_A" "$PATHSCOPE" stats dA --interval "$IV" --count $((NI + 1)) --json >"$REC" &
rec_pid=$!
ps_at_exit "kill $rec_pid 2>/dev/null"
straddled="" replies=0 stepped=""
declare -a MAX
for ((t = 0; t < NI; t++)); do
	wait_lines "$REC" $((t + 1)) $((IV * 3 + 2)) || { ps_fail "recording" "no report $((t + 1)) within $((IV * 3 + 2)) s"; break; }
	if [ "$t" -eq "$STEP_AT" ]; then
		ps_delay_step && stepped=1
	fi
	read -r n "MAX[t]" < <(burst "$TMP/ping.$t")
	replies=$((replies + n))
	[ "$(lines "$REC")" -eq $((t + 1)) ] || straddled+=" $t"
done
wait "$rec_pid"
ps_check_eq "the delay line stepped before interval $STEP_AT" "$stepped" 1
ps_check_eq "every burst within its interval (none straddled a report)" "$straddled" ""
ps_check_eq "ping: every echo answered ($NI x $N)" "$replies" $((NI * N))
ps_check_eq "the recording: a baseline and $NI intervals" "$(lines "$REC")" $((NI + 1))

# ---- the heatmap against the recording --------------------------------------------------
SVG=$TMP/icmp.svg
"$PATHSCOPE" heatmap icmp_rtt --from "$REC" -o "$SVG" || ps_fail "heatmap --from" "exit $?"
want=$("$PY" "$CELLS" recording "$REC" icmp_rtt)
got=$("$PY" "$CELLS" svg "$SVG")
ps_check_eq "the SVG's cells are the recording's histogram differences, exactly ($(wc -l <<<"$want") cells)" "$got" "$want"
per=$(awk '{ n[$2] += $4 } END { for (t = 0; t < '"$NI"'; t++) printf "%d ", n[t] }' <<<"$got")
ps_check_eq "each interval holds its $N echoes" "$per" "$(printf "$N %.0s" $(seq "$NI"))"
ps_check_eq "they are all on RX queue 0" "$(awk '$1 != "0"' <<<"$got")" ""

# Each cell's bucket [low, high) against ping and the delay line: its low at
# most ping's slowest echo of the burst (pathscope's span lies inside
# ping's), its high above the delay line's round trip (no sample is faster
# than the wire).
bad=
while read -r _ t low _; do
	high=$(grep -o "data-interval=\"$t\" data-t0=\"[^\"]*\" data-t1=\"[^\"]*\" data-low=\"$low\" data-high=\"[0-9]*\"" "$SVG" | sed 's/.*data-high="//; s/"//')
	rt=$((2 * DELAY_US * 1000 * (t >= STEP_AT ? PS_DELAY_FACTOR : 1)))
	[ "$low" -le "${MAX[t]}" ] && [ "$high" -gt "$rt" ] || bad+=" t$t:[$low,$high)>ping${MAX[t]}|<rt$rt"
done <<<"$got"
ps_check_eq "each cell between the delay line's round trip and ping's slowest echo" "$bad" ""
# Echo by echo, ping's span holds pathscope's: in each interval, the samples
# at or above a cell's lower edge are at most ping's echoes as slow.
bad=
while read -r _ t low _; do
	n=$(awk -v t="$t" -v l="$low" '$2 == t && $3 >= l { n += $4 } END { print n + 0 }' <<<"$got")
	p=$(awk -v l="$low" '$1 >= l { n++ } END { print n + 0 }' "$TMP/ping.$t")
	[ "$n" -le "$p" ] || bad+=" t$t:$n>=$low>ping's$p"
done <<<"$got"
ps_check_eq "per interval, no more samples at or above each cell's low than ping's echoes as slow" "$bad" ""
# The step: interval STEP_AT is the first whose samples all lie at 9 ms or
# more (the delay line's 10 ms round trip), and none after it lies below.
first=$(awk '{ n[$2] += $4; if ($3 >= 9000000) s[$2] += $4 } END { for (t = 0; t < '"$NI"'; t++) if (n[t] && s[t] == n[t]) { print t; exit } }' <<<"$got")
ps_check_eq "the step first shows in interval $STEP_AT, whole" "$first" "$STEP_AT"
ps_check_eq "from it nothing below 9 ms" "$(awk -v s="$STEP_AT" '$2 >= s && $3 < 9000000' <<<"$got")" ""
ps_check_eq "the title: interface, stage, hooks, samples" \
	"$(grep -c "dA: ICMP echo RTT (request at tc egress to reply at XDP), per RX queue" "$SVG")$(grep -c "$NI intervals over .*; $((NI * N)) samples" "$SVG")" 11

"$PATHSCOPE" heatmap icmp_rtt --from "$REC" --whole -o "$TMP/whole.svg" || ps_fail "heatmap --whole" "exit $?"
ps_check_eq "--whole: one panel, the totals' differences" \
	"$("$PY" "$CELLS" svg "$TMP/whole.svg")" "$("$PY" "$CELLS" recording "$REC" icmp_rtt --whole)"

# ---- a browser renders it -----------------------------------------------------------------
w=$(grep -o '<svg [^>]*' "$SVG" | sed 's/.* width="\([0-9]*\)".*/\1/')
h=$(grep -o '<svg [^>]*' "$SVG" | sed 's/.* height="\([0-9]*\)".*/\1/')
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--force-device-scale-factor=1 --user-data-dir="$TMP/chromium" --window-size="$w,$h" \
	--screenshot="$TMP/icmp.png" "file://$SVG" >/dev/null 2>&1
got=$("$PY" "$CELLS" png "$SVG" "$TMP/icmp.png" 2>&1)
ps_check_eq "Chromium: a ${w}x$h PNG, each cell's colour at its place, the rest of its rows empty" \
	"${got%% *}" ok

# ---- live ------------------------------------------------------------------------------------
nsenter --net="/var/run/netns/$NS_A" "$PATHSCOPE" heatmap icmp_rtt dA --duration 3 --interval 1 \
	--record "$TMP/live.jsonl" -o "$TMP/live.svg" &
live_pid=$!
wait_lines "$TMP/live.jsonl" 1 5 || ps_fail "live" "no baseline within 5 s"
read -r n _ < <(burst)
wait "$live_pid" || ps_fail "heatmap live" "exit $?"
ps_check_eq "live: the SVG's cells are its own recording's differences" \
	"$("$PY" "$CELLS" svg "$TMP/live.svg")" "$("$PY" "$CELLS" recording "$TMP/live.jsonl" icmp_rtt)"
ps_check_eq "live: they count the $n echoes of the burst" \
	"$("$PY" "$CELLS" svg "$TMP/live.svg" | awk '{ n += $4 } END { print n }')" "$N"
ps_check_eq "live: 3 intervals" "$(lines "$TMP/live.jsonl")" 4

# ---- the budget, the terminal ---------------------------------------------------------------------
"$PATHSCOPE" heatmap budget --from "$REC" -o "$TMP/budget.svg" || ps_fail "heatmap budget" "exit $?"
bar=$(grep -o 'data-queue="0" data-stage="icmp_rtt" data-count="[0-9]*" data-p50="[0-9]*" data-p99="[0-9]*"' "$TMP/budget.svg")
p99=$(sed 's/.*data-p99="\([0-9]*\)"/\1/' <<<"$bar")
ps_check_eq "budget: queue 0's ICMP RTT bar counts the $((NI * N)) echoes, its p99 past the step (>= 9 ms)" \
	"$(sed 's/.*data-count="\([0-9]*\)".*/\1/' <<<"$bar") $([ "${p99:-0}" -ge 9000000 ] && echo yes)" "$((NI * N)) yes"
strip=$(ps_pathscope_a stats dA --heatmap icmp_rtt)
ps_check_eq "stats --heatmap: queue 0's row counts every echo since attach" \
	"$(awk '$1 == "0" { print $2 }' <<<"$strip")" $(((NI + 1) * N))
ps_check_eq "stats --heatmap: within 120 columns" "$(awk 'length > 120' <<<"$strip")" ""
ps_done
