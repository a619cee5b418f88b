#!/usr/bin/env bash
# pathscope next to a load balancer's own XDP and tc programs
# (tests/standins/standin_lb.bpf.c, standin_lbtc.bpf.c). A known mix is sent
# from A: 100 UDP datagrams to a VIP the balancer answers with XDP_TX, 60 to
# a VIP it drops, 40 to B's own address, which it passes. With pathscope in
# chain mode (it takes over the interface and tail-calls the balancer), in
# join mode (it takes a slot of the balancer's pinned root program array),
# and with a tc program that drops a port, the balancer's counters and what
# each peer receives must be exactly what they are without pathscope, while
# pathscope counts every packet. Detach must leave the balancer as it was.
# Each mode runs twice: by attach, and as the sidecar, from
# pathscope@vB.service's own command line with an instance file (OPTIONS);
# also beside a balancer's TCX program (--no-xdp). In a guest of tests/vm/
# (PS_VM=1) each mode runs once, by attach: the sidecar's command line is
# user space's, the same on every kernel, and its runs stay on the host
# (tests/vm/MOVED.md).
# In chain mode status --json names the balancer's program (chained: its id,
# name and pin). As the sidecar: /healthz 200, the same verdicts, every
# packet counted, SIGTERM exits 0 and leaves the balancer alone; the TCX
# neighbour from Linux 6.6.
. "$(dirname "$0")/lib.sh"
LB=$PS_BIN/tests/standin_lb.bpf.o
LBTC=$PS_BIN/tests/standin_lbtc.bpf.o
ps_require_root coexist
ps_require_file coexist "$PATHSCOPE"
ps_require_file coexist "$UDPSEND"
[ -r "$LB" ] && [ -r "$LBTC" ] || { ps_skip coexist "stand-ins not built (make)"; ps_done; }
ps_require_cmd coexist bpftool jq tc curl

VIP_TX=198.18.0.100 VIP_DROP=198.18.0.101
N_TX=100 N_DROP=60 N_PASS=40
ps_testbed_create 2 || { ps_fail coexist "testbed setup failed"; ps_done; }
PIN=/sys/fs/bpf/pathscope-test-$$
ps_at_exit "ps_pathscope_b detach vB >/dev/null 2>&1; ip -n $NS_B link set dev vB xdp off 2>/dev/null; rm -rf $PIN"
for vip in "$VIP_TX" "$VIP_DROP"; do
	ps_in_a ip neigh add "$vip" lladdr "$PS_MAC_B" dev vA nud permanent
done
# The balancer's programs and maps, pinned as a balancer would pin them.
mkdir -p "$PIN"
bpftool prog loadall "$LB" "$PIN/progs" pinmaps "$PIN/maps" || ps_fail coexist "bpftool loadall"

# Values of an array map of u64, in key order, from bpftool's JSON (with BTF
# "formatted", without it little-endian hex bytes).
U64S='def hex: ascii_downcase | ltrimstr("0x") | explode | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
	[.[] | if .formatted then .formatted.value else (.value | map(hex) | reverse | reduce .[] as $b (0; . * 256 + $b)) end] | map(tostring) | join(" ")'
KEYS='def hex: ascii_downcase | ltrimstr("0x") | explode | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
	[.[] | if .formatted then .formatted.key else (.key[0] | hex) end]'
verdicts() { # pass drop tx
	bpftool map dump pinned "$PIN/maps/lb_verdicts" -j | jq -r "$U64S"
}
# What A receives: IPv4 packets reaching its stack. (The balancer's XDP_TX
# answers reach a veth peer only when the peer runs XDP itself: A runs a
# pass-everything stand-in for that. Their UDP checksums are partial, as
# the sender's offload left them, so they end in A's UDP layer.)
rx_a() { ip netns exec "$NS_A" nstat -asz IpInReceives | awk '$1 == "IpInReceives" { print $2 }'; }
ip -n "$NS_A" link set dev vA xdpdrv obj "$PS_BIN/tests/standin_xdp.bpf.o" sec xdp ||
	ps_fail coexist "the pass-through XDP program on A"
