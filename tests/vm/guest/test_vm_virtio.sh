#!/usr/bin/env bash
# pathscope on a real NIC driver: virtio-net with 4 queues in native XDP, in
# a qemu guest of the kernel matrix (tests/vm/run.sh; the host end of the
# NIC is a tap in a namespace of run.sh, which answers ping and runs iperf3
# -s). Runs only in such a guest (PS_VM=1).
#
# For the default features and for default,tcp:
#   - XDP's packets per RX queue equal the driver's own rx_queue_N_xdp_packets
#     (ethtool -S) exactly, over the whole test;
#   - known volumes counted exactly: ping -c N (N requests at tc egress, N
#     replies at XDP and tc ingress, N RTT samples); N UDP datagrams sent by
#     the host (iperf3 -u -R -n), as many as iperf3 itself received, at XDP
#     and at tc ingress; a TCP upload of fixed size (iperf3 -n): the segments
#     tc egress saw (GSO segments added up) equal the kernel's OutSegs;
#   - the ICMP RTT against ping's: ping's span (user space to user space)
#     holds pathscope's (tc egress to XDP), so pathscope's exact mean is at
#     most ping's, and at least ping's minus the guest's own send and
#     receive path, which TCG inflates (the bound below);
#   - detach leaves nothing.
# And `features` against what the kernel itself shows (BTF, tracefs, what
# libxdp's own tools load), for the capabilities that differ between the
# kernels of the matrix.
. "$(dirname "$0")/../../integration/lib.sh"
N=vm_virtio
[ "${PS_VM:-}" = 1 ] || { ps_unsupported "$N" "runs in a guest of tests/vm/run.sh only"; ps_done; }
ps_require_root "$N"
ps_require_cmd "$N" ethtool iperf3 ping jq bpftool nstat tcpdump xdp-filter xdp-loader curl promtool
DEV=$PS_VM_DEV HOST=$PS_VM_HOST4
ps_at_exit "\"$PATHSCOPE\" detach $DEV >/dev/null 2>&1"

# ---- features against the kernel's own evidence -------------------------------
f=$("$PATHSCOPE" features --json)
feat() { jq -r ".$1" <<<"$f"; }
yes_if() { "$@" && echo true || echo false; }
in_btf() { bpftool btf dump file /sys/kernel/btf/vmlinux | grep -q "FUNC '$1'"; }
ps_check_eq "features: bpf_cast_to_kern_ctx as in the kernel's BTF" "$(feat kern_ctx)" \
	"$(yes_if in_btf bpf_cast_to_kern_ctx)"
ps_check_eq "features: the sock tracepoints as in tracefs" "$(feat sock_tracepoints)" \
	"$(yes_if test -d /sys/kernel/tracing/events/sock/sk_data_ready -a -d /sys/kernel/tracing/events/sock/sock_recv_length)"
ps_check_eq "features: kfree_skb's drop reason as in tracefs" "$(feat drop_reason)" \
	"$(yes_if grep -q ' reason;' /sys/kernel/tracing/events/skb/kfree_skb/format)"
xdp-filter load "$DEV" -m native >/dev/null 2>&1
disp=$(xdp-loader status "$DEV" | awk -v d="$DEV" '$1 == d { print $2 }')
xdp-filter unload "$DEV" >/dev/null 2>&1
ps_check_eq "features: freplace as libxdp's own tools find it (xdp-filter in a dispatcher)" \
	"$(feat freplace)" "$([ "$disp" = xdp_dispatcher ] && echo true || echo false)"
ps_check_eq "features: the tc egress TX queue way follows bpf_cast_to_kern_ctx" \
	"$(feat uses.tx_queue)" "$([ "$(feat kern_ctx)" = true ] && echo kern-ctx || echo probe-read)"

