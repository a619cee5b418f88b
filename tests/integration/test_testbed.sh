#!/usr/bin/env bash
# Self-test of tests/integration/lib.sh: the testbed comes up with the asked
# number of queues, both namespaces reach each other over IPv4 and IPv6, the
# link carries nothing but the test's own packets (exact counts), tx queue
# pinning works, and destroy (explicit or by the trap on exit or SIGTERM)
# leaves no namespace, interface or process behind. The same for the delay
# testbed (two peers behind the delay line).
set -u
. "$(dirname "$0")/lib.sh"

ps_require_root testbed
ps_require_cmd testbed ip tc nsenter ethtool ping ss sysctl
ps_require_file testbed "$UDPSEND"

NQ=4
N=1000 # datagrams per exact-count check

# "vA.tx vA.rx vB.rx vB.tx" packet counters, for deltas.
counts() {
	echo "$(ps_stat "$NS_A" vA tx_packets) $(ps_stat "$NS_A" vA rx_packets)" \
		"$(ps_stat "$NS_B" vB rx_packets) $(ps_stat "$NS_B" vB tx_packets)"
}

# delta BEFORE AFTER: element-wise AFTER - BEFORE, as "a b c d".
delta() {
	local -a b=($1) a=($2)
	echo "$((a[0] - b[0])) $((a[1] - b[1])) $((a[2] - b[2])) $((a[3] - b[3]))"
}

# Namespaces and root-namespace interfaces that belong to testbed NS_A/NS_B.
leftovers() {
	local ns
	for ns in "$@"; do
		[ -e "/var/run/netns/$ns" ] && echo "netns:$ns"
		ip netns list | awk -v n="$ns" '$1 == n { print "listed:" n }'
		ip -o link show | grep -F "link-netns $ns" | awk '{ print "link:" $2 }'
	done
	ip -o link show | awk -F': ' '$2 ~ /^(v[AB]|dA|dP[0-9]+)(@|$)/ { print "link:" $2 }'
}

# ---- create ------------------------------------------------------------------

if ps_testbed_create "$NQ"; then
	ps_ok "testbed create ($NS_A, $NS_B, $NQ queues)"
else
	ps_fail "testbed create" "ps_testbed_create $NQ failed"
	ps_done
fi

for end in "$NS_A vA" "$NS_B vB"; do
	set -- $end
	q=$(ip netns exec "$1" ls "/sys/class/net/$2/queues")
	ps_check_eq "$2 has $NQ rx queues" "$(grep -c '^rx-' <<<"$q")" "$NQ"
	ps_check_eq "$2 has $NQ tx queues" "$(grep -c '^tx-' <<<"$q")" "$NQ"
	ps_check_eq "$2 GRO on" \
		"$(ip netns exec "$1" ethtool -k "$2" | awk '$1 == "generic-receive-offload:" { print $2 }')" on
	ps_check_eq "$2 has no link-local address" \
		"$(ip -n "$1" -6 addr show dev "$2" scope link | grep -c inet6)" 0
done

# ---- quiet link ------------------------------------------------------------------

before=$(counts)
sleep 2
ps_check_eq "idle link: no packet in 2 s (vA.tx vA.rx vB.rx vB.tx)" "$(delta "$before" "$(counts)")" "0 0 0 0"

# ---- ping both ways, both families: exactly 3 requests and 3 replies -----------

ping_check() { # NAME NS DST: 3 echo requests from NS to DST; prints the counter delta
	local name=$1 ns=$2 dst=$3 out before
	before=$(counts)
	if out=$(ip netns exec "$ns" ping -n -q -c 3 -i 0.02 -W 2 "$dst" 2>&1); then
		ps_check_eq "$name: 3 replies" "$(grep -o '[0-9]* received' <<<"$out")" "3 received"
	else
		ps_fail "$name" "ping failed: $(tr '\n' ' ' <<<"$out")"
	fi
	# Every request and every reply crosses the veth once: 3 each way, nothing else.
	ps_check_eq "$name: exactly 3 packets each way" "$(delta "$before" "$(counts)")" "3 3 3 3"
}
ping_check "ping A->B IPv4" "$NS_A" "$PS_IP4_B"
ping_check "ping B->A IPv4" "$NS_B" "$PS_IP4_A"
ping_check "ping A->B IPv6" "$NS_A" "$PS_IP6_B"
ping_check "ping B->A IPv6" "$NS_B" "$PS_IP6_A"

