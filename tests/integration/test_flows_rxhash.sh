#!/usr/bin/env bash
# Feature flows' RX hash types (bpf_xdp_metadata_rx_hash, Linux 6.3) on the
# testbed's 4-queue veth, whose driver gives the hash of the skb the peer
# sent: skb_get_hash() (the flow dissector's, computed then if the sender's
# stack had none), typed XDP_RSS_TYPE_L4_ANY when that hash covered ports
# (skb->l4_hash), else XDP_RSS_TYPE_NONE. veth never reports an L3-only type.
#   1. `pathscope features`: the probe (xdp_rx_hash) reads the kernel's BTF;
#      PATHSCOPE_FORCE_FALLBACK=rx_hash says no.
#   2. attach --features default,flows --flow-sample 1: the device-bound
#      program (pathscope_xdp_rxhash) is the one attached (bpftool 7.1 does
#      not show that it is bound: its name says it); 300 IPv4 and 200
#      IPv6 UDP datagrams: exactly 500 more frames typed L4 over the queues,
#      none L3, none without a type; each queue's L4 count moves by the
#      frames the driver counted on it (ethtool rx_queue_N_xdp_packets).
#   3. 5 pings: 5 more frames without a type (ICMP: no ports hashed), no L4.
#   4. Not measured (rx_hash null, the plain program): --xdp-mode skb
#      (generic XDP refuses device-bound programs), PATHSCOPE_FORCE_FALLBACK
#      =rx_hash, --xdp-chain (a device-bound program cannot tail-call an
#      unbound one); stats --json's flows object carries the same field.
. "$(dirname "$0")/lib.sh"
ps_require_root flows_rxhash
ps_require_cmd flows_rxhash ip ethtool jq ping nsenter python3 bpftool
ps_require_file flows_rxhash "$PATHSCOPE"

if ! bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	grep -q "FUNC 'bpf_xdp_metadata_rx_hash'"; then
	ps_check_eq "features: no kfunc, xdp_rx_hash false" \
		"$("$PATHSCOPE" features --json | jq -c .xdp_rx_hash)" false
	ps_skip flows_rxhash "this kernel has no bpf_xdp_metadata_rx_hash (Linux 6.3)"
	ps_done
fi

# ---- 1. the probe ------------------------------------------------------------------
ps_check_eq "features --json: xdp_rx_hash true, used (no dispatcher here)" \
	"$("$PATHSCOPE" features --json | jq -c '[.xdp_rx_hash, .uses.rx_hash]')" '[true,true]'
ps_check_eq "features: its row" \
	"$("$PATHSCOPE" features | grep -c '^bpf_xdp_metadata_rx_hash (6.3) *yes ')" 1
ps_check_eq "PATHSCOPE_FORCE_FALLBACK=rx_hash: false" \
	"$(PATHSCOPE_FORCE_FALLBACK=rx_hash "$PATHSCOPE" features --json | jq -c '[.xdp_rx_hash, .uses.rx_hash]')" \
	'[false,false]'

ps_testbed_create 4 || {
	ps_fail flows_rxhash "testbed setup failed"
	ps_done
}
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'
SEND=$PS_ROOT/tests/tools/flowsend.py
DPORT=9000

# veth's per-RX-queue XDP frames of vB: "q0 q1 q2 q3".
xq() {
	ps_in_b ethtool -S vB | awk '$1 ~ /^rx_queue_[0-3]_xdp_packets:$/ { q = substr($1, 10) + 0; v[q] = $2 }
		END { print v[0] + 0, v[1] + 0, v[2] + 0, v[3] + 0 }'
}
xq_sub() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y); print x[1] - y[1], x[2] - y[2], x[3] - y[3], x[4] - y[4] }'; }
# The RX hash counts since attach: "[[l4 per queue], l3 total, none total]"
# (one line), or "null" when not measured.
rxh() {
	ps_pathscope_b flows vB --json | jq -c 'if (.queues | map(.rx_hash) | any(. == null)) then null
		else [[.queues[].rx_hash.l4], ([.queues[].rx_hash.l3] | add), ([.queues[].rx_hash.none] | add)] end'
}
# wait_frames N BEFORE: until the driver counted N more frames (5 s at most)
wait_frames() {
	local i
	for i in $(seq 50); do
		[ "$(xq_sub "$(xq)" "$2" | awk '{ print $1 + $2 + $3 + $4 }')" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

ps_sink_start "$NS_B" $DPORT || ps_fail sink "no UDP sink on $DPORT"

# ---- 2. UDP: every frame typed L4 --------------------------------------------------
ps_pathscope_b attach vB --features default,flows --flow-sample 1 >/dev/null ||
	ps_fail "attach --features default,flows --flow-sample 1" "exit $?"
ps_check_eq "the device-bound program is attached" \
	"$(bpftool prog show id "$(ps_in_b ip -j link show vB | jq '.[0].xdp.prog.id')" --json |
		jq -r .name)" pathscope_xdp_rxhash
ps_check_eq "status: native, ok (the bound program is the one recorded)" \
	"$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0] | "\(.xdp_mode) \(.state)"')" \
	"native ok"
ps_check_eq "check: exit 0" "$(ps_pathscope_b check vB >/dev/null 2>&1; echo $?)" 0
ps_wait_quiet 5 || ps_fail "quiet link after attach" "vA<->vB still busy"
R0=$(rxh)
Q0=$(xq)
ps_in_a python3 "$SEND" udp "$PS_IP4_A" 41000 "$PS_IP4_B" $DPORT 300 100 || ps_fail "IPv4 UDP" "exit $?"
ps_in_a python3 "$SEND" udp "$PS_IP6_A" 41100 "$PS_IP6_B" $DPORT 200 100 || ps_fail "IPv6 UDP" "exit $?"
wait_frames 500 "$Q0" || ps_fail "the driver counted the 500 datagrams" "deltas $(xq_sub "$(xq)" "$Q0")"
ps_wait_quiet 5
R1=$(rxh)
DQ=$(xq_sub "$(xq)" "$Q0")
echo "# driver frames per queue: $DQ; rx_hash before $R0, after $R1"
if [ "$R0" = null ] || [ "$R1" = null ] || [ -z "$R1" ]; then
	ps_fail "rx_hash measured with flows alone on the interface" "got '$R0' '$R1'"
else
	ps_check_eq "500 UDP frames: L4 per queue moved by the driver's frames, no L3, no untyped" \
		"$(jq -nc --argjson a "$R0" --argjson b "$R1" \
			'[[range(4) as $i | $b[0][$i] - $a[0][$i]], $b[1] - $a[1], $b[2] - $a[2]]')" \
		"[[${DQ// /,}],0,0]"
	ps_check_eq "... and the 500 in all" "$(jq -nc --argjson a "$R0" --argjson b "$R1" \
		'($b[0] | add) - ($a[0] | add)')" 500
fi

ps_check_eq "text: the queues' RX hash types, a line each under their heading, 500/0/0 in all" \
	"$(ps_pathscope_b flows vB | sed -n '/^RX hash types/,/^[^ ]/p' | grep -E '^  queue [0-3]: L4 ' |
		awk -F'[ ,]+' '{ a += $5; b += $7; c += $9 } END { print (NR > 0), a "/" b "/" c }')" "1 500/0/0"

