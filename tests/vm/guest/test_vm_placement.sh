#!/usr/bin/env bash
# Where each RX queue runs and what starts its polls, on a NIC with an IRQ
# per RX queue: virtio-net with 4 queues in a qemu guest of the kernel
# matrix (2 vCPUs; PS_VM=1; the host end is run.sh's tap, which answers
# ping and runs iperf3 -s). Every CPU sends on TX queue 1 (XPS), so the
# host's tap sends the replies of the guest's pings back on RX queue 1.
#   1. placement follows an IRQ move: 100 replies while CPU 1 serves queue
#      1's IRQ are 100 frames of queue 1 on CPU 1 (stats --json, the
#      queue's cpus), and /proc/interrupts counts its IRQs on CPU 1 alone,
#      as many as pathscope. Moved (smp_affinity_list) to CPU 0, the next
#      IRQ still runs on CPU 1 with its frame (x86 moves an MSI at its next
#      interrupt), then 100 more are on CPU 0, IRQs and frames. The
#      placement verdict names the move with its figures (off_affinity,
#      spread; shared_cpu of 4 queues on 2 CPUs before and after); moved
#      back, a new window has neither. RPS on the queue is named against
#      the CPU that serves its IRQ (veth has no IRQ: test_placement checks
#      the other branch); the guest NIC has no NUMA node: no remote_numa;
#   2. threaded NAPI (5.12+) starved by a SCHED_FIFO busy loop on its
#      threads' CPU (3 s, RT throttling left as it is, killed by PID on
#      exit): the polls still come from the threads, none started by an
#      IRQ or a softirq, as many as ftrace's napi_poll events, their work
#      the 100 frames, on the threads' CPU, off the IRQ's (off_affinity);
#      the IRQs are /proc/interrupts'; fewer polls than frames. pathscope
#      times no softirq stage in a NAPI thread (no softirq wait, no place);
#      its thread wait (IRQ -> the thread's poll) is timed, and the verdict
#      names thread_starved with exactly the figures of the JSON counters of
#      the window (at least 10 timed waits, their mean over 2 ms: 11-85
#      polls, 10-225 ms on average under TCG);
#   3. a flood (iperf3 -u -R at an unlimited rate, 2 s) pushes NET_RX to
#      ksoftirqd: the polls by what started them (ksoftirqd, timer, the
#      rest) and the timed softirq waits (their count exactly, their mean
#      within 25% + 5 us) are ftrace's (tests/tools/ftrace_firsthop.py);
#      sparse pings after it: the same, and few by ksoftirqd (not none
#      under TCG: 0-4 of 40). Each in a window of its own (attached again):
#      the verdict of queue 1 names ksoftirqd exactly when its counters pass
#      the thresholds (over 25% of at least 100 softirq polls), with their
#      figures; the flood does under TCG, the sparse pings do not (40 polls).
#      The 100-ping windows of 1. have their whole verdict checked: under
#      the threshold (0-4 of ~100 polls by ksoftirqd), no ksoftirqd.
. "$(dirname "$0")/../../integration/lib.sh"
N=vm_placement
[ "${PS_VM:-}" = 1 ] || { ps_unsupported "$N" "runs in a guest of tests/vm/run.sh only"; ps_done; }
ps_require_root "$N"
ps_require_cmd "$N" iperf3 ping jq python3 taskset chrt
[ "$(nproc)" = 2 ] || { ps_skip "$N" "written for the guests' 2 CPUs, not $(nproc)"; ps_done; }
DEV=$PS_VM_DEV HOST=$PS_VM_HOST4 SYS=/sys/class/net/$PS_VM_DEV
T=/sys/kernel/tracing
inst=$T/instances/pathscope_vm_pl
PS_LINK_DEVS=("$DEV")
quiet() { ps_wait_quiet 10; } # nothing received or sent for 0.5 s

nicj=$("$PATHSCOPE" nic "$DEV" --json)
mapfile -t IRQ < <(jq -r '.placement.rx[].irq' <<<"$nicj")
ps_check_eq "each of the 4 RX queues has an IRQ of its own" "${#IRQ[@]} $(printf '%s\n' "${IRQ[@]}" | grep -c '^[0-9][0-9]*$')" "4 4"
[ "${#IRQ[@]}" = 4 ] || ps_done

