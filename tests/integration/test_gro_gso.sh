#!/usr/bin/env bash
# iperf3 TCP from vA to vB with GRO on: multi-segment skbs at vB's tc ingress
# (GRO) and at vA's tc egress (GSO), and the segment counts agree exactly
# across the path: every segment vA's tc egress sends is one frame at vB's
# XDP (or a drop counted by veth), and every frame at vB's XDP is one segment
# of an skb at vB's tc ingress.
. "$(dirname "$0")/lib.sh"
ps_require_root gro_gso
ps_require_file gro_gso "$PATHSCOPE"
ps_require_cmd gro_gso iperf3

ps_testbed_create 4 || { ps_fail gro_gso "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1; ps_pathscope_b detach vB >/dev/null 2>&1'
ps_pathscope_a attach vA --no-xdp || ps_fail "attach vA" "exit $?"
ps_pathscope_b attach vB || ps_fail "attach vB" "exit $?"
ps_wait_quiet 5

drops0=$(ps_stat "$NS_A" vA tx_dropped)
ps_iperf3_server "$NS_B" 5201 || ps_fail "iperf3 server" "did not start"
ps_in_a iperf3 -c "$PS_IP4_B" -p 5201 -t 2 -P 2 >/dev/null 2>&1 || ps_fail "iperf3 client" "exit $?"
ps_iperf3_server_wait || ps_fail "iperf3 server" "exit $?"
ps_wait_quiet 5
drops=$(($(ps_stat "$NS_A" vA tx_dropped) - drops0))

rx=$(ps_pathscope_b stats vB --json)
tx=$(ps_pathscope_a stats vA --json)
jr() { jq -r ".interfaces[0] | $1" <<<"$rx"; }
jt() { jq -r ".interfaces[0] | $1" <<<"$tx"; }

gro_skbs=$(jr .totals.tc_ingress.total.gro.multi_segment_skbs)
gso_skbs=$(jt .totals.tc_egress.total.gro.multi_segment_skbs)
[ "$gro_skbs" -gt 100 ] && ps_ok "vB tc_ingress: GRO merged skbs ($gro_skbs)" ||
	ps_fail "vB tc_ingress: GRO merged skbs" "only $gro_skbs multi-segment skbs"
[ "$gso_skbs" -gt 100 ] && ps_ok "vA tc_egress: GSO skbs ($gso_skbs)" ||
	ps_fail "vA tc_egress: GSO skbs" "only $gso_skbs multi-segment skbs"
ps_check_eq "vA tc_egress: gso_size is the MSS (1500 - 20 - 20 - 12 timestamps)" \
	"$(jt '.totals.tc_egress.total.gro.avg_gso_size | floor')" 1448
ps_check_eq "vB tc_ingress: GRO'd skbs carry MSS-sized segments" \
	"$(jr '.totals.tc_ingress.total.gro.avg_gso_size | floor')" 1448
ps_check_eq "segments: vA tc_egress = vB xdp frames + veth drops" \
	"$(jt .totals.tc_egress.total.gro.segments)" $(($(jr .totals.xdp.total.packets) + drops))
ps_check_eq "segments: vB xdp frames = vB tc_ingress segments" \
	"$(jr .totals.xdp.total.packets)" "$(jr .totals.tc_ingress.total.gro.segments)"
ps_check_eq "segments per skb histogram counts every tc ingress skb" \
	"$(jr .totals.tc_ingress.total.gro.segments_per_skb.count)" "$(jr .totals.tc_ingress.total.packets)"
ps_check_eq "vB xdp: every frame is TCP (iperf3 control and data)" \
	"$(jr .totals.xdp.total.l4.tcp)" "$(jr .totals.xdp.total.packets)"
ps_check_eq "vA: no xdp hook in the report (--no-xdp)" "$(jt '.totals | has("xdp")')" false
ps_check_eq "vA: xdp mode none" "$(jt .xdp_mode)" none
ps_done
