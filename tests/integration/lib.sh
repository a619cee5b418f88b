# shellcheck shell=bash
# tests/integration/lib.sh: harness for pathscope's namespace tests. Source it:
#
#   . "$(dirname "$0")/lib.sh"
#   ps_require_root testbed
#   ps_testbed_create 4            # NS_A/NS_B, vA <-> vB, 4 rx + 4 tx queues
#   ps_in_b ip -s link show vB
#   ps_check_eq "something" "$got" "$want"
#   ps_done                        # exit 1 if any check failed
#
# Reporting (tests/run.sh counts these lines):
#   ps_ok NAME                 prints "ok - NAME"
#   ps_fail NAME WHY           prints "not ok - NAME: WHY" (returns 1)
#   ps_skip NAME WHY           prints "skip - NAME: WHY"; in CI (CI set to
#                              anything but "", "0" or "false": ps_in_ci) a
#                              skip is "not ok" instead (a test that cannot
#                              run in CI fails)
#   ps_unsupported NAME WHY    prints "skip - NAME: this kernel cannot run it:
#                              WHY", in CI too: only for what the kernel has
#                              not, found by a probe independent of pathscope
#                              (e.g. what libxdp's own tools load here)
#   ps_check_eq NAME GOT WANT  ok when GOT = WANT (string compare), else not ok
#   ps_done                    exit 0, or 1 if any check failed
#   ps_require_root [NAME]     skip (CI: fail) and exit unless root
#   ps_require_cmd NAME CMD... skip (CI: fail) and exit unless each CMD exists
#   ps_require_file NAME FILE  skip (CI: fail) and exit unless FILE is executable
#                              (e.g. "$PATHSCOPE", "$UDPSEND")
#
# Testbed (two namespaces joined by one veth pair):
#
#     NS_A: vA 198.18.0.1/24 2001:db8::1/64  <==veth==>  vB 198.18.0.2/24 2001:db8::2/64 :NS_B
#           MAC 02:00:c6:12:00:01                          MAC 02:00:c6:12:00:02
#
#   ps_testbed_create [NQUEUES [NAME_A NAME_B]]
#       Creates namespaces NAME_A/NAME_B (default psA-$$ / psB-$$, exported as
#       NS_A / NS_B), the veth pair with NQUEUES (default 4) rx and tx queues on
#       each end, the addresses above, permanent neighbour entries both ways for
#       IPv4 and IPv6, GRO on both veths, lo up. Installs a trap that destroys
#       the testbed on EXIT/INT/TERM (use ps_at_exit, not your own EXIT trap).
#       Returns when the link is quiet (see "Noise" below); returns 1 on error.
#   ps_testbed_destroy       kill processes left in the namespaces (by PID,
#                            from `ip netns pids`), delete the veth and the
#                            namespaces. Idempotent.
#   ps_testbed_keep          drop the auto-destroy trap (scripts/testbed.sh up)
#   ps_at_exit CMD           run the string CMD at exit, before the destroy
#   ps_in_a CMD... / ps_in_b CMD...        ip netns exec NS_A|NS_B CMD...
#   ps_pathscope_a ARGS... / ps_pathscope_b ARGS...
#       nsenter --net=/var/run/netns/NS_x "$PATHSCOPE" ARGS... (only the net
#       namespace changes, so /sys/fs/bpf stays visible; `ip netns exec`
#       would remount /sys and hide it). PATHSCOPE defaults to
#       build/pathscope under the repository root.
#   ps_stat NS DEV COUNTER   a /sys/class/net/DEV/statistics counter in NS,
#                            e.g. ps_stat "$NS_B" vB rx_packets (these are the
#                            numbers `ip -s link` shows)
#   ps_ethtool_stat NS DEV NAME   one `ethtool -S` value, e.g.
#                            ps_ethtool_stat "$NS_B" vB rx_queue_2_xdp_packets
#   ps_wait_for SECONDS CMD...  run CMD until it succeeds, at most SECONDS;
#                            1 if it never did
#   ps_wait_quiet [SECONDS]  wait until the testbed's counters (veth or taps)
#                            stop moving
#   ps_verdict_want JSON QUEUE CAUSE [DEFER GRO]   the why of the placement
#                            verdict's first-hop CAUSE (ksoftirqd, deferred,
#                            thread_starved) of QUEUE that one `stats --json`
#                            (JSON) must give, from the queue's firsthop
#                            counters in it (deferred: and the knobs
#                            napi_defer_hard_irqs, gro_flush_timeout as set);
#                            "" when they stay under the cause's thresholds
#   ps_verdict_why JSON QUEUE CAUSE    the why it gives, "" for none
#   ps_txq_pin NS DEV QUEUE  make every CPU transmit on tx queue QUEUE of DEV
#                            (XPS); ps_txq_unpin NS DEV restores hashing
#   ps_sink_start NS PORT [ARGS...]   start `udpsend --sink PORT ARGS...` in
#                            the background in NS and wait until it listens;
#                            sets PS_SINK_PID
#   ps_sink_wait             wait for that sink to exit; prints its count,
#                            returns its status (for --expect)
#   ps_sink_stop             SIGTERM that sink; prints its count
#
#   ps_iperf3_server NS PORT start `iperf3 -s -1` in NS, bounded in time
#                            (it exits by itself after one client, or after
#                            60 s * PS_SLOW if none comes); sets PS_IPERF_PID
#   ps_iperf3_server_wait    wait for that server to exit; returns its status
#
# Delay testbed (a host and N peers joined through the delay line
# tests/tools/delayline, which forwards every frame after a fixed delay in
# each direction: this kernel has no netem):
#
#     psA-$$: dA (QUEUES queues)  <== delayline ==>  dP1 :psP1-$$ (= NS_B)
#             MAC 02:00:c6:12:00:01                  dP2 :psP2-$$ ...
#
#   Each peer I (1..N) has a subnet of its own: the host is 198.18.I.1/24 and
#   2001:db8:I::1/64 on dA, the peer 198.18.I.2/24 and 2001:db8:I::2/64 on
#   dPI, MAC 02:00:c6:12:0I:02 (I in hex). Neighbours are permanent, the
#   namespaces are set up like the veth testbed's (no noise, see below).
#
#   ps_delay_testbed_create QUEUES PEER...
#       PEER = TO_US[:FROM_US[:QUEUE]]: the delay of frames from the host to
#       that peer and back (microseconds; FROM_US defaults to TO_US), and the
#       host RX queue the peer's frames arrive on (default 0): the delay line
#       writes them into that queue of the multiqueue tap dA, which is the
#       queue XDP and tc see them on (a multiqueue tap has 256 queues, of
#       which QUEUES are in use: pathscope attaches to all 256). Creates
#       namespaces psA-$$ and psPI-$$, starts the delay line (at real-time
#       priority, so that other work on the machine does not delay frames,
#       on CPU 0: run senders there too, `taskset -c 0`, so that no idle vCPU
#       has to wake up for their frames; it lives at most 600 s * PS_SLOW)
#       and installs the same trap as ps_testbed_create. Sets NS_A, NS_B (peer 1),
#       PS_DEV_A=dA, PS_DEV_B=dP1, PS_IP4_A/B and PS_IP6_A/B (peer 1's
#       subnet), PS_PEERS (N), PS_DELAY_PID. Returns 1 on error.
#   ps_peer_ns I             peer I's namespace
#   ps_in_peer I CMD...      ip netns exec (peer I's namespace) CMD...
#   ps_pathscope_peer I ARGS...   pathscope in peer I's namespace (nsenter)
#   ps_peer_ip4 I / ps_peer_ip6 I / ps_host_ip4 I / ps_host_ip6 I
#                            peer I's and the host's address in peer I's subnet
#   ps_delay_step            multiply every delay by PS_DELAY_FACTOR (set it
#                            before create: the delay line's -k) from now on,
#                            once; returns when the new delays apply
#   ps_delay_stop            SIGTERM the delay line, wait for it, print its
#                            per-direction counts (HOST>PEER frames N bytes N
#                            dropped N unsent N late_avg_ns ... write_ns N,
#                            see tests/tools/delayline.c); the taps go away
#                            with it (detach pathscope first)
#   ps_testbed_destroy       (as above) also ends the delay line
#
# The delay line's own added latency per round trip, measured on this VM with
# ping through it (figures in tests/tools/delayline.c): 45-51 us on average
# at delay 0, 49-178 us with delays of 1-5 ms each way (medians 50-100 us),
# with a tail of 0.1-2 ms in 1% of frames (the hypervisor).
#
# Variables: NS_A NS_B PS_NQUEUES PS_DEV_A=vA PS_DEV_B=vB PS_IP4_A PS_IP4_B
# PS_IP6_A PS_IP6_B PS_MAC_A PS_MAC_B PS_ROOT (repository root) PATHSCOPE
# UDPSEND (build/tests/udpsend) DELAYLINE (build/tests/delayline).
#
# Noise, measured on this Debian 12 VM (kernel 6.18) with tcpdump on both
# veths and the /sys statistics counters: a fresh testbed sends exactly 4
# unsolicited packets, all during ps_testbed_create: MLDv2 reports (90 bytes,
# from :: to ff02::16) for the solicited-node groups of 2001:db8::1 and
# 2001:db8::2, two per side (robustness 2), so after create vA and vB each
# show rx 2 / tx 2 packets (180 bytes). Joining those groups cannot be
# avoided short of `arp off` (which also turns neighbour resolution off), so
# instead the report interval is set to 1 ms and create waits until both
# ends are operationally up (their carrier reaches IPv6 through linkwatch,
# at once as their ifindexes differ, else up to 1 s later, and the reports
# leave only then) and the link has been silent for 0.5 s. Nothing else is
# ever sent: addr_gen_mode=none (no link-local address, so no router
# solicitation and no link-local MLD), nodad (no DAD), accept_ra=0,
# router_solicitations=0, permanent neighbours (no ARP, no neighbour
# discovery), no IPv4 group that IGMP reports. After
# create returns, 20 s idle gave 0 packets (tcpdump and counters), and ping
# -c 3 moves every counter by exactly 3, N udpsend datagrams by exactly N.
# Counters start at 2, not 0: compare deltas.
#
# TX queue selection: this kernel has no mqprio/skbedit, so a sender cannot
# choose its veth tx queue. By default it is a hash of the flow (a connected
# UDP socket gets a random per-socket hash: each udpsend run may use another
# queue). ps_txq_pin forces one queue with XPS for everything sent through
# the device. A packet sent on tx queue k of vA arrives on rx queue k of vB
# (ethtool -S vB: rx_queue_k_xdp_packets, and the XDP rx_queue_index), but
# only when vB handles it in NAPI: GRO on vB and the packet eligible, which
# for socket traffic means TSO off on vA, or an XDP program on vB (which
# turns TSO off on vA). With the testbed's defaults (TSO on) UDP from a
# socket goes through netif_rx instead and no rx queue counter moves.
#
# Background processes: start them with `ip netns exec "$NS_B" CMD &` (not
# `ps_in_b CMD &`, where $! would be a bash subshell, not CMD). Whatever is
# still running in the namespaces at exit is ended by ps_testbed_destroy.

