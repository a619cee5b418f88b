#!/usr/bin/env bash
# The first hop (feature firsthop) on a 2-queue veth, held by the kernel's own
# ftrace events of the same interval (tests/tools/ftrace_firsthop.py pairs
# softirq_raise, softirq_entry and napi_poll per CPU, as netdev-times does):
#   - N datagrams sent one by one from CPU 0 are N polls of one RX queue, each
#     in a NET_RX softirq that the sender raised ("other": veth has no IRQ),
#     exactly as many as ftrace's napi_poll events of vB with work;
#   - each run's softirq wait is timed once: as many waits as ftrace's runs,
#     their mean within 25% + 500 ns of ftrace's pairs' mean (both read the
#     same clock at the same tracepoints; 150-170 ns apart here, ~20%);
#   - 1 frame in 16 per CPU and queue is placed in its run: exactly N/16
#     samples, their mean no later than the mean end of ftrace's polls;
#   - veth is said to have no IRQ per queue; irqs stay 0; detach removes the
#     six links. Both probe modes (tp_btf, classic tracepoints).
. "$(dirname "$0")/lib.sh"
N=firsthop
ps_require_root "$N"
ps_require_file "$N" "$PATHSCOPE"
ps_require_file "$N" "$UDPSEND"
ps_require_cmd "$N" jq taskset python3
T=/sys/kernel/tracing
[ -d "$T/instances" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -d "$T/instances" ] || { ps_unsupported "$N" "tracefs is not mounted"; ps_done; }

ps_testbed_create 2 || { ps_fail "$N" "testbed setup failed"; ps_done; }
inst=$T/instances/pathscope_test_fh_$$
ps_at_exit "ps_pathscope_b detach vB >/dev/null 2>&1; rmdir '$inst' 2>/dev/null"
ps_txq_pin "$NS_A" vA 0 # the datagrams leave vA on TX queue 0: vB's RX queue 0

pins() { ls "/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")/"*/ 2>/dev/null; }
fh() { ps_pathscope_b stats vB --json | jq -c ".interfaces[0].queues[] | select(.queue == $1) | .firsthop | $2"; }
count=320
for mode in tp_btf tracepoint; do
	ps_pathscope_b attach vB --features firsthop --probe-mode "$mode" ||
		ps_fail "$mode: attach vB --features firsthop" "exit $?"
	ps_check_eq "$mode: six probe links pinned" \
		"$(pins | grep -c '^fh_\(irq_entry\|irq_exit\|raise\|entry\|exit\|poll\)$')" 6
	ps_wait_quiet 5
	mkdir "$inst" || ps_fail "$mode: an ftrace instance" "mkdir $inst"
	echo mono >"$inst/trace_clock"
	echo 1 >"$inst/options/raw" # nanoseconds, and each event's id
	echo 'vec == 3' >"$inst/events/irq/softirq_raise/filter"
	echo 'vec == 3' >"$inst/events/irq/softirq_entry/filter"
	echo 'dev_name == "vB" && work > 0' >"$inst/events/napi/napi_poll/filter"
	for e in irq/softirq_raise irq/softirq_entry napi/napi_poll; do echo 1 >"$inst/events/$e/enable"; done
	echo 1 >"$inst/tracing_on"
	p0=$(fh 0 '[.polls[]] | add') w0=$(fh 0 .waited) s0=$(fh 0 .sampled)
	ps_in_a taskset -c 0 "$UDPSEND" -r -n "$count" -i 1000 "$PS_IP4_B" 9999 ||
		ps_fail "$mode: udpsend" "exit $?"
	ps_wait_quiet 5
	echo 0 >"$inst/tracing_on"
	j=$(ps_pathscope_b stats vB --json)
	q0() { jq -c ".interfaces[0].queues[] | select(.queue == 0) | .firsthop | $1" <<<"$j"; }
	read -r fpolls fruns fwait fend < <(python3 "$PS_ROOT/tests/tools/ftrace_firsthop.py" "$inst/trace" \
		"$(cat "$inst/events/irq/softirq_raise/id")" "$(cat "$inst/events/irq/softirq_entry/id")" \
		"$(cat "$inst/events/napi/napi_poll/id")")
	rmdir "$inst"
	ps_check_eq "$mode: ftrace saw $count polls of vB with work" "$fpolls" "$count"
	ps_check_eq "$mode: pathscope counted the same polls, all started by the sender (other)" \
		"$(($(q0 '[.polls[]] | add') - p0)) $(q0 .polls.other)" "$count $((count + p0))"
	ps_check_eq "$mode: one timed wait per softirq run, as ftrace's runs" "$(($(q0 .waited) - w0))" "$fruns"
	ps_check_eq "$mode: 1 in 16 frames placed: exactly $((count / 16))" "$(($(q0 .sampled) - s0))" $((count / 16))
	ps_check_eq "$mode: the IRQ count stays 0 (veth has none)" "$(q0 .irqs)" 0
	avg=$(q0 .softirq_wait_avg_ns)
	ps_check_eq "$mode: softirq wait mean ($avg ns) within 25% + 500 ns of ftrace's ($fwait ns)" \
		"$(awk -v a="$avg" -v f="$fwait" 'BEGIN { d = a - f; if (d < 0) d = -d; print (f > 0 && d <= 0.25 * f + 500) ? "yes" : "no" }')" yes
	place=$(q0 .place_avg_ns)
	ps_check_eq "$mode: place mean ($place ns) no later than ftrace's poll ends ($fend ns)" \
		"$(awk -v a="$place" -v f="$fend" 'BEGIN { print (a > 0 && a <= f) ? "yes" : "no" }')" yes
	ps_check_eq "$mode: the table says veth has no IRQ per RX queue" \
		"$(ps_pathscope_b stats vB | grep -c '^(vB has no IRQ per RX queue, as veth')" 1
	ps_check_eq "$mode: the budget has the softirq wait row" \
		"$(ps_pathscope_b stats vB --latency | grep -c '^RX sirq ')" 1
	ps_pathscope_b detach vB || ps_fail "$mode: detach" "exit $?"
	ps_check_eq "$mode: detach removed the pins" "$(pins | wc -l)" 0
done
ps_done