xdp_total() { ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.packets'; }

# WANT CMD...: run CMD until it prints WANT (at most 5 s); print its last
# output. The sink's count is final when it returns; the verdicts and A's
# answers may still be on their way (another CPU's NAPI).
settle() {
	local want=$1 out
	shift
	for _ in $(seq 50); do
		out=$("$@")
		[ "$out" = "$want" ] && break
		sleep 0.1
	done
	echo "$out"
}

# One run of the mix: prints "balancer-deltas vA-rx-delta sink-count".
mix_since() { # verdicts-before rx-before sink-count
	# shellcheck disable=SC2086,SC2046
	set -- $1 $(verdicts) "$2" "$3"
	echo "pass+$(($4 - $1)) drop+$(($5 - $2)) tx+$(($6 - $3)) a_rx+$(($(rx_a) - $7)) b_sink=$8"
}
mix() {
	local v0 r0 got
	ps_wait_quiet 5 >/dev/null
	v0=$(verdicts) r0=$(rx_a)
	ps_sink_start "$NS_B" 9000 --expect "$N_PASS" --timeout 10
	ps_in_a "$UDPSEND" -n "$N_TX" "$VIP_TX" 9000 || ps_fail "udpsend to $VIP_TX" "exit $?"
	ps_in_a "$UDPSEND" -n "$N_DROP" "$VIP_DROP" 9000 || ps_fail "udpsend to $VIP_DROP" "exit $?"
	ps_in_a "$UDPSEND" -n "$N_PASS" "$PS_IP4_B" 9000 || ps_fail "udpsend to B" "exit $?"
	got=$(ps_sink_wait)
	settle "$WANT" mix_since "$v0" "$r0" "$got"
}
WANT="pass+$N_PASS drop+$N_DROP tx+$N_TX a_rx+$N_TX b_sink=$N_PASS"
# NAME: the mix with pathscope in front of the balancer: the verdicts and
# what each peer gets are what they are without it, and it counted each packet.
mix_counted() {
	local x0
	x0=$(xdp_total)
	ps_check_eq "$1: the balancer's verdicts and what each peer gets are unchanged" "$(mix)" "$WANT"
	ps_check_eq "$1: pathscope counted every packet" $(($(xdp_total) - x0)) $((N_TX + N_DROP + N_PASS))
}

# ---- chain mode --------------------------------------------------------------
ip_b() { nsenter --net="/var/run/netns/$NS_B" ip "$@"; } # ip -n hides /sys/fs/bpf
ip_b link set dev vB xdpdrv pinned "$PIN/progs/standin_lb" || ps_fail coexist "attach the balancer"
lb_id=$(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id')
ps_check_eq "chain: the balancer alone" "$(mix)" "$WANT"
ps_pathscope_b attach vB --xdp-chain || ps_fail "chain: attach --xdp-chain" "exit $?"
ps_check_eq "chain: status says chain" "$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0] | "\(.xdp_mode) \(.state)"')" "chain ok"
ps_check_eq "chain: status names the balancer's program, by id, name and pin" \
	"$(ps_pathscope_b status --json | jq -c 'map(select(.current_netns)) | .[0].chained')" \
	"{\"prog_id\":$lb_id,\"name\":\"standin_lb\",\"loaded_by\":null,\"pinned_at\":\"$PIN/progs/standin_lb\",\"libxdp\":false}"
mix_counted "chain"
ps_check_eq "chain: its XDP program replaced the balancer's on the interface" \
	"$(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id != '"$lb_id")" true
ps_pathscope_b detach vB || ps_fail "chain: detach" "exit $?"
ps_check_eq "chain: detach puts the balancer back (same program id)" \
	"$(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id')" "$lb_id"
ps_check_eq "chain: the balancer alone again" "$(mix)" "$WANT"
err=$(ps_pathscope_b attach vB 2>&1)
ps_check_eq "chain: without --xdp-chain attach still refuses (exit 1)" "$? ${err%%(*}" \
	"1 pathscope: 'vB' already has an XDP program "
if [ "${PS_VM:-}" != 1 ]; then # the sidecar: host only (above)
	ps_unit_start vB --xdp-chain
	ps_check_eq "unit --xdp-chain: status says chain" "$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0] | "\(.xdp_mode) \(.state)"')" "chain ok"
	mix_counted "unit --xdp-chain"
	ps_unit_stop --xdp-chain
	ps_check_eq "unit --xdp-chain: stopped, the balancer is back (same program id)" \
		"$(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id')" "$lb_id"
fi
ip -n "$NS_B" link set dev vB xdp off

# ---- join mode (Katran's shared mode) ---------------------------------------------
bpftool map update pinned "$PIN/maps/lb_root" key 1 0 0 0 value pinned "$PIN/progs/standin_lb" ||
	ps_fail "join: put the balancer in slot 1" "bpftool"
ip_b link set dev vB xdpdrv pinned "$PIN/progs/standin_root" || ps_fail "join: attach the root" "ip"
root_id=$(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id')
ps_check_eq "join: the root and the balancer alone" "$(mix)" "$WANT"
err=$(ps_pathscope_b attach vB --xdp-join "$PIN/maps/lb_root:1" 2>&1)
ps_check_eq "join: a taken slot is refused (exit 1)" "$? ${err%% holds*}" "1 pathscope: slot 1 of '$PIN/maps/lb_root'"
ps_pathscope_b attach vB --xdp-join "$PIN/maps/lb_root:0" || ps_fail "join: attach --xdp-join" "exit $?"
ps_check_eq "join: status says join" "$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0] | "\(.xdp_mode) \(.state)"')" "join ok"
mix_counted "join"
ps_check_eq "join: the root program stays on the interface" \
	"$(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id')" "$root_id"
ps_pathscope_b detach vB || ps_fail "join: detach" "exit $?"
ps_check_eq "join: detach empties slot 0 and leaves slot 1" \
	"$(bpftool map dump pinned "$PIN/maps/lb_root" -j | jq -c "$KEYS")" "[1]"
ps_check_eq "join: the root and the balancer alone again" "$(mix)" "$WANT"
if [ "${PS_VM:-}" != 1 ]; then # the sidecar: host only (above)
	ps_unit_start vB "--xdp-join $PIN/maps/lb_root:0"
	ps_check_eq "unit --xdp-join: status says join" "$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0] | "\(.xdp_mode) \(.state)"')" "join ok"
	mix_counted "unit --xdp-join"
	ps_unit_stop --xdp-join
	ps_check_eq "unit --xdp-join: stopped, slot 0 is empty, slot 1 and the root stay" \
		"$(bpftool map dump pinned "$PIN/maps/lb_root" -j | jq -c "$KEYS") $(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id')" "[1] $root_id"
fi
ip -n "$NS_B" link set dev vB xdp off

# ---- tc: the balancer's tc program drops UDP to port 9001 ------------------------------
lbtc() { # unspec shot
	bpftool map dump id "$(bpftool map show -j | jq '[.[] | select(.name == "lbtc_verdicts") | .id] | max')" -j |
		jq -r "$U64S"
}
tcmix_since() { # verdicts-before sink-count
	# shellcheck disable=SC2086,SC2046
	set -- $1 $(lbtc) "$2"
	echo "unspec+$(($3 - $1)) shot+$(($4 - $2)) sink=$5"
}
tcmix() { # prints "unspec+ shot+ sink", read as mix() reads, until $TCWANT
	local v0 got
	ps_wait_quiet 5 >/dev/null
	v0=$(lbtc)
	ps_sink_start "$NS_B" 9000 --expect 30 --timeout 10
	ps_in_a "$UDPSEND" -n 30 "$PS_IP4_B" 9000 || ps_fail "udpsend to 9000" "exit $?"
	ps_in_a "$UDPSEND" -n 20 "$PS_IP4_B" 9001 || ps_fail "udpsend to 9001" "exit $?"
	got=$(ps_sink_wait)
	settle "$TCWANT" tcmix_since "$v0" "$got"
}
tc -n "$NS_B" qdisc add dev vB clsact
tc -n "$NS_B" filter add dev vB ingress prio 10 handle 1 bpf da obj "$LBTC" sec tc || ps_fail "tc: the balancer's filter" "tc"
TCWANT="unspec+30 shot+20 sink=30"
ps_check_eq "tc: the balancer's filter alone" "$(tcmix)" "$TCWANT"
# TCX links came with Linux 6.6 (tests/vm/ runs this on 5.10, 6.1, 6.12 too):
# before, --tc-mode tcx is refused in one line, naming clsact.
modes="tcx clsact"
if ! printf '6.6\n%s\n' "$(uname -r)" | sort -V -C; then
	modes=clsact
	ps_expect_error "tc: --tc-mode tcx refused in one line on $(uname -r), naming clsact" \
		"^pathscope: this kernel has no TCX \(needs >= 6.6\); use --tc-mode clsact$" \
		ps_pathscope_b attach vB --no-xdp --tc-mode tcx
fi
for mode in $modes; do
	ps_pathscope_b attach vB --no-xdp --tc-mode "$mode" || ps_fail "tc: attach --tc-mode $mode" "exit $?"
	t0=$(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.tc_ingress.total.l4.udp')
	ps_check_eq "tc $mode: the balancer's verdicts and the sink are unchanged" "$(tcmix)" "$TCWANT"
	ps_check_eq "tc $mode: pathscope saw all 50 datagrams first" \
		$(($(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.tc_ingress.total.l4.udp') - t0)) 50
	ps_pathscope_b detach vB || ps_fail "tc $mode: detach" "exit $?"
	ps_check_eq "tc $mode: the balancer's qdisc and filter stay" \
		"$(tc -n "$NS_B" qdisc show dev vB | grep -c clsact) $(tc -n "$NS_B" filter show dev vB ingress | grep -c standin_lbtc)" "1 1"
done
ps_check_eq "tc: the balancer's filter alone again" "$(tcmix)" "$TCWANT"

# ---- a Cilium-style balancer: its program on a TCX link (6.6), pathscope
# beside it from the unit with --no-xdp (and first in line: BPF_F_BEFORE).
if [ "$modes" = clsact ]; then
	ps_unsupported "unit --no-xdp beside a TCX program" "no TCX before Linux 6.6 ($(uname -r))"
else
	tc -n "$NS_B" qdisc del dev vB clsact
	nsenter --net="/var/run/netns/$NS_B" "$PS_BIN/tests/tcxattach" "$LBTC" standin_lbtc vB ingress "$PIN/lbtc_link" ||
		ps_fail "tcx: the balancer's TCX link" "exit $?"
	ps_check_eq "tcx: the balancer's TCX program alone" "$(tcmix)" "$TCWANT"
	# In a guest by attach: the unit's command line is the host's to check.
	by=unit
	if [ "${PS_VM:-}" = 1 ]; then
		by=attach
		ps_pathscope_b attach vB --no-xdp || ps_fail "attach --no-xdp beside TCX" "exit $?"
	else
		ps_unit_start vB --no-xdp
	fi
	t0=$(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.tc_ingress.total.l4.udp')
	ps_check_eq "$by --no-xdp beside TCX: the balancer's verdicts and the sink are unchanged" "$(tcmix)" "$TCWANT"
	ps_check_eq "$by --no-xdp beside TCX: pathscope saw all 50 datagrams first" \
		$(($(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.tc_ingress.total.l4.udp') - t0)) 50
	if [ "$by" = attach ]; then
		ps_pathscope_b detach vB || ps_fail "detach beside TCX" "exit $?"
	else
		ps_unit_stop --no-xdp
	fi
	ps_check_eq "tcx: the balancer's TCX program alone again" "$(tcmix)" "$TCWANT"
	rm -f "$PIN/lbtc_link"
fi
ps_done
