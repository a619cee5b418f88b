#!/usr/bin/env bash
# bench/live.sh OUT.jsonl: the live benchmark (see bench/README.md).
#
# Two namespaces joined by a multi-queue veth (tests/integration/lib.sh's
# testbed under names of our own), sender in A, receiver in B. Configurations
# alternate round by round (ABCDEF ABCDEF ...); in each round and
# configuration:
#   1. iperf3 TCP A -> B, with ping A -> B every 10 ms during it (ping under
#      load), bpf_stats off: throughput, CPU time per packet, RTT;
#   2. iperf3 UDP flood A -> B (64-byte payloads, -b 0), bpf_stats off;
#   3. and 4. the same two, shorter, with kernel.bpf_stats_enabled=1: BPF time
#      per packet of the configuration's programs. (bpf_stats adds two clock
#      reads to every program run, so it stays off for 1 and 2.)
# Every measurement appends one JSON object to OUT.jsonl.
#
# Then the throughput targets' own phase ("pairs"): the empty XDP program (A)
# and pathscope's default (B) in PS_BENCH_PAIRS pairs (default 20), in ABBA
# order (pair 1 A then B, pair 2 B then A, ...), each set up afresh and run
# for iperf3 TCP and the UDP flood of PS_BENCH_PAIR_S seconds (default 3),
# bpf_stats off. Runs of one configuration back to back read 5% apart here
# (sigma, 3 s runs), and so do the rounds' medians: the target is judged on the
# median of the pairs' ratios B/A, which a drift of the host over a pair or the
# order within it does not move.
#
# The receiver side is observed: pathscope and tcpdump on vB in namespace B;
# bpftrace is global (it cannot attach per namespace), so it also sees the
# sender's packets and everything else on the host.
#
# Environment: PS_BENCH_BUILD (build dir, default build), PS_BENCH_RUNS (5),
# PS_BENCH_PAIRS (20), PS_BENCH_PAIR_S (3),
# PS_BENCH_TCP_S (5; iperf3 -t, after a 1 s -O warm-up), PS_BENCH_UDP_S (3),
# PS_BENCH_STATS_S (2; each stats-on run), PS_BENCH_QUEUES (4),
# PS_BENCH_CONFIGS (nothing empty_xdp counters default default_tcp
# default_tcp_xdp default_sock all tcpdump bpftrace bpftrace_tcp: empty_xdp =
# the empty XDP program of bench/empty.bpf.c, the fair throughput baseline on
# veth; default_tcp and default_sock = default plus the opt-in tcp or sock
# feature; default_tcp_xdp = default_tcp matching arrivals at XDP (--tcp-rx xdp); bpftrace_tcp = bpftrace/tcp_srtt.bt,
# tcp:tcp_probe's srtt per flow, its peer; also available: noxdp = pathscope
# default with --no-xdp).
set -u
OUT=${1:?usage: live.sh OUT.jsonl}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/../tests/integration/lib.sh"

