# shellcheck shell=bash
# lib.sh's delay testbed: peers behind taps joined by tests/tools/delayline.
# Sourced by lib.sh: read lib.sh first.

# ---- delay testbed ---------------------------------------------------------------

ps_peer_ns() { echo "psP$1-$$"; }
ps_in_peer() {
	local i=$1
	shift
	ip netns exec "psP$i-$$" "$@"
}
ps_pathscope_peer() {
	local i=$1
	shift
	nsenter --net="/var/run/netns/psP$i-$$" "$PATHSCOPE" "$@"
}
ps_peer_ip4() { echo "198.18.$1.2"; }
ps_peer_ip6() { echo "2001:db8:$1::2"; }
ps_host_ip4() { echo "198.18.$1.1"; }
ps_host_ip6() { echo "2001:db8:$1::1"; }
_ps_peer_mac() { printf '02:00:c6:12:%02x:02' "$1"; }

ps_delay_testbed_create() {
	local nq=$1 i ns mac
	local -a specs nss
	shift
	if [ $# -lt 1 ] || [ $# -gt 16 ]; then
		echo "lib.sh: ps_delay_testbed_create QUEUES PEER... (1 to 16 peers)" >&2
		return 1
	fi
	[ -x "$DELAYLINE" ] || {
		echo "lib.sh: $DELAYLINE not built (make)" >&2
		return 1
	}
	PS_PEERS=$# PS_NQUEUES=$nq NS_A=psA-$$ NS_B=$(ps_peer_ns 1)
	PS_DEV_A=dA PS_DEV_B=dP1
	PS_IP4_A=$(ps_host_ip4 1) PS_IP4_B=$(ps_peer_ip4 1)
	PS_IP6_A=$(ps_host_ip6 1) PS_IP6_B=$(ps_peer_ip6 1) PS_MAC_B=$(_ps_peer_mac 1)
	export NS_A NS_B PS_NQUEUES PS_DEV_A PS_DEV_B PS_IP4_A PS_IP4_B PS_IP6_A PS_IP6_B PS_MAC_B
	nss=("$NS_A")
	PS_LINK_DEVS=("$NS_A:dA")
	for ((i = 1; i <= $#; i++)); do
		nss+=("$(ps_peer_ns "$i")")
		specs+=("dP$i@$(ps_peer_ns "$i"):${!i}")
		PS_LINK_DEVS+=("$(ps_peer_ns "$i"):dP$i")
	done
	_ps_namespaces "${nss[@]}" || return 1

	# The taps are created inside the namespaces; the delay line lives in
	# this one (and in this process group: tests/run.sh's timeout ends it).
	PS_DELAY_OUT=$(mktemp)
	"$DELAYLINE" -r 10 -c 0 -k "${PS_DELAY_FACTOR:-1}" -t $((600 * PS_SLOW)) "dA@$NS_A:$nq" \
		"${specs[@]}" >"$PS_DELAY_OUT" &
	PS_DELAY_PID=$!
	for i in $(seq 50); do
		grep -q '^ready$' "$PS_DELAY_OUT" && break
		kill -0 "$PS_DELAY_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^ready$' "$PS_DELAY_OUT" || {
		echo "lib.sh: the delay line did not start" >&2
		return 1
	}

	_ps_do ip -n "$NS_A" link set dA address "$PS_MAC_A" || return 1
	for ((i = 1; i <= PS_PEERS; i++)); do
		ns=$(ps_peer_ns "$i") mac=$(_ps_peer_mac "$i")
		_ps_do ip -n "$ns" link set "dP$i" address "$mac" || return 1
		_ps_do ip -n "$NS_A" addr add "$(ps_host_ip4 "$i")/24" dev dA || return 1
		_ps_do ip -n "$NS_A" addr add "$(ps_host_ip6 "$i")/64" dev dA nodad || return 1
		_ps_do ip -n "$ns" addr add "$(ps_peer_ip4 "$i")/24" dev "dP$i" || return 1
		_ps_do ip -n "$ns" addr add "$(ps_peer_ip6 "$i")/64" dev "dP$i" nodad || return 1
		_ps_do ip -n "$NS_A" neigh add "$(ps_peer_ip4 "$i")" lladdr "$mac" dev dA nud permanent || return 1
		_ps_do ip -n "$NS_A" neigh add "$(ps_peer_ip6 "$i")" lladdr "$mac" dev dA nud permanent || return 1
		_ps_do ip -n "$ns" neigh add "$(ps_host_ip4 "$i")" lladdr "$PS_MAC_A" dev "dP$i" nud permanent || return 1
		_ps_do ip -n "$ns" neigh add "$(ps_host_ip6 "$i")" lladdr "$PS_MAC_A" dev "dP$i" nud permanent || return 1
		_ps_do ip -n "$ns" link set "dP$i" up || return 1
	done
	_ps_do ip -n "$NS_A" link set dA up || return 1
	_ps_wait_up "$NS_A" dA || return 1
	for ((i = 1; i <= PS_PEERS; i++)); do
		_ps_wait_up "$(ps_peer_ns "$i")" "dP$i" || return 1
	done
	ps_wait_quiet 5
}

ps_delay_stop() {
	[ -n "$PS_DELAY_PID" ] || return 1
	kill "$PS_DELAY_PID" 2>/dev/null
	_ps_reap "$PS_DELAY_PID"
	PS_DELAY_PID=
	grep -v '^ready$\|^stepped$' "$PS_DELAY_OUT"
}

# Multiply every delay by PS_DELAY_FACTOR now, once; returns when the delay
# line says the new delays apply (at most 5 s), 1 if it does not.
ps_delay_step() {
	local i
	kill -USR1 "$PS_DELAY_PID" 2>/dev/null || return 1
	for i in $(seq 50); do
		grep -q '^stepped$' "$PS_DELAY_OUT" && return 0
		sleep 0.1
	done
	return 1
}

ps_testbed_keep() {
	trap - EXIT INT TERM
}

ps_testbed_destroy() {
	local ns pid pids i
	local -a all=("${PS_TESTBED_NS[@]}")
	# Called without a create (scripts/testbed.sh down): the names it was given.
	if [ ${#all[@]} -eq 0 ]; then
		[ -n "${NS_A:-}" ] && all+=("$NS_A")
		[ -n "${NS_B:-}" ] && all+=("$NS_B")
	fi
	if [ -n "$PS_DELAY_PID" ]; then
		kill "$PS_DELAY_PID" 2>/dev/null
		wait "$PS_DELAY_PID" 2>/dev/null
		PS_DELAY_PID=
	fi
	[ -n "$PS_DELAY_OUT" ] && rm -f "$PS_DELAY_OUT"
	for ns in "${all[@]}"; do
		[ -e "/var/run/netns/$ns" ] || continue
		# A process still inside would keep the namespace (and the veth)
		# alive after `ip netns del`; these are ours: the namespace is.
		pids=$(ip netns pids "$ns" 2>/dev/null)
		[ -n "$pids" ] || continue
		for pid in $pids; do kill "$pid" 2>/dev/null; done
		for i in $(seq 20); do
			[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
			sleep 0.1
		done
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
	done
	# Deleting one end deletes the pair (a delay testbed has no veth).
	[ -n "${NS_A:-}" ] && [ -e "/var/run/netns/$NS_A" ] && ip -n "$NS_A" link del vA 2>/dev/null
	[ -n "${NS_B:-}" ] && [ -e "/var/run/netns/$NS_B" ] && ip -n "$NS_B" link del vB 2>/dev/null
	for ns in "${all[@]}"; do
		[ -e "/var/run/netns/$ns" ] && ip netns del "$ns"
	done
	PS_TESTBED_NS=()
	return 0
}
