#!/usr/bin/env bash
# Faults: nothing lost or left behind.
#   - 100 attach/detach cycles (counters only, the fast path of the loader)
#     and 10 with every feature: programs, maps, links, pins, qdiscs, XDP and
#     the BPF memory of pathscope's objects return to where they started;
#   - two attaches at once on one interface: exactly one wins, the other
#     refuses with one line;
#   - SIGKILL of the loader at random times and at every named step of
#     attach (PATHSCOPE_KILL_AT), and of serve: traffic
#     still passes, status shows what is left, detach removes it, a new
#     attach works;
#   - the preferred kernel features forced off (PATHSCOPE_FORCE_FALLBACK):
#     clsact, classic tracepoints and libxdp's single-program mode are used;
#   - the interface goes down and up, changes MTU, loses queues, is deleted.
# Also: an attach stopped midway (PATHSCOPE_STOP_AT) holds the attach lock
# while status shows it at work, and a second attach and `detach --gone`
# wait for it instead of tearing it down; the loader is killed 8 times at
# fixed delays from 20 ms to 3 s (at least 3 of the 8 must find it still
# running) and at each of its 11 named steps, TCX and clsact; a meta map
# rewritten with bpftool. Queues: attached with 1 RX queue in use of 2
# (status records rx 1, tx 2) and grown to 2, status says XDP may miss the
# new queue, tc ingress counts all 100 datagrams on it and XDP none (veth);
# attached again, XDP counts them; shrunk and grown back while attached,
# status says so and every datagram is counted.
. "$(dirname "$0")/lib.sh"
ps_require_root faults
ps_require_file faults "$PATHSCOPE"
ps_require_file faults "$UDPSEND"
ps_require_cmd faults bpftool jq tc curl

