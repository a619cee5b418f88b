#!/usr/bin/env bash
# tests/vm/guest-init.sh: the guest side of the kernel matrix (tests/vm/run.sh).
# Run by the image's /ps-init stub (tests/vm/rootfs.sh) once the two 9p
# shares are mounted: /ps, the repository (read-only), and /out, this
# kernel's results directory (build/vm/KERNEL/ on the host). Sets the guest
# up, runs tests/vm/guest-tests.sh with its output on the serial console,
# prints the end marker "pathscope-vm: end rc=N" (run.sh counts a guest
# without it as hung or panicked) and powers off.
#
# The guest's network (run.sh owns the other ends, taps in a namespace of its own):
#   virtio-net, 4 queues (PS_VM_DEV, e.g. ens3): PS_VM_GUEST4/24, PS_VM_GUEST6/64
#                          host end qt0:          PS_VM_HOST4,    PS_VM_HOST6
#   e1000 (PS_VM_E1000_DEV, e.g. ens4):          PS_VM_E1000_GUEST4/24
#   virtio-net with RSS (PS_VM_RSS_DEV, e.g. ens5): PS_VM_RSS_GUEST4/24
#                          host end qt1:          PS_VM_E1000_HOST4
# On the host: iperf3 -s on PS_VM_IPERF_PORT and sockperf server --tcp on
# PS_VM_HOST4:PS_VM_SOCKPERF_PORT; ping is answered by the host's kernel.
#
# Environment for the tests: run.sh writes /out/vm.env (PS_VM_KERNEL, the
# addresses, CI, PS_SLOW, ...); this script adds PS_VM=1, PS_VM_DEV,
# PS_VM_E1000_DEV, PS_VM_OUT=/out, PS_BUILD=build. Everything that writes
# must write to /tmp (tmpfs) or /out: /ps is read-only.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LC_ALL=C.UTF-8 TERM=dumb

say() { echo "pathscope-vm: $*"; }

# The kernel's and initramfs' mounts stay; what is missing is added.
mount_fs() { # TYPE DIR [OPTIONS]
	mountpoint -q "$2" && return 0
	mkdir -p "$2"
	mount -t "$1" ${3:+-o "$3"} "$1" "$2" || say "cannot mount $1 on $2"
}

setup_mounts() {
	mount_fs proc /proc
	mount_fs sysfs /sys
	mount_fs devtmpfs /dev
	mount_fs devpts /dev/pts
	mount_fs tmpfs /dev/shm mode=1777
	mount_fs tmpfs /run mode=755
	mount_fs tmpfs /tmp mode=1777
	mount_fs bpf /sys/fs/bpf
	mount_fs tracefs /sys/kernel/tracing
	mount_fs debugfs /sys/kernel/debug
	mount_fs cgroup2 /sys/fs/cgroup
	mkdir -p /run/netns /var/run
}

# The NIC whose driver is DRIVER (names depend on whether udev renamed it in
# the initramfs: ens3/ens4, or eth0/eth1).
nic_by_driver() {
	local d drv
	for d in /sys/class/net/*; do
		drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = "$1" ] && echo "${d##*/}" && return 0
	done
	return 1
}

# The NIC whose MAC address is MAC.
nic_by_mac() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && echo "${d##*/}" && return 0
	done
	return 1
}

# Wait (at most 10 s) for the NIC of MAC to appear; prints its name.
wait_mac() {
	local _
	for _ in $(seq 100); do
		nic_by_mac "$1" && return 0
		sleep 0.1
	done
	say "no network interface of MAC address $1"
	return 1
}

# Wait (at most 10 s) for the NIC of DRIVER to appear; prints its name.
wait_nic() {
	local _
	for _ in $(seq 100); do
		nic_by_driver "$1" && return 0
		sleep 0.1
	done
	say "no network interface of driver $1"
	return 1
}

setup_network() {
	modprobe virtio_net
	modprobe e1000
	# No udev here: /dev/net/tun (the tests' tap devices) appears only once
	# tun is loaded. Other modules (veth, qdiscs) the kernel loads on demand.
	modprobe tun
	ip link set lo up
	PS_VM_DEV=$(wait_nic virtio_net)
	PS_VM_E1000_DEV=$(wait_nic e1000)
	# Two virtio-net NICs: told apart by their MAC addresses.
	PS_VM_DEV=$(wait_mac "$PS_VM_GUEST_MAC")
	PS_VM_RSS_DEV=$(wait_mac "$PS_VM_RSS_GUEST_MAC")
	export PS_VM_DEV PS_VM_E1000_DEV PS_VM_RSS_DEV
	if [ -n "$PS_VM_DEV" ]; then
		# virtio_net starts with one queue pair per CPU (2): use all 4.
		ethtool -L "$PS_VM_DEV" combined 4 || say "ethtool -L $PS_VM_DEV combined 4 failed"
		ip addr add "$PS_VM_GUEST4/24" dev "$PS_VM_DEV"
		ip addr add "$PS_VM_GUEST6/64" dev "$PS_VM_DEV" nodad
		ip link set "$PS_VM_DEV" up
		# Permanent, as the host's entries for the guest (run.sh): no
		# neighbour probe in the tests' exact counts.
		ip neigh replace "$PS_VM_HOST4" lladdr "$PS_VM_HOST_MAC" dev "$PS_VM_DEV" nud permanent
		ip neigh replace "$PS_VM_HOST6" lladdr "$PS_VM_HOST_MAC" dev "$PS_VM_DEV" nud permanent
	fi
	if [ -n "$PS_VM_RSS_DEV" ]; then
		ethtool -L "$PS_VM_RSS_DEV" combined 4 || say "ethtool -L $PS_VM_RSS_DEV combined 4 failed"
		ip addr add "$PS_VM_RSS_GUEST4/24" dev "$PS_VM_RSS_DEV"
		ip link set "$PS_VM_RSS_DEV" up
		ip neigh replace "$PS_VM_RSS_HOST4" lladdr "$PS_VM_RSS_HOST_MAC" dev "$PS_VM_RSS_DEV" nud permanent
	fi
	if [ -n "$PS_VM_E1000_DEV" ]; then
		ip addr add "$PS_VM_E1000_GUEST4/24" dev "$PS_VM_E1000_DEV"
		ip link set "$PS_VM_E1000_DEV" up
		ip neigh replace "$PS_VM_E1000_HOST4" lladdr "$PS_VM_E1000_HOST_MAC" dev "$PS_VM_E1000_DEV" nud permanent
	fi
}

main() {
	local rc=0
	setup_mounts
	echo "psvm-$(uname -r)" >/proc/sys/kernel/hostname
	# shellcheck source=/dev/null
	. /out/vm.env || say "no /out/vm.env from the host"
	export PS_VM=1 PS_VM_OUT=/out PS_BUILD=build PS_SLOW=${PS_SLOW:-8}
	say "kernel $(uname -r) ($PS_VM_KERNEL), accelerator ${PS_VM_ACCEL:-?}, PS_SLOW=$PS_SLOW, CI=${CI:-}"
	setup_network
	cd /ps || exit 1
	bash tests/vm/guest-tests.sh 2>&1 | tee /out/guest-tests.log
	rc=${PIPESTATUS[0]}
	dmesg >/out/dmesg.txt 2>&1
	sync
	say "end rc=$rc"
	echo 1 >/proc/sys/kernel/sysrq
	sleep 1 # let the serial console drain before the power goes
	echo o >/proc/sysrq-trigger
	sleep 60
}

main "$@"
