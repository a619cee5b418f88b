#!/usr/bin/env bash
# pathscope next to real XDP peers from Debian's xdp-tools 1.3.1, built on
# libxdp: xdp-filter (port, IP and Ethernet rules, allow and deny policy) and
# programs loaded with xdp-loader.
#
# On this kernel (no freplace) libxdp runs one program per interface, and
# its tools tell what runs there by the program attached: xdp-filter's
# status, load, port and unload unlink the filter's pin when that is not its
# program (xdp-tools get_pinned_program). So chain mode refuses a program
# managed through libxdp (one line, exit 1, naming --no-xdp), and pathscope
# measures beside it at tc only. A program loaded by xdp-loader from an
# object without libxdp's run config cannot be told from any other: chain
# mode goes ahead, and status names the program it is chained in front of.
#
# For each peer, a known mix is sent from A and counted exactly: what each
# port's sink receives, the peer's own statistics (xdp-filter status: per
# action and per rule; the stand-ins' verdict map), the same with pathscope
# as without, and what pathscope counts. The peer's own commands (status,
# adding rules, unload) must work with pathscope attached and after its
# detach, and nothing of either may be left after both are removed.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C # sort and join agree, xdp-filter prints plain numbers
N=coexist_xdptools
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

filter_case() { # POLICY
	local p=$1 id pins x0 want passed rule
	want=WANT_$p passed=PASSED_$p
	want=${!want} passed=${!passed}
	xf load vB -m native -p "$p" || ps_fail "$p: xdp-filter load" "exit $?"
	if [ "$p" = allow ]; then
		xf port 9 && xf ip "$ADDR4" && xf ip "$ADDR6" && xf ether "$MAC_X" -m src ||
			ps_fail "$p: xdp-filter rules" "exit $?"
		rule=11
	else
		xf port 10 && xf ip "$ADDR4" && xf ether "$MAC_X" -m src ||
			ps_fail "$p: xdp-filter rules" "exit $?"
		rule=12
	fi
	id=$(prog_id)
	ps_check_eq "$p: the filter alone" "$(mix_$p)" "$want"

	pins=$(find "$XF_DIR" | sort)
	ps_expect_error "$p: --xdp-chain refused in one line, naming xdp-filter and --no-xdp" \
		"^pathscope: 'vB': XDP program $id 'xdpfilt_.{3}_all' \(xdp-filter, pinned at $XF_DIR/programs/vB/xdpfilt_.{3}_all\) is managed through libxdp.*--no-xdp" \
		ps_pathscope_b attach vB --xdp-chain
	ps_expect_error "$p: a plain attach is refused too, without suggesting --xdp-chain" \
		"^pathscope: 'vB' already has an XDP program \(id $id 'xdpfilt_.{3}_all' of xdp-filter, managed through libxdp\); pathscope will neither replace it nor chain in front of it \(--no-xdp measures at tc only\)$" \
		ps_pathscope_b attach vB
	ps_check_eq "$p: the refusals changed nothing (program, its pins, no attachment)" \
		"$(prog_id) $(find "$XF_DIR" | sort | md5sum) $(ours)" "$id $(md5sum <<<"$pins") []"
	ps_check_eq "$p: xdp-filter status still shows it loaded on vB" \
		"$(xf status | grep -c '^  vB (native mode)')" 1

	ps_pathscope_b attach vB --no-xdp || ps_fail "$p: attach --no-xdp" "exit $?"
	ps_check_eq "$p: pathscope at tc only beside it" \
		"$(ours | jq -r '.[0] | "\(.xdp_mode) \(.state)"') $(prog_id)" "none ok $id"
	ps_check_eq "$p: xdp-filter status shows it on vB, pathscope attached" \
		"$(xf status | grep -c '^  vB (native mode)')" 1
	xf port "$rule" || ps_fail "$p: xdp-filter port $rule, pathscope attached" "exit $?"
	ps_check_eq "$p: a rule added with pathscope attached shows in xdp-filter status" \
		"$(xf_stats | grep -c "^port:$rule 0$")" 1
	x0=$(tc_udp)
	ps_check_eq "$p: with pathscope, the filter's verdicts, its statistics and the sinks are the same" \
		"$(mix_$p)" "$want"
	ps_check_eq "$p: pathscope's tc ingress counted every datagram the filter passed" \
		$(($(tc_udp) - x0)) "$passed"
	xf port "$rule" -r || ps_fail "$p: xdp-filter port $rule -r, pathscope attached" "exit $?"
	ps_check_eq "$p: and removed again" "$(xf_stats | grep -c "^port:$rule ")" 0
	ps_pathscope_b detach vB || ps_fail "$p: detach" "exit $?"

	ps_check_eq "$p: after detach: the same program, xdp-filter status shows it" \
		"$(prog_id) $(xf status | grep -c '^  vB (native mode)')" "$id 1"
	xf ip 198.18.0.9 || ps_fail "$p: xdp-filter ip after detach" "exit $?"
	ps_check_eq "$p: a rule added after detach shows in xdp-filter status" \
		"$(xf_stats | grep -c '^ip:198.18.0.9 0$')" 1
	ps_check_eq "$p: the filter alone again" "$(mix_$p)" "$want"
	xf unload vB || ps_fail "$p: xdp-filter unload" "exit $?"
	ps_check_eq "$p: xdp-filter unload removed its program and its pins" \
		"$(prog_id) $(ls -d "$XF_DIR" 2>/dev/null)" "0 "
}
filter_case allow
filter_case deny

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

