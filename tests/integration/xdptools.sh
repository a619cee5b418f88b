# shellcheck shell=bash
# tests/integration/xdptools.sh: the testbed and the known traffic mixes of
# the tests of pathscope beside Debian's xdp-tools 1.3.1 (xdp-filter,
# xdp-loader): test_coexist_xdptools.sh where libxdp runs a single program,
# test_coexist_dispatcher.sh where it runs its dispatcher (freplace). Source
# it after lib.sh with N set to the test's name: it makes the testbed (2
# queues), the peers' helpers (xf, xl), the sinks and the mixes, and sets
# LIBXDP_USES to what libxdp loads for xdp-filter here: "xdp_dispatcher", or
# the filter's own program name (found with xdp-filter alone, not with
# pathscope).
PDROP=$PS_BIN/tests/standin_pdrop.bpf.o
LXDROP=$PS_BIN/tests/standin_lxdrop.bpf.o
RAWSEND=$PS_BIN/tests/rawsend
ps_require_root "$N"
ps_require_file "$N" "$PATHSCOPE"
ps_require_file "$N" "$UDPSEND"
ps_require_file "$N" "$RAWSEND"
[ -r "$PDROP" ] && [ -r "$LXDROP" ] || { ps_skip "$N" "stand-ins not built (make)"; ps_done; }
ps_require_cmd "$N" xdp-filter xdp-loader bpftool jq
# xdp-filter's pins and statistics are machine-wide: one in use elsewhere
# would share them.
[ -e /sys/fs/bpf/xdp-filter ] && { ps_skip "$N" "xdp-filter is loaded elsewhere on this machine"; ps_done; }
XF_DIR=/sys/fs/bpf/xdp-filter
LIBXDP_DIR=/sys/fs/bpf/xdp # libxdp's lock directory: its tools make it and leave it
had_libxdp_dir=false
[ -e "$LIBXDP_DIR" ] && had_libxdp_dir=true
xdpfilt_progs() { bpftool prog show -j | jq '[.[] | select(.name // "" | startswith("xdpfilt_"))] | length'; }
xdpfilt0=$(xdpfilt_progs)

ps_testbed_create 2 || { ps_fail "$N" "testbed setup failed"; ps_done; }
base=$(ps_census_stable)
# The peers' tools need /sys/fs/bpf too: nsenter, not ip netns exec.
xf() { nsenter --net="/var/run/netns/$NS_B" xdp-filter "$@"; }
xl() { nsenter --net="/var/run/netns/$NS_B" xdp-loader "$@"; }
ps_at_exit "xf unload vB >/dev/null 2>&1; xl unload vB --all >/dev/null 2>&1
	ps_pathscope_b detach vB >/dev/null 2>&1; ip -n $NS_B link set dev vB xdp off 2>/dev/null
	[ -e $XF_DIR ] && rm -rf $XF_DIR; $had_libxdp_dir || rmdir $LIBXDP_DIR 2>/dev/null"

# Addresses the filter's IP rules match: B answers them, A reaches them.
ADDR4=198.18.0.3 ADDR6=2001:db8::3 MAC_X=02:00:c6:12:00:77
ip -n "$NS_B" addr add "$ADDR4/32" dev vB
ip -n "$NS_B" addr add "$ADDR6/128" dev vB nodad
ip -n "$NS_A" neigh add "$ADDR4" lladdr "$PS_MAC_B" dev vA nud permanent
ip -n "$NS_A" neigh add "$ADDR6" lladdr "$PS_MAC_B" dev vA nud permanent
ps_wait_quiet 5 >/dev/null # the MLD reports of the new address

