# tests/vm/run_boot.sh: sourced by tests/vm/run.sh (after its settings and
# process helpers): the rootfs and its kernels, the qemu arguments a guest
# boots with, and the accelerator (KVM after a probe boot, else TCG).
# shellcheck shell=bash

# ---- the rootfs and the accelerator --------------------------------------------------

# Build or reuse the rootfs; fill RELEASE. rootfs.sh runs in a process group
# of its own in the background, so that a signal here stops it at once
# (bash runs traps only between commands; `wait` is interrupted).
get_rootfs() {
	local short rel rc=0
	setsid bash tests/vm/rootfs.sh >"$OUT/rootfs.dir" &
	ROOTFS_PID=$!
	wait "$ROOTFS_PID" || rc=$?
	ROOTFS_PID=
	[ "$rc" -eq 0 ] || return 1
	CACHE_DIR=$(tail -n 1 "$OUT/rootfs.dir")
	[ -f "$CACHE_DIR/rootfs.img" ] || return 1
	while read -r short rel _; do
		RELEASE[$short]=$rel
	done <"$CACHE_DIR/kernels"
}

# The rootfs' kernels' short names, oldest first, one a line.
known_kernels() { printf '%s\n' "${!RELEASE[@]}" | sort -V; }

# KERNEL: its release (from a short name or a full release), or nothing.
release_of() {
	local s
	[ -n "${RELEASE[$1]:-}" ] && echo "${RELEASE[$1]}" && return 0
	for s in "${!RELEASE[@]}"; do
		[ "${RELEASE[$s]}" = "$1" ] && echo "$1" && return 0
	done
	return 1
}

# A guest that locks up panics at once (so qemu ends, -no-reboot), rather
# than at VM_TIMEOUT, and shows every CPU's stack: loglevel=5 (not quiet)
# lets the stacks (KERN_DEFAULT) through, not the info lines. Debian's 5.10
# hung twice in six runs, both CPUs in iperf3 (soft lockup, RCU stall).
# Under TCG the guest runs many times slower than on a CPU, and the soft
# lockup detector's 20 s (2 x watchdog_thresh 10) is then a fraction of
# what a busy softirq takes: a fresh-clone CI run had 5.10 panic with CPU 0
# 22 s in __do_softirq right after a detach of every feature (RCU starved,
# no test code running). There the threshold is 60 s (watchdog_thresh 30):
# a real hang still panics, 40 s later.
LOCKUP="softlockup_panic=1 softlockup_all_cpu_backtrace=1"

# ACCEL RELEASE APPEND: the qemu arguments every boot shares, in ARGS.
# -nodefaults: no VGA, no default NIC; romfile= (below): no iPXE, nothing to
# boot from the network. The NICs' PCI slots (addr=3, 4) make them ens3 and
# ens4 in the guest (ens2 and ens3 without a VGA card in slot 2).
qemu_args() {
	local accel=$1
	[ "$1" = tcg ] && accel="tcg,thread=${PS_VM_TCG_THREAD:-single}"
	ARGS=(-accel "$accel" -m "$VM_MEM" -smp 2 -nodefaults -display none -serial stdio -no-reboot
		-kernel "$CACHE_DIR/boot/vmlinuz-$2" -initrd "$CACHE_DIR/boot/initrd.img-$2"
		-drive "file=$CACHE_DIR/rootfs.img,format=raw,if=virtio,snapshot=on"
		-append "console=ttyS0 root=/dev/vda rw init=/ps-init panic=-1 $LOCKUP$([ "$1" = tcg ] && echo " watchdog_thresh=30") loglevel=5 $3 ${PS_VM_APPEND:-}")
}

# What the probe's answer holds for: this rootfs and kernel, this qemu, this
# host kernel, and whether /dev/kvm can be opened.
accel_key() { # RELEASE
	printf '%s\n' "$CACHE_DIR" "$1" "$(qemu-system-x86_64 --version | head -1)" "$(uname -r)" \
		"$([ -w /dev/kvm ] && echo kvm)" | sha256sum | cut -c1-16
}

# KVM only when a guest really runs under it: /dev/kvm may exist where
# nested virtualization does not work (the guest then hangs while booting).
# The answer goes to build/vm/accel ("KEY ACCEL WHY"), and a later run with
# the same key takes it from there.
choose_accel() {
	local rel=$1 t0=$SECONDS log=$OUT/kvm-probe.log key why kept
	case ${PS_VM_ACCEL:-} in
	kvm | tcg)
		ACCEL=$PS_VM_ACCEL
		say "accelerator: $ACCEL (PS_VM_ACCEL)"
		return
		;;
	'') ;;
	*) say "PS_VM_ACCEL must be kvm or tcg, not '$PS_VM_ACCEL'" && return 1 ;;
	esac
	key=$(accel_key "$rel")
	if read -r kept ACCEL why 2>/dev/null <"$OUT/accel" && [ "$kept" = "$key" ] &&
		{ [ "$ACCEL" = kvm ] || [ "$ACCEL" = tcg ]; }; then
		say "accelerator: $ACCEL (build/vm/accel: $why)"
		return
	fi
	ACCEL=tcg
	if [ ! -w /dev/kvm ]; then
		why="no usable /dev/kvm"
	else
		qemu_args kvm "$rel" ps_probe
		start_qemu "$log" - "${ARGS[@]}"
		wait_qemu "$PROBE_TIMEOUT"
		if grep -q 'pathscope-vm: probe ok' "$log"; then
			ACCEL=kvm
			why="a probe boot under KVM reached init in $((SECONDS - t0)) s"
		elif [ "$QEMU_RC" = 124 ]; then
			why="a probe boot under KVM did not reach init in $PROBE_TIMEOUT s: $log"
		else
			why="a probe boot under KVM failed, status $QEMU_RC: $(tail -n 1 "$log" | tr -d '\r')"
		fi
	fi
	echo "$key $ACCEL $why" >"$OUT/accel"
	say "accelerator: $ACCEL ($why)"
}
