#!/usr/bin/env bash
# The first hop's NAPI thread wait (feature firsthop, stage thread_wait) on a
# NIC with an IRQ per RX queue: virtio-net with 4 queues in a qemu guest of
# the kernel matrix (PS_VM=1; the host end of run.sh answers ping), threaded
# NAPI on (/sys/class/net/DEV/threaded: Linux 5.12+, so not on 5.10).
# One ping flow lands on one RX queue Q; its IRQ is served on CPU 0 and its
# NAPI thread pinned to CPU 1 (taskset). Held by ftrace's own events of the
# same interval (trace_clock mono, pathscope's clock), paired by
# tests/tools/ftrace_thread_wait.py as pathscope defines the wait: Q's first
# irq_handler_entry since the thread's last poll took one -> the first frame
# of the thread's next poll (its napi_gro_receive_entry, just after XDP).
# (Pairing the IRQ with the thread's next sched_switch in instead missed the
# IRQs that come while the thread still runs: CI once, 50 waits against 49
# such pairs on 6.1, the mean 2.40 ms against 2.97 ms.)
#   - without a hog: the timed thread waits of Q = ftrace's waits, exactly;
#     the polls in a thread = ftrace's napi_poll events with work, exactly;
#     pathscope's mean within 5% + 50 us of ftrace's (XDP sees the frame
#     before GRO; a loaded host stops a vCPU between two probes);
#   - a CPU-bound SCHED_FIFO task on CPU 1 (chrt -f, started once the trace
#     is on, killed by PID as ping ends, 10 s at most): the thread runs only
#     when the RT throttle stops the task (sched_rt_runtime_us, 95% of each
#     second by default; on 6.12 the fair deadline server's 50 ms of each
#     second), so its wait's mean rises 10-fold or more, in pathscope's
#     figure and in ftrace's; pairs again exactly ftrace's. With a fair
#     deadline server (6.12) the thread runs sooner and the rise varies with
#     the host's load: 6- to 30-fold seen, so 2-fold is held there;
#   - undone: the mean falls back under a tenth of the hog's (with a fair
#     server: under the hog's);
#   - the budget (stats --latency) has the RX thrd row, its cells the
#     family's own figures (ps_check_budget); the table its NAPI thread wait
#     rows.
. "$(dirname "$0")/../../integration/lib.sh"
N=vm_firsthop_thread
[ "${PS_VM:-}" = 1 ] || { ps_unsupported "$N" "runs in a guest of tests/vm/run.sh only"; ps_done; }
ps_require_root "$N"
ps_require_cmd "$N" ping jq python3 taskset chrt
DEV=$PS_VM_DEV HOST=$PS_VM_HOST4
if [ ! -e "/sys/class/net/$DEV/threaded" ]; then
	ps_unsupported "$N" "no threaded NAPI (/sys/class/net/$DEV/threaded) before Linux 5.12 ($(uname -r))"
	ps_done
fi
[ "$(nproc)" -ge 2 ] || { ps_unsupported "$N" "needs 2 CPUs (the IRQ's and the thread's)"; ps_done; }
T=/sys/kernel/tracing
inst=$T/instances/pathscope_vm_fht
hog= irq= aff= tpid=
ps_at_exit '[ -n "$hog" ] && kill "$hog" 2>/dev/null; [ -n "$hog" ] && wait "$hog" 2>/dev/null'
ps_at_exit "\"$PATHSCOPE\" detach $DEV >/dev/null 2>&1; rmdir $inst 2>/dev/null"
ps_at_exit 'echo 0 >"/sys/class/net/$DEV/threaded" 2>/dev/null'
ps_at_exit '[ -n "$aff" ] && echo "$aff" >"/proc/irq/$irq/smp_affinity_list" 2>/dev/null'
taskset -pc 0 $$ >/dev/null # this script and what it starts: CPU 0

PS_LINK_DEVS=("$DEV")
quiet() { ps_wait_quiet 10; }
irqs=($("$PATHSCOPE" nic "$DEV" --json | jq -r '.placement.rx[].irq'))
ps_check_eq "placement: each of the 4 RX queues has an IRQ of its own" "${#irqs[@]}" 4
irq_count() { awk -v i="$1:" '$1 == i { s = 0; for (f = 2; f <= NF && $f ~ /^[0-9]+$/; f++) s += $f; print s }' /proc/interrupts; }

# The queue of the ping flow: the RX IRQ that 10 pings raise.
quiet
declare -a c0
for q in 0 1 2 3; do c0[q]=$(irq_count "${irqs[q]}"); done
ping -q -c 10 -i 0.05 "$HOST" >/dev/null || ps_fail "ping $HOST" "exit $?"
Q= best=0 deltas=
for q in 0 1 2 3; do
	dq=$(($(irq_count "${irqs[q]}") - c0[q]))
	deltas+=" $dq"
	[ "$dq" -gt "$best" ] && Q=$q best=$dq