# A program written for libxdp (its run config in its BTF): managed through
# libxdp, refused like xdp-filter's.
xl load -m native vB "$LXDROP" || ps_fail "libxdp program: xdp-loader load" "exit $?"
id=$(prog_id)
ps_check_eq "libxdp program: alone" "$(mix_loader "$id")" "$WANT_loader"
ps_expect_error "libxdp program: --xdp-chain refused in one line, naming --no-xdp" \
	"^pathscope: 'vB': XDP program $id 'standin_lxdrop' \(libxdp\) is managed through libxdp.*--no-xdp" \
	ps_pathscope_b attach vB --xdp-chain
ps_check_eq "libxdp program: the refusal changed nothing" "$(prog_id) $(ours)" "$id []"
ps_pathscope_b attach vB --no-xdp || ps_fail "libxdp program: attach --no-xdp" "exit $?"
ps_check_eq "libxdp program: xdp-loader status shows it, pathscope attached" "$(xl_shows "$id")" "standin_lxdrop 1"
x0=$(tc_udp)
ps_check_eq "libxdp program: with pathscope, its verdicts and the sinks are the same" \
	"$(mix_loader "$id")" "$WANT_loader"
ps_check_eq "libxdp program: pathscope's tc ingress counted the 100 it passed" $(($(tc_udp) - x0)) 100
ps_pathscope_b detach vB || ps_fail "libxdp program: detach" "exit $?"
ps_check_eq "libxdp program: after detach xdp-loader status shows it" "$(xl_shows "$id")" "standin_lxdrop 1"
xl unload vB -i "$id" || ps_fail "libxdp program: xdp-loader unload -i" "exit $?"
ps_check_eq "libxdp program: xdp-loader unload removed it" "$(prog_id)" 0

# A program with nothing of libxdp in it: xdp-loader leaves no trace, so it
# cannot be told from one loaded by ip. Chain mode goes ahead; status names
# the program; xdp-loader sees pathscope's program on vB meanwhile, so its
# unload -i of the peer fails (README: what not to do while chained).
xl load -m native vB "$PDROP" || ps_fail "plain program: xdp-loader load" "exit $?"
id=$(prog_id)
ps_check_eq "plain program: alone" "$(mix_loader "$id")" "$WANT_loader"
ps_pathscope_b attach vB --xdp-chain || ps_fail "plain program: attach --xdp-chain" "exit $?"
ps_check_eq "plain program: status JSON names the program chained in front of" \
	"$(ours | jq -c '.[0] | [.xdp_mode, .state, .chained]')" \
	"[\"chain\",\"ok\",{\"prog_id\":$id,\"name\":\"standin_pdrop\",\"loaded_by\":null,\"pinned_at\":null,\"libxdp\":false}]"
ps_check_eq "plain program: the status table too" \
	"$(ps_pathscope_b status | grep -c "^ *chained in front of XDP program $id 'standin_pdrop'; loaded by: not known; pinned at: none found$")" 1
x0=$(xdp_total)
ps_check_eq "plain program: chained, its verdicts and the sinks are the same" \
	"$(mix_loader "$id")" "$WANT_loader"
ps_check_eq "plain program: pathscope's XDP counted all 200 frames" $(($(xdp_total) - x0)) 200
ps_check_eq "plain program: xdp-loader status works, and sees pathscope's program on vB" \
	"$(xl_shows "$(prog_id)")" "pathscope_xdp 1"
ps_expect_error "plain program: xdp-loader unload -i of the peer fails while chained" \
	"Program with ID $id not loaded on vB" xl unload vB -i "$id"
ps_check_eq "plain program: ... and changes nothing" "$(ours | jq -r '.[0].state')" ok
ps_pathscope_b detach vB || ps_fail "plain program: detach" "exit $?"
ps_check_eq "plain program: detach puts it back (same id), xdp-loader status shows it" \
	"$(prog_id) $(xl_shows "$id")" "$id standin_pdrop 1"
ps_check_eq "plain program: alone again" "$(mix_loader "$id")" "$WANT_loader"
xl unload vB -i "$id" || ps_fail "plain program: xdp-loader unload -i" "exit $?"
ps_check_eq "plain program: xdp-loader unload removed it" "$(prog_id)" 0

# ---- nothing left ------------------------------------------------------------
$had_libxdp_dir || rmdir "$LIBXDP_DIR" 2>/dev/null
ps_check_eq "nothing of pathscope or of the peers is left" \
	"$(ps_census_is "$base") xdpfilt=$(xdpfilt_progs) $(ls -d "$XF_DIR" 2>/dev/null)" "$base xdpfilt=$xdpfilt0 "
ps_done
