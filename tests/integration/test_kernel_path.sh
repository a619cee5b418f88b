#!/usr/bin/env bash
# The kernel path view (feature kernel) and `pathscope check`, on a 2-queue
# veth with known workloads:
#   - N UDP datagrams and N TCP SYNs to closed ports are N drops with the
#     kernel's NO_SOCKET reason (named from its BTF) on vB, RX; datagrams to
#     a listening socket are no drops;
#   - NAPI polls appear for vB, on the queue the traffic arrives on (XPS pins
#     the sender's TX queue, veth maps it to the same RX queue), and the work
#     they report equals the frames sent; frames into GRO and packets into
#     the stack likewise;
#   - net_dev_xmit counts per TX queue equal what was sent;
#   - NET_RX softirq runs lie within /proc/softirqs' count read around our
#     snapshots, 1 run in 8 per CPU is timed, and the time estimated from
#     them is within 25% of /proc/stat's softirq time under a UDP flood;
# (`pathscope check` on the same kind of workload: test_check_cmd.)
# The probes run as tp_btf and as classic tracepoints (--probe-mode).
# Numbers: 200 UDP datagrams and 10 TCP SYNs; pings are xmit_ok on the TX
# queue XPS picked; 25 frames aborted by someone else's XDP program are 25
# `aborted` XDP exceptions; the flood lasts 2 s and the softirq time is the
# machine's, so this test runs alone.
. "$(dirname "$0")/lib.sh"
ps_require_root kernel_path
ps_require_file kernel_path "$PATHSCOPE"
ps_require_file kernel_path "$UDPSEND"
ps_require_cmd kernel_path bpftool jq iperf3