ps_testbed_create 2 || { ps_fail faults "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'
base=$(ps_census_stable)
xdp_dir0=$(ls -d /sys/fs/bpf/xdp 2>/dev/null) # libxdp's lock dir: as found, at the end
# Other attachments on the machine must not matter: count against these.
PINS=/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")
our_progs() { bpftool prog show -j | jq '[.[] | select(.name // "" | test("^pathscope"))] | length'; }
progs0=$(our_progs)
state() { ps_pathscope_b status --json | jq -r '[.[] | select(.current_netns) | .state] | join(",")'; }

# ---- attach/detach cycles --------------------------------------------------------------
# PS_FAULT_CYCLES: fewer under make test-valgrind, where an attach takes ~12 s. 100
# (500 until issue 49, 300 and 150 until issue 48, whose tests paid for their seconds
# here): a residue shows in the census after one cycle as after 500.
cycles=${PS_FAULT_CYCLES:-100}
fails=0
for i in $(seq "$cycles"); do
	ps_pathscope_b attach vB --features none >/dev/null 2>&1 || fails=$((fails + 1))
	ps_pathscope_b detach vB >/dev/null 2>&1 || fails=$((fails + 1))
done
ps_check_eq "$cycles attach/detach cycles: every one succeeded" "$fails" 0
ps_check_eq "$cycles cycles: programs, maps, memory, links, pins, qdiscs, XDP as before" \
	"$(ps_census_is "$base")" "$base"
for i in $(seq 10); do
	ps_pathscope_b attach vB --features all >/dev/null 2>&1 || fails=$((fails + 1))
	ps_pathscope_b detach vB >/dev/null 2>&1 || fails=$((fails + 1))
done
ps_check_eq "10 cycles with every feature (tracepoint probes too): all succeeded" "$fails" 0
ps_check_eq "10 cycles with every feature: everything as before" "$(ps_census_is "$base")" "$base"

# ---- two attaches at once ------------------------------------------------------------------
out1=$(mktemp) out2=$(mktemp)
ps_at_exit "rm -f $out1 $out2"
ps_pathscope_b attach vB 2>"$out1" &
p1=$!
ps_pathscope_b attach vB 2>"$out2" &
p2=$!
rc1=0 rc2=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
ps_check_eq "two attaches at once: one succeeds, one fails" "$(echo "$rc1 $rc2" | tr ' ' '\n' | sort | tr '\n' ' ')" "0 1 "
ps_check_eq "the loser says so in one line" \
	"$(cat "$out1" "$out2" | grep -c "is already attached")$(cat "$out1" "$out2" | wc -l)" "11"
ps_check_eq "one attachment, live" "$(state)" ok
ps_pathscope_b detach vB || ps_fail "detach after the race" "exit $?"

# The same, deterministically: an attach stopped midway (PATHSCOPE_STOP_AT)
# holds the attach lock. status shows it at work; a second attach and a
# detach --gone wait for it instead of taking its state for a leftover; when
# it goes on it completes, and the second attach refuses in one line.
PATHSCOPE_STOP_AT=meta-pinned nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" attach vB \
	>/dev/null 2>&1 &
p1=$!
for i in $(seq $((100 * PS_SLOW))); do [ "$(state)" = attaching ] && break; sleep 0.1; done
ps_check_eq "an attach stopped midway: status shows it at work" "$(state)" attaching
ps_pathscope_b attach vB 2>"$out2" &
p2=$!
ps_pathscope_b detach --gone >/dev/null 2>&1 &
p3=$!
sleep 2
ps_check_eq "a second attach and detach --gone wait for the attach lock" \
	"$(kill -0 "$p2" && kill -0 "$p3" && echo waiting) $(state)" "waiting attaching"
kill -CONT "$p1"
rc1=0 rc2=0 rc3=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
wait "$p3" || rc3=$?
ps_check_eq "then the first completes, the second refuses in one line, detach --gone leaves it" \
	"$rc1 $rc2 $rc3 $(grep -c "is already attached" "$out2")$(wc -l <"$out2") $(state)" "0 1 0 11 ok"
ps_pathscope_b detach vB || ps_fail "detach after the stopped attach" "exit $?"

# ---- SIGKILL through attach -------------------------------------------------------------------
passes() { ps_in_a ping -c 3 -i 0.01 -W 1 -q "$PS_IP4_B" >/dev/null; }
killed=0 states=
for delay in 0.02 0.05 0.1 0.2 0.35 0.6 1.2 3; do
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" attach vB --features default,kernel >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
	wait "$pid" 2>/dev/null
	passes || ps_fail "SIGKILL after ${delay}s: traffic still passes" "ping failed"
	st=$(state)
	case "$st" in "" | ok | "attach interrupted"*) states="$states|${st%% (*}" ;;
	*) ps_fail "SIGKILL after ${delay}s: status" "'$st'" ;; esac
	ps_pathscope_b detach vB >/dev/null 2>&1
	ps_pathscope_b attach vB >/dev/null 2>&1 || ps_fail "SIGKILL after ${delay}s: a new attach works" "exit $?"
	ps_pathscope_b detach vB >/dev/null 2>&1 || ps_fail "SIGKILL after ${delay}s: and detaches" "exit $?"
done
[ "$killed" -ge 3 ] && ps_ok "SIGKILL: $killed of 8 attaches killed ($states); traffic passed, status said, detach cleaned" ||
	ps_fail "SIGKILL: enough attaches killed midway" "$killed of 8"
ps_check_eq "SIGKILL: everything as before" "$(ps_census_is "$base")" "$base"
ps_check_eq "SIGKILL: libxdp's lock directory as before ('$xdp_dir0')" "$(ls -d /sys/fs/bpf/xdp 2>/dev/null)" "$xdp_dir0"

# The same at every step of attach, deterministically: PATHSCOPE_KILL_AT makes
# the loader SIGKILL itself at a named point (lib/util.h), also right after
# it created the clsact qdisc and before it attached a filter to it.
killat() { # MODE POINT...: each attach killed at POINT, then checked and detached
	local mode=$1 point rc st out bad=
	shift
	for point in "$@"; do
		rc=0
		PATHSCOPE_KILL_AT=$point PATHSCOPE_FORCE_FALLBACK=$([ "$mode" = clsact ] && echo tcx) \
			ps_pathscope_b attach vB --features all >/dev/null 2>&1 || rc=$?
		passes || bad="$bad $point:traffic"
		st=$(state)
		case "$point:$st" in
		dir-created:incomplete | *:"attach interrupted (loader gone); detach removes it") ;;
		*) bad="$bad $point:rc=$rc,state='$st'" ;;
		esac
		[ "$rc" = 137 ] || bad="$bad $point:rc=$rc"
		# (What detach said goes with a leftover: CI's ASan stage once left
		# the tc-ingress-added and tc-egress-added attachments whole.)
		out=$(ps_pathscope_b detach vB 2>&1) || bad="$bad $point:detach"
		[ "$(ps_census_is "$base")" = "$base" ] || bad="$bad $point:left($(ps_census); detach: ${out//$'\n'/ })"
	done
	ps_check_eq "killed at each of $# points of a $mode attach: traffic passed, status said, detach left nothing" \
		"${bad:-none}" none
}
killat tcx dir-created meta-pinned xdp-attached xdp-done tc-ingress-added tc-egress-added tc-done \
	sock-done txlat-done kernel-done attached
