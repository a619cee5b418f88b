#!/usr/bin/env bash
# tests/vm/rootfs.sh: build, or reuse, the guest of the qemu kernel matrix
# (tests/vm/run.sh): a Debian 12 root file system holding Debian's own 5.10,
# 6.1 and 6.12 kernels, as an ext4 image, cached outside the tree.
#
# Usage: tests/vm/rootfs.sh   (as root; prints the cache directory on stdout,
#                              its progress on stderr)
#
# The cache directory, ${PS_VM_CACHE:-/var/cache/pathscope-vm}/rootfs-KEY/, holds
#   rootfs.img        the ext4 image (boot it with -snapshot: it never changes)
#   boot/             each kernel's vmlinuz-RELEASE and initrd.img-RELEASE
#   kernels           one line per kernel: SHORT RELEASE PACKAGE VERSION,
#                     e.g. "6.1 6.1.0-50-amd64 linux-image-6.1.0-50-amd64 6.1.176-1"
#   packages          dpkg -l of the guest, recipe (what KEY hashes), build.log
# KEY is a hash of the recipe below (packages, kernels, mirrors, the /ps-init
# stub, the image size): changing any of them builds a new rootfs, and the
# older ones are removed once it is complete. The build happens in a
# temporary directory beside it that is renamed into place only when
# complete, so a run cut short never leaves a half rootfs that is reused
# later (the next build removes such leftovers). The exact kernel versions
# are resolved when building (they move with Debian's archive) and written
# to `kernels`; PS_VM_REBUILD=1 builds again with what the archive has now.
#
# The image's /ps-init (the kernel's init=) is only a stub: it mounts the
# two 9p shares run.sh exports (the repository, read-only, on /ps; the
# results directory on /out) and runs /ps/tests/vm/guest-init.sh from the
# repository, so the guest's logic changes without rebuilding the image.
#
# Cold build, measured on the project's build machine: about 3 min (170-190 s:
# debootstrap, three kernels and their initrds, the image). A failed build
# leaves its log in PS_VM_CACHE/failed-build.log.
set -u -o pipefail

