#!/usr/bin/env bash
# pathscope on a NIC driver without native XDP: e1000, in a qemu guest of the
# kernel matrix (tests/vm/run.sh; the host end is a tap that answers ping).
# Runs only in such a guest (PS_VM=1).
#   - attach --xdp-mode native is refused in one line that names the way
#     out (--xdp-mode skb), and leaves nothing;
#   - a plain attach takes generic XDP (status: skb), and counts ping -c N
#     exactly at XDP, tc ingress and tc egress, with N RTT samples;
#   - detach leaves nothing.
. "$(dirname "$0")/../../integration/lib.sh"
N=vm_e1000
[ "${PS_VM:-}" = 1 ] || { ps_unsupported "$N" "runs in a guest of tests/vm/run.sh only"; ps_done; }
ps_require_root "$N"
ps_require_cmd "$N" ping jq bpftool
DEV=$PS_VM_E1000_DEV HOST=$PS_VM_E1000_HOST4
ps_at_exit "\"$PATHSCOPE\" detach $DEV >/dev/null 2>&1"
leftovers() {
	echo "$(find /sys/fs/bpf/pathscope -mindepth 1 2>/dev/null | wc -l) $(ip -d link show "$DEV" | grep -c 'prog/xdp') $(bpftool prog show | grep -c pathscope)"
}
# Nothing left, waited for (at most 10 s): the kernel frees released
# programs asynchronously, later still when the guests share the host's CPUs.
gone() {
	local out i
	for ((i = 0; i < 100; i++)); do
		out=$(leftovers)
		[ "$out" = "0 0 0" ] && break
		sleep 0.1
	done
	echo "$out"
}

ps_expect_error "e1000: --xdp-mode native refused in one line, naming --xdp-mode skb" \
	"^pathscope: '$DEV': the driver does not support native XDP \(try --xdp-mode skb\)$" \
	"$PATHSCOPE" attach "$DEV" --xdp-mode native
ps_check_eq "e1000: the refusal left nothing" "$(gone)" "0 0 0"

"$PATHSCOPE" attach "$DEV" || ps_fail "e1000: attach" "exit $?"
ps_check_eq "e1000: generic XDP (skb), status ok (alone, or in libxdp's dispatcher)" \
	"$("$PATHSCOPE" status --json | jq -r '.[] | select(.ifname == "'"$DEV"'") | "\(.xdp_mode) \(.state | .[0:2])"')" "skb ok"
n=50
out=$(ping -n -q -c $n -i 0.02 -W 2 "$HOST")
# Each reply is counted at XDP and tc ingress before ping reads it, and each
# request at tc egress before it leaves: the counts are final now.
js=$("$PATHSCOPE" stats "$DEV" --json)
ps_check_eq "e1000: ping -c $n: ICMP at XDP, tc ingress and tc egress, RTT samples" \
	"$(grep -o '[0-9]* received' <<<"$out") $(jq -c '.interfaces[0].totals | [.xdp.total.l4.icmp, .tc_ingress.total.l4.icmp, .tc_egress.total.l4.icmp, .icmp_echo.rtt_ns.count]' <<<"$js")" \
	"$n received [$n,$n,$n,$n]"
"$PATHSCOPE" detach "$DEV" || ps_fail "e1000: detach" "exit $?"
ps_check_eq "e1000: detach leaves nothing" "$(gone)" "0 0 0"
ps_done