ps_testbed_create 2 || { ps_fail kernel_path "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1; ps_pathscope_b detach vB >/dev/null 2>&1'

js() { ps_pathscope_b stats vB --json; }
# Drops of vB with reason $2 (all reasons: "") in direction rx, from stats JSON $1.
drops() { jq --arg r "$2" '[.interfaces[0].kernel.drops[] | select(.direction == "rx" and ($r == "" or .reason == $r)) | .count] | add // 0' <<<"$1"; }
kq() { jq ".interfaces[0].queues[$2].kernel.$3" <<<"$1"; }
napi_work() { jq "[.interfaces[0].kernel.napi[] | select(.queue == $2) | .work] | add // 0" <<<"$1"; }
# NET_RX softirq runs of all CPUs: the kernel's count, then ours from stats JSON $1.
netrx() { awk '$1 == "NET_RX:" { s = 0; for (i = 2; i <= NF; i++) s += $i; print s }' /proc/softirqs; }
sirq_runs() { jq '[.interfaces[0].kernel.softirq[].net_rx_count] | add' <<<"$1"; }
# NET_RX + NET_TX softirq ns of all CPUs from stats JSON $1; the kernel's
# softirq time of all CPUs in ms (/proc/stat, USER_HZ ticks).
sirq_ns() { jq '[.interfaces[0].kernel.softirq[] | .net_rx_ns + .net_tx_ns] | add' <<<"$1"; }
stat_softirq_ms() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { print int($8 * 1000 / hz) }' /proc/stat; }
napi_queues() { jq -c '[.interfaces[0].kernel.napi[].queue] | unique' <<<"$1"; }

no_socket=$(bpftool btf dump file /sys/kernel/btf/vmlinux format c | awk '$1 == "SKB_DROP_REASON_NO_SOCKET" { gsub(",", "", $3); print $3 }')
links0=$(ps_kprobe_links)

for mode in tp_btf tracepoint; do
	ps_pathscope_b attach vB --features default,kernel --probe-mode "$mode" ||
		ps_fail "$mode: attach vB with kernel probes" "exit $?"
	ps_check_eq "$mode: nine probe links" "$(ps_kprobe_links)" $((links0 + 9))
	ps_check_eq "$mode: stats report the probe mode" \
		"$(js | jq -r '.interfaces[0].probe_mode')" "$mode"
	ps_wait_quiet 5

	# Drops: UDP to a closed port (-r: exactly N reach it despite the ICMP
	# errors coming back), then TCP SYNs to a closed port (each answered by
	# a RST, so no retransmission).
	N=200 S=10
	j0=$(js)
	ps_in_a "$UDPSEND" -r -n "$N" "$PS_IP4_B" 9999 || ps_fail "$mode: udpsend to a closed port" "exit $?"
	j1=$(js)
	ps_check_eq "$mode: $N UDP datagrams to a closed port are $N NO_SOCKET drops on vB rx" \
		$(($(drops "$j1" NO_SOCKET) - $(drops "$j0" NO_SOCKET))) "$N"
	ps_check_eq "$mode: the reason id is the kernel's (BTF)" \
		"$(jq '[.interfaces[0].kernel.drops[] | select(.reason == "NO_SOCKET") | .reason_id][0]' <<<"$j1")" "$no_socket"
	ps_check_eq "$mode: and no other drops" $(($(drops "$j1" "") - $(drops "$j0" ""))) "$N"
	for _ in $(seq "$S"); do
		ps_in_a timeout 2 bash -c "echo > /dev/tcp/$PS_IP4_B/9998" 2>/dev/null
	done
	j2=$(js)
	ps_check_eq "$mode: $S TCP SYNs to a closed port are $S NO_SOCKET drops" \
		$(($(drops "$j2" NO_SOCKET) - $(drops "$j1" NO_SOCKET))) "$S"
	ps_check_eq "$mode: the table lists the drops by reason" \
		"$(ps_pathscope_b stats vB | awk '/^Drops/ { s = 1 } s && $1 == "rx" && $3 == "NO_SOCKET" { print "yes" }' | head -1)" yes

	# Normal traffic: no drops. RX queue 1, then 0, with exact NAPI work.
	ps_wait_quiet 5
	for q in 1 0; do
		M=$((q == 1 ? 300 : 150))
		ps_txq_pin "$NS_A" vA "$q"
		j0=$(js)
		ps_sink_start "$NS_B" 9000 --expect "$M" --timeout 10
		ps_in_a "$UDPSEND" -n "$M" "$PS_IP4_B" 9000 || ps_fail "$mode: udpsend to the sink" "exit $?"
		ps_check_eq "$mode: rxq $q: the sink got every datagram" "$(ps_sink_wait)" "$M"
		j1=$(js)
		ps_check_eq "$mode: rxq $q: $M datagrams to a listener are no drops" \
			$(($(drops "$j1" "") - $(drops "$j0" ""))) 0
		ps_check_eq "$mode: rxq $q: NAPI work on queue $q = $M frames" \
			$(($(napi_work "$j1" "$q") - $(napi_work "$j0" "$q"))) "$M"
		ps_check_eq "$mode: rxq $q: frames into GRO = $M" \
			$(($(kq "$j1" "$q" rx.gro_frames) - $(kq "$j0" "$q" rx.gro_frames))) "$M"
		ps_check_eq "$mode: rxq $q: packets into the stack = $M" \
			$(($(kq "$j1" "$q" rx.stack_packets) - $(kq "$j0" "$q" rx.stack_packets))) "$M"
		ps_check_eq "$mode: rxq $q: XDP counted the same $M" \
			$(($(jq ".interfaces[0].queues[$q].xdp.total.packets" <<<"$j1") - $(jq ".interfaces[0].queues[$q].xdp.total.packets" <<<"$j0"))) "$M"
	done
	ps_txq_unpin "$NS_A" vA
	ps_check_eq "$mode: NAPI instances of vB serve queues 0 and 1" "$(napi_queues "$j1")" "[0,1]"

	# NET_RX softirq runs: the kernel's own count (/proc/softirqs, bumped
	# beside the tracepoint) read before and after each of our snapshots
	# brackets ours exactly; 1 run in 8 of each CPU is timed, the 1st, 9th, ...
	# (one may be in progress).
	p0a=$(netrx) j0=$(js) p0b=$(netrx)
	ps_sink_start "$NS_B" 9000 --expect 200 --timeout 10
	ps_in_a "$UDPSEND" -n 200 "$PS_IP4_B" 9000 || ps_fail "$mode: udpsend to the sink" "exit $?"
	ps_sink_wait >/dev/null
	p1a=$(netrx) j1=$(js) p1b=$(netrx)
	sirq=$(($(sirq_runs "$j1") - $(sirq_runs "$j0")))
	[ "$sirq" -ge $((p1a - p0b)) ] && [ "$sirq" -le $((p1b - p0a)) ] && [ "$sirq" -gt 0 ] &&
		ps_ok "$mode: NET_RX softirq runs $sirq, within /proc/softirqs' [$((p1a - p0b)), $((p1b - p0a))]" ||
		ps_fail "$mode: NET_RX softirq runs within /proc/softirqs' bracket" "$sirq not in [$((p1a - p0b)), $((p1b - p0a))]"
	# Their time, estimated from 1 run in 8, against the kernel's own
	# softirq time (/proc/stat, all vectors, tick-sampled at HZ) over a 2 s
	# UDP flood in which NET_RX and NET_TX are nearly all of it (1,575 to
	# 1,785 ms each way, within 5%, in three trial runs): within 25%.
	ip netns exec "$NS_B" timeout 20 iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
	srv=$!
	_ps_wait_port "$NS_B" tcp 5299
	t0=$(sirq_ns "$(js)") k0=$(stat_softirq_ms)
	ps_in_a timeout 20 iperf3 -c "$PS_IP4_B" -p 5299 -u -l 64 -b 0 -t 2 >/dev/null 2>&1 ||
		ps_fail "$mode: iperf3 UDP flood" "exit $?"
	t1=$(sirq_ns "$(js)") k1=$(stat_softirq_ms)
	wait "$srv"
	ours=$(((t1 - t0) / 1000000)) kern=$((k1 - k0))
	awk -v a="$ours" -v b="$kern" 'BEGIN { exit !(b > 200 && a >= 0.75 * b && a <= 1.25 * b) }' &&
		ps_ok "$mode: NET_RX+NET_TX softirq time $ours ms, /proc/stat's softirq time $kern ms (within 25%)" ||
		ps_fail "$mode: softirq time within 25% of /proc/stat's" "$ours ms against $kern ms"
	ps_check_eq "$mode: per CPU and vector, runs timed = 1 in 8 (ceil(runs / 8), or 1 less while one runs)" \
		"$(jq '[.interfaces[0].kernel.softirq[] | [[.net_rx_count, .net_rx_timed], [.net_tx_count, .net_tx_timed]][] |
			((.[0] + 7) / 8 | floor) as $w | .[1] == $w or .[1] == $w - 1] | all' <<<"$j1")" true

	# TX: pings from B leave vB; net_dev_xmit on the queue XPS picks.
	ps_txq_pin "$NS_B" vB 1
	j0=$(js)
	ps_in_b ping -c 20 -i 0.01 -q "$PS_IP4_A" >/dev/null || ps_fail "$mode: ping from B" "exit $?"
	j1=$(js)
	ps_check_eq "$mode: 20 echo requests are 20 xmit_ok on vB tx queue 1" \
		$(($(kq "$j1" 1 tx.xmit_ok) - $(kq "$j0" 1 tx.xmit_ok))) 20
	ps_check_eq "$mode: and none on tx queue 0" \
		$(($(kq "$j1" 0 tx.xmit_ok) - $(kq "$j0" 0 tx.xmit_ok))) 0
	ps_txq_unpin "$NS_B" vB

	ps_pathscope_b detach vB || ps_fail "$mode: detach" "exit $?"
	ps_check_eq "$mode: detach removes the probe links" "$(ps_kprobe_links)" "$links0"