CACHE=${PS_VM_CACHE:-/var/cache/pathscope-vm}
MIRROR=${PS_VM_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${PS_VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SUITE=bookworm
IMAGE_SIZE=4G

# What a test in the guest may need. pathscope's runtime libraries (it is
# built on the host, against Debian 12, and run from the 9p share): libbpf1
# libxdp1 libmnl0 libjson-c5 libmicrohttpd12 libprotobuf-c1 libelf1 zlib1g,
# libyaml-0-2 libgnutls30 libcrypt1 (serve --web-config).
# The rest: the tools the tests call (tests/integration/lib.sh and the
# tests), initramfs-tools for the kernels' initrds.
GUEST_PKGS=(
	libbpf1 libxdp1 libmnl0 libjson-c5 libmicrohttpd12 libprotobuf-c1 libelf1 zlib1g
	libyaml-0-2 libgnutls30 libcrypt1
	iproute2 ethtool iputils-ping kmod procps util-linux initramfs-tools
	xdp-tools bpftool tcpdump python3 python3-scapy
	iperf3 sockperf netcat-openbsd jq curl prometheus
)

# The kernels: SHORT SUITE PACKAGE. PACKAGE in SUITE is a meta package whose
# dependency names the kernel (e.g. linux-image-5.10.0-32-amd64); the
# version it pins is the one installed.
KERNELS=(
	"5.10 bullseye linux-image-amd64"
	"6.1 bookworm linux-image-amd64"
	"6.12 bookworm-security linux-image-6.12-amd64"
)

# /ps-init, PID 1 of the guest. It powers the guest off in the end whatever
# happens (an init that exits panics the kernel). With "ps_probe" on the
# kernel's command line it only says so and powers off: run.sh's test of
# whether KVM works.
INIT_STUB='#!/bin/bash
# pathscope-vm: init stub written by tests/vm/rootfs.sh; the guest logic is
# /ps/tests/vm/guest-init.sh, in the repository shared by the host.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
off() {
	sync
	echo 1 >/proc/sys/kernel/sysrq
	sleep 1 # let the serial console drain
	echo o >/proc/sysrq-trigger
	sleep 60
}
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sys /sys
if grep -qw ps_probe /proc/cmdline; then
	echo "pathscope-vm: probe ok"
	off
fi
modprobe 9pnet_virtio
modprobe 9p
mkdir -p /ps /out
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=131072,ro ps /ps; then
	echo "pathscope-vm: init failed: cannot mount the repository share (9p tag ps)"
elif ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=131072 out /out; then
	echo "pathscope-vm: init failed: cannot mount the results share (9p tag out)"
elif [ ! -f /ps/tests/vm/guest-init.sh ]; then
	echo "pathscope-vm: init failed: no tests/vm/guest-init.sh in the repository share"
else
	bash /ps/tests/vm/guest-init.sh
fi
off
'

log() { echo "rootfs: $*" >&2; }
die() {
	log "$*"
	exit 1
}

# ---- host dependencies -------------------------------------------------------

host_deps() {
	local missing=() cmd pkg
	for cmd in qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap mke2fs:e2fsprogs; do
		pkg=${cmd#*:}
		command -v "${cmd%%:*}" >/dev/null 2>&1 || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# run.sh --prepare may run beside another apt-get (make deps): wait for its lock.
	apt-get -o DPkg::Lock::Timeout=600 update -qq &&
		apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

# ---- cache bookkeeping -----------------------------------------------------------

recipe() {
	printf 'format 1\nsuite %s\nmirror %s\nsecurity %s\nimage %s\n' \
		"$SUITE" "$MIRROR" "$SECURITY_MIRROR" "$IMAGE_SIZE"
	printf 'package %s\n' "${GUEST_PKGS[@]}"
	printf 'kernel %s\n' "${KERNELS[@]}"
	printf '%s' "$INIT_STUB"
}

# Unmount whatever is mounted under DIR (debootstrap and the chroot mount
# proc and sys there; a run cut short may leave them), deepest first.
umount_under() {
	local dir=$1 m
	awk -v d="$dir/" 'index($5 "/", d) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do
			umount -l "$m" 2>/dev/null
		done
}

# Remove a build directory: unmount first, never cross into another file system.
remove_dir() {
	[ -e "$1" ] || return 0
	umount_under "$1"
	rm -rf --one-file-system "$1"
}

print_kernels() {
	local short rel pkg ver
	while read -r short rel pkg ver; do
		log "kernel $short = $rel ($pkg $ver)"
	done <"$1/kernels"
}

# ---- the build -------------------------------------------------------------------

TMP=
on_exit() {
	[ -n "$TMP" ] && remove_dir "$TMP"
}

# chroot DIR CMD...: with /proc and /sys mounted for the maintainer scripts
# (update-initramfs), unmounted again after.
in_root() {
	local root=$1 rc=0
	shift
	mount -t proc proc "$root/proc" && mount -t sysfs sys "$root/sys" || return 1
	DEBIAN_FRONTEND=noninteractive LC_ALL=C chroot "$root" "$@" || rc=$?
	umount_under "$root"
	return "$rc"
}

# Resolve each KERNELS line to the package and version its meta package
# depends on; prints "SHORT PACKAGE VERSION" lines.
resolve_kernels() {
	local root=$1 line short suite meta dep
	for line in "${KERNELS[@]}"; do
		read -r short suite meta <<<"$line"
		dep=$(chroot "$root" apt-cache show "$meta/$suite" 2>/dev/null |
			sed -n 's/^Depends: .*\(linux-image-[^ ,]*\) (= \([^)]*\)).*/\1 \2/p' | head -1)
		[ -n "$dep" ] || { log "no $meta in $suite"; return 1; }
		echo "$short $dep"
	done
}

build() {
	local dir=$1 root=$1/root short pkg ver rel installs=() t0=$SECONDS
	mkdir -p "$root" || return 1

	log "debootstrap $SUITE (minbase + ${#GUEST_PKGS[@]} packages, ~100 s) -> $dir/build.log"
	debootstrap --variant=minbase --include="$(
		IFS=,
		echo "${GUEST_PKGS[*]}"
	)" "$SUITE" "$root" "$MIRROR" >>"$dir/build.log" 2>&1 ||
		{ log "debootstrap failed:" && tail -n 20 "$dir/build.log" >&2 && return 1; }

	# The kernels come from three suites; bookworm's own packages win for
	# everything else (apt picks the highest version).
	cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $SECURITY_MIRROR bookworm-security main
deb $MIRROR bullseye main
EOF
	log "kernels (~60 s)"
	in_root "$root" apt-get update -qq >>"$dir/build.log" 2>&1 || { log "apt-get update failed" && return 1; }
	resolve_kernels "$root" >"$dir/resolved" || return 1
	while read -r short pkg ver; do
		installs+=("$pkg=$ver")
	done <"$dir/resolved"
	in_root "$root" apt-get install -y -q --no-install-recommends "${installs[@]}" >>"$dir/build.log" 2>&1 ||
		{ log "installing ${installs[*]} failed:" && tail -n 20 "$dir/build.log" >&2 && return 1; }

	# Map each short name to the release it installed (/boot/vmlinuz-RELEASE).
	: >"$dir/kernels"
	while read -r short pkg ver; do
		rel=${pkg#linux-image-}
		[ -f "$root/boot/vmlinuz-$rel" ] && [ -f "$root/boot/initrd.img-$rel" ] ||
			{ log "$pkg installed no /boot/vmlinuz-$rel or initrd.img-$rel" && return 1; }
		echo "$short $rel $pkg $ver" >>"$dir/kernels"
	done <"$dir/resolved"
	rm -f "$dir/resolved"

	# Only bookworm in the guest's sources; no package lists or .debs in the image.
	echo "deb $MIRROR bookworm main" >"$root/etc/apt/sources.list"
	chroot "$root" apt-get clean
	rm -rf "$root"/var/lib/apt/lists/*
	chroot "$root" dpkg -l >"$dir/packages"
	printf '%s' "$INIT_STUB" >"$root/ps-init" && chmod 755 "$root/ps-init"
	mkdir -p "$root/ps" "$root/out"
	echo psvm >"$root/etc/hostname"

	mkdir -p "$dir/boot"
	cp "$root"/boot/vmlinuz-* "$root"/boot/initrd.img-* "$dir/boot/" || return 1
	log "ext4 image ($IMAGE_SIZE, sparse)"
	mke2fs -q -t ext4 -L psvm -d "$root" "$dir/rootfs.img" "$IMAGE_SIZE" >>"$dir/build.log" 2>&1 ||
		{ log "mke2fs failed:" && tail -n 5 "$dir/build.log" >&2 && return 1; }
	# The image has it all; the tree would only double the cache's size.
	remove_dir "$root"
	log "built in $((SECONDS - t0)) s"
}

main() {
	local key final d
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot)"
	host_deps
	mkdir -p "$CACHE" || die "cannot create $CACHE"
	key=$(recipe | sha256sum | cut -c1-16)
	final=$CACHE/rootfs-$key

	# One builder at a time; a second run waits for the first one's result.
	exec 9>"$CACHE/.lock"
	flock 9 || die "cannot lock $CACHE/.lock"

	if [ "${PS_VM_REBUILD:-0}" = 1 ] && [ -d "$final" ]; then
		log "PS_VM_REBUILD=1: removing $final"
		remove_dir "$final"
	fi
	if [ -f "$final/rootfs.img" ] && [ -s "$final/kernels" ]; then
		log "reusing $final"
	else
		# Leftovers of builds cut short (we hold the lock: none is running).
		for d in "$CACHE"/.build-*; do
			[ -e "$d" ] && log "removing the unfinished build $d" && remove_dir "$d"
		done
		TMP=$CACHE/.build-$key-$$
		trap on_exit EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		log "building $final (cache key $key)"
		mkdir -p "$TMP" && recipe >"$TMP/recipe" || die "cannot write $TMP"
		if ! build "$TMP"; then
			cp "$TMP/build.log" "$CACHE/failed-build.log" 2>/dev/null
			die "build failed (its log: $CACHE/failed-build.log); the next run starts again"
		fi
		mv -T "$TMP" "$final" || die "cannot rename $TMP to $final"
		TMP=
		# Older recipes' rootfs: replaced by this one.
		for d in "$CACHE"/rootfs-*; do
			[ "$d" = "$final" ] || { log "removing the outdated $d" && remove_dir "$d"; }
		done
	fi
	print_kernels "$final"
	echo "$final"
}

main "$@"