done
echo "# the RX IRQs (${irqs[*]}) ran$deltas times for 10 pings: queue ${Q:-none}" >&2
[ "$best" -ge 5 ] || { ps_fail "$N" "no RX queue's IRQ ran 5 times for 10 pings:$deltas"; ps_done; }
irq=${irqs[Q]}
aff=$(cat "/proc/irq/$irq/smp_affinity_list")
echo 0 >"/proc/irq/$irq/smp_affinity_list" || ps_fail "IRQ $irq on CPU 0" "smp_affinity_list"
echo 1 >"/sys/class/net/$DEV/threaded" || { ps_fail "$N" "cannot set threaded"; ps_done; }

"$PATHSCOPE" attach "$DEV" --features firsthop || ps_fail "attach $DEV --features firsthop" "exit $?"
mkdir "$inst" && echo 0 >"$inst/tracing_on" && echo mono >"$inst/trace_clock" && echo 1 >"$inst/options/raw" &&
	echo 4096 >"$inst/buffer_size_kb" || ps_fail "an ftrace instance" "$inst"
ev_id() { cat "$inst/events/$1/id"; }

# The thread of Q: the NAPI thread that Q's IRQ handler wakes (the event
# after its irq_handler_entry on that CPU), the most often over 10 pings.
# (napi_poll's task is not enough: on 6.1 the TX queue's thread has polls
# with work too.) The trace in text form, for the fields.
quiet
echo 0 >"$inst/options/raw"
echo "irq == $irq" >"$inst/events/irq/irq_handler_entry/filter"
echo 'comm ~ "napi/*"' >"$inst/events/sched/sched_waking/filter"
for e in irq/irq_handler_entry sched/sched_waking; do echo 1 >"$inst/events/$e/enable"; done
echo 1 >"$inst/tracing_on"
ping -q -c 10 -i 0.05 "$HOST" >/dev/null
quiet
echo 0 >"$inst/tracing_on"
echo 0 >"$inst/events/sched/sched_waking/enable"
tpid=$(awk '{ cpu = ""; for (f = 1; f <= NF; f++) if ($f ~ /^\[[0-9]+\]$/) { cpu = $f; break } }
	/ irq_handler_entry: / { armed[cpu] = 1; next }
	/ sched_waking: / && armed[cpu] { for (f = 1; f <= NF; f++) if ($f ~ /^pid=/) n[substr($f, 5)]++ }
	{ armed[cpu] = 0 }
	END { for (p in n) if (n[p] > best) { best = n[p]; pid = p }; print pid }' "$inst/trace")
echo 1 >"$inst/options/raw"
echo >"$inst/trace"
ps_check_eq "the NAPI thread that RX queue $Q's IRQ wakes (pid $tpid)" \
	"$(cut -c1-5 "/proc/${tpid:-0}/comm" 2>/dev/null)" "napi/"
taskset -pc 1 "$tpid" >/dev/null || ps_fail "the thread $tpid on CPU 1" "taskset"
echo "next_pid == $tpid" >"$inst/events/sched/sched_switch/filter"
echo "dev_name == \"$DEV\" && work > 0 && common_pid == $tpid" >"$inst/events/napi/napi_poll/filter"
echo "name == \"$DEV\" && common_pid == $tpid" >"$inst/events/net/napi_gro_receive_entry/filter"
for e in sched/sched_switch napi/napi_poll net/napi_gro_receive_entry; do echo 1 >"$inst/events/$e/enable"; done

js() { "$PATHSCOPE" stats "$DEV" --json; }
qf() { jq ".interfaces[0].queues[] | select(.queue == $Q) | .firsthop | $2" <<<"$1"; }
# start_hog NAME: a CPU-bound SCHED_FIFO task on CPU 1 (at most 10 s; the
# window kills it by PID as soon as ping is done).
start_hog() {
	local _
	taskset -c 1 chrt -f 50 bash -c 'end=$((SECONDS + 10)); while ((SECONDS < end)); do :; done' &
	hog=$!
	for _ in $(seq 50); do
		[ "$(ps -o cls= -p "$hog" 2>/dev/null | tr -d ' ')" = FF ] && break
		sleep 0.02
	done
	ps_check_eq "$1: the hog runs SCHED_FIFO on CPU 1" "$(ps -o cls=,psr= -p "$hog" | tr -s ' ' | sed 's/^ //')" "FF 1"
}
# window NAME [hog]: 50 pings 20 ms apart under the trace; sets pw (pathscope's
# timed waits), pm (their mean), pp (polls in a thread) and the
# reference: fpairs fwait (their mean), fswitch fswitched (IRQ -> switch in,
# shown), fpolls.
window() {
	local a b n s
	quiet
	echo >"$inst/trace"
	a=$(js)
	echo 1 >"$inst/tracing_on"
	[ "${2:-}" != hog ] || start_hog "$1"
	ping -q -c 50 -i 0.02 -w 10 "$HOST" >/dev/null
	if [ -n "$hog" ]; then
		kill "$hog" 2>/dev/null
		wait "$hog" 2>/dev/null
		hog=
	fi
	quiet
	echo 0 >"$inst/tracing_on"
	b=$(js)
	n=$(($(qf "$b" .thread_waited) - $(qf "$a" .thread_waited)))
	# the sums, as mean x count (the JSON has no sum: < 1 ns per wait off)
	s=$(($(qf "$b" '.thread_wait_avg_ns * .thread_waited') - $(qf "$a" '.thread_wait_avg_ns * .thread_waited')))
	pw=$n pp=$(($(qf "$b" .polls.thread) - $(qf "$a" .polls.thread)))
	pm=$((n > 0 ? s / n : 0))
	read -r fpairs fwait fswitch fswitched fpolls < <(python3 "$PS_ROOT/tests/tools/ftrace_thread_wait.py" \
		"$inst/trace" "$(ev_id irq/irq_handler_entry)" "$(ev_id sched/sched_switch)" \
		"$(ev_id napi/napi_poll)" "$(ev_id net/napi_gro_receive_entry)")
	echo "# $1: pathscope $pw waits, mean $pm ns, $pp thread polls; ftrace $fpairs waits, IRQ -> first frame at GRO $fwait ns (IRQ -> switch in $fswitch ns in $fswitched), $fpolls polls" >&2
}
# XDP sees a poll's first frame before GRO does, and pathscope stamps the IRQ
# before ftrace's event of it: alone, pathscope's mean was 4-8 us under
# ftrace's on 6.12 and 16-19 us under on 6.1. Under CI's load (three guests
# on two host CPUs) a vCPU the host stops between two probes of one
# tracepoint moves a wait by up to milliseconds either way (6.1: 63 us over
# of 1.29 ms, 1.1 ms over of 302 ms): within 5% + 50 us either way.
near() { awk -v a="$1" -v f="$2" 'BEGIN { d = a - f; if (d < 0) d = -d; print (a > 0 && d <= 0.05 * f + 50000) ? "yes" : "no" }'; }

window "no hog"
ps_check_eq "no hog: timed thread waits of queue $Q = ftrace's IRQ -> first frame waits" "$pw" "$fpairs"
ps_check_eq "no hog: polls in a thread = ftrace's napi_poll events with work by the thread" "$pp" "$fpolls"
ps_check_eq "no hog: ping's 50 replies came in polls ($pp)" "$([ "$pp" -ge 1 ] && echo yes)" yes
ps_check_eq "no hog: mean $pm ns within 5% + 50 us of ftrace's IRQ -> first frame at GRO ($fwait ns)" \
	"$(near "$pm" "$fwait")" yes
base=$pm fbase=$fwait

ps_check_budget "budget" "$(js)" thread_wait
ps_check_eq "the budget (stats --latency) has the RX thrd row" \
	"$("$PATHSCOPE" stats "$DEV" --latency | grep -c '^RX thrd ')" 1
ps_check_eq "the table has the NAPI thread wait rows" \
	"$("$PATHSCOPE" stats "$DEV" | grep -c '^NAPI thread wait: ')" 1

echo "# sched_rt_runtime_us $(cat /proc/sys/kernel/sched_rt_runtime_us) of $(cat /proc/sys/kernel/sched_rt_period_us)" >&2
window "hog" hog
ps_check_eq "hog: timed thread waits of queue $Q = ftrace's waits" "$pw" "$fpairs"
ps_check_eq "hog: mean $pm ns within 5% + 50 us of ftrace's IRQ -> first frame at GRO ($fwait ns)" \
	"$(near "$pm" "$fwait")" yes
# The fair deadline server (Linux 6.12) runs fair tasks, the NAPI thread
# among them, within each period even under a real-time task.
RISE=10 BACK=10
[ -d /sys/kernel/debug/sched/fair_server ] && RISE=2 BACK=1
ps_check_eq "hog: the mean rose $RISE-fold or more ($base -> $pm ns), as ftrace's ($fbase -> $fwait ns)" \
	"$(awk -v a="$base" -v b="$pm" -v fa="$fbase" -v fb="$fwait" -v r="$RISE" 'BEGIN { print (a > 0 && fa > 0 && b >= r * a && fb >= r * fa) ? "yes" : "no" }')" yes
hogm=$pm

window "undone"
ps_check_eq "undone: timed thread waits of queue $Q = ftrace's waits" "$pw" "$fpairs"
ps_check_eq "undone: the mean fell back under 1/$BACK of the hog's ($hogm -> $pm ns; ftrace $fwait ns)" \
	"$(awk -v h="$hogm" -v a="$pm" -v k="$BACK" 'BEGIN { print (a > 0 && k * a < h) ? "yes" : "no" }')" yes

echo 0 >"/sys/class/net/$DEV/threaded"
"$PATHSCOPE" detach "$DEV" || ps_fail "detach" "exit $?"
ps_done