killat clsact clsact-created tc-ingress-added tc-egress-added tc-done
ps_pathscope_b attach vB >/dev/null 2>&1 && ps_pathscope_b detach vB >/dev/null 2>&1
ps_check_eq "after the killed attaches: a new attach and detach work, nothing left" \
	"$? $(ps_census_is "$base")" "0 $base"

# A meta map rewritten by someone else (anyone with CAP_BPF can): readers
# refuse it with its reason (loader/meta_check.c), detach removes the pins.
ps_pathscope_b attach vB --features none >/dev/null 2>&1 || ps_fail "corrupt meta: attach" "exit $?"
metapin=$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0].pin_dir')/meta
value=$(bpftool map dump pinned "$metapin" -j | jq -r '.[0].value | join(" ")')
# flags is the __u32 at offset 52 (include/pathscope/meta.h): set bit 9.
value=$(awk '{ $54 = "0x02"; print }' <<<"$value")
bpftool map update pinned "$metapin" key hex 00 00 00 00 value $value ||
	ps_fail "corrupt meta: bpftool rewrites it" "exit $?"
ps_check_eq "corrupt meta: status shows it incomplete, with the reason" \
	"$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0] | "\(.state): \(.reason)"')" "incomplete: unknown flag bits"
ps_expect_error "corrupt meta: stats refuses in one line" \
	"its meta map is not one pathscope writes" ps_pathscope_b stats vB
ps_pathscope_b detach vB 2>/dev/null || ps_fail "corrupt meta: detach" "exit $?"
ps_check_eq "corrupt meta: detach removed it all (XDP and tc recognised by name)" \
	"$(ps_census_is "$base")" "$base"

# SIGKILL of serve: the attachment stays live and keeps counting; status
# shows it; detach removes it.
nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen 127.0.0.1:9464 >/dev/null 2>&1 &
spid=$!
for i in $(seq $((50 * PS_SLOW))); do
	[ "$(ps_in_b curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9464/healthz)" = 200 ] && break
	sleep 0.1