napi_threads() { ps -eo pid=,comm= | awk -v p="napi/$DEV-" 'index($2, p) == 1 { print $1 }'; }
# What the test changes, put back on exit (and the hog and the NAPI
# threads' CPUs with them).
HOG=
saved=()
for i in "${IRQ[@]}"; do saved+=("echo $(cat "/proc/irq/$i/smp_affinity_list") >/proc/irq/$i/smp_affinity_list"); done
for q in 0 1 2 3; do
	saved+=("echo $(cat "$SYS/queues/tx-$q/xps_cpus") >$SYS/queues/tx-$q/xps_cpus")
	saved+=("echo $(cat "$SYS/queues/rx-$q/rps_cpus") >$SYS/queues/rx-$q/rps_cpus")
done
[ -e "$SYS/threaded" ] && saved+=("echo $(cat "$SYS/threaded") >$SYS/threaded")
restore() {
	local s
	[ -n "$HOG" ] && kill -KILL "$HOG" 2>/dev/null && wait "$HOG" 2>/dev/null
	for s in "${saved[@]}"; do eval "$s" 2>/dev/null; done
	for s in $(napi_threads); do taskset -pc 0-1 "$s" >/dev/null 2>&1; done
}
ps_at_exit "\"$PATHSCOPE\" detach $DEV >/dev/null 2>&1; rmdir $inst 2>/dev/null; restore"

