#!/usr/bin/env bash
# The first hop (feature firsthop) on a NIC with an IRQ per RX queue:
# virtio-net with 4 queues in a qemu guest of the kernel matrix (PS_VM=1;
# the host end is run.sh's tap, which answers ping and runs iperf3 -s).
#   - the loader maps the 4 queues' own IRQs (virtioN-input.Q);
#   - each queue's IRQ runs, counted by irq:irq_handler_entry, equal the
#     kernel's own count of its IRQ in /proc/interrupts, exactly, over ping
#     and a UDP download;
#   - the polls that handed XDP frames equal ftrace's napi_poll events of
#     the NIC with work > 0 over the same interval, exactly; some started by
#     the queue's own IRQ, none by a thread or a busy poll;
#   - known changes, each undone after: NAPI's deferral (napi_defer_hard_irqs
#     2, gro_flush_timeout 500 us) brings polls started by its timer, none
#     before or after; threaded NAPI (/sys/class/net/DEV/threaded) moves the
#     polls to NAPI threads, none started by an IRQ then.
. "$(dirname "$0")/../../integration/lib.sh"
N=vm_firsthop
[ "${PS_VM:-}" = 1 ] || { ps_unsupported "$N" "runs in a guest of tests/vm/run.sh only"; ps_done; }
ps_require_root "$N"
ps_require_cmd "$N" iperf3 ping jq
DEV=$PS_VM_DEV HOST=$PS_VM_HOST4
T=/sys/kernel/tracing
inst=$T/instances/pathscope_vm_fh
ps_at_exit "\"$PATHSCOPE\" detach $DEV >/dev/null 2>&1; rmdir $inst 2>/dev/null"

PS_LINK_DEVS=("$DEV")
quiet() { ps_wait_quiet 10; } # nothing received or sent for 0.5 s
irqs=$("$PATHSCOPE" nic "$DEV" --json | jq -r '[.placement.rx[].irq] | map(tostring) | join(" ")')
ps_check_eq "placement: each of the 4 RX queues has an IRQ of its own" "$(wc -w <<<"$irqs")" 4
# The kernel's count of each queue's IRQ, all CPUs: "q0 q1 q2 q3".
proc_irqs() {
	local i out=
	for i in $irqs; do
		out+="$(awk -v i="$i:" '$1 == i { s = 0; for (f = 2; f <= NF && $f ~ /^[0-9]+$/; f++) s += $f; print s }' /proc/interrupts) "
	done
	echo "${out% }"
}
js() { "$PATHSCOPE" stats "$DEV" --json; }
ps_irqs() { jq -r '[.interfaces[0].queues[] | select(.queue != "other") | .firsthop.irqs] | map(tostring) | join(" ")' <<<"$1"; }
ps_polls() { jq '[.interfaces[0].queues[].firsthop.polls[]] | add' <<<"$1"; }
sub() { paste -d' ' <(tr ' ' '\n' <<<"$1") <(tr ' ' '\n' <<<"$2") | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 - $2 }'; }

"$PATHSCOPE" attach "$DEV" --features firsthop || ps_fail "attach $DEV --features firsthop" "exit $?"
j=$(js)
ps_check_eq "the loader mapped the 4 queues' IRQs" "$(jq '.interfaces[0].firsthop_irq_queues' <<<"$j")" 4
ps_check_eq "the table does not say the device lacks IRQs" "$("$PATHSCOPE" stats "$DEV" | grep -c 'has no IRQ per RX queue')" 0

quiet
mkdir "$inst" && echo 0 >"$inst/tracing_on" && echo mono >"$inst/trace_clock" &&
	echo "dev_name == \"$DEV\" && work > 0" >"$inst/events/napi/napi_poll/filter" &&
	echo 1 >"$inst/events/napi/napi_poll/enable" || ps_fail "an ftrace instance" "$inst"
