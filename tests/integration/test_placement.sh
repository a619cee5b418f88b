#!/usr/bin/env bash
# Where each RX queue runs (issue 48, item 1, its measured part): stats's
# XDP frames of each RX queue by the CPU that handled them, from the per-CPU
# counters the XDP hook keeps. On veth the receiver's XDP runs in the NAPI
# poll scheduled on the sending CPU, so the sender's CPU and TX queue are the
# reference: 200 datagrams sent on CPU 0 through TX queue 1 are 200 frames of
# RX queue 1 on CPU 0, and 100 sent on CPU 1 through TX queue 2 are 100 of RX
# queue 2 on CPU 1; the table says so, and the Prometheus per-CPU counter
# adds them up. And `nic`'s placement: RPS set on one veth RX queue is named
# there, and veth's lack of IRQ vectors is said in one line; its coalescing
# is n/a (EOPNOTSUPP). The placement verdict of stats: veth's lack of an IRQ
# per queue in one line, a queue whose frames came from two CPUs (200 each)
# spread over them with its figures, RPS on a queue named with its CPUs.
# Skipped on a machine of one CPU.
. "$(dirname "$0")/lib.sh"
ps_require_root placement
ps_require_cmd placement jq taskset
ps_require_file placement "$PATHSCOPE"
ps_require_file placement "$UDPSEND"
[ "$(nproc)" -ge 2 ] || { ps_skip placement "one CPU: nothing to place"; ps_done; }

ps_testbed_create 4 || { ps_fail placement "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'
ps_pathscope_b attach vB --features none >/dev/null || ps_fail "attach vB" "exit $?"
ps_wait_quiet 5
before=$(ps_pathscope_b stats vB --json) || ps_fail "stats --json" "exit $?"

send() { # CPU TXQ COUNT
	ps_txq_pin "$NS_A" vA "$2" || ps_fail "txq pin $2" "ps_txq_pin failed"
	ps_sink_start "$NS_B" 9000 --expect "$3" --timeout 10
	ps_in_a taskset -c "$1" "$UDPSEND" -n "$3" "$PS_IP4_B" 9000 || ps_fail "udpsend" "exit $?"
	ps_sink_wait >/dev/null || ps_fail "sink" "did not receive $3"
}
send 0 1 200
send 1 2 100
ps_txq_unpin "$NS_A" vA
ps_wait_quiet 5
after=$(ps_pathscope_b stats vB --json) || ps_fail "stats --json" "exit $?"
# A queue's frames by CPU between the two reports.
cpus() {
	jq -c -n --argjson a "$after" --argjson b "$before" --arg q "$1" '
		def c(r): (r.interfaces[0].queues[] | select((.queue | tostring) == $q) | .cpus) // {};
		c($a) as $x | c($b) as $y | $x | with_entries(.value -= ($y[.key] // 0)) | with_entries(select(.value != 0))'
}
ps_check_eq "RX queue 1: the 200 frames sent on CPU 0, all on CPU 0" "$(cpus 1)" '{"0":200}'
ps_check_eq "RX queue 2: the 100 frames sent on CPU 1, all on CPU 1" "$(cpus 2)" '{"1":100}'
ps_check_eq "the table names each queue's CPU first (since attach)" \
	"$(ps_pathscope_b stats vB | awk '/^RX QUEUES BY CPU/ { f = 1; next } f && /^RXQ/ { next } f && /^[A-Za-z(]/ { f = 0 } f && /^[12] / { print $1, $3 }' | paste -sd'|')" \
	"1 cpu0|2 cpu1"

# The placement verdict after that table: veth has no IRQ per queue, said
# in one line; 200 frames sent on CPU 0 and then 200 on CPU 1, both through
# TX queue 3, are RX queue 3's 400 frames half on each CPU: spread (no CPU
# over 90%), with those figures. RX queues 1 and 2 ran on one CPU each:
# nothing to say of them.
send 0 3 200
send 1 3 200
ps_txq_unpin "$NS_A" vA
ps_wait_quiet 5
table=$(ps_pathscope_b stats vB) || ps_fail "stats" "exit $?"
ps_check_eq "stats: no IRQ per queue, in one line after RX QUEUES BY CPU" \
	"$(printf '%s\n' "$table" | awk '/^RX QUEUES BY CPU/ { f = 1 } f && /^PLACEMENT VERDICT/ { g = 1 } g && /^\(no IRQ per RX queue, as veth: / { n++ } END { print n + 0 }')" 1
ps_check_eq "stats: RX queue 3 spread over CPUs 0 and 1, 50% each" \
	"$(printf '%s\n' "$table" | grep '^queue 3 ')" \
	"queue 3 spread: no CPU has over 90% of its 400 frames: CPU 0 50.0%, CPU 1 50.0%"
ps_check_eq "stats --json: placement_verdicts: no IRQ per queue; queue 3 spread; 1 and 2 nothing" \
	"$(ps_pathscope_b stats vB --json | jq -c '.interfaces[0].placement_verdicts | [.irq_per_queue, (.queues[] | select(.queue >= 1) | [.queue, .frames, (.causes | keys)])]')" \
	'[false,[1,200,[]],[2,100,[]],[3,400,["spread"]]]'

# What the kernel is told of where vB's queues run: RPS set on RX queue 1
# (CPUs 0 and 1) is named there and nowhere else; veth has no IRQ vectors,
# said in one line.
ps_in_b sh -c 'echo 3 > /sys/class/net/vB/queues/rx-1/rps_cpus' || ps_fail "rps_cpus" "cannot set"
ps_check_eq "nic --json: RPS CPUs per RX queue, IRQ vectors 0" \
	"$(ps_pathscope_b nic vB --json | jq -c '[.placement.irq_vectors, [.placement.rx[] | .rps_cpus]]')" \
	'[0,[null,"0-1",null,null]]'
ps_check_eq "nic: veth's queues have no IRQ of their own, in one line" \
	"$(ps_pathscope_b nic vB | grep -c '^(no IRQ vectors of its own, as veth: ')" 1
ps_check_eq "stats: RPS on RX queue 1 (CPUs 0-1) beyond CPU 0 where its 200 frames ran" \
	"$(ps_pathscope_b stats vB --json | jq -r '.interfaces[0].placement_verdicts.queues[] | select(.queue == 1) | .causes.rps.why')" \
	"RPS sends its skbs to CPUs 0-1 (rps_cpus), not only CPU 0 that handled its 200 frames at XDP"
# veth has no interrupt coalescing: n/a with the kernel's reason, every
# member null.
ps_check_eq "nic: coalescing n/a on veth, in one line" \
	"$(ps_pathscope_b nic vB | grep '^coalescing:')" \
	"coalescing: n/a (EOPNOTSUPP: not supported by the driver)"
ps_check_eq "nic --json: coalescing_na and null members" \
	"$(ps_pathscope_b nic vB --json | jq -c '[.placement.coalescing_na, ([.placement.coalescing[]] | unique)]')" \
	'["EOPNOTSUPP: not supported by the driver",[null]]'

ps_in_b sh -c 'echo 0 > /sys/class/net/vB/queues/rx-1/rps_cpus'
ps_done
