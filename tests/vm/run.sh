#!/usr/bin/env bash
# tests/vm/run.sh: pathscope's tests inside qemu guests that run Debian's own
# kernels (the machine's kernel lacks kprobes, fentry and freplace; users'
# kernels have them). The kernels' guests run side by side (PS_VM_JOBS at
# a time); ends with one line "N passed, N failed, N skipped" over all kernels.
#
# Usage: tests/vm/run.sh [KERNEL...]   (as root; KERNEL: 5.10, 6.1, 6.12 or a
#        full release such as 6.1.0-50-amd64; default: every kernel of the rootfs)
#        tests/vm/run.sh --prepare     (as root: only build or reuse the rootfs
#        and probe the accelerator, writing build/vm/accel; make test-vm-prepare)
#
# --prepare is what a later run would do first, ahead of time: CI starts it in
# the background early (after make deps: it may apt-get qemu and debootstrap),
# and the run then reuses its rootfs and build/vm/accel (waiting for it if it
# is still at work). Without it a run does both itself.
#
# For each kernel, in a job of its own (at most PS_VM_JOBS at once, default
# 3: every kernel of the matrix at once; on the 2-vCPU build machine, where a
# TCG guest keeps about 1.15 host CPUs busy, make test-vm took 876 s with 3,
# 942 s with 2 and 1087 s with 1 on the warm cache, beside other work on the
# machine), the longest (by its last build/vm/KERNEL.seconds) first:
#   - the guest's rootfs comes from tests/vm/rootfs.sh (built once, cached in
#     PS_VM_CACHE, default /var/cache/pathscope-vm); it boots with -snapshot,
#     so nothing a guest does survives it and guests share the image;
#   - a namespace of its own, psvm-PID-KERNEL, holds the other ends of the
#     guest's NICs, taps qemu creates there (each guest's namespace has its
#     own qt0 and qt1):
#         qt0 198.18.100.1/24 2001:db8:100::1/64 <-> virtio-net, 4 queues,
#                                                   198.18.100.2 2001:db8:100::2
#         qt1 198.18.101.1/24                    <-> e1000, 198.18.101.2
#         qt2 198.18.102.1/24                    <-> virtio-net with RSS (rss=on: qemu
#                                                    hashes and steers), 4 queues,
#                                                    198.18.102.2
#     and the guest's peers: iperf3 -s (port 5201) and sockperf server --tcp
#     (198.18.100.1:11111), both bounded in time; the host kernel answers ping;
#   - the repository is shared read-only (9p) and build/vm/KERNEL/ writable
#     (the guest's /out: vm.env from here, then guest-tests.log, dmesg.txt,
#     features.txt and whatever the tests keep); the serial console goes to
#     build/vm/KERNEL.log (kept for CI artifacts) and is shown here, each
#     line prefixed with "[KERNEL] ";
#   - the guest (tests/vm/guest-init.sh, then tests/vm/guest-tests.sh) ends
#     with the marker "pathscope-vm: end rc=N". No marker (hung, killed after
#     PS_VM_TIMEOUT, panicked, failed to boot) or a kernel panic in the log
#     is a failure. The guest's wall seconds (boot to power-off) go to
#     build/vm/KERNEL.seconds (one integer);
#   - then the BPF objects are built against the guest's BTF (they must be
#     make's, byte for byte).
# At the end the guests' "ok - NAME" / "not ok - NAME: WHY" / "skip - NAME: WHY"
# lines, NAME prefixed with the kernel ("ok - 6.1: NAME"), then per kernel
# "KERNEL: N passed, N failed, N skipped", then the total (also in
# build/vm/results.txt). Exits non-zero on any failure.
#
# Accelerator (tests/vm/run_boot.sh, with the rootfs and the qemu arguments,
# sourced): KVM if a short probe boot under KVM reaches the guest's init
# (PS_VM_KVM_PROBE_TIMEOUT seconds, default 10: a KVM boot that works gets
# there in a few), else TCG (5-10x slower). The probe's result is kept in
# build/vm/accel for this rootfs, qemu and host kernel, and reused.
# PS_VM_ACCEL=kvm|tcg skips the probe. Under TCG each guest's two vCPUs
# share one host thread (thread=single): three guests and the ASan stage
# already ask for more than this kind's 2 CPUs, and qemu's one thread per
# vCPU (its default) then spent ~6x the system time kicking and waking
# them: two guest tests on the three kernels took 340 s with it, 291 s
# without (user time the same, 9m12s; system 111 s against 19 s;
# 2026-11-28). PS_VM_TCG_THREAD=multi gives qemu's default back.
#
# Environment: PS_VM_JOBS (guests at once, default 3), PS_VM_TIMEOUT (seconds
# per guest, boot to power-off, default 1800), PS_VM_SLOW (the guest's
# PS_SLOW, default 8), PS_VM_MEM (MiB per guest, default 2048),
# PS_VM_TESTS, PS_VM_GUEST_TESTS (replace guest-tests.sh's lists of tests/run.sh patterns),
# PS_VM_CACHE; CI and PS_TEST_TIMEOUT are passed to the guest. PS_VM_APPEND:
# more kernel arguments for the guests (e.g. "loglevel=7": every kernel
# message on the console, build/vm/KERNEL.log).
#
# Everything it starts (qemu, the peers, the consoles' readers, the jobs) it
# ends by PID, and it deletes the namespaces (so the taps), on exit, failure,
# Ctrl-C or SIGTERM. Only 198.18.100.0/24, 198.18.101.0/24 and
# 2001:db8:100::/64 are used, only inside the namespaces; no interface of the
# root namespace is touched.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
OUT=$ROOT/build/vm
VM_TIMEOUT=${PS_VM_TIMEOUT:-1800}
PROBE_TIMEOUT=${PS_VM_KVM_PROBE_TIMEOUT:-10}
JOBS=${PS_VM_JOBS:-3}
VM_MEM=${PS_VM_MEM:-2048}
VM_SLOW=${PS_VM_SLOW:-8}