set -u

PS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${PS_BUILD:=build}" # make test-asan and test-valgrind use their own build directories
PS_BIN=$PS_ROOT/$PS_BUILD
: "${PATHSCOPE:=$PS_BIN/pathscope}"
# PS_SLOW: how many times longer to wait for pathscope's own start and stop
# (make test-valgrind sets 20: an attach takes ~12 s under memcheck).
: "${PS_SLOW:=1}"
: "${UDPSEND:=$PS_BIN/tests/udpsend}"
: "${DELAYLINE:=$PS_BIN/tests/delayline}"

PS_DEV_A=vA PS_DEV_B=vB
PS_IP4_A=198.18.0.1 PS_IP4_B=198.18.0.2
PS_IP6_A=2001:db8::1 PS_IP6_B=2001:db8::2
PS_MAC_A=02:00:c6:12:00:01 PS_MAC_B=02:00:c6:12:00:02
export PS_ROOT PS_BUILD PS_BIN PATHSCOPE PS_SLOW UDPSEND DELAYLINE PS_DEV_A PS_DEV_B PS_IP4_A PS_IP4_B PS_IP6_A PS_IP6_B PS_MAC_A PS_MAC_B

PS_FAILURES=0
PS_AT_EXIT=()
PS_SINK_PID=
PS_SINK_OUT=
PS_IPERF_PID=
PS_DELAY_PID=
PS_DELAY_OUT=
PS_PEERS=0
# The testbed's namespaces and the "NS:DEV" ends whose counters tell whether
# anything is on the wire (ps_wait_quiet).
PS_TESTBED_NS=()
PS_LINK_DEVS=()