# The CPU that serves IRQ now, as the kernel says it.
eff() { cat "/proc/irq/$1/effective_affinity_list" 2>/dev/null || cat "/proc/irq/$1/smp_affinity_list"; }
# The kernel's count of IRQ per CPU: "cpu0 cpu1".
proc_irq() { awk -v i="$1:" '$1 == i { print $2, $3 }' /proc/interrupts; }
sub() { paste -d' ' <(tr ' ' '\n' <<<"$1") <(tr ' ' '\n' <<<"$2") | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 - $2 }'; }
js() { "$PATHSCOPE" stats "$DEV" --json; }
# JSON1 JSON0: each RX queue's frames by CPU between the two, [{CPU: N}, ...].
cpus_delta() {
	jq -c -n --argjson a "$1" --argjson b "$2" '
		def c(r; q): (r.interfaces[0].queues[] | select(.queue == q) | .cpus) // {};
		[range(4) as $q | c($a; $q) as $x | c($b; $q) as $y
		 | $x | with_entries(.value -= ($y[.key] // 0)) | with_entries(select(.value != 0))]'
}
# JSON: the verdict of each queue, [[queue, frames, {cause: why}], ...].
verdict() {
	jq -c '[.interfaces[0].placement_verdicts.queues[] | [.queue, .frames, (.causes | map_values(.why))]]' <<<"$1"
}
# JSON1 JSON0: the firsthop counters summed over the queues, between the
# two: "irq ksoftirqd timer other thread busy_poll waited sampled" (polls
# by what started them, timed waits, placed frames), then queue 1's IRQs.
fh_delta() {
	jq -rn --argjson a "$1" --argjson b "$2" '
		def s(r): [r.interfaces[0].queues[] | select(.queue != "other") | .firsthop
			| [.polls.irq, .polls.ksoftirqd, .polls.timer, .polls.other, .polls.thread,
			   .polls.busy_poll, .waited, .sampled]] | transpose | map(add);
		def irq1(r): r.interfaces[0].queues[] | select(.queue == 1) | .firsthop.irqs;
		[s($a), s($b)] | transpose | map(.[0] - .[1]) + [irq1($a) - irq1($b)] | map(tostring) | join(" ")'
}
pings() { # COUNT GAP: from CPU 0, all answered
	local got
	got=$(taskset -c 0 ping -q -c "$1" -i "$2" -W 5 "$HOST" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	[ "$got" = "$1" ] || ps_fail "ping -c $1 -i $2 $HOST" "${got:-no} replies"
}

# ---- 1. placement follows an IRQ move -------------------------------------------
Q=1 IQ=${IRQ[1]}
# Every CPU sends on TX queue Q; the tap sends each flow's frames back on
# the queue the flow came from.
xps_only() { local q; for q in 0 1 2 3; do echo $((q == $1 ? 3 : 0)) >"$SYS/queues/tx-$q/xps_cpus"; done; }
# Queue q's IRQ on CPU q % 2 (virtio_net's own choice for 4 queues on 2
# CPUs, mostly): a queue whose IRQ must move gets pings, one at a time until
# it has moved (at its next IRQ; a reply now and then comes back on another
# queue), at most 50.
for q in 0 1 2 3; do
	echo $((q % 2)) >"/proc/irq/${IRQ[q]}/smp_affinity_list"
	xps_only "$q"
	for ((i = 0; i < 50; i++)); do
		[ "$(eff "${IRQ[q]}")" = $((q % 2)) ] && break
		pings 1 0.2
	done
done
xps_only "$Q"
ps_check_eq "the IRQs of queues 0-3 are served by CPUs 0 1 0 1" "$(for i in "${IRQ[@]}"; do eff "$i"; done | paste -sd' ')" "0 1 0 1"
"$PATHSCOPE" attach "$DEV" --features firsthop --softirq-sample 1 ||
	ps_fail "attach $DEV --features firsthop --softirq-sample 1" "exit $?"
echo "# NUMA node $(jq -c '[.placement.numa_node, .placement.numa_node_cpus]' <<<"$nicj"), IRQs ${IRQ[*]}, rt runtime $(cat /proc/sys/kernel/sched_rt_runtime_us)/$(cat /proc/sys/kernel/sched_rt_period_us) us; t=$SECONDS"
# NAME CPU COUNT: COUNT replies on queue 1 while CPU serves its IRQ: their
# frames all on CPU, its IRQs too, as many as pathscope counted.
ping_window() {
	local name=$1 cpu=$2 j0 j1 k0 k1 dk
	quiet
	j0=$(js) k0=$(proc_irq "$IQ")
	pings "$3" 0.01 # each reply passed XDP before ping saw it
	j1=$(js) k1=$(proc_irq "$IQ")
	dk=$(sub "$k1" "$k0")
	ps_check_eq "$name: the replies to $3 pings are queue 1's frames on CPU $cpu, no other queue's" "$(cpus_delta "$j1" "$j0")" "[{},{\"$cpu\":$3},{},{}]"
	ps_check_eq "$name: /proc/interrupts counts IRQ $IQ on CPU $cpu alone ($dk), as many as pathscope" \
		"$(awk -v c="$cpu" '{ print ($(c + 1) > 0 && $(c + 1) == $1 + $2) ? "yes" : "no" }' <<<"$dk") $((${dk% *} + ${dk#* }))" \
		"yes $(fh_delta "$j1" "$j0" | cut -d' ' -f9)"
	LAST=$j1
}
# NAME FROM TO: queue 1's IRQ from CPU FROM to CPU TO. x86 moves an MSI
# only at its next interrupt, which still runs on FROM: one ping, its IRQ
# and its frame on FROM, and the kernel says TO after it.
irq_move() {
	local name=$1 i
	echo "$3" >"/proc/irq/$IQ/smp_affinity_list" || ps_fail "$name" "cannot write smp_affinity_list"
	echo "# $name: effective affinity $(eff "$IQ") after writing $3 to smp_affinity_list"
	ping_window "$name: the IRQ after the write" "$2" 1
	for ((i = 0; i < 50; i++)); do
		[ "$(eff "$IQ")" = "$3" ] && break
		sleep 0.1
	done
	ps_check_eq "$name: CPU $3 serves IRQ $IQ after it" "$(eff "$IQ")" "$3"
}
ping_window "before the move" 1 100
s0="CPU 0 alone serves the IRQs of queues 0 (IRQ ${IRQ[0]}: 0 frames), 2 (IRQ ${IRQ[2]}: 0 frames); 4 queues, 2 CPUs"
s1="CPU 1 alone serves the IRQs of queues 1 (IRQ ${IRQ[1]}: 100 frames), 3 (IRQ ${IRQ[3]}: 0 frames); 4 queues, 2 CPUs"
before=$(jq -nc --arg s0 "$s0" --arg s1 "$s1" '[[0,0,{shared_cpu:$s0}],[1,100,{shared_cpu:$s1}],[2,0,{shared_cpu:$s0}],[3,0,{shared_cpu:$s1}]]')
ps_check_eq "before the move: the verdict says only that 4 queues share 2 CPUs" "$(verdict "$LAST")" "$before"

irq_move "move to CPU 0" 1 0
ping_window "after the move to CPU 0" 0 100
s0="CPU 0 alone serves the IRQs of queues 0 (IRQ ${IRQ[0]}: 0 frames), 1 (IRQ ${IRQ[1]}: 201 frames), 2 (IRQ ${IRQ[2]}: 0 frames); 4 queues, 2 CPUs"
after=$(jq -nc --arg s0 "$s0" --arg off "101 of its 201 frames (50.2%) on CPU 1, outside its IRQ $IQ's affinity 0" \
	--arg sp "no CPU has over 90% of its 201 frames: CPU 1 50.2%, CPU 0 49.8%" \
	'[[0,0,{shared_cpu:$s0}],[1,201,{shared_cpu:$s0,off_affinity:$off,spread:$sp}],[2,0,{shared_cpu:$s0}],[3,0,{}]]')
ps_check_eq "after the move: the verdict names it (off_affinity, spread) with its figures" "$(verdict "$LAST")" "$after"
"$PATHSCOPE" stats "$DEV" | sed -n '/^PLACEMENT VERDICT/,/^(no placement/p' | sed 's/^/# /'

# RPS on queue 1, served by CPU 0 now: named when it sends beyond CPU 0.
echo 3 >"$SYS/queues/rx-1/rps_cpus"
ps_check_eq "RPS on queue 1 (CPUs 0-1) named against the CPU of its IRQ" \
	"$(js | jq -r '.interfaces[0].placement_verdicts.queues[1].causes.rps.why')" \
	"RPS sends its skbs to CPUs 0-1 (rps_cpus), not only CPU 0 that serves its IRQ $IQ"
echo 1 >"$SYS/queues/rx-1/rps_cpus"
ps_check_eq "RPS on queue 1 to CPU 0 alone, the CPU of its IRQ: not named" \
	"$(js | jq -c '.interfaces[0].placement_verdicts.queues[1].causes.rps')" null
echo 0 >"$SYS/queues/rx-1/rps_cpus"

# Undone: the IRQ back on CPU 1, a new window (attached again).
irq_move "move back to CPU 1" 0 1
"$PATHSCOPE" detach "$DEV" || ps_fail "detach" "exit $?"
"$PATHSCOPE" attach "$DEV" --features firsthop --softirq-sample 1 || ps_fail "attach again" "exit $?"
ping_window "moved back" 1 100
ps_check_eq "moved back, a new window: the verdict as before the move" "$(verdict "$LAST")" "$before"
echo "# t=$SECONDS s"

# ---- 2. threaded NAPI starved by a SCHED_FIFO task --------------------------------
# The NAPI threads on CPU 1, queue 1's IRQ on CPU 0, the test itself on CPU 0.
# NAME HOG_SECONDS: 100 pings 20 ms apart from CPU 0; with HOG_SECONDS > 0,
# under a SCHED_FIFO busy loop on CPU 1 for that long. Without the loop
# (measured 2026-11-28 on 6.1 and 6.12): 100 polls of one frame each, 100
# IRQs, ftrace's IRQ -> poll end 0.3-1 ms, ping's mean RTT 1-2 ms.
thr_window() {
	local name=$1 secs=$2 j0 j1 k0 k1 dk ft i rtt fh
	quiet
	mkdir "$inst" || { ps_fail "$name: an ftrace instance" "mkdir $inst"; return 1; }
	echo 0 >"$inst/tracing_on" # a new instance traces at once: from j0 on only
	echo mono >"$inst/trace_clock"
	echo 4096 >"$inst/buffer_size_kb"
	echo "dev_name == \"$DEV\" && work > 0" >"$inst/events/napi/napi_poll/filter"
	echo "irq == $IQ" >"$inst/events/irq/irq_handler_entry/filter"
	echo 1 >"$inst/events/napi/napi_poll/enable"
	echo 1 >"$inst/events/irq/irq_handler_entry/enable"
	j0=$(js) k0=$(proc_irq "$IQ")
	echo 1 >"$inst/tracing_on"
	if [ "$secs" -gt 0 ]; then
		# shellcheck disable=SC2016 # expanded by the hog's bash
		taskset -c 1 chrt -f 50 bash -c 'e=$((SECONDS + $0)); while [ $SECONDS -lt $e ]; do :; done' "$secs" &
		HOG=$!
		for ((i = 0; i < 50; i++)); do
			[ "$(awk '{ print $39, $41 }' "/proc/$HOG/stat" 2>/dev/null)" = "1 1" ] && break
			sleep 0.1
		done
		[ "$i" -lt 50 ] || ps_fail "$name: the hog" "not SCHED_FIFO on CPU 1"
	fi
	rtt=$(taskset -c 0 ping -q -c 100 -i 0.02 -W 10 "$HOST" | sed -n 's/^rtt.* = //p')
	if [ -n "$HOG" ]; then
		wait "$HOG"
		HOG=
	fi
	quiet
	echo 0 >"$inst/tracing_on"
	j1=$(js) k1=$(proc_irq "$IQ")
	dk=$(sub "$k1" "$k0")
	# polls, by a NAPI thread, frames (their work), the most in one, IRQs, mean IRQ -> poll end (us)
	ft=$(awk '{ for (f = 1; f <= NF; f++) if ($f ~ /^[0-9]+\.[0-9]+:$/) ts = $f + 0 }
		/ irq_handler_entry:/ { irqs++; if (!pend) { pend = 1; t0 = ts } }
		/ napi_poll:/ { n++; if ($1 ~ /^napi\//) thr++; match($0, /work [0-9]+/); w = substr($0, RSTART + 5, RLENGTH - 5) + 0
			work += w; if (w > max) max = w; if (pend) { lat += ts - t0; nl++; pend = 0 } }
		END { printf "%d %d %d %d %d %.0f\n", n, thr, work, max, irqs, nl ? 1e6 * lat / nl : 0 }' "$inst/trace")
	rmdir "$inst"
	read -r tpolls tthr twork tmax tirqs tlat <<<"$ft"
	fh=$(fh_delta "$j1" "$j0")
	echo "# $name: ping rtt min/avg/max/mdev $rtt; ftrace: $tpolls polls ($tthr by a NAPI thread), $twork frames, at most $tmax in one, $tirqs IRQs of queue 1, IRQ -> poll end $tlat us on average; pathscope polls irq ksoftirqd timer other thread busy_poll, waited, sampled, IRQs: $fh; IRQs per CPU $dk"
	ps_check_eq "$name: the 100 replies are queue 1's frames on CPU 1, where its NAPI thread runs" "$(cpus_delta "$j1" "$j0")" '[{},{"1":100},{},{}]'
	ps_check_eq "$name: every poll in a NAPI thread, none started by an IRQ or a softirq, as many as ftrace's ($tpolls)" \
		"$(cut -d' ' -f1-6 <<<"$fh")" "0 0 0 0 $tpolls 0"
	ps_check_eq "$name: ftrace's polls ran in NAPI threads, their work the 100 frames" "$tthr $twork" "$tpolls 100"
	ps_check_eq "$name: queue 1's IRQs = /proc/interrupts' ($dk), all on CPU 0" \
		"$(cut -d' ' -f9 <<<"$fh") ${dk#* }" "${dk% *} 0"
	# pathscope times the softirq wait and the place in the poll inside
	# NET_RX runs only: a NAPI thread's polls have neither.
	ps_check_eq "$name: no softirq wait or place sample" "$(cut -d' ' -f7-8 <<<"$fh")" "0 0"
	THR_POLLS=$tpolls
	LAST=$j1
}
if [ ! -e "$SYS/threaded" ]; then
	ps_unsupported "threaded NAPI starved" "no $SYS/threaded before Linux 5.12 ($(uname -r))"
else
	irq_move "queue 1's IRQ to CPU 0, away from the NAPI threads" 1 0
	echo 1 >"$SYS/threaded" || ps_fail "threaded NAPI" "cannot set $SYS/threaded"
	taskset -pc 0 $$ >/dev/null
	for p in $(napi_threads); do taskset -pc 1 "$p" >/dev/null || ps_fail "NAPI thread $p to CPU 1" "taskset"; done
	echo "# NAPI threads of $DEV pinned to CPU 1: $(napi_threads | while read -r p; do cat "/proc/$p/comm"; done | paste -sd' ')"
	thr_window "threaded, CPU 1 held by a SCHED_FIFO loop" 3
	ps_check_eq "threaded, CPU 1 held: the threads polled less often, several frames a poll ($THR_POLLS polls for 100 frames)" \
		"$((THR_POLLS < 100))" 1
	# The window since the attach again: 100 + 1 on CPU 1 with the IRQ
	# there, then 100 in the thread on CPU 1 with the IRQ on CPU 0.
	s0="CPU 0 alone serves the IRQs of queues 0 (IRQ ${IRQ[0]}: 0 frames), 1 (IRQ ${IRQ[1]}: 201 frames), 2 (IRQ ${IRQ[2]}: 0 frames); 4 queues, 2 CPUs"
	th=$(ps_verdict_want "$LAST" 1 thread_starved)
	ps_check_eq "threaded, CPU 1 held: queue 1's thread waits pass thresholds of thread_starved (10 timed, mean over 2 ms)" \
		"$(if [ -n "$th" ]; then echo yes; else jq -c '.interfaces[0].queues[] | select(.queue == 1) | .firsthop | [.thread_waited, .thread_wait_avg_ns]' <<<"$LAST"; fi)" yes
	ps_check_eq "threaded: the verdict of queue 1: polled on CPU 1, off its IRQ's CPU 0, its thread starved (the figures of its counters)" \
		"$(verdict "$LAST" | jq -c '.[1]')" \
		"$(jq -nc --arg s0 "$s0" --arg off "201 of its 201 frames (100.0%) on CPU 1, outside its IRQ $IQ's affinity 0" --arg th "$th" \
			'[1,201,{shared_cpu:$s0,off_affinity:$off} + (if $th == "" then {} else {thread_starved:$th} end)]')"
	"$PATHSCOPE" stats "$DEV" | sed -n '/^PLACEMENT VERDICT/,/^(no placement/p' | sed 's/^/# /'
	"$PATHSCOPE" stats "$DEV" | sed -n '/^First hop/,/^all /p' | sed 's/^/# /'
	taskset -pc 0-1 $$ >/dev/null
	echo 0 >"$SYS/threaded"
fi
echo "# t=$SECONDS s"

# ---- 3. a flood: NET_RX in ksoftirqd ------------------------------------------------
# ftrace_firsthop.py's events; FLOOD: iperf3's seconds, or 0 for sparse pings.
ev_id() { cat "$inst/events/$1/id"; }
fh_window() { # NAME FLOOD
	local name=$1 e j0 j1 ov st fp
	quiet
	mkdir "$inst" || { ps_fail "$name: an ftrace instance" "mkdir $inst"; return 1; }
	echo 0 >"$inst/tracing_on" # a new instance traces at once: from j0 on only
	echo mono >"$inst/trace_clock"
	echo 16384 >"$inst/buffer_size_kb"
	echo 1 >"$inst/options/raw"
	echo 'vec == 3' >"$inst/events/irq/softirq_raise/filter"
	echo 'vec == 3' >"$inst/events/irq/softirq_entry/filter"
	echo "dev_name == \"$DEV\" && work > 0" >"$inst/events/napi/napi_poll/filter"
	for e in irq/softirq_raise irq/softirq_entry napi/napi_poll timer/hrtimer_expire_entry \
		timer/hrtimer_expire_exit; do
		echo 1 >"$inst/events/$e/enable"
	done
	j0=$(js)
	local sq0 sq1
	sq0=$(squeezed)
	echo 1 >"$inst/tracing_on"
	if [ "$2" = 0 ]; then
		pings 40 0.02
	else
		iperf3 -c "$HOST" -u -R -b 0 -t "$2" >/dev/null 2>&1 || ps_fail "$name: iperf3 -u -R -b 0" "exit $?"
	fi
	quiet
	echo 0 >"$inst/tracing_on"
	j1=$(js)
	sq1=$(squeezed)
	ov=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$inst"/per_cpu/cpu*/stats)
	st=$SECONDS
	fp=$(python3 "$PS_ROOT/tests/tools/ftrace_firsthop.py" "$inst/trace" "$(ev_id irq/softirq_raise)" \
		"$(ev_id irq/softirq_entry)" "$(ev_id napi/napi_poll)" \
		"$(ev_id timer/hrtimer_expire_entry)" "$(ev_id timer/hrtimer_expire_exit)")
	echo "# $name: ftrace $(wc -l <"$inst/trace") lines, parsed in $((SECONDS - st)) s: $(tr '\n' '|' <<<"$fp"); time_squeeze per CPU $(sub "$sq1" "$sq0")"
	rmdir "$inst"
	read -r fpolls fruns fwait fend fksirqd ftimer fother _ <<<"$fp"
	ps_check_eq "$name: ftrace lost no event" "$ov" 0
	local fh
	fh=$(fh_delta "$j1" "$j0")
	echo "# $name: pathscope polls irq ksoftirqd timer other thread busy_poll, waited, sampled, IRQs: $fh"
	ps_check_eq "$name: polls by start (ksoftirqd, timer, irq + other) = ftrace's" \
		"$(awk '{ print $2, $3, $1 + $4, $5 + $6 }' <<<"$fh")" "$fksirqd $ftimer $fother 0"
	ps_check_eq "$name: one timed wait per softirq run of the NIC's polls, as ftrace's ($fruns)" \
		"$(cut -d' ' -f7 <<<"$fh")" "$fruns"
	KSIRQD=$fksirqd
	KSIRQD_WANT=$(ps_verdict_want "$j1" 1 ksoftirqd)
	ps_check_eq "$name: the verdict of queue 1 names ksoftirqd exactly when its counters pass the thresholds, with their figures" \
		"$(ps_verdict_why "$j1" 1 ksoftirqd)" "$KSIRQD_WANT"
	"$PATHSCOPE" stats "$DEV" | sed -n '/^PLACEMENT VERDICT/,/^(no placement/p' | sed 's/^/# /'
	# The window's mean wait: each queue's sum (mean x count, exact to
	# 1 ns a sample) before and after.
	local avg
	avg=$(jq -n --argjson a "$j1" --argjson b "$j0" '
		def s(r): [r.interfaces[0].queues[] | select(.queue != "other") | .firsthop
			| [.softirq_wait_avg_ns * .waited, .waited]] | transpose | map(add);
		(s($a)) as $x | (s($b)) as $y | if $x[1] > $y[1] then (($x[0] - $y[0]) / ($x[1] - $y[1]) | floor) else 0 end')
	# Both read the clock at the same tracepoints, one after the other:
	# 0.2-3.5 us apart on a mean under TCG (150-170 ns on the host,
	# test_firsthop's 25% + 500 ns).
	ps_check_eq "$name: softirq wait mean ($avg ns) within 25% + 5 us of ftrace's ($fwait ns)" \
		"$(awk -v a="$avg" -v f="$fwait" 'BEGIN { d = a - f; if (d < 0) d = -d; print (f > 0 && d <= 0.25 * f + 5000) ? "yes" : "no" }')" yes
}
# time_squeeze of /proc/net/softnet_stat per CPU (hex), "cpu0 cpu1 ...".
squeezed() {
	local l out=
	while read -r -a l; do out+="$((16#${l[2]})) "; done </proc/net/softnet_stat
	echo "${out% }"
}
# A window of its own for each (the verdict's window is since attach).
reattach() {
	"$PATHSCOPE" detach "$DEV" || ps_fail "detach" "exit $?"
	"$PATHSCOPE" attach "$DEV" --features firsthop --softirq-sample 1 || ps_fail "attach again" "exit $?"
}
reattach
fh_window "flood" 2
if [ "$KSIRQD" -gt 0 ]; then
	ps_ok "flood: ksoftirqd ran NET_RX for $KSIRQD polls of $fpolls"
	if [ "${PS_VM_ACCEL:-}" = tcg ]; then
		ps_check_eq "flood: the verdict names ksoftirqd on queue 1 (49-83% of polls under TCG)" "$([ -n "$KSIRQD_WANT" ] && echo yes)" yes
	fi
elif [ "${PS_VM_ACCEL:-}" = tcg ]; then
	ps_fail "flood: ksoftirqd" "no NET_RX run went to ksoftirqd ($fpolls polls; 49-83% did under TCG)"
else
	ps_unsupported "flood: ksoftirqd" "no NET_RX run went to ksoftirqd in the flood ($fpolls polls) under ${PS_VM_ACCEL:-?}"
fi
# Not none: under TCG NET_RX goes on in ksoftirqd now and then even for
# sparse pings (0-4 of 40 polls here, each seen by ftrace too, above);
# likely a softirq run that outlasts a tick (MAX_SOFTIRQ_TIME, 2 ms, is one
# jiffy at HZ=250), which leaves the rest to ksoftirqd.
reattach
fh_window "sparse pings after the flood" 0
ps_check_eq "sparse pings after the flood: the verdict names no ksoftirqd" "$KSIRQD_WANT" ""
ps_check_eq "sparse pings after the flood: ksoftirqd started few polls ($KSIRQD of $fpolls: at most a quarter)" \
	"$((KSIRQD * 4 <= fpolls))" 1
echo "# t=$SECONDS s"
"$PATHSCOPE" detach "$DEV" || ps_fail "detach" "exit $?"
ps_done