# ---- 3. ICMP: no ports hashed, no type -----------------------------------------------
Q0=$(xq)
ps_in_a ping -c 5 -i 0.2 -q "$PS_IP4_B" >/dev/null || ps_fail ping "exit $?"
wait_frames 5 "$Q0"
ps_wait_quiet 5
R2=$(rxh)
if [ "$R2" != null ] && [ -n "$R2" ]; then
	ps_check_eq "5 pings: 5 frames without a type, none L4 or L3" \
		"$(jq -nc --argjson a "$R1" --argjson b "$R2" '[($b[0] | add) - ($a[0] | add), $b[1] - $a[1], $b[2] - $a[2]]')" \
		"[0,0,5]"
fi

# ---- 4. not measured -----------------------------------------------------------------
ps_check_eq "stats --json: the flows objects' rx_hash, the largest (all queues) with the 500 L4 frames" \
	"$(ps_pathscope_b stats vB --json | jq -c '[.. | objects | select(has("rx_hash") and has("distinct")) | .rx_hash.l4] | max')" \
	500
ps_pathscope_b detach vB >/dev/null || ps_fail detach "exit $?"
ps_pathscope_b attach vB --features default,flows --flow-sample 1 --xdp-mode skb >/dev/null ||
	ps_fail "attach --xdp-mode skb" "exit $?"
ps_check_eq "--xdp-mode skb: rx_hash null (generic XDP takes no device-bound program)" "$(rxh)" null
ps_check_eq "... stats --json too" \
	"$(ps_pathscope_b stats vB --json | jq -c '[.. | objects | select(has("rx_hash") and has("distinct")) | .rx_hash] | unique')" \
	'[null]'
ps_pathscope_b detach vB >/dev/null || ps_fail detach "exit $?"
PATHSCOPE_FORCE_FALLBACK=rx_hash ps_pathscope_b attach vB --features default,flows >/dev/null ||
	ps_fail "attach, PATHSCOPE_FORCE_FALLBACK=rx_hash" "exit $?"
ps_check_eq "PATHSCOPE_FORCE_FALLBACK=rx_hash: rx_hash null" "$(rxh)" null
ps_pathscope_b detach vB >/dev/null || ps_fail detach "exit $?"
# --xdp-chain: in front of another program, which the device-bound program
# could not tail-call: the plain chain program.
if ps_in_b ip link set dev vB xdpdrv obj "$PS_BIN/tests/standin_xdp.bpf.o" sec xdp; then
	ps_pathscope_b attach vB --xdp-chain --features default,flows >/dev/null ||
		ps_fail "attach --xdp-chain --features default,flows" "exit $?"
	ps_check_eq "--xdp-chain: rx_hash null, the chain program attached" "$(rxh) $(bpftool prog show id \
		"$(ps_in_b ip -j link show vB | jq '.[0].xdp.prog.id')" --json | jq -r .name)" \
		"null pathscope_xdp_chain"
	ps_pathscope_b detach vB >/dev/null || ps_fail "detach --xdp-chain" "exit $?"
	ps_in_b ip link set dev vB xdpdrv off
else
	ps_fail "--xdp-chain" "cannot attach the stand-in XDP program"
fi
ps_sink_stop >/dev/null
ps_done