# ---- counting on the driver ---------------------------------------------------
# The driver's per-queue XDP packets, "q0 q1 q2 q3" (virtio_net names them
# rx_queue_N_xdp_packets before 6.10, rxN_xdp_packets since).
drv_xdp() {
	ethtool -S "$DEV" | sed -nE 's/^ *rx(_queue_)?([0-9]+)_xdp_packets: ([0-9]+)$/\2 \3/p' |
		awk '{ v[$1] = $2 } END { for (q = 0; q < 4; q++) printf "%s%d", q ? " " : "", v[q] }'
}
# The same as pathscope reads and shows them (stats --json, per queue).
ps_drv_xdp() { "$PATHSCOPE" stats "$DEV" --json | jq -r '[.interfaces[0].queues[] | select(.queue != "other") | .nic.ethtool.rx_xdp_packets] | join(" ")'; }
ps_xdp() { "$PATHSCOPE" stats "$DEV" --json | jq -r '[.interfaces[0].queues[] | select(.queue != "other") | .xdp.total.packets] | join(" ")'; }
stat() { "$PATHSCOPE" stats "$DEV" --json | jq -r "$1"; }
# Wait until the NIC has received and sent nothing for 0.5 s (at most 10 s).
PS_LINK_DEVS=("$DEV")
quiet() { ps_wait_quiet 10 || true; }
# CMD...: run it until it prints "0 0 0 0", at most 10 s; its last output.
# The kernel frees closed programs and links asynchronously (RCU, work
# queues), later still when the guests share the host's CPUs.
gone() {
	local out i
	for ((i = 0; i < 100; i++)); do
		out=$("$@")
		[ "$out" = "0 0 0 0" ] && break
		sleep 0.1
	done
	echo "$out"
}
left_tc() { # pins, XDP, tc filters, programs
	echo "$(find /sys/fs/bpf/pathscope -mindepth 1 2>/dev/null | wc -l) $(ip -d link show "$DEV" | grep -c 'prog/xdp') $(tc filter show dev "$DEV" ingress 2>/dev/null | wc -l) $(bpftool prog show | grep -c pathscope)"
}
left_links() { # pins, XDP, programs, links
	echo "$(find /sys/fs/bpf/pathscope -mindepth 1 2>/dev/null | wc -l) $(ip -d link show "$DEV" | grep -c 'prog/xdp') $(bpftool prog show | grep -c pathscope) $(bpftool link show | grep -c pathscope)"
}
tcp_out() { nstat -asz TcpOutSegs TcpRetransSegs | awk '$1 ~ /^Tcp/ { n += $2 } END { print n }'; }
EGRESS_TCP_SEGS='.interfaces[0].totals.tc_egress.total | .gro.segments - (.packets - .l4.tcp)'
sub() { # "a b c" - "x y z"
	paste -d' ' <(tr ' ' '\n' <<<"$1") <(tr ' ' '\n' <<<"$2") | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 - $2 }'
}

# serve adopts the attachment (--keep: it stays): /healthz answers 200,
# /metrics passes promtool check metrics, and its XDP packets per queue are
# what stats says.
serve_check() {
	local name=$1 pid code= i m
	"$PATHSCOPE" serve "$DEV" --keep --listen 127.0.0.1:9464 >/dev/null 2>/tmp/serve.err &
	pid=$!
	for i in $(seq $((100 * PS_SLOW))); do
		code=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9464/healthz)
		[ "$code" = 000 ] || break
		sleep 0.1
	done
	m=$(curl -s http://127.0.0.1:9464/metrics)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	ps_check_eq "$name: serve: /healthz answers 200" "$code" 200
	ps_check_eq "$name: serve: /metrics passes promtool check metrics" \
		"$(promtool check metrics <<<"$m" >/dev/null 2>&1 && echo passes)" passes
	ps_check_eq "$name: serve: XDP packets per queue in /metrics = stats --json" \
		"$(awk -F'[{}]' '$1 == "pathscope_packets_total" && $2 ~ /hook="xdp"/ && $2 ~ /queue="[0-9]+"/ { print $3 + 0 }' <<<"$m" | tr '\n' ' ' | sed 's/ $//')" \
		"$(ps_xdp)"
}