HOST4=198.18.100.1 GUEST4=198.18.100.2
HOST6=2001:db8:100::1 GUEST6=2001:db8:100::2
E1000_HOST4=198.18.101.1 E1000_GUEST4=198.18.101.2
# Fixed MACs, and each end's neighbour entry for the other permanent: no ARP
# or ND probe (a stale entry's, 5 s after use) lands in an exact count, such
# as check's pairs of layers, read one after the other (it did once, beside
# three other guests: one probe and its reply between two reads).
HOST_MAC=02:00:c6:12:64:01 GUEST_MAC=52:54:00:12:64:02
E1000_HOST_MAC=02:00:c6:12:65:01 E1000_GUEST_MAC=52:54:00:12:65:02
RSS_HOST4=198.18.102.1 RSS_GUEST4=198.18.102.2
RSS_HOST_MAC=02:00:c6:12:66:01 RSS_GUEST_MAC=52:54:00:12:66:02
IPERF_PORT=5201 SOCKPERF_PORT=11111
END_MARKER='pathscope-vm: end rc='
# sed: the serial console's text as lines: no carriage returns, no escape
# sequences (SeaBIOS clears the screen).
CLEAN='s/\r//g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1b[c()][0-9A-Z]\{0,1\}//g'

CACHE_DIR=    # the rootfs (tests/vm/rootfs.sh)
ACCEL=        # kvm or tcg
ROOTFS_PID=   # rootfs.sh while it builds
NS=           # a job's namespace, psvm-PID-KERNEL (none in the main process)
QEMU_PID=     # the job's running guest (in the main process: the KVM probe)
QEMU_RC=      # its exit status, 124 if it was killed for taking too long
STREAM_PID=   # the console's reader (a process group of its own)
PEER_PIDS=()  # iperf3 and sockperf servers (their `timeout` processes)
declare -A RELEASE=() # short name -> kernel release
declare -A JOB_PID=() # kernel -> its job (a subshell: guest_job)

say() { echo "vm: $*"; }

# ---- processes ---------------------------------------------------------------