# ---- reporting -------------------------------------------------------------

ps_ok() {
	echo "ok - $1"
}

ps_fail() {
	echo "not ok - $1: $2"
	PS_FAILURES=$((PS_FAILURES + 1))
	return 1
}

# CI: any value but "", "0" or "false" (any case) means CI.
ps_in_ci() {
	case "${CI:-}" in "" | 0 | [Ff][Aa][Ll][Ss][Ee]) return 1 ;; esac
	return 0
}

ps_skip() {
	if ps_in_ci; then
		ps_fail "$1" "cannot run in CI: $2"
	else
		echo "skip - $1: $2"
	fi
}

ps_unsupported() {
	echo "skip - $1: this kernel cannot run it: $2"
}

ps_check_eq() {
	if [ "$2" = "$3" ]; then
		ps_ok "$1"
	else
		ps_fail "$1" "got '$2', want '$3'"
	fi
}

# The verdict's thresholds (stats/analysis/placement_verdict.h) and durations
# as it writes them (ps_fmt_duration). One stats (no --interval): the
# verdict's window is since attach, as the JSON's counters.
ps_verdict_want() {
	jq -r --argjson q "$2" '.interfaces[0].queues[] | select(.queue == $q) | .firsthop
		| "\(.polls.ksoftirqd) \(.polls.irq + .polls.ksoftirqd + .polls.timer + .polls.other) \(.waited) \(.softirq_wait_avg_ns) \(.thread_waited) \(.thread_wait_avg_ns) \(.thread_wait_ns.max // 0) \(.polls.timer)"' <<<"$1" |
		awk -v c="$3" -v dh="${4:-n/a}" -v gt="${5:-n/a}" 'function d(ns) { return ns < 1000 ? sprintf("%dns", ns) : ns < 1e6 ? sprintf("%.1fus", ns / 1e3) : ns < 1e9 ? sprintf("%.1fms", ns / 1e6) : sprintf("%.2fs", ns / 1e9) }
		c == "ksoftirqd" && $2 >= 100 && $1 * 100 > 25 * $2 {
			printf "%d of its %d softirq polls (%.1f%%) ran in ksoftirqd", $1, $2, 100 * $1 / $2
			if ($3) printf "; softirq wait %s on average over %d timed runs\n", d($4), $3
			else print "; no softirq wait timed" }
		c == "deferred" && $2 >= 100 && $8 * 100 > 50 * $2 {
			printf "%d of its %d softirq polls (%.1f%%) were started by NAPI'"'"'s deferral timer; napi_defer_hard_irqs %s, gro_flush_timeout %s\n",
				$8, $2, 100 * $8 / $2, dh, gt == "n/a" ? gt : gt " ns" }
		c == "thread_starved" && $5 >= 10 && $6 > 2000000 {
			printf "its NAPI thread polled %s after its IRQ on average (at most %s) over %d timed polls\n", d($6), d($7), $5 }'
}
ps_verdict_why() {
	jq -r --argjson q "$2" --arg c "$3" '.interfaces[0].placement_verdicts.queues[]? | select(.queue == $q) | .causes[$c].why // ""' <<<"$1"
}

