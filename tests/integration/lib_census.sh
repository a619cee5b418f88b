# shellcheck shell=bash
# lib.sh's census of pathscope's kernel objects and the one-line error checks.
# Sourced by lib.sh: read lib.sh first.

# ---- census of pathscope's kernel objects ---------------------------------------

# What pathscope (and the stand-ins) have in the kernel, to compare before and
# after. Programs and maps are counted by name so that unrelated BPF users of
# the machine do not disturb the census; links, pins, qdiscs, XDP are ours.
PS_OURS='^(pathscope|pathscop\.|xdp_stats|tci_stats|tce_stats|standin|echo_|d2s_|tcp_|sock_|kern_stats|napi_|drops$|softirq$|xdp_exceptions|xmit_slot|tx_inflight|tx_tick|txlat_stats|xdp_chain)'
ps_census() {
	# One jq for programs and maps (each jq costs ~25 ms; tests take dozens).
	echo "$( (bpftool prog show -j; bpftool map show -j) | jq -rs --arg re "$PS_OURS" '
		map([.[] | select(.name // "" | test($re))])
		| "progs=\(.[0] | length) maps=\(.[1] | length) memlock=\([.[][] | .bytes_memlock // 0] | add // 0)"')" \
		"links=$(bpftool link show | grep -c '^[0-9]*:')" \
		"pins=$(find /sys/fs/bpf/pathscope 2>/dev/null | wc -l)" \
		"qdiscs=$(tc -n "$NS_B" qdisc show dev vB | wc -l)" \
		"xdp=$(ip -n "$NS_B" -d link show vB | grep -c 'prog/xdp')"
}
# The kernel frees closed programs and maps asynchronously (RCU, work
# queues): wait until the census settles at WANT (at most 5 s, by the clock:
# a census takes up to 1 s on a busy machine), print it.
ps_census_is() {
	local deadline=$((SECONDS + 5)) now
	while :; do
		now=$(ps_census)
		[ "$now" = "$1" ] || [ "$SECONDS" -ge "$deadline" ] && break
		sleep 0.1
	done
	echo "$now"
}
# A census that has stopped changing (for a baseline; at most 6 s).
ps_census_stable() {
	local deadline=$((SECONDS + 6)) a b
	b=$(ps_census)
	while [ "$SECONDS" -lt "$deadline" ]; do
		a=$b
		sleep 0.3
		b=$(ps_census)
		[ "$a" = "$b" ] && break
	done
	echo "$b"
}
# Run CMD, expect exit status != 0 and exactly one line on stderr matching RE.
ps_expect_error() {
	local name=$1 re=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
	if [ "$rc" -ne 0 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -qE "$re" <<<"$err"; then
		ps_ok "$name"
	else
		ps_fail "$name" "exit $rc, stderr '$err'"
	fi
}