# PID [SECONDS]: SIGTERM, then SIGKILL if it is still there after SECONDS (5).
stop_pid() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
	for ((i = 0; i < ${2:-5} * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# LOG NS|- QEMU-ARGS...: start qemu in the background (in namespace NS unless
# "-"), its serial console and its own messages to LOG. stdin is not the
# terminal: qemu would put it in raw mode, and Ctrl-C would go to the guest.
start_qemu() {
	local log=$1 ns=$2
	shift 2
	if [ "$ns" = - ]; then
		qemu-system-x86_64 "$@" </dev/null >"$log" 2>&1 &
	else
		ip netns exec "$ns" qemu-system-x86_64 "$@" </dev/null >"$log" 2>&1 &
	fi
	QEMU_PID=$! # ip netns exec execs qemu: this is qemu
	QEMU_RC=
}

# SECONDS [LOG]: wait for qemu to end; kill it when it takes longer
# (QEMU_RC=124). A guest whose LOG has the end marker gets 30 s more to
# power off, not the rest of SECONDS.
wait_qemu() {
	local deadline=$((SECONDS + $1)) log=${2:-} ended=
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		if [ -n "$log" ] && [ -z "$ended" ] && grep -q "^$END_MARKER" "$log"; then
			ended=1
			[ "$deadline" -gt $((SECONDS + 30)) ] && deadline=$((SECONDS + 30))
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			stop_pid "$QEMU_PID"
			QEMU_PID='' QEMU_RC=124
			return
		fi
		sleep 0.5
	done
	QEMU_RC=0
	wait "$QEMU_PID" 2>/dev/null || QEMU_RC=$?
	QEMU_PID=
}

# LOG PREFIX: show LOG as the guest writes it, each line prefixed, without
# the console's carriage returns and escape sequences. Ends by itself once
# qemu has ended (tail --pid). setsid: tail and sed in a group of their own,
# ended together by stop_stream.
start_stream() {
	# shellcheck disable=SC2016 # expanded by that bash
	setsid bash -c 'tail -n +1 -F --pid="$1" "$2" 2>/dev/null | sed -u -e "$3" -e "s/^/$4/"' \
		sh "$QEMU_PID" "$1" "$CLEAN" "$2" &
	STREAM_PID=$!
}

# Let the reader print the end of the log (tail checks qemu every second),
# then end it if it is still there.
stop_stream() {
	local i
	[ -n "$STREAM_PID" ] || return 0
	for ((i = 0; i < 30; i++)); do
		kill -0 "$STREAM_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM -- "-$STREAM_PID" 2>/dev/null
	wait "$STREAM_PID" 2>/dev/null
	STREAM_PID=
}

# ---- the namespace and the peers ------------------------------------------------

ns_create() {
	ip netns add "$NS" || return 1
	ip -n "$NS" link set lo up
	# Inherited by the taps: no DAD, so the host's IPv6 address works at once.
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.router_solicitations=0
}

# Whatever still runs in the namespace is ours (qemu, the peers): end it by
# PID, then delete the namespace, which takes the taps with it.
ns_destroy() {
	local pid
	[ -n "$NS" ] && [ -e "/var/run/netns/$NS" ] || return 0
	for pid in $(ip netns pids "$NS" 2>/dev/null); do
		stop_pid "$pid" 2
	done
	ip netns del "$NS" 2>/dev/null
}

# Wait (while qemu runs, at most 30 s) for qemu to create both taps.
wait_taps() {
	local i
	for ((i = 0; i < 300; i++)); do
		ip -n "$NS" link show qt0 >/dev/null 2>&1 && ip -n "$NS" link show qt1 >/dev/null 2>&1 &&
			ip -n "$NS" link show qt2 >/dev/null 2>&1 && return 0
		kill -0 "$QEMU_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

setup_taps() {
	ip -n "$NS" link set qt0 address "$HOST_MAC" &&
		ip -n "$NS" addr add "$HOST4/24" dev qt0 &&
		ip -n "$NS" addr add "$HOST6/64" dev qt0 nodad &&
		ip -n "$NS" link set qt0 up &&
		ip -n "$NS" neigh replace "$GUEST4" lladdr "$GUEST_MAC" dev qt0 nud permanent &&
		ip -n "$NS" neigh replace "$GUEST6" lladdr "$GUEST_MAC" dev qt0 nud permanent &&
		ip -n "$NS" link set qt1 address "$E1000_HOST_MAC" &&
		ip -n "$NS" addr add "$E1000_HOST4/24" dev qt1 &&
		ip -n "$NS" link set qt1 up &&
		ip -n "$NS" neigh replace "$E1000_GUEST4" lladdr "$E1000_GUEST_MAC" dev qt1 nud permanent &&
		ip -n "$NS" link set qt2 address "$RSS_HOST_MAC" &&
		ip -n "$NS" addr add "$RSS_HOST4/24" dev qt2 &&
		ip -n "$NS" link set qt2 up &&
		ip -n "$NS" neigh replace "$RSS_GUEST4" lladdr "$RSS_GUEST_MAC" dev qt2 nud permanent
}

# The guest's peers, in the namespace, each ended by `timeout` at the latest
# when the guest's time is up. LOG: their output.
start_peers() {
	local log=$1
	ip netns exec "$NS" timeout -k 5 "$VM_TIMEOUT" iperf3 -s -p "$IPERF_PORT" >>"$log" 2>&1 &
	PEER_PIDS+=($!)
	ip netns exec "$NS" timeout -k 5 "$VM_TIMEOUT" \
		sockperf server --tcp -i "$HOST4" -p "$SOCKPERF_PORT" >>"$log" 2>&1 &
	PEER_PIDS+=($!)
}

stop_peers() {
	local pid
	for pid in "${PEER_PIDS[@]}"; do
		stop_pid "$pid" 2
	done
	PEER_PIDS=()
}

# Everything one guest needs, gone; idempotent (the traps call it too).
cleanup_guest() {
	[ -n "$QEMU_PID" ] && stop_pid "$QEMU_PID" && QEMU_PID=
	stop_peers
	ns_destroy
	stop_stream
}

# shellcheck disable=SC2317 # called by the traps
# SIGTERM to every job (each ends its guest, peers, reader and namespace),
# SIGKILL to a job still there 20 s later; then any namespace a job left
# (ns_destroy ends what runs in it, qemu and the peers, by PID; a reader
# ends with its qemu).
stop_jobs() {
	local k i
	[ ${#JOB_PID[@]} -gt 0 ] || return 0
	for k in "${!JOB_PID[@]}"; do
		kill -TERM "${JOB_PID[$k]}" 2>/dev/null
	done
	for ((i = 0; i < 200; i++)); do
		for k in "${!JOB_PID[@]}"; do
			kill -0 "${JOB_PID[$k]}" 2>/dev/null && break
			k=
		done
		[ -z "$k" ] && break
		sleep 0.1
	done
	for k in "${!JOB_PID[@]}"; do
		kill -KILL "${JOB_PID[$k]}" 2>/dev/null
		wait "${JOB_PID[$k]}" 2>/dev/null
		NS=psvm-$$-$k ns_destroy
	done
	JOB_PID=()
}

# shellcheck disable=SC2317 # called by the traps
on_exit() {
	stop_jobs
	cleanup_guest
	if [ -n "$ROOTFS_PID" ]; then
		# rootfs.sh removes its unfinished build itself on SIGTERM.
		kill -TERM -- "-$ROOTFS_PID" 2>/dev/null
		wait "$ROOTFS_PID" 2>/dev/null
		ROOTFS_PID=
	fi
}

# shellcheck disable=SC2317
on_signal() {
	echo
	say "interrupted: cleaning up (guests, peers, namespaces psvm-$$-*)"
	on_exit
	exit "$1"
}

# ---- the rootfs and the accelerator: tests/vm/run_boot.sh ------------------------

. "$ROOT/tests/vm/run_boot.sh" || exit 1

# ---- one guest ---------------------------------------------------------------------

# The guest's environment (guest-init.sh sources it from /out/vm.env).
write_env() {
	local k=$1 rel=$2 v
	q() { printf 'export %s=%q\n' "$1" "$2"; }
	q PS_VM_KERNEL "$k"
	q PS_VM_KERNEL_RELEASE "$rel"
	q PS_VM_ACCEL "$ACCEL"
	q PS_SLOW "$VM_SLOW"
	q PS_VM_HOST4 "$HOST4"
	q PS_VM_HOST6 "$HOST6"
	q PS_VM_GUEST4 "$GUEST4"
	q PS_VM_GUEST6 "$GUEST6"
	q PS_VM_E1000_HOST4 "$E1000_HOST4"
	q PS_VM_E1000_GUEST4 "$E1000_GUEST4"
	q PS_VM_HOST_MAC "$HOST_MAC"
	q PS_VM_E1000_HOST_MAC "$E1000_HOST_MAC"
	q PS_VM_GUEST_MAC "$GUEST_MAC"
	q PS_VM_RSS_HOST4 "$RSS_HOST4"
	q PS_VM_RSS_GUEST4 "$RSS_GUEST4"
	q PS_VM_RSS_HOST_MAC "$RSS_HOST_MAC"
	q PS_VM_RSS_GUEST_MAC "$RSS_GUEST_MAC"
	q PS_VM_IPERF_PORT "$IPERF_PORT"
	q PS_VM_SOCKPERF_PORT "$SOCKPERF_PORT"
	for v in CI PS_VM_TESTS PS_VM_GUEST_TESTS PS_TEST_TIMEOUT; do
		[ -n "${!v+set}" ] && q "$v" "${!v}"
	done
}

# KERNEL: boot it, run the guest's tests, write build/vm/KERNEL.results:
# the guest's report lines with the kernel in each NAME, and a "not ok"
# line for each way the guest itself failed.
run_kernel() {
	local k=$1 rel res=$OUT/$1 log=$OUT/$1.log results=$OUT/$1.results t0=$SECONDS
	rm -rf "$res" "$log" "$OUT/$k.peers.log" "$OUT/$k.seconds"
	mkdir -p "$res"
	if ! rel=$(release_of "$k"); then
		echo "not ok - $k: no such kernel in the rootfs (it has: $(known_kernels | paste -sd ' '))" >"$results"
		return
	fi
	write_env "$k" "$rel" >"$res/vm.env"
	say "$k: booting $rel ($ACCEL, at most $VM_TIMEOUT s; console: build/vm/$k.log)"

	local boot_err=
	qemu_args "$ACCEL" "$rel" ""
	# shellcheck disable=SC2054 # qemu's options are comma-separated
	ARGS+=(-netdev tap,id=t0,ifname=qt0,script=no,downscript=no,queues=4,vhost=off
		-device virtio-net-pci,netdev=t0,mq=on,vectors=10,romfile=,"addr=3,mac=$GUEST_MAC"
		-netdev tap,id=t1,ifname=qt1,script=no,downscript=no
		-device e1000,netdev=t1,romfile=,"addr=4,mac=$E1000_GUEST_MAC"
		-netdev tap,id=t2,ifname=qt2,script=no,downscript=no,queues=4,vhost=off
		-device virtio-net-pci,netdev=t2,mq=on,vectors=10,rss=on,romfile=,"addr=5,mac=$RSS_GUEST_MAC"
		-virtfs "local,path=$ROOT,mount_tag=ps,security_model=none,readonly=on"
		-virtfs "local,path=$res,mount_tag=out,security_model=none")
	if ! ns_create; then
		boot_err="cannot create the namespace $NS"
	else
		start_qemu "$log" "$NS" "${ARGS[@]}"
		start_stream "$log" "[$k] "
		if ! wait_taps; then
			boot_err="qemu did not start (no taps qt0/qt1/qt2)"
			stop_pid "$QEMU_PID"
			QEMU_PID=
		elif ! setup_taps; then
			boot_err="cannot configure the taps"
		else
			start_peers "$OUT/$k.peers.log"
			wait_qemu "$VM_TIMEOUT" "$log"
		fi
	fi
	cleanup_guest
	echo $((SECONDS - t0)) >"$OUT/$k.seconds"
	say "$k: guest ended after $((SECONDS - t0)) s"
	collect "$k" "$log" "$boot_err" >"$results"
}

# KERNEL: one kernel's job, in a subshell of its own: the guest in its own
# namespace, then the build against its BTF. On SIGTERM (stop_jobs) it ends
# what it started.
guest_job() {
	local k=$1
	NS=psvm-$$-$k # $$: the run's PID, in every job
	trap cleanup_guest EXIT
	trap 'exit 143' TERM
	run_kernel "$k"
	build_against "$k" "$BPF_OBJS" >>"$OUT/$k.results"
}

# The kernels, the longest of the last run (build/vm/KERNEL.seconds) first:
# with fewer jobs than kernels, the last to start is the shortest.
longest_first() {
	local k
	for k in "$@"; do
		echo "$(cat "$OUT/$k.seconds" 2>/dev/null || echo 0) $k"
	done | sort -s -k1,1nr | cut -d' ' -f2
}

# KERNEL...: every kernel's job, at most JOBS at once.
run_jobs() {
	local k
	for k in $(longest_first "$@"); do
		while [ ${#JOB_PID[@]} -ge "$JOBS" ]; do
			reap_job
		done
		guest_job "$k" &
		JOB_PID[$k]=$!
	done
	while [ ${#JOB_PID[@]} -gt 0 ]; do
		reap_job
	done
}

# Wait for a job to end and forget it (JOB_PID holds only running jobs:
# stop_jobs signals no PID that another process may have taken since).
reap_job() {
	local k done_pid=
	wait -n -p done_pid "${JOB_PID[@]}"
	for k in "${!JOB_PID[@]}"; do
		if [ "${JOB_PID[$k]}" = "$done_pid" ] || ! kill -0 "${JOB_PID[$k]}" 2>/dev/null; then
			wait "${JOB_PID[$k]}" 2>/dev/null
			unset "JOB_PID[$k]"
		fi
	done
}

# KERNEL LOG BOOT_ERROR: the report lines of one guest (see run_kernel).
collect() {
	local k=$1 log=$2 boot_err=$3 text panic bug end last
	text=$(sed -e "$CLEAN" "$log" 2>/dev/null)
	grep -E '^(ok|not ok|skip) - ' <<<"$text" | sed -E "s/^(ok|not ok|skip) - /\1 - $k: /"
	if [ -n "$boot_err" ]; then
		echo "not ok - $k: $boot_err: $(grep -v '^\s*$' <<<"$text" | tail -n 1)"
		return
	fi
	# A panic is one failure, whether or not the guest got to its end marker.
	panic=$(grep -m 1 -o 'Kernel panic - not syncing.*' <<<"$text")
	end=$(grep -a "^$END_MARKER" <<<"$text" | tail -n 1)
	if [ -n "$panic" ]; then
		bug=$(grep -m 1 -o 'BUG: .*' <<<"$text")
		echo "not ok - $k: guest panicked: $panic${bug:+ ($bug)}, in $(grep -E '^# (tests|build)/' <<<"$text" | tail -n 1 | cut -c3-)"
	elif [ -z "$end" ]; then
		last=$(grep -m 1 -o 'pathscope-vm: init failed.*' <<<"$text")
		if [ "$QEMU_RC" = 124 ]; then
			last="killed after $VM_TIMEOUT s"
		elif [ -z "$last" ]; then
			last="qemu exited with status $QEMU_RC"
		fi
		echo "not ok - $k: guest hung or panicked (no end marker; $last)"
	elif [ "${end#"$END_MARKER"}" != 0 ] && ! grep -q '^not ok - ' <<<"$text"; then
		echo "not ok - $k: the guest's tests exited with status ${end#"$END_MARKER"} and reported no failure"
	fi
}

# ---- the build, against each guest's kernel -------------------------------------

# The BPF objects built with each guest kernel's BTF in place of this host's
# (bind-mounted over /sys/kernel/btf/vmlinux in a mount namespace of their
# own) must be make's, byte for byte: nothing of the build depends on the
# kernel it runs on. Results as "ok"/"not ok" lines in each kernel's results.
BPF_OBJS="pathscope_xdp pathscope_tc pathscope_txlat pathscope_kernel pathscope_sock"

build_against() { # KERNEL OBJECTS
	local k=$1 objs=$2 btf t o
	btf=$OUT/$k/vmlinux.btf
	if [ ! -s "$btf" ]; then
		echo "not ok - $k: build against its BTF: the guest wrote no $btf"
		return
	fi
	t=$(mktemp -d)
	if unshare -m sh -c "mount --bind '$btf' /sys/kernel/btf/vmlinux &&
		cmp -s '$btf' /sys/kernel/btf/vmlinux &&
		make -s BUILD='$t' $(for o in $objs; do printf '%s ' "$t/$o.bpf.o"; done)" \
		>"$t/log" 2>&1; then
		for o in $objs; do
			cmp -s "$t/$o.bpf.o" "build/$o.bpf.o" &&
				echo "ok - $k: $o.bpf.o built with $k's BTF as the host's is make's, byte for byte" ||
				echo "not ok - $k: $o.bpf.o built with $k's BTF differs from make's"
		done
	else
		echo "not ok - $k: build with $k's BTF: $(tail -1 "$t/log")"
	fi
	rm -rf "$t"
}

# ---- summary -----------------------------------------------------------------------

count() { grep -c "^$1 - " "$2"; }

summary() {
	local k p f s tp=0 tf=0 ts=0
	# Every line went by as the guests ran: here what failed or was skipped.
	say "failed or skipped (every line: build/vm/results.txt and build/vm/KERNEL.results):"
	for k in "$@"; do
		grep -E '^(not ok|skip) - ' "$OUT/$k.results"
	done
	for k in "$@"; do
		p=$(count ok "$OUT/$k.results") f=$(count 'not ok' "$OUT/$k.results") s=$(count skip "$OUT/$k.results")
		echo "$k: $p passed, $f failed, $s skipped"
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	done
	echo "$tp passed, $tf failed, $ts skipped"
	[ "$tf" -eq 0 ]
}

# The rootfs and the accelerator, once at a time (a --prepare in the
# background, a run waiting for it): flock on build/vm/.prepare.lock.
prepare() {
	local probe
	exec 8>"$OUT/.prepare.lock"
	flock 8 || { say "cannot lock $OUT/.prepare.lock" && return 1; }
	if ! get_rootfs; then
		echo "not ok - vm: no guest rootfs (tests/vm/rootfs.sh failed)"
		return 1
	fi
	probe=$(known_kernels | head -n 1) # the same kernel whatever the run's
	choose_accel "${RELEASE[$probe]}" || return 1
	flock -u 8
	exec 8>&-
}

main() {
	local kernels=() k cmd rc=0
	if [ "$(id -u)" -ne 0 ]; then
		echo "not ok - vm: needs root (qemu's taps in a namespace, the rootfs)"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	case $VM_TIMEOUT in '' | *[!0-9]* | 0)
		echo "not ok - vm: PS_VM_TIMEOUT must be a number of seconds > 0, not '$VM_TIMEOUT'"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
		;;
	esac
	mkdir -p "$OUT"
	trap on_exit EXIT
	trap 'on_signal 130' INT
	trap 'on_signal 143' TERM

	if [ "${1:-}" = --prepare ]; then
		prepare || exit 1
		say "prepared: rootfs $CACHE_DIR, accelerator $ACCEL (build/vm/accel)"
		exit 0
	fi
	case $JOBS in '' | *[!0-9]* | 0)
		echo "not ok - vm: PS_VM_JOBS must be a number > 0, not '$JOBS'"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
		;;
	esac
	if ! prepare; then
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	for cmd in qemu-system-x86_64 iperf3 sockperf; do
		command -v "$cmd" >/dev/null || {
			echo "not ok - vm: $cmd not installed (make deps)"
			echo "0 passed, 1 failed, 0 skipped"
			exit 1
		}
	done
	[ -x build/pathscope ] || say "build/pathscope is missing (make all): the guests' tests will fail"
	if [ $# -gt 0 ]; then
		kernels=("$@")
	else
		mapfile -t kernels < <(known_kernels)
	fi
	say "${#kernels[@]} guests, $JOBS at a time"

	run_jobs "${kernels[@]}"
	for k in "${kernels[@]}"; do
		[ -s "$OUT/$k.results" ] || echo "not ok - $k: its job ended without results" >>"$OUT/$k.results"
	done
	for k in "${kernels[@]}"; do cat "$OUT/$k.results"; done >"$OUT/results.txt"
	summary "${kernels[@]}" | tee -a "$OUT/results.txt"
	rc=${PIPESTATUS[0]}
	exit "$rc"
}

main "$@"