BUILD_DIR=${PS_BENCH_BUILD:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$PS_ROOT/$BUILD_DIR ;; esac
PATHSCOPE=$BUILD_DIR/pathscope
RUNS=${PS_BENCH_RUNS:-5}
TCP_S=${PS_BENCH_TCP_S:-5}
UDP_S=${PS_BENCH_UDP_S:-3}
STATS_S=${PS_BENCH_STATS_S:-2}
NQ=${PS_BENCH_QUEUES:-4}
read -r -a CONFIGS <<<"${PS_BENCH_CONFIGS:-nothing empty_xdp counters default default_tcp default_tcp_xdp default_sock all tcpdump bpftrace bpftrace_tcp}"
PAIRS=${PS_BENCH_PAIRS:-20}
PAIR_S=${PS_BENCH_PAIR_S:-3}
PHASE=rounds # or pairs: written into every measurement
HZ=$(getconf CLK_TCK)

TMP=$(mktemp -d /tmp/psbench.XXXXXX)
BG_PIDS=() # every background process we started, ended by PID at exit
STATS_ORIG=$(sysctl -n kernel.bpf_stats_enabled)
ATTACHED=

log() { echo "live: $*" >&2; }

# ---- cleanup ----------------------------------------------------------------

# True while PID is a child of this shell (so not a reused PID of someone else's).
is_ours() {
	[ "$(awk '/^PPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null)" = "$$" ]
}

# End PID (our child) with SIG, then KILL after up to 5 s, and reap it.
stop_pid() {
	local pid=$1 sig=${2:-TERM}
	is_ours "$pid" || return 0
	kill -"$sig" "$pid" 2>/dev/null
	for _ in $(seq 50); do
		[ "$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" = Z ] && break
		is_ours "$pid" || break
		sleep 0.1
	done
	is_ours "$pid" && [ "$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" != Z ] &&
		kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

cleanup() {
	local pid
	for pid in "${BG_PIDS[@]}"; do stop_pid "$pid" INT; done
	[ -n "$ATTACHED" ] && ps_pathscope_b detach vB >/dev/null 2>&1
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_ORIG"
	rm -rf "$TMP"
}

# ---- measurements -------------------------------------------------------------

# Whole-machine CPU jiffies: "busy idle steal" (busy = user nice system irq softirq).
cpu_now() {
	local _ user nice system idle iowait irq softirq steal
	read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
	echo "$((user + nice + system + irq + softirq)) $((idle + iowait)) $steal"
}

# Busy jiffies of each CPU, one line: "b0 b1 ...".
cpu_each_now() {
	awk '/^cpu[0-9]/ { printf "%s%d", (n++ ? " " : ""), $2 + $3 + $4 + $7 + $8 } END { print "" }' /proc/stat
}
# The most busy jiffies any one CPU spent between two cpu_each_now lines.
cpu_busiest() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) if (y[i] - x[i] > m) m = y[i] - x[i]; print m + 0 }'
}

rx_packets() { ps_stat "$NS_B" vB rx_packets; }

# Program ids of the configuration, as a JSON array.
PROG_IDS='[]'