done
kill -KILL "$spid"
wait "$spid" 2>/dev/null
ps_check_eq "serve killed: its attachment is left, live" "$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0].state')" ok
ps_wait_quiet 5
c0=$(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.l4.icmp')
passes || ps_fail "serve killed: traffic passes" "ping failed"
ps_check_eq "serve killed: the datapath still counts (3 echo requests)" \
	$(($(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.l4.icmp') - c0)) 3
ps_pathscope_b detach vB || ps_fail "serve killed: detach" "exit $?"
ps_check_eq "serve killed: everything as before after detach" "$(ps_census_is "$base")" "$base"

# ---- forced fallbacks ------------------------------------------------------------------------
PATHSCOPE_FORCE_FALLBACK=tcx,tp_btf,dispatcher ps_pathscope_b attach vB --features default,kernel ||
	ps_fail "fallbacks forced: attach" "exit $?"
ps_check_eq "fallbacks forced: clsact, classic tracepoints, one XDP program" \
	"$(ps_pathscope_b stats vB --json | jq -r '.interfaces[0] | "\(.tc_mode) \(.probe_mode) \(.xdp_mode)"') $(tc -n "$NS_B" qdisc show dev vB | grep -c clsact)" \
	"clsact tracepoint native 1"
ps_wait_quiet 5
j0=$(ps_pathscope_b stats vB --json)
passes || ps_fail "fallbacks forced: traffic passes" "ping failed"
j1=$(ps_pathscope_b stats vB --json)
ps_check_eq "fallbacks forced: tc ingress and the stack tracepoint count the 3 requests" \
	"$(($(jq '.interfaces[0].totals.tc_ingress.total.l4.icmp' <<<"$j1") - $(jq '.interfaces[0].totals.tc_ingress.total.l4.icmp' <<<"$j0"))) $(($(jq '.interfaces[0].totals.kernel.rx.stack_packets' <<<"$j1") - $(jq '.interfaces[0].totals.kernel.rx.stack_packets' <<<"$j0")))" \
	"3 3"
ps_pathscope_b detach vB || ps_fail "fallbacks forced: detach" "exit $?"
ps_check_eq "fallbacks forced: everything as before (clsact removed)" "$(ps_census_is "$base")" "$base"

# ---- the interface changes under pathscope --------------------------------------------------------
ps_pathscope_b attach vB --features default,kernel || ps_fail "changes: attach" "exit $?"
ip -n "$NS_B" link set vB down
ps_check_eq "down: status says so" "$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0].state')" "ok (interface down)"
ip -n "$NS_B" link set vB up
for i in $(seq 50); do [ "$(ps_in_b cat /sys/class/net/vB/operstate)" = up ] && break; sleep 0.1; done
ps_wait_quiet 5
c0=$(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.l4.icmp')
passes || ps_fail "up again: traffic passes" "ping failed"
ps_check_eq "up again: ok, and counting (3 echo requests)" \
	"$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0].state') $(($(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.l4.icmp') - c0))" "ok 3"

# MTU: native XDP on a veth (without multi-buffer support) caps what its
# peer may send at a page, so the kernel refuses MTU 9000 on the peer; with
# generic XDP 9000 works and the jumbo frames are counted whole.
err=$(ps_in_a ip link set vA mtu 9000 2>&1)
ps_check_eq "MTU 9000 toward native XDP: the kernel refuses, pathscope unharmed" \
	"$? $(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0].state')" "2 ok"
ps_pathscope_b detach vB
ps_in_a ip link set vA mtu 9000
ps_in_b ip link set vB mtu 9000
ps_pathscope_b attach vB --xdp-mode skb || ps_fail "MTU 9000: attach in generic mode" "exit $?"
ps_wait_quiet 5
j0=$(ps_pathscope_b stats vB --json)
ps_sink_start "$NS_B" 9000 --expect 20 --timeout 10
ps_in_a "$UDPSEND" -n 20 -s 8900 "$PS_IP4_B" 9000 || ps_fail "MTU 9000: jumbo datagrams" "exit $?"
ps_check_eq "MTU 9000: every jumbo datagram arrived" "$(ps_sink_wait)" 20
j1=$(ps_pathscope_b stats vB --json)
ps_check_eq "MTU 9000: 20 frames of 8942 bytes counted at XDP" \
	"$(($(jq '.interfaces[0].totals.xdp.total.packets' <<<"$j1") - $(jq '.interfaces[0].totals.xdp.total.packets' <<<"$j0"))) $(($(jq '.interfaces[0].totals.xdp.total.bytes' <<<"$j1") - $(jq '.interfaces[0].totals.xdp.total.bytes' <<<"$j0")))" \
	"20 $((20 * 8942))"
ps_pathscope_b detach vB
ps_in_a ip link set vA mtu 1500
ps_in_b ip link set vB mtu 1500

# Queues. The per-queue maps are sized for the most queues the device can
# have (IFLA_NUM_RX/TX_QUEUES), not for those in use at attach, and status
# compares the queues in use with those at attach. veth sets its XDP program
# on the RX queues it has at attach or link up only: frames on a queue that
# `ethtool -L` adds later skip XDP (drivers/net/veth.c), and status says so.
# (veth wants the peer's TX queues to fit into the RX queues: A first.)
# The workload is UDP; ARP and the MLD reports of a carrier change (which a
# 0.5 s quiet spell can precede) are not, so the checks count l4.udp.
on_q1() { # HOOK: the workload's datagrams at HOOK on queue 1 (j1 - j0)
	local f="[.interfaces[0].queues[] | select(.queue == 1) | .$1.total.l4.udp] | add // 0"
	echo $(($(jq "$f" <<<"$j1") - $(jq "$f" <<<"$j0")))
}
send100() { # stats before (j0), 100 datagrams the sink gets, stats after (j1)
	ps_wait_quiet 5 # also lets the MLD reports of a carrier change pass
	j0=$(ps_pathscope_b stats vB --json)
	ps_sink_start "$NS_B" 9000 --expect 100 --timeout 10
	ps_in_a "$UDPSEND" -n 100 "$PS_IP4_B" 9000 || ps_fail "channels: udpsend" "exit $?"
	[ "$(ps_sink_wait)" = 100 ] || ps_fail "channels: the sink got all 100" "$(cat "$PS_SINK_OUT")"
	j1=$(ps_pathscope_b stats vB --json)
}
ps_in_a ethtool -L vA tx 1 && ps_in_b ethtool -L vB rx 1 ||
	ps_fail "channels: ethtool -L vA tx 1, vB rx 1" "exit $?"
ps_pathscope_b attach vB || ps_fail "channels: attach with 1 RX queue in use" "exit $?"
ps_check_eq "channels: maps sized for the device's 2 queues, not the 1 in use" \
	"$(ps_pathscope_b status --json | jq 'map(select(.current_netns)) | .[0].nqueues')" 2
ps_check_eq "channels: status records the queues in use at attach (rx 1, tx 2)" \
	"$(ps_pathscope_b status --json | jq -c 'map(select(.current_netns)) | .[0] | [.rx_queues_at_attach, .tx_queues_at_attach]')" "[1,2]"
ps_in_b ethtool -L vB rx 2 && ps_in_a ethtool -L vA tx 2 ||
	ps_fail "channels: ethtool -L vB rx 2, vA tx 2" "exit $?"
ps_check_eq "channels grown after attach: status says XDP may miss the added queue" \
	"$(state)" "xdp may miss the RX queues added since attach (1 -> 2): veth runs XDP only on the queues it had at attach or link up; attach again"
ps_txq_pin "$NS_A" vA 1 # every datagram leaves vA on TX queue 1, arrives on vB RX queue 1
send100
ps_check_eq "channels grown after attach: tc ingress counts the 100 on queue 1, XDP none (veth)" \
	"$(on_q1 tc_ingress) $(on_q1 xdp)" "100 0"
ps_pathscope_b detach vB && ps_pathscope_b attach vB || ps_fail "channels: attach again" "exit $?"
send100
ps_check_eq "channels: attached again, status ok and XDP counts the 100 on queue 1" \
	"$(state) $(on_q1 xdp)" "ok 100"
ps_txq_unpin "$NS_A" vA
ps_in_a ethtool -L vA tx 1 && ps_in_b ethtool -L vB rx 1 ||
	ps_fail "channels: ethtool -L vA tx 1, vB rx 1 while attached" "exit $?"
ps_check_eq "channels shrunk while attached: status says so" \
	"$(state)" "ok (queues since attach: rx 2 -> 1, tx 2 -> 2)"
send100
ps_check_eq "channels shrunk while attached: all 100 counted at XDP, summed over queues" \
	$(($(jq '.interfaces[0].totals.xdp.total.l4.udp' <<<"$j1") - $(jq '.interfaces[0].totals.xdp.total.l4.udp' <<<"$j0"))) 100
ps_in_b ethtool -L vB rx 2 && ps_in_a ethtool -L vA tx 2 ||
	ps_fail "channels: ethtool -L vB rx 2, vA tx 2 again" "exit $?"
ps_txq_pin "$NS_A" vA 1
send100
ps_check_eq "channels grown back to those at attach: status ok, XDP counts the 100 on queue 1" \
	"$(state) $(on_q1 xdp)" "ok 100"
ps_txq_unpin "$NS_A" vA

# Deleted while attached: status says so, detach removes the leftovers.
ps_in_b ip link del vB
ps_check_eq "deleted: status says the interface is gone" \
	"$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0].state')" "interface gone"
ps_pathscope_b detach --gone >/dev/null 2>&1
ps_check_eq "deleted: detach --gone removes the leftovers" "$(find "$PINS" 2>/dev/null | wc -l)" 0
ps_check_eq "deleted: no pathscope program is left" "$(($(our_progs) - progs0))" 0
ps_done