# ---- exact UDP counts --------------------------------------------------------

udp_check() { # NAME UDPSEND-ARGS...: N datagrams A->B; sink and counters must say N
	local name=$1 before got
	shift
	if ! ps_sink_start "$NS_B" 9000 --expect "$N" --timeout 10; then
		ps_fail "$name" "sink did not start"
		return
	fi
	before=$(counts)
	if ! ps_in_a "$UDPSEND" -n "$N" "$@" 9000; then
		ps_fail "$name" "udpsend failed"
		ps_sink_stop >/dev/null
		return
	fi
	got=$(ps_sink_wait)
	ps_check_eq "$name: sink received $N" "$got" "$N"
	# vA sent N, vB received N, nothing went back (no ICMP, no noise).
	ps_check_eq "$name: ip -s link counts exactly $N" "$(delta "$before" "$(counts)")" "$N 0 $N 0"
}
udp_check "udp IPv4" -t 0x03 "$PS_IP4_B"
udp_check "udp IPv6" -6 -t 0x02 "$PS_IP6_B"

# No listener: udpsend must fail (ECONNREFUSED from the ICMP port unreachable).
if ps_in_a "$UDPSEND" -n 10 -i 10000 "$PS_IP4_B" 9001 2>/dev/null; then
	ps_fail "udpsend fails without a listener" "exited 0"
else
	ps_ok "udpsend fails without a listener"
fi
ps_wait_quiet 5

# ---- tx queue pinning: tx queue k of vA arrives on rx queue k of vB ----------------
# vB only sorts packets into its rx queues when it handles them in NAPI. For
# UDP from a socket that needs TSO off on vA (as an XDP program on vB does).
ps_in_a ethtool -K vA tso off >/dev/null
for q in $(seq 0 $((NQ - 1))); do
	ps_txq_pin "$NS_A" vA "$q" || ps_fail "txq pin $q" "ps_txq_pin failed"
	ps_sink_start "$NS_B" 9000 --expect 10 --timeout 10
	b=$(ps_ethtool_stat "$NS_B" vB "rx_queue_${q}_xdp_packets")
	ps_in_a "$UDPSEND" -n 10 "$PS_IP4_B" 9000 || ps_fail "txq pin $q" "udpsend failed"
	ps_sink_wait >/dev/null
	a=$(ps_ethtool_stat "$NS_B" vB "rx_queue_${q}_xdp_packets")
	ps_check_eq "tx queue $q of vA -> rx queue $q of vB" "$((a - b))" 10
done
ps_txq_unpin "$NS_A" vA

# ---- destroy -------------------------------------------------------------------

# A process left inside must not keep the namespace (and the veth) alive.
ip netns exec "$NS_B" sleep 60 >/dev/null 2>&1 &
straggler=$!
for i in $(seq 50); do # until it has entered the namespace
	grep -qx "$straggler" <(ip netns pids "$NS_B") && break
	sleep 0.1
done
names="$NS_A $NS_B"
ps_testbed_destroy 2>/dev/null # (hides bash's "Terminated" notice for the straggler)
ps_check_eq "destroy leaves nothing" "$(leftovers $names | tr '\n' ' ')" ""
state=$(awk '{ print $3 }' "/proc/$straggler/stat" 2>/dev/null)
if [ -z "$state" ] || [ "$state" = Z ]; then
	ps_ok "destroy ends processes in the namespaces"
else
	ps_fail "destroy ends processes in the namespaces" "pid $straggler still runs (state $state)"
	kill "$straggler"
fi
wait "$straggler" 2>/dev/null
ps_testbed_destroy && ps_ok "destroy is idempotent"

# Same names again, another queue count: destroy really freed them.
if ps_testbed_create 2; then
	ps_check_eq "re-create with 2 queues" \
		"$(ps_in_b ls /sys/class/net/vB/queues | tr '\n' ' ')" "rx-0 rx-1 tx-0 tx-1 "
	ps_testbed_destroy
else
	ps_fail "re-create with 2 queues" "ps_testbed_create 2 failed"
fi