run_case() { # FEATURES
	local feats=$1 name="virtio ($1)" d0 p0 out n js mean pmean tol d seg0 seg t0 x0 got rcvd dump i
	"$PATHSCOPE" attach "$DEV" --features "$feats" || { ps_fail "$name: attach" "exit $?"; return; }
	quiet
	d0=$(drv_xdp) p0=$(ps_xdp)
	ps_check_eq "$name: status ok, XDP native" \
		"$("$PATHSCOPE" status --json | jq -r '.[0] | "\(.xdp_mode) \(.state | .[0:2])"')" "native ok"

	# ping: N echoes, each counted and matched.
	n=100
	out=$(ping -n -q -c $n -i 0.02 -W 2 "$HOST")
	quiet
	js=$("$PATHSCOPE" stats "$DEV" --json)
	ps_check_eq "$name: ping -c $n: $n requests at tc egress, $n replies matched, $n RTT samples" \
		"$(grep -o '[0-9]* received' <<<"$out") $(jq -c '.interfaces[0].totals.icmp_echo | [.requests_sent, .replies_matched, .rtt_ns.count, .expired]' <<<"$js")" \
		"$n received [$n,$n,$n,0]"
	ps_check_eq "$name: ping -c $n: ICMP at XDP, tc ingress and tc egress" \
		"$(jq -c '.interfaces[0].totals | [.xdp.total.l4.icmp, .tc_ingress.total.l4.icmp, .tc_egress.total.l4.icmp]' <<<"$js")" \
		"[$n,$n,$n]"
	mean=$(jq '.interfaces[0].icmp_peers[] | select(.peer == "'"$HOST"'") | .rtt_avg_ns' <<<"$js")
	pmean=$(awk -F/ '/^rtt / { printf "%d\n", $5 * 1000000 + 0.5 }' <<<"$out")
	# Under TCG the guest's own send and receive path (socket to tc egress,
	# XDP to socket), which ping's RTT holds and pathscope's does not, took
	# 0.1-0.4 ms of ping's 0.6-3 ms here, and 0.51 ms of 1.13 ms (45%) in a
	# CI run on 5.10 (2026-11-26), and 1.13 ms of 2.02 ms (56%) in one on
	# 6.1 with three guests and ASan sharing 2 CPUs (2026-11-28): three
	# quarters of ping's mean, and at least 0.6 ms, bound it. A pathscope that
	# timed nothing of the wire (a few us) is still far outside. (On the
	# host, test_icmp_rtt holds the RTT to ping within max(2%, 50 us); here
	# the check is that the driver's path is timed.)
	tol=$((pmean * 3 / 4 > 600000 ? pmean * 3 / 4 : 600000))
	d=$((pmean - mean))
	[ "$d" -ge -1000 ] && [ "$d" -le "$tol" ] &&
		ps_ok "$name: mean RTT $mean ns within ping's $pmean ns (ping - pathscope = $d ns, at most $tol)" ||
		ps_fail "$name: mean RTT within ping's" "pathscope $mean ns, ping $pmean ns (difference $d, want 0..$tol)"

	# UDP from the host: iperf3 -u -R, 1000 datagrams of 1000 bytes (and
	# iperf3's own few of setup). Every one that arrived, as tcpdump saw
	# them (a packet socket, after XDP, incoming only: the client sends one; nothing dropped), at XDP and at tc
	# ingress. (The kernel's UDP counters are no reference: InDatagrams
	# counts reads, not arrivals.) --immediate-mode: each packet is written
	# as it comes; without it the last block of tcpdump's ring (up to its
	# 1 s timeout) is lost when SIGINT ends it right after the NIC went quiet.
	# -s 128: the ring's slots (one a packet in immediate mode) small, so
	# that its 8 MB hold every datagram while tcpdump waits for a CPU.
	x0=$(jq '.interfaces[0].totals | [.xdp.total.l4.udp, .tc_ingress.total.l4.udp]' <<<"$js")
	tcpdump -i "$DEV" -Q in -nn -s 128 -B 8192 --immediate-mode -w /tmp/udp.pcap udp 2>/tmp/tcpdump.err &
	dump=$!
	# It says "listening on" once its socket and filter are in place.
	for ((i = 0; i < 100 * PS_SLOW; i++)); do
		grep -q '^tcpdump: listening on' /tmp/tcpdump.err && break
		kill -0 "$dump" 2>/dev/null || break
		sleep 0.1
	done
	out=$(iperf3 -c "$HOST" -p "$PS_VM_IPERF_PORT" -u -R -b 20M -l 1000 -n 1000000 -J)
	quiet
	kill -INT "$dump"
	wait "$dump"
	rcvd=$(tcpdump -nn -r /tmp/udp.pcap 2>/dev/null | wc -l)
	got=$(stat '.interfaces[0].totals | [.xdp.total.l4.udp, .tc_ingress.total.l4.udp]')
	ps_check_eq "$name: iperf3 -u -R: tcpdump dropped nothing" \
		"$(sed -n 's/^\([0-9]*\) packets dropped by kernel$/\1/p' /tmp/tcpdump.err)" 0
	ps_check_eq "$name: iperf3 -u -R: the UDP datagrams that arrived ($rcvd by tcpdump; iperf3's $(jq '.end.sum | .packets - .lost_packets' <<<"$out") of 1000), at XDP and tc ingress" \
		"$(jq -c -n --argjson a "$got" --argjson b "$x0" '[$a[0] - $b[0], $a[1] - $b[1]]')" "[$rcvd,$rcvd]"

	# TCP to the host, 4 MB: the TCP segments tc egress saw (its GSO
	# segments, less the other skbs, each one segment) equal the kernel's
	# OutSegs + RetransSegs (OutSegs leaves retransmissions out).
	seg0=$(tcp_out) t0=$(stat "$EGRESS_TCP_SEGS")
	iperf3 -c "$HOST" -p "$PS_VM_IPERF_PORT" -n 4M >/dev/null || ps_fail "$name: iperf3 -n 4M" "exit $?"
	quiet
	seg=$(($(tcp_out) - seg0)) got=$(($(stat "$EGRESS_TCP_SEGS") - t0))
	ps_check_eq "$name: iperf3 -n 4M: TCP segments at tc egress = the kernel's OutSegs + RetransSegs ($seg)" \
		"$got" "$seg"

	serve_check "$name"
	ps_check_eq "$name: XDP per RX queue = the driver's rx_queue_N_xdp_packets, exactly" \
		"$(sub "$(ps_xdp)" "$p0")" "$(sub "$(drv_xdp)" "$d0")"
	ps_check_eq "$name: the driver's per-queue XDP packets in stats --json = ethtool -S" \
		"$(ps_drv_xdp)" "$(drv_xdp)"
	"$PATHSCOPE" detach "$DEV" || ps_fail "$name: detach" "exit $?"
	ps_check_eq "$name: detach leaves nothing (pins, XDP, tc, programs)" "$(gone left_tc)" "0 0 0 0"
}
run_case default
run_case default,tcp