# ps_check_budget NAME JSON STAGE...: in `stats --json` output JSON (its first
# interface), every cell of the latency budget (stats --latency) with samples
# is its family's own figure (count, p50, p99) of the same queue, and each
# STAGE named has samples in at least one queue. Socket reads add TCP and UDP
# up: only their count is compared.
ps_check_budget() {
	local name=$1 json=$2 got
	shift 2
	got=$(jq -c --argjson want "$(printf '%s\n' "$@" | jq -R . | jq -sc .)" '
		def fam($st): {wire_to_xdp: .firsthop.wire.latency_ns,
			softirq_wait: .firsthop.softirq_wait_ns, thread_wait: .firsthop.thread_wait_ns,
			softirq_place: .firsthop.place_ns,
			driver_to_stack: .driver_to_stack.latency_ns,
			qdisc_sojourn: .tx_latency.sojourn_ns, tx_completion: .tx_latency.completion_ns,
			icmp_rtt: .icmp_echo.rtt_ns, icmp_response: .icmp_echo.response_ns,
			tcp_rtt: .tcp.rtt_ns, tcp_handshake: .tcp.handshake_ns,
			tcp_response: .tcp.response_data_ns, tcp_ack_delay: .tcp.ack_delay_ns}[$st];
		def fig: if . == null then null else [.count, .p50, .p99] end;
		def cellfig: [.count, .p50_ns, .p99_ns];
		.interfaces[0] as $i
		| [$i.latency | to_entries[] | .key as $q
			| (if $q == "all" then $i.totals
			   else first($i.queues[] | select((.queue | tostring) == $q)) end) as $src
			| .value | to_entries[] | select((.value | type) == "object" and .value.count > 0)
			| .key as $st
			| {q: $q, st: $st, cell: (.value | cellfig),
			   fam: (if $st == "socket_read"
				 then [($src.socket.tcp.latency_ns.count // 0) + ($src.socket.udp.latency_ns.count // 0)]
				 else ($src | fam($st) | fig) end)}
			| if .st == "socket_read" then .cell = .cell[0:1] else . end]
		| {mismatched: [.[] | select(.cell != .fam) | "\(.q) \(.st): \(.cell) vs \(.fam)"],
		   missing: ($want - [.[] | select(.q != "all") | .st] | unique)}' <<<"$json")
	ps_check_eq "$name: each latency budget cell is its family's figure, and $* have samples" \
		"$got" '{"mismatched":[],"missing":[]}'
}

ps_done() {
	[ "$PS_FAILURES" -eq 0 ] && exit 0
	exit 1
}

# Skip (or in CI fail) the whole test and exit.
_ps_skip_all() {
	ps_skip "$1" "$2"
	ps_done
}

ps_require_root() {
	local name=${1:-$(basename "$0" .sh)}
	[ "$(id -u)" -eq 0 ] || _ps_skip_all "$name" "needs root (network namespaces)"
}

ps_require_cmd() {
	local name=$1 cmd
	shift
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 || _ps_skip_all "$name" "$cmd not installed (make deps)"
	done
}

ps_require_file() {
	[ -x "$2" ] || _ps_skip_all "$1" "$2 not built (make)"
}

# ---- running things in the namespaces ---------------------------------------

ps_in_a() { ip netns exec "$NS_A" "$@"; }
ps_in_b() { ip netns exec "$NS_B" "$@"; }
ps_pathscope_a() { nsenter --net="/var/run/netns/$NS_A" "$PATHSCOPE" "$@"; }
ps_pathscope_b() { nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" "$@"; }

# Prometheus in namespace B, listening on 127.0.0.1:PORT and scraping TARGETS
# ('host:port', 'host:port') every 0.5 s (job "pathscope"), its files in DIR;
# more of its own options after. With PS_PROM_RULES set to a file, it loads
# that rule file and evaluates it every 0.5 s. Sets PS_PROM_PID and
# PS_PROM_PORT (for ps_promq); the caller ends it. Its first scrape comes 5-7
# s after it starts (Prometheus 2.42 applies discovered targets every 5 s):
# start it early, before the targets if need be (their scrapes fail until
# they listen: wait on a series of theirs, not on up). A scrape of serve
# takes ~2 ms; the tests wait for scrapes, so they come twice a second.
ps_prometheus_b() {
	local dir=$1 port=$2 targets=$3
	shift 3
	cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 500ms
  evaluation_interval: 500ms
scrape_configs:
  - job_name: pathscope
    static_configs:
      - targets: [$targets]
EOF
	[ -n "${PS_PROM_RULES:-}" ] && printf 'rule_files:\n  - %s\n' "$PS_PROM_RULES" >>"$dir/prometheus.yml"
	ps_in_b prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/tsdb" \
		--web.listen-address="127.0.0.1:$port" "$@" >"$dir/prometheus.log" 2>&1 &
	PS_PROM_PID=$!
	PS_PROM_PORT=$port
}

# Wait until a pathscope check whose stderr goes to FILE says its interval
# began ("pathscope: counting"), at most TRIES tenths of a second (default
# 100 * PS_SLOW); 1 if it never did. A workload for check starts then.
ps_wait_check_counting() {
	local _
	for _ in $(seq "${2:-$((100 * ${PS_SLOW:-1}))}"); do
		grep -q '^pathscope: counting' "$1" && return 0
		sleep 0.1
	done
	return 1
}

# Wait until every target of ps_prometheus_b's server (PS_PROM_PORT) has been
# scraped N times, each scrape begun after this call (at most 30 s per scrape;
# they come every 0.5 s). Queries that read what a workload left wait on this,
# not on a sleep.
ps_wait_scrapes() {
	local t
	for _ in $(seq "$1"); do
		t=$(date +%s.%N)
		for _ in $(seq 300); do
			awk -v a="$(ps_promq 'min(timestamp(up))')" -v t="$t" \
				'BEGIN { exit !(a != "none" && a + 0 > t + 0) }' && break
			sleep 0.1
		done
	done
}

# One instant query against ps_prometheus_b's server: its first value, or "none".
ps_promq() {
	ps_in_b curl -s --max-time 5 --data-urlencode "query=$1" \
		"http://127.0.0.1:$PS_PROM_PORT/api/v1/query" |
		jq -r '.data.result[0].value[1] // "none"' 2>/dev/null || echo none
}

ps_stat() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}

ps_ethtool_stat() {
	ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2; found = 1 } END { exit !found }'
}

# Sum of rx+tx packets of the testbed's ends: moves whenever anything is on the link.
_ps_link_packets() {
	local end sum=0 rx tx
	for end in "${PS_LINK_DEVS[@]}"; do
		# NS:DEV, or DEV of this namespace (a guest's NIC). Both counters
		# from one process: ip netns exec costs ~5 ms.
		if [ "${end#*:}" = "$end" ]; then
			read -r rx tx <<<"$(cat "/sys/class/net/$end/statistics/rx_packets" \
				"/sys/class/net/$end/statistics/tx_packets" | tr '\n' ' ')"
		else
			read -r rx tx <<<"$(ip netns exec "${end%%:*}" cat "/sys/class/net/${end#*:}/statistics/rx_packets" \
				"/sys/class/net/${end#*:}/statistics/tx_packets" | tr '\n' ' ')"
		fi
		sum=$((sum + rx + tx))
	done
	echo "$sum"
}

# Wait until the link has been silent for 0.5 s; give up after SECONDS (default 5).
# Silent: the same count at two reads 0.5 s apart (counters only grow). The
# count is read every 0.1 s and the 0.5 s run from the read that saw it move
# last, so traffic that ends just after the call costs 0.5 s more, not 1 s.
# ps_wait_for SECONDS CMD...: run CMD until it succeeds, at most SECONDS by
# the clock; 1 if it never did. The tests' waits on a state poll here.
ps_wait_for() {
	local end=$((${EPOCHREALTIME//[!0-9]/} + $1 * 1000000))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME//[!0-9]/}" -lt "$end" ] || return 1
		sleep 0.05
	done
}

ps_wait_quiet() {
	local now since count last end
	now=${EPOCHREALTIME//[!0-9]/}
	end=$((now + ${1:-5} * 1000000)) since=$now last=$(_ps_link_packets)
	while [ "$now" -lt "$end" ]; do
		sleep 0.1
		count=$(_ps_link_packets) now=${EPOCHREALTIME//[!0-9]/}
		if [ "$count" != "$last" ]; then
			last=$count since=$now
		elif [ $((now - since)) -ge 500000 ]; then
			return 0
		fi
	done
	echo "lib.sh: link ${PS_LINK_DEVS[*]} still busy after ${1:-5} s" >&2
	return 1
}

# XPS: map every CPU to tx queue QUEUE of DEV only, so all traffic leaving NS
# through DEV uses that queue. (A socket remembers its queue once chosen, so
# pin before the sender starts.)
ps_txq_pin() {
	local ns=$1 dev=$2 queue=$3 all=
	all=$(_ps_all_cpus_mask)
	ip netns exec "$ns" sh -c '
		dev=$1 queue=$2 all=$3
		[ -d /sys/class/net/$dev/queues/tx-$queue ] || { echo "lib.sh: $dev has no tx queue $queue" >&2; exit 1; }
		for q in /sys/class/net/$dev/queues/tx-*; do echo 0 > "$q/xps_cpus" || exit 1; done
		echo "$all" > "/sys/class/net/$dev/queues/tx-$queue/xps_cpus"' sh "$dev" "$queue" "$all"
}

# Every configured CPU as a sysfs cpumask: comma-separated 32-bit hex groups.
_ps_all_cpus_mask() {
	local n mask= bits
	n=$(getconf _NPROCESSORS_CONF)
	while [ "$n" -gt 0 ]; do
		bits=$((n >= 32 ? 32 : n))
		mask=$(printf '%x' $(((1 << bits) - 1)))${mask:+,}$mask
		n=$((n - bits))
	done
	echo "$mask"
}

ps_txq_unpin() {
	ip netns exec "$1" sh -c 'for q in /sys/class/net/$1/queues/tx-*; do echo 0 > "$q/xps_cpus"; done' sh "$2"
}

# ---- UDP sink ----------------------------------------------------------------

# Wait until a UDP socket listens on PORT in NS (at most 5 s).
# NS PROTO PORT: wait up to 5 s until something listens on PROTO (udp or
# tcp) PORT in NS.
_ps_wait_port() {
	local i flag=-Hnul
	[ "$2" = tcp ] && flag=-Hntl
	for i in $(seq 50); do
		[ -n "$(ip netns exec "$1" ss $flag "sport = :$3")" ] && return 0
		sleep 0.1
	done
	echo "lib.sh: nothing listens on ${2^^} port $3 in $1" >&2
	return 1
}

ps_sink_start() {
	local ns=$1 port=$2
	shift 2
	[ -z "$PS_SINK_OUT" ] && PS_SINK_OUT=$(mktemp)
	ip netns exec "$ns" "$UDPSEND" --sink "$port" "$@" >"$PS_SINK_OUT" &
	PS_SINK_PID=$!
	_ps_wait_port "$ns" udp "$port"
}

# Wait for PID to end, also from a $(...) subshell, where it is not a child
# and `wait` returns at once (then its exit status is unknown: 0).
_ps_reap() {
	local rc=0
	wait "$1" 2>/dev/null || rc=$?
	# Gone, or a zombie its parent (our caller) has not reaped yet.
	while kill -0 "$1" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; do
		rc=0
		sleep 0.05
	done
	return "$rc"
}

ps_sink_wait() {
	local rc=0
	[ -n "$PS_SINK_PID" ] || return 1
	_ps_reap "$PS_SINK_PID" || rc=$?
	PS_SINK_PID=
	cat "$PS_SINK_OUT"
	return "$rc"
}

ps_sink_stop() {
	[ -n "$PS_SINK_PID" ] || return 1
	kill "$PS_SINK_PID" 2>/dev/null
	_ps_reap "$PS_SINK_PID"
	PS_SINK_PID=
	cat "$PS_SINK_OUT"
}

ps_iperf3_server() {
	ip netns exec "$1" timeout -k 2 $((60 * PS_SLOW)) iperf3 -s -1 -p "$2" >/dev/null 2>&1 &
	PS_IPERF_PID=$!
	_ps_wait_port "$1" tcp "$2"
}

ps_iperf3_server_wait() {
	local rc=0
	[ -n "$PS_IPERF_PID" ] || return 1
	_ps_reap "$PS_IPERF_PID" || rc=$?
	PS_IPERF_PID=
	return "$rc"
}

# ---- testbed -------------------------------------------------------------------

# Run CMD when the test exits, however it exits, after the CMDs registered
# later (last in, first out); the trap is installed here, testbed or not.
ps_at_exit() {
	PS_AT_EXIT+=("$1")
	_ps_trap_exit
}

_ps_trap_exit() {
	trap _ps_on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

_ps_on_exit() {
	local i
	for ((i = ${#PS_AT_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${PS_AT_EXIT[i]}"
	done
	PS_AT_EXIT=()
	local pid
	for pid in "$PS_SINK_PID" "$PS_IPERF_PID"; do
		[ -n "$pid" ] || continue
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	[ -n "$PS_SINK_OUT" ] && rm -f "$PS_SINK_OUT"
	ps_testbed_destroy
}

# Run a setup step; on failure say which one.
_ps_do() {
	"$@" && return 0
	echo "lib.sh: testbed setup failed at: $*" >&2
	return 1
}

ps_testbed_create() {
	local nq=${1:-4} ns
	NS_A=${2:-psA-$$} NS_B=${3:-psB-$$} PS_NQUEUES=$nq
	export NS_A NS_B PS_NQUEUES
	_ps_namespaces "$NS_A" "$NS_B" || return 1
	PS_LINK_DEVS=("$NS_A:vA" "$NS_B:vB")

	# Created directly inside the namespaces: nothing appears in the root one.
	# vA is ifindex 2 in its new namespace, vB 3 in its: a veth whose peer's
	# ifindex is its own has its carrier changes batched by linkwatch (up to
	# 1 s late, often 1 s, per end); with different ones they apply at once.
	# (The kernel takes the peer's index only when the device has one too.)
	_ps_do ip -n "$NS_A" link add vA index 2 address "$PS_MAC_A" numtxqueues "$nq" numrxqueues "$nq" \
		type veth peer name vB netns "$NS_B" index 3 address "$PS_MAC_B" \
		numtxqueues "$nq" numrxqueues "$nq" || return 1

	_ps_do ip -n "$NS_A" addr add "$PS_IP4_A/24" dev vA || return 1
	_ps_do ip -n "$NS_B" addr add "$PS_IP4_B/24" dev vB || return 1
	_ps_do ip -n "$NS_A" addr add "$PS_IP6_A/64" dev vA nodad || return 1
	_ps_do ip -n "$NS_B" addr add "$PS_IP6_B/64" dev vB nodad || return 1
	_ps_do ip -n "$NS_A" neigh add "$PS_IP4_B" lladdr "$PS_MAC_B" dev vA nud permanent || return 1
	_ps_do ip -n "$NS_B" neigh add "$PS_IP4_A" lladdr "$PS_MAC_A" dev vB nud permanent || return 1
	_ps_do ip -n "$NS_A" neigh add "$PS_IP6_B" lladdr "$PS_MAC_B" dev vA nud permanent || return 1
	_ps_do ip -n "$NS_B" neigh add "$PS_IP6_A" lladdr "$PS_MAC_A" dev vB nud permanent || return 1
	_ps_do ip netns exec "$NS_A" ethtool -K vA gro on || return 1
	_ps_do ip netns exec "$NS_B" ethtool -K vB gro on || return 1
	_ps_do ip -n "$NS_A" link set vA up || return 1
	_ps_do ip -n "$NS_B" link set vB up || return 1

	# Each end's carrier reaches the stack through linkwatch (at once, see
	# above); its MLD reports (the only noise, see above) leave then. Wait
	# for both ends to be operationally up, then for the link to go quiet.
	_ps_wait_up "$NS_A" vA || return 1
	_ps_wait_up "$NS_B" vB || return 1
	ps_wait_quiet 5
}

# Create namespaces NS... for a testbed (refused if one exists), install the
# trap that destroys them, and configure them to send nothing by themselves.
_ps_namespaces() {
	local ns
	for ns in "$@"; do
		if [ -e "/var/run/netns/$ns" ]; then
			echo "lib.sh: namespace $ns already exists" >&2
			return 1
		fi
	done
	_ps_trap_exit

	for ns in "$@"; do
		_ps_do ip netns add "$ns" || return 1
		PS_TESTBED_NS+=("$ns")
		# Set before the veth or tap exists, so its IPv6 config starts from
		# these: no link-local address (so no router solicitation), no DAD,
		# and the unavoidable MLD reports go out at once instead of over ~1 s.
		_ps_do ip netns exec "$ns" sysctl -q -w \
			net.ipv6.conf.default.addr_gen_mode=1 \
			net.ipv6.conf.default.accept_ra=0 \
			net.ipv6.conf.default.router_solicitations=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.default.dad_transmits=0 \
			net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 \
			net.ipv6.conf.default.mldv2_unsolicited_report_interval=1 || return 1
		_ps_do ip -n "$ns" link set lo up || return 1
	done
}

# Wait (at most 5 s) until DEV in NS is operationally up (a tap says
# "unknown": it has no carrier of its own to report).
_ps_wait_up() {
	local i
	for i in $(seq 50); do
		case $(ip netns exec "$1" cat "/sys/class/net/$2/operstate") in up | unknown) return 0 ;; esac
		sleep 0.1
	done
	echo "lib.sh: $2 in $1 is not up after 5 s" >&2
	return 1
}

# The rest of the library, by concern.
. "$(dirname "${BASH_SOURCE[0]}")/lib_delay.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_units.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_census.sh"
