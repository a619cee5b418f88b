#!/usr/bin/env bash
# tests/vm/guest-tests.sh: what runs inside each guest of the kernel matrix
# (tests/vm/run.sh), from the repository root (/ps, read-only), after
# tests/vm/guest-init.sh has set the guest up. Reports in the project's
# format, one line per check: "ok - NAME", "not ok - NAME: WHY",
# "skip - NAME: WHY" (run.sh collects them and prefixes each NAME with the
# kernel); exits non-zero if anything failed.
#
# Environment (guest-init.sh): PS_VM=1, PS_VM_KERNEL (5.10, 6.1, 6.12),
# PS_VM_DEV (virtio-net, 4 queues) and PS_VM_E1000_DEV, PS_VM_HOST4/6 and
# PS_VM_GUEST4/6, PS_VM_E1000_HOST4/GUEST4, PS_VM_IPERF_PORT,
# PS_VM_SOCKPERF_PORT, PS_VM_OUT (/out: files kept on the host in
# build/vm/KERNEL/), PS_SLOW, CI.

# tests/run.sh patterns (paths; see its usage) of the tests to run in every
# guest: the crafted-frame BPF tests (BPF_PROG_TEST_RUN; build/tests/test_datapath
# is every test_datapath_* program, build/tests/test_tcp both test_tcp_*), attach/detach in
# every hook mode, the neighbours (chain, join, clsact and TCX; libxdp's
# dispatcher with xdp-tools); then tests/vm/guest/: the virtio-net NIC
# (exact counts against the driver and the kernel, ICMP RTT against ping,
# every feature set, serve with promtool), the e1000 NIC, the demo, the
# virtio-net NIC moved to another namespace while attached (and back), then
# the first hop on it (test_vm_firsthop) and where each of its RX queues runs
# across an IRQ move, a flood into ksoftirqd and starved NAPI threads
# (test_vm_placement: it moves IRQs and pins threads, and puts them back). Not
# the latency tests against delay lines and think times (test_tcp_delay,
# test_icmp_rtt, test_sock, test_txlat, ...): qemu's TCG stretches the
# guest's own clock-driven work, not the references; nor test_tcp.sh and
# test_serve.sh, whose counts test_vm_virtio holds on the real driver.
# What is the same on every kernel runs on the host only (DESIGN.md, "Tests
# that pay their way"; each check in tests/vm/MOVED.md): test_ecn_queues
# (counts on veth: test_datapath_classes' crafted frames hold the classification
# and test_vm_virtio the counts), and the sections of user space's logic
# that the tests here skip where PS_VM=1.
# PS_VM_TESTS and PS_VM_GUEST_TESTS in run.sh's environment replace the lists.
PS_VM_TESTS=${PS_VM_TESTS-"build/tests/test_datapath build/tests/test_tcp build/tests/test_echo build/tests/test_d2s
	integration/test_attach_detach.sh integration/test_coexist.sh
	integration/test_coexist_dispatcher.sh"}
PS_VM_GUEST_TESTS=${PS_VM_GUEST_TESTS-"guest/test_vm_virtio.sh guest/test_vm_flows.sh guest/test_vm_e1000.sh guest/test_vm_demo.sh
	guest/test_vm_virtio_moved.sh guest/test_vm_firsthop.sh guest/test_vm_placement.sh
	guest/test_vm_firsthop_thread.sh"}
# One test at a time: the guest's 2 vCPUs are host CPUs the other guests
# share (run.sh runs them side by side), and the tests of guest/ count the
# real NICs and every pathscope program of the guest.
export PS_JOBS=1

. "$(dirname "$0")/../integration/lib.sh"
cd "$PS_ROOT" || exit 1

# The virtio NIC has the 4 queues run.sh gave it, in use.
check_nic_queues() {
	local combined rx tx
	[ -n "${PS_VM_DEV:-}" ] || { ps_fail vm_nic_queues "no virtio-net interface"; return; }
	combined=$(ethtool -l "$PS_VM_DEV" 2>/dev/null | awk '/^Current hardware settings/ { cur = 1 } cur && $1 == "Combined:" { print $2 }')
	rx=$(find "/sys/class/net/$PS_VM_DEV/queues" -maxdepth 1 -name 'rx-*' | wc -l)
	tx=$(find "/sys/class/net/$PS_VM_DEV/queues" -maxdepth 1 -name 'tx-*' | wc -l)
	ps_check_eq "vm_nic_queues: $PS_VM_DEV combined channels, rx and tx queues" "$combined $rx $tx" "4 4 4"
}

# NAME DEV ping-args...: all 5 echo requests answered.
check_ping() {
	local name=$1 dev=$2 got
	shift 2
	[ -n "$dev" ] || { ps_fail "$name" "no interface"; return; }
	got=$(ping -c 5 -i 0.2 -W 5 -I "$dev" "$@" 2>&1 | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	ps_check_eq "$name: 5 echo replies from $*" "${got:-none}" 5
}

# pathscope features: runs, and what it says is kept for the record.
check_features() {
	local rc=0
	"$PATHSCOPE" features >"$PS_VM_OUT/features.txt" 2>&1 || rc=$?
	sed 's/^/# /' "$PS_VM_OUT/features.txt"
	ps_check_eq "vm_features: pathscope features exits 0" "$rc" 0
}

# No kernel warning, oops or BUG during the guest's life so far.
check_kernel_clean() {
	local bad
	bad=$(dmesg | grep -E 'WARNING: CPU|BUG:|Oops|Call Trace|general protection' | head -3)
	[ -z "$bad" ] && { ps_ok "vm_kernel_clean: no warning, oops or BUG in dmesg"; return; }
	ps_fail "vm_kernel_clean" "dmesg: $(echo "$bad" | tr '\n' '|')"
}

echo "# guest: $(uname -r), ${PS_VM_DEV:-?}, ${PS_VM_E1000_DEV:-?} and ${PS_VM_RSS_DEV:-?} (RSS), tests:" $PS_VM_TESTS $PS_VM_GUEST_TESTS
check_nic_queues
check_ping vm_nic_ping "${PS_VM_DEV:-}" "$PS_VM_HOST4"
check_ping vm_nic_ping6 "${PS_VM_DEV:-}" "$PS_VM_HOST6"
check_ping vm_e1000_ping "${PS_VM_E1000_DEV:-}" "$PS_VM_E1000_HOST4"
check_features

rc=0
if [ -n "$PS_VM_TESTS" ]; then
	# A failure of run.sh without a "not ok" line (e.g. it could not start)
	# must still count: tests/run.sh reports those itself.
	bash tests/run.sh "$PS_VM_TESTS" || rc=$?
fi
if [ -n "$PS_VM_GUEST_TESTS" ]; then
	PS_INTEGRATION_DIR=tests/vm/guest bash tests/run.sh "$PS_VM_GUEST_TESTS" || rc=$?
fi
# This kernel's BTF, for run.sh to build the BPF objects against (they must
# come out the same as on any other build host).
cp /sys/kernel/btf/vmlinux "$PS_VM_OUT/vmlinux.btf" 2>/dev/null
check_kernel_clean
echo "# guest tests took $SECONDS s"

[ "$PS_FAILURES" -eq 0 ] && [ "$rc" -eq 0 ]