done

# XDP exceptions: someone else's XDP program aborts UDP to port 7777;
# pathscope measures at tc only (--no-xdp) with its kernel probes.
ABORT_XDP=$PS_BIN/tests/standin_abort.bpf.o
ip -n "$NS_B" link set dev vB xdp obj "$ABORT_XDP" sec xdp || ps_fail "xdp_exception: load the aborting stand-in" "exit $?"
ps_pathscope_b attach vB --no-xdp --features default,kernel || ps_fail "xdp_exception: attach --no-xdp" "exit $?"
ps_wait_quiet 5
j0=$(js)
ps_in_a "$UDPSEND" -n 25 "$PS_IP4_B" 7777 || ps_fail "xdp_exception: udpsend" "exit $?"
aborted() { jq .interfaces[0].kernel.xdp_exceptions.aborted <<<"$1"; }
for _ in $(seq 50); do # wait (at most 5 s) for the 25
	j1=$(js)
	[ $(($(aborted "$j1") - $(aborted "$j0"))) -ge 25 ] && break
	sleep 0.1
done
ps_check_eq "xdp_exception: 25 aborted frames are 25 XDP_ABORTED exceptions" \
	$(($(aborted "$j1") - $(aborted "$j0"))) 25
ps_check_eq "xdp_exception: and no other action" \
	"$(jq -c '.interfaces[0].kernel.xdp_exceptions | [.drop, .pass, .tx, .redirect, .other]' <<<"$j1")" "[0,0,0,0,0]"
ps_check_eq "xdp_exception: none reached GRO or the stack" \
	$(($(kq "$j1" 0 rx.gro_frames) + $(kq "$j1" 1 rx.gro_frames) - $(kq "$j0" 0 rx.gro_frames) - $(kq "$j0" 1 rx.gro_frames))) 0
ps_pathscope_b detach vB || ps_fail "xdp_exception: detach" "exit $?"
ip -n "$NS_B" link set dev vB xdp off

ps_done