# Every feature: what the kernel can run attaches (sock only with its
# tracepoints, Linux 6.3), each other feature left out in one line naming
# what is missing; the probes load and attach; ping counted exactly.
all="class,ecn,sizes,gro,icmp,txlat,d2s,kernel,tcp,sock,flows,firsthop" why=
if ! [ -d /sys/kernel/tracing/events/sock/sk_data_ready ]; then
	all=${all/,sock/}
	why="pathscope: feature sock left out: it needs the tracepoints sock:sk_data_ready and sock:sock_recv_length (Linux 6.3), which this kernel ($(uname -r)) lacks"
fi
err=$("$PATHSCOPE" attach "$DEV" --features all 2>&1) || ps_fail "all: attach" "exit $?: $err"
ps_check_eq "all: attach says what it left out, in one line each" "$err" "$why"
ps_check_eq "all: status: the features attached, ok" \
	"$("$PATHSCOPE" status --json | jq -r '.[0] | "\(.features) \(.state | .[0:2])"')" "$all ok"
out=$(ping -n -q -c 20 -i 0.05 -W 2 "$HOST")
quiet
ps_check_eq "all: ping -c 20 matched, and counted at every hook" \
	"$(grep -o '[0-9]* received' <<<"$out") $(stat '[.interfaces[0].totals | .icmp_echo.rtt_ns.count, .xdp.total.l4.icmp, .tc_ingress.total.l4.icmp, .tc_egress.total.l4.icmp] | map(tostring) | join(" ")')" \
	"20 received 20 20 20 20"
# The kernel probes beside the hooks, the link and the driver: pathscope
# check counts every layer over an interval with a ping in it, and each pair
# that must agree does (exactly, below 1000 packets).
"$PATHSCOPE" check "$DEV" --duration $((PS_SLOW / 2 + 3)) --json >/tmp/check.json 2>/tmp/check.err &
chk=$!
ps_wait_check_counting /tmp/check.err || ps_fail "all: check: its interval begins" "$(cat /tmp/check.err)"
ping -n -q -c 20 -i 0.05 -W 2 "$HOST" >/dev/null
wait "$chk"
rc=$?
ps_check_eq "all: check: every pair of layers agrees (exit 0, no pair apart)" \
	"$rc $(jq -c '[.pairs[] | select(.agree == false) | "\(.layer) vs \(.vs_layer)"]' /tmp/check.json)" "0 []"
"$PATHSCOPE" detach "$DEV" || ps_fail "all: detach" "exit $?"
ps_check_eq "all: detach leaves nothing (pins, XDP, programs, links)" "$(gone left_links)" "0 0 0 0"

# ---- classic tracepoints ---------------------------------------------------------
# Their links can be pinned from Linux 5.15 (BPF_LINK_CREATE of a perf event,
# found by uname here, not by pathscope's probe): there txlat attaches with
# them; before, attach refuses in one line naming tp_btf and leaves nothing
# (5.10 once failed at pinning instead, 'cannot pin txlat_queue').
if printf '5.15\n%s\n' "$(uname -r)" | sort -V -C; then
	"$PATHSCOPE" attach "$DEV" --features txlat --probe-mode tracepoint || ps_fail "tracepoint: attach" "exit $?"
	ps_check_eq "tracepoint: txlat attached with classic tracepoints" \
		"$(stat '.interfaces[0].probe_mode') $("$PATHSCOPE" status --json | jq -r '.[0].features')" "tracepoint txlat"
	"$PATHSCOPE" detach "$DEV" || ps_fail "tracepoint: detach" "exit $?"
else
	ps_expect_error "tracepoint: refused on $(uname -r) in one line, naming tp_btf" \
		"cannot pin classic tracepoint links .*use --probe-mode tp_btf$" \
		"$PATHSCOPE" attach "$DEV" --features txlat --probe-mode tracepoint
fi
ps_check_eq "tracepoint: nothing left (pins, XDP, programs, links)" "$(gone left_links)" "0 0 0 0"
ps_done
