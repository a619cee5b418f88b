#!/usr/bin/env bash
# The virtio-net NIC renamed, then moved to another network namespace, while
# attached (issue 49, items 1 and 2; test_faults_ident.sh holds them on veth),
# in a qemu guest of the kernel matrix (tests/vm/run.sh); runs only in such a
# guest (PS_VM=1):
#   - renamed (down, renamed, up): status "ok (renamed to psren0)"; its name
#     back: "ok";
#   - status names where it went: "moved to namespace N (ifindex M)";
#   - `detach --gone` removes its XDP program there (the driver's own XDP,
#     which the move keeps) and its pins;
#   - an attach in that namespace works (not refused by pathscope's own
#     orphan), and its detach there leaves nothing;
#   - the NIC back home with its addresses and permanent neighbours as they
#     were answers ping (5 of 5).
# Its name sorts after test_vm_virtio.sh: it runs last, since it moves the
# NIC the others use.
. "$(dirname "$0")/../../integration/lib.sh"
N=vm_virtio_moved
[ "${PS_VM:-}" = 1 ] || { ps_unsupported "$N" "runs in a guest of tests/vm/run.sh only"; ps_done; }
ps_require_root "$N"
ps_require_file "$N" "$PATHSCOPE"
ps_require_cmd "$N" ping jq bpftool
DEV=${PS_VM_DEV:-}
[ -n "$DEV" ] || { ps_fail "$N" "no virtio-net interface"; ps_done; }

# What to put back: global addresses ("ADDR/LEN" per line), permanent
# neighbours ("DST LLADDR" per line).
addrs=$(ip -j addr show dev "$DEV" | jq -r '.[0].addr_info[] | select(.scope == "global") | "\(.local)/\(.prefixlen)"')
neighs=$(ip -j neigh show dev "$DEV" nud permanent | jq -r '.[] | "\(.dst) \(.lladdr)"')
NS_M=psVM-$$
_ps_namespaces "$NS_M" || { ps_fail "$N" "namespace $NS_M not created"; ps_done; }
dir=/sys/fs/bpf/pathscope/$(stat -Lc %i /proc/self/ns/net)/$(cat "/sys/class/net/$DEV/ifindex")
# The NIC back in the guest's namespace (PID 1's), without XDP, configured
# as it was.
home() {
	[ -e "/sys/class/net/$DEV" ] || ip -n "$NS_M" link set "$DEV" netns 1
	ip link set "$DEV" xdp off 2>/dev/null
	configure
}
# Its addresses, link and permanent neighbours as they were.
configure() {
	local a d l
	while read -r a; do
		[ -n "$a" ] || continue
		case $a in *:*) ip addr replace "$a" dev "$DEV" nodad ;; *) ip addr replace "$a" dev "$DEV" ;; esac
	done <<<"$addrs"
	ip link set "$DEV" up
	while read -r d l; do
		[ -n "$d" ] && ip neigh replace "$d" lladdr "$l" dev "$DEV" nud permanent
	done <<<"$neighs"
}
ps_at_exit '[ -e /sys/class/net/psren0 ] && ip link set psren0 down && ip link set psren0 name "$DEV";
	nsenter --net="/var/run/netns/$NS_M" "$PATHSCOPE" detach "$DEV" >/dev/null 2>&1; home;
	"$PATHSCOPE" detach "$DEV" >/dev/null 2>&1'
pathscope_m() { nsenter --net="/var/run/netns/$NS_M" "$PATHSCOPE" "$@"; }
state_of() { "$PATHSCOPE" status --json | jq -r --arg d "$1" '.[] | select(.pin_dir == $d) | .state'; }
xdp_m() { ip -n "$NS_M" -d link show "$DEV" 2>/dev/null | grep -c 'prog/xdp'; }
# Pins, XDP on the NIC (wherever it is) and pathscope's programs: waited for
# (at most 10 s): the kernel frees released programs asynchronously.
gone() {
	local out i
	for ((i = 0; i < 100; i++)); do
		out="$(find /sys/fs/bpf/pathscope -mindepth 1 2>/dev/null | wc -l) $(
			(ip -d link show "$DEV" 2>/dev/null; ip -n "$NS_M" -d link show "$DEV" 2>/dev/null) | grep -c 'prog/xdp'
		) $(bpftool prog show | grep -c pathscope)"
		[ "$out" = "0 0 0" ] && break
		sleep 0.1
	done
	echo "$out"
}

"$PATHSCOPE" attach "$DEV" || ps_fail "$N: attach" "exit $?"
# Renamed while attached (a NIC is renamed down): followed, still its own.
REN=psren0
ip link set "$DEV" down && ip link set "$DEV" name "$REN" && ip link set "$REN" up ||
	ps_fail "$N: rename" "ip link failed"
ps_check_eq "$N: renamed while attached: status follows it" "$(state_of "$dir")" "ok (renamed to $REN)"
ip link set "$REN" down && ip link set "$REN" name "$DEV" || ps_fail "$N: rename back" "ip link failed"
configure
ps_check_eq "$N: its name back: ok (beside libxdp's dispatcher where it is in one), not renamed" \
	"$(state_of "$dir" | sed -E "s/ \(xdp in libxdp's dispatcher, id [0-9]+, alone\)//")" "ok"
ip link set "$DEV" netns "$NS_M"
idx=$(ip -n "$NS_M" -j link show "$DEV" | jq '.[0].ifindex')
ps_check_eq "$N: status names where the NIC went" "$(state_of "$dir")" \
	"moved to namespace $NS_M (ifindex $idx); 'pathscope detach --gone' removes it"
"$PATHSCOPE" detach --gone || ps_fail "$N: detach --gone" "exit $?"
ps_check_eq "$N: detach --gone removed its XDP program in $NS_M and its pins" \
	"xdp=$(xdp_m) pins=$(ls "$dir" 2>/dev/null | wc -l)" "xdp=0 pins=0"
pathscope_m attach "$DEV" >/dev/null 2>"$PS_VM_OUT/moved.err"
ps_check_eq "$N: an attach in $NS_M is not refused" "$? $(cat "$PS_VM_OUT/moved.err")" "0 "
pathscope_m detach "$DEV" || ps_fail "$N: detach in $NS_M" "exit $?"
ps_check_eq "$N: nothing left (pins, XDP, programs)" "$(gone)" "0 0 0"
home
got=$(ping -c 5 -i 0.2 -W 5 -I "$DEV" "$PS_VM_HOST4" 2>&1 | sed -n 's/.* \([0-9]*\) received.*/\1/p')
ps_check_eq "$N: back home, configured as it was: 5 echo replies from $PS_VM_HOST4" "${got:-none}" 5
ps_done