# ---- the delay testbed --------------------------------------------------------------
# A host and two peers through the delay line: peer 1 with no delay, peer 2
# 2000 us each way. Each peer answers in its own subnet, exactly 3 echoes
# each way, the RTT through peer 2 is at least its 4 ms, nothing else moves,
# and destroy leaves no namespace, tap or delay line behind.
if [ -x "$DELAYLINE" ] && ps_delay_testbed_create 4 0:0:1 2000:2000:2; then
	ps_ok "delay testbed create ($NS_A, $(ps_peer_ns 1), $(ps_peer_ns 2))"
	ps_check_eq "dA has 4 rx queues" "$(ps_in_a ls /sys/class/net/dA/queues | grep -c '^rx-')" 4
	# "dA.tx dA.rx dP1.rx dP1.tx dP2.rx dP2.tx" packet counters
	tcounts() {
		echo "$(ps_stat "$NS_A" dA tx_packets) $(ps_stat "$NS_A" dA rx_packets)" \
			"$(ps_stat "$(ps_peer_ns 1)" dP1 rx_packets) $(ps_stat "$(ps_peer_ns 1)" dP1 tx_packets)" \
			"$(ps_stat "$(ps_peer_ns 2)" dP2 rx_packets) $(ps_stat "$(ps_peer_ns 2)" dP2 tx_packets)"
	}
	tdelta() {
		local -a b=($1) a=($2)
		local i out=
		for i in 0 1 2 3 4 5; do out="$out $((a[i] - b[i]))"; done
		echo "${out# }"
	}
	before=$(tcounts)
	sleep 2
	ps_check_eq "delay testbed: idle, no packet in 2 s" "$(tdelta "$before" "$(tcounts)")" "0 0 0 0 0 0"
	for p in 1 2; do
		for v in 4 6; do
			before=$(tcounts)
			out=$(ps_in_a ping -"$v" -n -q -c 3 -i 0.02 -W 2 "$(ps_peer_ip$v "$p")" 2>&1)
			ps_check_eq "delay testbed: IPv$v ping to peer $p: 3 replies" "$(grep -o '[0-9]* received' <<<"$out")" "3 received"
			want=$([ "$p" = 1 ] && echo "3 3 3 3 0 0" || echo "3 3 0 0 3 3")
			ps_check_eq "delay testbed: IPv$v ping to peer $p: 3 packets each way, on its link only" \
				"$(tdelta "$before" "$(tcounts)")" "$want"
			if [ "$p" = 2 ]; then
				min=$(awk -F'[/ ]' '/^rtt/ { print $7 * 1000 }' <<<"$out")
				[ "${min%.*}" -ge 4000 ] && ps_ok "delay testbed: IPv$v RTT to peer 2 at least 4 ms (min ${min%.*} us)" ||
					ps_fail "delay testbed: IPv$v RTT to peer 2 at least 4 ms" "$out"
			fi
		done
	done
	dl=$PS_DELAY_PID names="$NS_A $(ps_peer_ns 1) $(ps_peer_ns 2)"
	wire=$(ps_delay_stop)
	ps_check_eq "delay testbed: the delay line reports 4 directions, nothing dropped" \
		"$(awk '{ n++; d += $7 } END { print n, d }' <<<"$wire")" "4 0"
	ps_testbed_destroy
	ps_check_eq "delay testbed: destroy leaves nothing" "$(leftovers $names | tr '\n' ' ')" ""
	kill -0 "$dl" 2>/dev/null && ps_fail "delay testbed: the delay line has ended" "pid $dl runs" ||
		ps_ok "delay testbed: the delay line has ended"
else
	ps_fail "delay testbed create" "ps_delay_testbed_create failed (or $DELAYLINE not built)"
fi

# ---- the trap cleans up on exit and on SIGTERM ------------------------------------

lib=$(dirname "$0")/lib.sh
for how in exit TERM; do
	out=$(bash -c '
		. "$1"
		ps_testbed_create 2 "psT1-$$" "psT2-$$" >&2 || exit 9
		echo "psT1-$$ psT2-$$"
		ip netns exec "psT2-$$" sleep 60 >/dev/null &
		if [ "$2" = exit ]; then exit 7; fi
		kill -TERM $$
		sleep 5
		exit 8' sh "$lib" "$how")
	rc=$?
	want=7
	[ "$how" = TERM ] && want=143
	ps_check_eq "trap on $how keeps the exit status" "$rc" "$want"
	case $out in
	psT1-*" "psT2-*) ps_ok "trap on $how: testbed $out was up" ;;
	*) ps_fail "trap on $how: testbed was up" "got '$out'" ;;
	esac
	ps_check_eq "trap on $how leaves nothing" "$(leftovers $out | tr '\n' ' ')" ""
done

ps_done
