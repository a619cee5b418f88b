#!/usr/bin/env bash
# The BPF objects do not depend on the kernel they are built on: they take
# the kernel's types from include/pathscope/kernel_types.bpf.h and the UAPI from
# linux-libc-dev, and CO-RE fits them to the running kernel at load time.
# Built again with the build host's kernel BTF hidden (/dev/null over
# /sys/kernel/btf/vmlinux, in a mount namespace of its own), every object
# must come out byte for byte the same as make's. (tests/vm/run.sh does the
# same with the BTF of each kernel of the matrix in its place.)
. "$(dirname "$0")/lib.sh"
N=build_host
ps_require_root "$N"
ps_require_cmd "$N" unshare make clang cmp
OBJS="pathscope_xdp pathscope_tc pathscope_txlat pathscope_kernel pathscope_sock"
for o in $OBJS; do
	[ -r "$PS_BIN/$o.bpf.o" ] || { ps_skip "$N" "$PS_BIN/$o.bpf.o not built (make)"; ps_done; }
done
T=$(mktemp -d)
ps_at_exit "rm -rf $T"
targets=$(for o in $OBJS; do printf '%s ' "$T/$o.bpf.o"; done)
# shellcheck disable=SC2086
out=$(cd "$PS_ROOT" && unshare -m sh -c "mount --bind /dev/null /sys/kernel/btf/vmlinux &&
	test ! -s /sys/kernel/btf/vmlinux && make -s BUILD=$T $targets" 2>&1) ||
	ps_fail "$N: build with the host's BTF hidden" "$out"
for o in $OBJS; do
	cmp -s "$T/$o.bpf.o" "$PS_BIN/$o.bpf.o" &&
		ps_ok "$N: $o.bpf.o built without the host's BTF is make's, byte for byte" ||
		ps_fail "$N: $o.bpf.o built without the host's BTF is make's" "objects differ"
done
ps_check_eq "$N: make reads no kernel BTF (no rule names /sys/kernel/btf)" \
	"$(grep -c '/sys/kernel/btf' "$PS_ROOT/Makefile")" 0
ps_done