k0=$(proc_irqs) j0=$(js)
echo 1 >"$inst/tracing_on"
ping -q -c 40 -i 0.05 "$HOST" >/dev/null || ps_fail "ping $HOST" "exit $?"
iperf3 -c "$HOST" -u -R -b 20M -n 2M -P 4 >/dev/null 2>&1 || ps_fail "iperf3 -u -R" "exit $?"
quiet
echo 0 >"$inst/tracing_on"
k1=$(proc_irqs) j1=$(js)
fpolls=$(grep -c 'napi_poll:' "$inst/trace")
rmdir "$inst"
dk=$(sub "$k1" "$k0") dp=$(sub "$(ps_irqs "$j1")" "$(ps_irqs "$j0")")
ps_check_eq "each queue's IRQ runs = /proc/interrupts' delta for its IRQ ($dk)" "$dp" "$dk"
ps_check_eq "IRQs came (ping and iperf3 went through)" "$(awk '{ print ($1 + $2 + $3 + $4 > 0) ? "yes" : "no" }' <<<"$dk")" yes
ps_check_eq "polls = ftrace's napi_poll events of $DEV with work ($fpolls)" \
	"$(($(ps_polls "$j1") - $(ps_polls "$j0")))" "$fpolls"
# Under TCG many runs are raised by the TX queues' IRQs (other): 49-60% by
# the queue's own IRQ on 5.10, 6.1 and 6.12.
st=$(jq -r '[.interfaces[0].queues[].firsthop.polls] | [(map(.irq) | add), (map(.thread + .busy_poll) | add)] | map(tostring) | join(" ")' <<<"$j1")
ps_check_eq "polls started by their queue's own IRQ, none by a thread or a busy poll ($st)" \
	"$(awk '{ print ($1 > 0 && $2 == 0) ? "yes" : "no" }' <<<"$st")" yes
# A window of traffic; its polls by what started them: "irq ksoftirqd timer other thread busy_poll".
starts() { jq -r '[.interfaces[0].queues[].firsthop.polls] | [(map(.irq), map(.ksoftirqd), map(.timer), map(.other), map(.thread), map(.busy_poll)) | add] | map(tostring) | join(" ")' <<<"$1"; }
window() {
	local a b
	quiet
	a=$(js)
	ping -q -c 40 -i 0.02 "$HOST" >/dev/null
	iperf3 -c "$HOST" -u -R -b 20M -n 1M -P 2 >/dev/null 2>&1
	quiet
	b=$(js)
	sub "$(starts "$b")" "$(starts "$a")"
}
knob() { echo "$2" >"/sys/class/net/$DEV/$1"; }
w=$(window)
ps_check_eq "before: no poll started by a timer or a thread ($w)" "$(awk '{ print $3, $5 }' <<<"$w")" "0 0"
knob napi_defer_hard_irqs 2 && knob gro_flush_timeout 500000 || ps_fail "deferral on" "sysfs"
w=$(window)
knob napi_defer_hard_irqs 0
knob gro_flush_timeout 0
ps_check_eq "deferral on: polls started by NAPI's timer ($w)" "$(awk '{ print ($3 > 0) ? "yes" : "no" }' <<<"$w")" yes
if [ ! -e "/sys/class/net/$DEV/threaded" ]; then
	ps_unsupported "threaded NAPI" "no /sys/class/net/$DEV/threaded before Linux 5.12 ($(uname -r))"
elif knob threaded 1; then
	w=$(window)
	knob threaded 0
	ps_check_eq "threaded NAPI: polls in NAPI threads, none started by an IRQ ($w)" \
		"$(awk '{ print ($5 > 0 && $1 == 0) ? "yes" : "no" }' <<<"$w")" yes
else
	ps_fail "threaded NAPI" "cannot set /sys/class/net/$DEV/threaded"
fi
w=$(window)
ps_check_eq "all undone: no poll started by a timer or a thread ($w)" "$(awk '{ print $3, $5 }' <<<"$w")" "0 0"
"$PATHSCOPE" detach "$DEV" || ps_fail "detach" "exit $?"
ps_done
