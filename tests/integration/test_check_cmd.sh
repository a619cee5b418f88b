#!/usr/bin/env bash
# `pathscope check` on a 2-queue veth with known workloads (its kernel probes
# pinned by attach, or started by check itself for its interval):
#   - a clean workload agrees (exit 0): XDP counted the 300 datagrams, every
#     comparable pair agrees, the pairs veth cannot give say why, the queue
#     they came in on has the one latency line (d2s and sock medians), ok;
#   - frames that bypass the qdisc layer (AF_PACKET PACKET_QDISC_BYPASS), which
#     tc egress and net_dev_xmit never see but the driver counts, are exactly
#     the difference reported (exit 3); the table on an idle link agrees;
#     check's own probes are gone after it;
#   - datagrams 2 ms apart across both edges of five checks of 0.2 s: all
#     five agree (exit 0), each end read until nothing moved between two
#     reads;
#   - a bad --duration and an unattached interface are refused in one line.
# Exact counts only, no clock: it may run beside other tests, and under the
# sanitizers (test_kernel_path holds the probes' own counts).
# The frames past the qdisc layer: 50.
. "$(dirname "$0")/lib.sh"
RAWSEND=${RAWSEND:-$PS_BIN/tests/rawsend}
ps_require_root check_cmd
ps_require_file check_cmd "$PATHSCOPE"
ps_require_file check_cmd "$UDPSEND"
ps_require_file check_cmd "$RAWSEND"
ps_require_cmd check_cmd bpftool jq