# Every program of our attachment: pinned programs and the programs behind
# pinned links, under the pin directory `status` gives for vB in NS_B.
PIN_DIR=
pathscope_prog_ids() {
	local f ids=()
	PIN_DIR=$(ps_pathscope_b status --json | jq -r '.[] | select(.current_netns and .ifname == "vB") | .pin_dir')
	[ -d "$PIN_DIR" ] || return 1
	for f in "$PIN_DIR"/*; do
		ids+=("$(bpftool -j prog show pinned "$f" 2>/dev/null | jq -r '.id // empty')")
		ids+=("$(bpftool -j link show pinned "$f" 2>/dev/null | jq -r '.prog_id // empty')")
	done
	printf '%s\n' "${ids[@]}" | grep -E '^[0-9]+$' | sort -un | jq -s -c .
}

# Programs held by the given processes (prog_id lines of their fdinfo).
pid_prog_ids() {
	local pid
	for pid in "$@"; do
		grep -h '^prog_id:' /proc/"$pid"/fdinfo/* 2>/dev/null | awk '{ print $2 }'
	done | sort -un | jq -s -c .
}

# Sum of run_time_ns and run_cnt over PROG_IDS: "ns cnt nprogs".
bpf_now() {
	bpftool -j prog show | jq -r --argjson ids "$PROG_IDS" \
		'[.[] | select(.id as $i | $ids | index($i))] |
		 "\(map(.run_time_ns // 0) | add // 0) \(map(.run_cnt // 0) | add // 0) \(length)"'
}

# pathscope's own counts on vB: "xdp_packets tci_packets tci_segments" (null when absent).
ps_counts() {
	ps_pathscope_b stats vB --json 2>/dev/null | jq -r '.interfaces[0].totals |
		"\(.xdp.total.packets // "null") \(.tc_ingress.total.packets // "null") \(.tc_ingress.total.gro.segments // "null")"'
}

wait_tcp_port() {
	for _ in $(seq 50); do
		[ -n "$(ip netns exec "$NS_B" ss -Hntl "sport = :$1")" ] && return 0
		sleep 0.1
	done
	return 1
}

# One measured run: run_one ROUND CONFIG WORKLOAD(tcp|udp) STATS(0|1) SECONDS
run_one() {
	local round=$1 cfg=$2 wl=$3 stats=$4 secs=$5
	local port srv rc=0 ping_pid='' c0 c1 p0 p1 b0 b1 s0='' s1='' t0 t1 ping_js=null ps_js=null res
	local ping_n c0b c0i c0s c1b c1i c1s b0n b0c b1n b1c nprogs e0 e1

	[ "$wl" = tcp ] && port=5201 || port=5202
	ip netns exec "$NS_B" timeout -k 2 $((secs + 20)) iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	srv=$!
	BG_PIDS+=("$srv")
	wait_tcp_port "$port" || { # iperf3's control connection is TCP for both
		log "iperf3 server did not start"
		return 1
	}
	sysctl -q -w kernel.bpf_stats_enabled="$stats"
	sleep 0.2
	[ "$stats" = 0 ] && [ "$wl" = tcp ] && case $cfg in counters | default | default_tcp | default_tcp_xdp | default_sock | all | noxdp) s0=$(ps_counts) ;; esac
	b0=$(bpf_now)
	p0=$(rx_packets)
	e0=$(cpu_each_now)
	c0=$(cpu_now)
	t0=$(date +%s.%N)
	if [ "$wl" = tcp ]; then
		if [ "$stats" = 0 ]; then
			# Ping under load: 100 echoes/s from 1.2 s (after the warm-up) on.
			ping_n=$(((secs - 1) * 100))
			(sleep 1.2 && exec ip netns exec "$NS_A" ping -n -i 0.01 -c "$ping_n" -w $((secs + 3)) "$PS_IP4_B") \
				>"$TMP/ping.txt" 2>&1 &
			ping_pid=$!
			BG_PIDS+=("$ping_pid")
		fi
		ip netns exec "$NS_A" timeout -k 2 $((secs + 20)) \
			iperf3 -c "$PS_IP4_B" -p "$port" -t "$secs" -O 1 -J >"$TMP/iperf.json" 2>/dev/null || rc=$?
	else
		ip netns exec "$NS_A" timeout -k 2 $((secs + 20)) \
			iperf3 -c "$PS_IP4_B" -p "$port" -u -l 64 -b 0 -t "$secs" -J >"$TMP/iperf.json" 2>/dev/null || rc=$?
	fi
	t1=$(date +%s.%N)
	c1=$(cpu_now)
	e1=$(cpu_each_now)
	p1=$(rx_packets)
	b1=$(bpf_now)
	[ -n "${s0:-}" ] && s1=$(ps_counts)
	if [ -n "$ping_pid" ]; then
		for _ in $(seq 50); do
			[ "$(awk '/^State:/ { print $2 }' "/proc/$ping_pid/status" 2>/dev/null)" = Z ] && break
			is_ours "$ping_pid" || break
			sleep 0.1
		done
		stop_pid "$ping_pid" INT
		ping_js=$(awk -F'time=' '/time=/ { split($2, a, " "); print a[1] }' "$TMP/ping.txt" | sort -g |
			jq -s -c --argjson sent "$ping_n" 'if length == 0 then null else
				{sent: $sent, received: length, p50_ms: .[(length * 0.5 | floor)],
				 p99_ms: .[(length * 0.99 | floor)], max_ms: .[-1]} end')
	fi
	stop_pid "$srv" TERM
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_ORIG"
	if [ -n "${s0:-}" ]; then
		ps_js=$(jq -n -c --arg a "$s0" --arg b "$s1" '($a | split(" ")) as $x | ($b | split(" ")) as $y |
			{xdp_packets: (($y[0] | tonumber? // null) as $v | if $v == null then null else $v - ($x[0] | tonumber) end),
			 tci_packets: (($y[1] | tonumber? // null) as $v | if $v == null then null else $v - ($x[1] | tonumber) end),
			 tci_segments: (($y[2] | tonumber? // null) as $v | if $v == null then null else $v - ($x[2] | tonumber) end)}')
	fi
	if ! config_alive "$cfg"; then
		# Not ours to prevent: another test's `pathscope detach --all`, a
		# peer tool that died. The run is recorded as failed; the caller
		# sets the configuration up again.
		log "round $round $cfg $wl stats=$stats: the configuration was gone after the run"
		res='{"error": "configuration gone during the run"}'
	elif [ "$rc" -ne 0 ] || ! jq -e .end "$TMP/iperf.json" >/dev/null 2>&1; then
		log "round $round $cfg $wl stats=$stats: iperf3 failed (exit $rc)"
		res='{"error": "iperf3 failed"}'
	elif [ "$wl" = tcp ]; then
		res=$(jq -c '{throughput_bps: .end.sum_received.bits_per_second, retransmits: .end.sum_sent.retransmits}' "$TMP/iperf.json")
	else
		res=$(jq -c '.end.sum_received as $r | {pps_received: (($r.packets - $r.lost_packets) / $r.seconds),
			pps_sent: (.end.sum_sent.packets / .end.sum_sent.seconds), lost_percent: $r.lost_percent}' "$TMP/iperf.json")
	fi
	read -r c0b c0i c0s <<<"$c0"
	read -r c1b c1i c1s <<<"$c1"
	read -r b0n b0c nprogs <<<"$b0"
	read -r b1n b1c _ <<<"$b1"
	jq -n -c --argjson round "$round" --arg config "$cfg" --arg workload "$wl" --argjson bpf_stats "$stats" \
		--argjson seconds "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
		--argjson packets $((p1 - p0)) --argjson hz "$HZ" \
		--argjson busy $((c1b - c0b)) --argjson idle $((c1i - c0i)) --argjson steal $((c1s - c0s)) \
		--argjson busiest "$(cpu_busiest "$e0" "$e1")" \
		--argjson progs "$PROG_IDS" --argjson nprogs "${nprogs:-0}" \
		--argjson run_ns $((b1n - b0n)) --argjson run_cnt $((b1c - b0c)) \
		--argjson res "$res" --argjson ping "$ping_js" --argjson pathscope "$ps_js" \
		--arg phase "$PHASE" \
		'{phase: $phase, round: $round, config: $config, workload: $workload, bpf_stats: $bpf_stats, seconds: $seconds,
		  packets: $packets, cpu: {hz: $hz, busy: $busy, idle: $idle, steal: $steal, busiest_cpu_busy: $busiest},
		  bpf: {prog_ids: $progs, nprogs: $nprogs, run_time_ns: $run_ns, run_cnt: $run_cnt},
		  ping: $ping, pathscope: $pathscope} + $res' >>"$OUT"
}

# ---- configurations -----------------------------------------------------------

# Wait (at most SECS) until FILE contains TEXT.
wait_text() {
	local file=$1 text=$2 secs=$3
	for _ in $(seq $((secs * 10))); do
		grep -q "$text" "$file" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

CFG_PIDS=()
config_up() {
	CFG_PIDS=()
	PROG_IDS='[]'
	case $1 in
	nothing) ;;
	counters | default | default_tcp | default_tcp_xdp | default_sock | all)
		local feat=$1
		[ "$feat" = counters ] && feat=none
		local more=()
		[ "$feat" = default_tcp ] && feat=default,tcp
		[ "$feat" = default_tcp_xdp ] && feat=default,tcp more=(--tcp-rx xdp)
		[ "$feat" = default_sock ] && feat=default,sock
		ps_pathscope_b attach vB --features "$feat" "${more[@]}" >/dev/null || return 1
		ATTACHED=1
		pathscope_prog_ids >"$TMP/prog_ids" || return 1
		PROG_IDS=$(cat "$TMP/prog_ids")
		;;
	noxdp)
		ps_pathscope_b attach vB --no-xdp >/dev/null || return 1
		ATTACHED=1
		pathscope_prog_ids >"$TMP/prog_ids" || return 1
		PROG_IDS=$(cat "$TMP/prog_ids")
		;;
	empty_xdp)
		ip -n "$NS_B" link set dev vB xdpdrv obj "$BUILD_DIR/bench/empty.bpf.o" sec xdp || return 1
		PROG_IDS=$(ip -n "$NS_B" -j link show dev vB | jq -c '[.[0].xdp.prog.id // empty]')
		;;
	tcpdump)
		ip netns exec "$NS_B" tcpdump -i vB -n -w /dev/null 2>"$TMP/tcpdump.err" &
		CFG_PIDS+=($!)
		BG_PIDS+=($!)
		wait_text "$TMP/tcpdump.err" "listening on" 10 || return 1
		;;
	bpftrace)
		bpftrace "$BENCH_DIR/bpftrace/netsize.bt" >"$TMP/netsize.out" 2>&1 &
		CFG_PIDS+=($!)
		BG_PIDS+=($!)
		bpftrace "$BENCH_DIR/bpftrace/nettxlat.bt" >"$TMP/nettxlat.out" 2>&1 &
		CFG_PIDS+=($!)
		BG_PIDS+=($!)
		wait_text "$TMP/netsize.out" "^Tracing" 60 && wait_text "$TMP/nettxlat.out" "^Tracing" 60 || return 1
		PROG_IDS=$(pid_prog_ids "${CFG_PIDS[@]}")
		;;
	bpftrace_tcp)
		bpftrace "$BENCH_DIR/bpftrace/tcp_srtt.bt" >"$TMP/tcp_srtt.out" 2>&1 &
		CFG_PIDS+=($!)
		BG_PIDS+=($!)
		wait_text "$TMP/tcp_srtt.out" "^Tracing" 60 || return 1
		PROG_IDS=$(pid_prog_ids "${CFG_PIDS[@]}")
		;;
	esac
	return 0
}

# Is the configuration still in place: our attachment with the same programs,
# our peer processes still running?
config_alive() {
	local pid
	case $1 in
	counters | default | default_tcp | default_tcp_xdp | default_sock | all | noxdp)
		# Every program still loaded (a detach frees them) and still attached
		# by our pins.
		[ -d "$PIN_DIR" ] && bpftool -j prog show | jq -e --argjson ids "$PROG_IDS" \
			'[.[].id] as $live | $ids | length > 0 and all(. as $i | $live | index($i))' >/dev/null || return 1
		;;
	esac
	for pid in "${CFG_PIDS[@]}"; do
		is_ours "$pid" && [ "$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" != Z ] || return 1
	done
	return 0
}

config_down() {
	local pid
	case $1 in
	counters | default | default_tcp | default_tcp_xdp | default_sock | all | noxdp)
		ps_pathscope_b detach vB >/dev/null 2>&1
		ATTACHED=
		;;
	empty_xdp) ip -n "$NS_B" link set dev vB xdpdrv off ;;
	esac
	for pid in "${CFG_PIDS[@]}"; do stop_pid "$pid" INT; done
	CFG_PIDS=()
}

# ---- main ----------------------------------------------------------------------

for c in iperf3 ping jq bpftool tcpdump bpftrace ethtool; do
	command -v "$c" >/dev/null || {
		echo "live: $c is missing (bench/deps.sh)" >&2
		exit 1
	}
done
[ -x "$PATHSCOPE" ] || {
	echo "live: $PATHSCOPE not built" >&2
	exit 1
}

ps_at_exit cleanup
ps_testbed_create "$NQ" "psbenchA-$$" "psbenchB-$$" || exit 1
# The wire of a real NIC carries MTU-sized frames whatever the receiver does;
# on veth an XDP program on vB turns TSO off on vA, so turn it off for every
# configuration, else "nothing attached" would send 64 KB skbs and the others
# 1500-byte frames. GRO on vB merges them again (testbed: GRO on).
ip netns exec "$NS_A" ethtool -K vA tso off >/dev/null || exit 1

for round in $(seq "$RUNS"); do
	for cfg in "${CONFIGS[@]}"; do
		log "round $round/$RUNS: $cfg"
		if ! config_up "$cfg"; then
			log "cannot set up $cfg"
			config_down "$cfg"
			exit 1
		fi
		for spec in "tcp 0 $TCP_S" "udp 0 $UDP_S" "tcp 1 $STATS_S" "udp 1 $STATS_S"; do
			if ! config_alive "$cfg"; then
				log "$cfg is gone (someone else's detach?): setting it up again"
				config_down "$cfg"
				config_up "$cfg" || exit 1
			fi
			# shellcheck disable=SC2086 # spec is three words
			run_one "$round" "$cfg" $spec
		done
		config_down "$cfg"
	done
done

# The pairs (see the top): A = empty_xdp, B = default, in ABBA order.
PHASE=pairs
for pair in $(seq "$PAIRS"); do
	order=(empty_xdp default)
	[ $((pair % 2)) = 0 ] && order=(default empty_xdp)
	for cfg in "${order[@]}"; do
		log "pair $pair/$PAIRS: $cfg"
		if ! config_up "$cfg"; then
			log "cannot set up $cfg"
			config_down "$cfg"
			exit 1
		fi
		run_one "$pair" "$cfg" tcp 0 "$PAIR_S"
		run_one "$pair" "$cfg" udp 0 "$PAIR_S"
		config_down "$cfg"
	done
done
exit 0