prog_id() { ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id // 0'; }
# This namespace's pathscope attachments (status lists every namespace's).
ours() { ps_pathscope_b status --json | jq -c '[.[] | select(.current_netns)]'; }
tc_udp() { ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.tc_ingress.total.l4.udp'; }
xdp_total() { ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.packets'; }

# Two sinks, on ports 9 and 10 of every address of B. sinks_stop, when the
# link has been quiet, stops them and sets SINKS="sink9=N sink10=N". (Not in
# a $(...) of its own: there the sinks would not be its children to wait for.)
SINK9_OUT=$(mktemp) SINK10_OUT=$(mktemp)
ps_at_exit "rm -f $SINK9_OUT $SINK10_OUT"
sinks_start() {
	ip netns exec "$NS_B" "$UDPSEND" --sink 9 --timeout 30 >"$SINK9_OUT" &
	SINK9=$!
	ip netns exec "$NS_B" "$UDPSEND" --sink 10 --timeout 30 >"$SINK10_OUT" &
	SINK10=$!
	_ps_wait_port "$NS_B" udp 9 && _ps_wait_port "$NS_B" udp 10
}
sinks_stop() {
	ps_wait_quiet 5 >/dev/null
	kill "$SINK9" "$SINK10" 2>/dev/null
	wait "$SINK9" "$SINK10" 2>/dev/null
	SINKS="sink9=$(cat "$SINK9_OUT") sink10=$(cat "$SINK10_OUT")"
}
send() { # COUNT DST PORT [-6]
	ps_in_a "$UDPSEND" ${4:-} -n "$1" "$2" "$3" || ps_fail "udpsend $1 to $2:$3" "exit $?"
}
rawx() { # COUNT PORT: frames from the Ethernet address the filter's rules match
	ps_in_a "$RAWSEND" --src-mac "$MAC_X" -n "$1" vA "$PS_MAC_B" "$PS_IP4_A" "$PS_IP4_B" "$2" ||
		ps_fail "rawsend $1 to port $2" "exit $?"
}

# xdp-filter's own statistics, one "key value" line each: per action
# ("drop", "pass") and per rule ("port:9", "ip:198.18.0.3", "mac:..."), hits.
xf_stats() {
	xf status | awk '/^Filtered ports:/ { s = "port" } /^Filtered IP/ { s = "ip" }
		/^Filtered MAC/ { s = "mac" }
		$1 == "XDP_DROP" { print "drop", $2 } $1 == "XDP_PASS" { print "pass", $2 }
		s && NF == 3 && $1 != "Mode" { print s ":" $1, $3 }' | sort
}
# "key+delta ..." of two xf_stats: both actions, and the rules that were hit.
deltas() {
	join -a 2 -e 0 -o 0,1.2,2.2 <(echo "$1") <(echo "$2") |
		awk '$3 != $2 || $1 == "drop" || $1 == "pass" { printf "%s%s+%d", n++ ? " " : "", $1, $3 - $2 }'
}

# ---- xdp-filter -------------------------------------------------------------
# allow policy: the rules drop UDP to port 9, IPv4 and IPv6 to ADDR4/ADDR6,
# frames from MAC_X; the rest passes. deny policy: the rules pass port 10,
# ADDR4 and MAC_X; the rest is dropped.
mix_allow() {
	local s0
	s0=$(xf_stats)
	sinks_start
	send 100 "$PS_IP4_B" 9
	send 100 "$PS_IP4_B" 10
	send 50 "$ADDR4" 10
	send 50 "$ADDR6" 10 -6
	send 50 "$PS_IP6_B" 10 -6
	rawx 40 10
	sinks_stop
	echo "$SINKS $(deltas "$s0" "$(xf_stats)")"
}
WANT_allow="sink9=0 sink10=150 drop+240 ip:198.18.0.3+50 ip:2001:db8::3+50 mac:$MAC_X+40 pass+150 port:9+100"
PASSED_allow=150
mix_deny() {
	local s0
	s0=$(xf_stats)
	sinks_start
	send 100 "$PS_IP4_B" 10
	send 100 "$PS_IP4_B" 9
	send 50 "$ADDR4" 9
	rawx 40 9
	sinks_stop
	echo "$SINKS $(deltas "$s0" "$(xf_stats)")"
}
WANT_deny="sink9=90 sink10=100 drop+100 ip:198.18.0.3+50 mac:$MAC_X+40 pass+190 port:10+100"
PASSED_deny=190

# ---- xdp-loader -------------------------------------------------------------
# The stand-ins drop UDP to port 9 and count their verdicts (pass, drop).
U64S='def hex: ascii_downcase | ltrimstr("0x") | explode | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
	[.[] | if .formatted then .formatted.value else (.value | map(hex) | reverse | reduce .[] as $b (0; . * 256 + $b)) end] | map(tostring) | join(" ")'
verdicts() { # of program $1
	bpftool map dump id "$(bpftool prog show id "$1" -j | jq '.map_ids[0]')" -j | jq -r "$U64S"
}
mix_loader() { # program id
	local v0
	v0=$(verdicts "$1")
	sinks_start
	send 100 "$PS_IP4_B" 9
	send 100 "$PS_IP4_B" 10
	sinks_stop
	# shellcheck disable=SC2086
	set -- $v0 $(verdicts "$1")
	echo "$SINKS pass+$(($3 - $1)) drop+$(($4 - $2))"
}
WANT_loader="sink9=0 sink10=100 pass+100 drop+100"
xl_shows() { xl status | awk -v id="$1" '$1 == "vB" { print $2, $4 == id }'; }

# How libxdp runs a program on this kernel.
LIBXDP_USES=$(xf load vB -m native -p allow >/dev/null 2>&1 && xl status | awk '$1 == "vB" { print $2 }')
xf unload vB >/dev/null 2>&1
# Sent by each mix, every frame: what pathscope's XDP program sees when it
# runs before the peer.
SENT_allow=390 SENT_deny=290 SENT_loader=200