ps_testbed_create 2 || { ps_fail check_cmd "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1; ps_pathscope_b detach vB >/dev/null 2>&1'

# check on a clean workload: vB with its pinned kernel probes, and d2s and
# sock, whose medians check compares per queue.
ps_pathscope_b attach vB --features default,kernel,d2s,sock || ps_fail "check: attach vB" "exit $?"
ps_wait_quiet 5
# check says on stderr when its interval begins: the workload starts then.
# It ends the interval at SIGINT (as at Ctrl-C) and reports: sent once the
# sink has the workload, whose every counter has moved by then (veth and the
# probes count within the send). Its --duration only bounds it.
ckout=$(mktemp) ckerr=$(mktemp)
ps_at_exit "rm -f $ckout $ckerr"
check_start() { # NS ARGS...: run check in NS in the background, return once it counts
	local ns=$1
	shift
	# Emptied here: the background job truncates it only once it runs, and a
	# wait that read the last check's line first would start the workload
	# (and SIGINT, then still ignored) before this check counts (all 0 once).
	: >"$ckerr"
	nsenter --net="/var/run/netns/$ns" "$PATHSCOPE" check "$@" >"$ckout" 2>"$ckerr" &
	ckpid=$!
	ps_wait_check_counting "$ckerr" || ps_fail "check: its interval begins" "$(cat "$ckerr")"
}
check_wait() { # end the interval now; sets rc and out
	rc=0
	kill -INT "$ckpid" 2>/dev/null
	wait "$ckpid" || rc=$?
	out=$(cat "$ckout")
}
check_start "$NS_B" vB --duration 60 --json
ps_sink_start "$NS_B" 9000 --expect 300 --timeout 10
ps_in_a "$UDPSEND" -n 300 -i 1000 "$PS_IP4_B" 9000
ps_check_eq "check: the sink got the workload" "$(ps_sink_wait)" 300
check_wait
ps_check_eq "check: a clean workload agrees (exit 0)" "$rc" 0
ps_check_eq "check: XDP counted the 300 datagrams" \
	"$(jq '.pairs[] | select(.layer == "xdp" and .vs_layer == "netif_receive_skb") | .count' <<<"$out")" 300
ps_check_eq "check: every comparable pair agrees" \
	"$(jq '[.pairs[] | select(.agree != null) | .agree] | all' <<<"$out")" true
ps_check_eq "check: comparable pairs on veth (no per-queue driver stats)" \
	"$(jq '[.pairs[] | select(.agree != null)] | length' <<<"$out")" 6
ps_check_eq "check: n/a pairs say why" \
	"$(jq -r '[.pairs[] | select(.agree == null) | .na] | unique | join(";")' <<<"$out")" \
	"the driver has no per-queue stats"
# The 300 datagrams come in on one RX queue (one socket, one flow): 1 in 64
# is timed from driver to stack and 1 in 64 to the sink's read, so that queue
# alone has a latency line, and stack to socket is not below driver to stack
# (the sink reads what veth hands over within the same softirq).
q300=$(ps_pathscope_b stats vB --json | jq -r '[.interfaces[0].queues[] | select(.xdp.total.packets >= 300) | .queue] | join(",")')
ps_check_eq "check: one latency line, for the queue whose XDP counted the 300" \
	"$(jq -c '[.latency[] | [.queue, (.sock_p50_ns >= .d2s_p50_ns and .d2s_p50_ns > 0), .ok]]' <<<"$out")" \
	"[[${q300:-none},true,true]]"

# Traffic across both edges of the interval: datagrams 2 ms apart from
# before check's first read until after its last, five checks of 0.2 s. The
# layers are read one after the other, so a datagram crossing them during a
# read counts in some and not in others: read once per edge, 5 of 10 such
# checks differed by one; each edge read until two reads in a row saw
# nothing between them, none. (Sanitizers: the gap times PS_SLOW.)
gap=$((2000 * ${PS_SLOW:-1}))
ps_in_a "$UDPSEND" -r -n 1500 -i "$gap" "$PS_IP4_B" 9001 &
edge_sender=$!
ps_at_exit "kill $edge_sender 2>/dev/null"
rx0=$(ps_in_b cat /sys/class/net/vB/statistics/rx_packets)
flowing() { [ "$(ps_in_b cat /sys/class/net/vB/statistics/rx_packets)" -gt "$((rx0 + 1))" ]; }
ps_wait_for 5 flowing || ps_fail "check: the datagrams across the edges flow" "vB's rx_packets still $rx0"
edge_ok=0 edge_seen=
for i in 1 2 3 4 5; do
	out=$(ps_pathscope_b check vB --duration 0.2 --json 2>/dev/null)
	rc=$?
	edge_seen+=" $(jq -r '.pairs[0].count' <<<"$out")"
	[ "$rc" = 0 ] && [ "$(jq '[.pairs[] | select(.agree != null) | .agree] | all' <<<"$out")" = true ] &&
		edge_ok=$((edge_ok + 1))
done
ps_check_eq "check: the sender was still sending after the fifth check" "$(kill -0 "$edge_sender" 2>/dev/null && echo yes)" yes
wait "$edge_sender"
ps_check_eq "check: with datagrams $((gap / 1000)) ms apart across its edges, 5 of 5 checks agree, exit 0, each over half of 0.2 s of them (XDP counted$edge_seen)" \
	"$edge_ok $(awk -v want=$((200000 / gap / 2)) '{ for (i = 1; i <= NF; i++) if ($i < want) { print "few"; exit } print "ok" }' <<<"$edge_seen")" "5 ok"

# check with traffic one layer misses: vA without kernel probes (check starts
# them for the interval); 50 frames bypass the qdisc, 100 datagrams do not.
ps_pathscope_a attach vA || ps_fail "check: attach vA" "exit $?"
ps_wait_quiet 5
links1=$(ps_kprobe_links)
# (Every count 0 once under the ASan suite's load, then with a 2.5 s interval:
# most likely the stale "counting" line, see check_start.)
check_start "$NS_A" vA --duration 60 --json
ps_sink_start "$NS_B" 9000 --expect 150 --timeout 10
ps_in_a "$RAWSEND" --bypass -n 50 vA "$PS_MAC_B" "$PS_IP4_A" "$PS_IP4_B" 9000 &&
	ps_in_a "$UDPSEND" -n 100 "$PS_IP4_B" 9000
ps_check_eq "check: the sink got both kinds" "$(ps_sink_wait)" 150
check_wait
ps_check_eq "check: a missed path is reported (exit 3)" "$rc" 3
pair() { jq -c ".pairs[] | select(.layer == \"tc egress\" and .vs_layer == \"$1\") | [.count, .vs_count, .agree, .difference]" <<<"$out"; }
ps_check_eq "check: tc egress and net_dev_xmit both miss the bypass" "$(pair net_dev_xmit)" "[100,100,true,0]"
ps_check_eq "check: the link counts 50 more than tc egress" "$(pair "link tx_packets")" "[100,150,false,50]"
ps_check_eq "check: the table, on an idle link" \
	"$(ps_pathscope_a check vA --duration 0.2 2>/dev/null | awk '/link tx_packets/ { print $NF }')" "agree"
ps_check_eq "check: its temporary probes are gone" "$(ps_kprobe_links)" "$links1"
err=$(ps_pathscope_a check vA --duration x 2>&1 >/dev/null)
ps_check_eq "check: a bad duration is a usage error (exit 2)" "$? $err" \
	"2 pathscope: bad --duration 'x' (seconds, 0 < S <= 3600)"
err=$(ps_pathscope_a check lo 2>&1 >/dev/null)
ps_check_eq "check: an unattached interface is an error (exit 1)" "$? $err" \
	"1 pathscope: 'lo' is not attached (nor can it be: it has no Ethernet framing)"
ps_done
