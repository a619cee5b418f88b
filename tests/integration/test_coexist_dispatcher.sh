#!/usr/bin/env bash
# pathscope in libxdp's dispatcher, beside Debian's xdp-tools 1.3.1:
# xdp-filter (allow policy on 6.1, deny on 6.12, both elsewhere) and a
# libxdp program loaded with xdp-loader, each in both orders (the peer
# first, pathscope first).
#
# Where the kernel has freplace, libxdp runs every program of an interface
# as an extension of its dispatcher, in the order of their priorities:
# pathscope's is 1, before xdp-filter's 10 and xdp-loader's default 50, and
# it goes on to them after its XDP_PASS. So the peer's verdicts and its own
# statistics are the same with pathscope as without, pathscope's XDP program
# counts every frame sent (the peer's drops included) and tc ingress every
# frame the peer passed; status says "ok" and names the dispatcher, and
# /healthz answers 200. The peer's status, rules and unload work with
# pathscope attached and after its detach; nothing of either is left. The
# same beside xdp-filter from pathscope@vB.service's own command line.
#
# Linux 5.10 has freplace too, but its verifier refuses pathscope's program
# as an extension (features: dispatcher no): there attach refuses to join a
# dispatcher in one line that names --no-xdp, measures beside it at tc with
# --no-xdp, and takes the interface as libxdp's single program when it is
# first, which libxdp's tools then do not replace (their own refusal).
#
# On a kernel without freplace (this machine's 6.18) libxdp runs single
# programs, and test_coexist_xdptools.sh is the test; this one says so.
# tests/vm/ runs it on Debian's 5.10, 6.1 and 6.12.
# There: status says `ok (xdp in libxdp's dispatcher, id N, with 1 other
# program)`, xdp-loader status shows pathscope at priority 1 before the peer,
# pathscope's XDP counts 390, 290 and 200 frames (the mixes), and after the
# peer's unload it counts 25 more alone in the dispatcher.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C # sort and join agree, xdp-filter prints plain numbers
N=coexist_dispatcher
. "$(dirname "$0")/xdptools.sh"
[ "$LIBXDP_USES" = xdp_dispatcher ] ||
	{ ps_unsupported "$N" "libxdp loads xdp-filter as its single program (no freplace)"; ps_done; }
JOINS=$("$PATHSCOPE" features --json | jq -r .dispatcher)

# The programs of the dispatcher on vB, one "PRIO NAME ID" line each.
components() { xl status | awk '$1 == "=>" { print $2, $3, $4 }'; }
# The component id of program NAME (0: none).
component_id() { components | awk -v n="$1" '$2 == n { id = $3 } END { print id + 0 }'; }
state() { ours | jq -r '.[0].state'; }
sent_since() { echo $(($(xdp_total) - $1)); }

# serve adopts the attachment (--keep: it stays), answers /healthz; its code.
HEALTH_PORT=19464
healthz() {
	local pid code= i
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --keep \
		--listen "127.0.0.1:$HEALTH_PORT" >/dev/null 2>&1 &
	pid=$!
	for i in $(seq $((100 * PS_SLOW))); do
		code=$(ps_in_b curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HEALTH_PORT/healthz")
		[ "$code" = 000 ] || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "$code"
}

# xdp-filter of POLICY with the rules of the mixes (xdptools.sh); the
# number of a port rule to add and remove later goes to RULE.
xf_setup() {
	xf load vB -m native -p "$1" || ps_fail "$1: xdp-filter load" "exit $?"
	if [ "$1" = allow ]; then
		xf port 9 && xf ip "$ADDR4" && xf ip "$ADDR6" && xf ether "$MAC_X" -m src ||
			ps_fail "$1: xdp-filter rules" "exit $?"
		RULE=11
	else
		xf port 10 && xf ip "$ADDR4" && xf ether "$MAC_X" -m src ||
			ps_fail "$1: xdp-filter rules" "exit $?"
		RULE=12
	fi
}

# With pathscope and the peer PEER (program name) in the dispatcher, the
# mix MIX [ARG]: the same verdicts and peer statistics as WANT, every frame
# counted at XDP and the passed ones at tc ingress.
joint_checks() { # NAME PEER MIX WANT SENT PASSED [MIX ARG]
	local name=$1 peer=$2 mix=$3 want=$4 sent=$5 passed=$6 x0 t0 disp
	disp=$(prog_id)
	ps_check_eq "$name: status ok, naming the dispatcher" "$(state)" \
		"ok (xdp in libxdp's dispatcher, id $disp, with 1 other program)"
	ps_check_eq "$name: xdp-loader status shows pathscope at priority 1, then $peer" \
		"$(components | awk '{ print $1, $2 }' | tr '\n' ' ')" "1 pathscope_xdp $(components | awk -v n="$peer" '$2 == n { print $1 }') $peer "
	x0=$(xdp_total) t0=$(tc_udp)
	ps_check_eq "$name: the peer's verdicts, its statistics and the sinks are the same" \
		"$($mix ${7:-})" "$want"
	ps_check_eq "$name: pathscope's XDP counted every frame sent ($sent)" "$(sent_since "$x0")" "$sent"
	ps_check_eq "$name: pathscope's tc ingress counted every datagram passed ($passed)" \
		$(($(tc_udp) - t0)) "$passed"
	ps_check_eq "$name: /healthz answers 200" "$(healthz)" 200
	ps_check_eq "$name: and the attachment is still there after serve --keep" "$(state | cut -c1-2)" ok
}

# ---- pathscope joins the dispatcher (6.1, 6.12) --------------------------------
# xdp-filter's program of a policy (xdpfilt_alw_all, xdpfilt_dny_all).
xf_prog() { [ "$1" = allow ] && echo xdpfilt_alw_all || echo xdpfilt_dny_all; }

filter_joined() { # POLICY ORDER (peer-first | pathscope-first)
	local p=$1 order=$2 name="$1, $2" want sent passed fid prog
	want=WANT_$p sent=SENT_$p passed=PASSED_$p
	want=${!want} sent=${!sent} passed=${!passed}
	prog=$(xf_prog "$p")
	if [ "$order" = peer-first ]; then
		xf_setup "$p"
		ps_check_eq "$name: the filter alone" "$(mix_$p)" "$want"
		fid=$(component_id "$prog")
		ps_pathscope_b attach vB || ps_fail "$name: attach" "exit $?"
	else
		ps_pathscope_b attach vB || ps_fail "$name: attach" "exit $?"
		ps_check_eq "$name: alone in libxdp's dispatcher" "$(state)" \
			"ok (xdp in libxdp's dispatcher, id $(prog_id), alone)"
		xf_setup "$p"
		fid=$(component_id "$prog")
	fi
	joint_checks "$name" "$prog" "mix_$p" "$want" "$sent" "$passed"
	ps_check_eq "$name: xdp-filter status shows it loaded, pathscope attached" \
		"$(xf status | grep -c '^  vB (native mode)')" 1
	xf port "$RULE" || ps_fail "$name: xdp-filter port $RULE, pathscope attached" "exit $?"
	ps_check_eq "$name: a rule added with pathscope attached shows in xdp-filter status" \
		"$(xf_stats | grep -c "^port:$RULE 0$")" 1
	xf port "$RULE" -r || ps_fail "$name: xdp-filter port $RULE -r" "exit $?"
	if [ "$order" = peer-first ]; then
		ps_pathscope_b detach vB || ps_fail "$name: detach" "exit $?"
		ps_check_eq "$name: after detach the filter runs on (same program), status shows it" \
			"$(components | awk '{ print $2, $3 }') $(xf status | grep -c '^  vB (native mode)')" \
			"$prog $fid 1"
		ps_check_eq "$name: the filter alone again" "$(mix_$p)" "$want"
		xf unload vB || ps_fail "$name: xdp-filter unload" "exit $?"
	else
		xf unload vB || ps_fail "$name: xdp-filter unload, pathscope attached" "exit $?"
		ps_check_eq "$name: after the filter's unload pathscope is alone in the dispatcher" \
			"$(state)" "ok (xdp in libxdp's dispatcher, id $(prog_id), alone)"
		x0=$(xdp_total)
		sinks_start
		send 25 "$PS_IP4_B" 9
		sinks_stop
		ps_check_eq "$name: and counts on" "$(sent_since "$x0") $SINKS" "25 sink9=25 sink10=0"
		ps_pathscope_b detach vB || ps_fail "$name: detach" "exit $?"
	fi
	ps_check_eq "$name: both removed: no XDP program, no xdp-filter pins" \
		"$(prog_id) $(ls -d "$XF_DIR" 2>/dev/null)" "0 "
}

loader_joined() { # ORDER
	local order=$1 name="libxdp program, $1" lid
	if [ "$order" = peer-first ]; then
		xl load -m native vB "$LXDROP" || ps_fail "$name: xdp-loader load" "exit $?"
		ps_pathscope_b attach vB || ps_fail "$name: attach" "exit $?"
	else
		ps_pathscope_b attach vB || ps_fail "$name: attach" "exit $?"
		xl load -m native vB "$LXDROP" || ps_fail "$name: xdp-loader load" "exit $?"
	fi
	lid=$(component_id standin_lxdrop)
	joint_checks "$name" standin_lxdrop mix_loader "$WANT_loader" "$SENT_loader" 100 "$lid"
	if [ "$order" = peer-first ]; then
		ps_pathscope_b detach vB || ps_fail "$name: detach" "exit $?"
		ps_check_eq "$name: after detach xdp-loader status shows it alone" \
			"$(components | awk '{ print $2, $3 }')" "standin_lxdrop $lid"
		xl unload vB -i "$lid" || ps_fail "$name: xdp-loader unload -i" "exit $?"
	else
		xl unload vB -i "$lid" || ps_fail "$name: xdp-loader unload -i, pathscope attached" "exit $?"
		ps_check_eq "$name: after the peer's unload pathscope is alone in the dispatcher" \
			"$(state)" "ok (xdp in libxdp's dispatcher, id $(prog_id), alone)"
		ps_pathscope_b detach vB || ps_fail "$name: detach" "exit $?"
	fi
	ps_check_eq "$name: both removed" "$(prog_id)" 0
}

# The sidecar: pathscope@vB.service's own command line (no OPTIONS: pathscope
# joins the dispatcher by itself) next to xdp-filter; stopping the unit
# leaves the filter running as it was.
unit_joined() {
	local name="unit, beside xdp-filter (allow)" fid
	xf_setup allow
	fid=$(component_id xdpfilt_alw_all)
	ps_unit_start vB ""
	joint_checks "$name" xdpfilt_alw_all mix_allow "$WANT_allow" "$SENT_allow" "$PASSED_allow"
	ps_unit_stop "beside xdp-filter"
	ps_check_eq "$name: stopped, the filter runs on (same program)" \
		"$(components | awk '{ print $2, $3 }')" "xdpfilt_alw_all $fid"
	ps_check_eq "$name: the filter alone again" "$(mix_allow)" "$WANT_allow"
	xf unload vB || ps_fail "$name: xdp-filter unload" "exit $?"
}

# ---- this kernel's dispatcher cannot take pathscope's program (5.10) ------------
filter_refused() { # POLICY
	local p=$1 want passed id t0
	want=WANT_$p passed=PASSED_$p
	want=${!want} passed=${!passed}
	xf_setup "$p"
	id=$(prog_id)
	ps_expect_error "$p: attach refuses to join the dispatcher in one line, naming --no-xdp" \
		"^pathscope: 'vB' has libxdp's dispatcher, which cannot take pathscope's XDP program on this kernel .*--no-xdp measures at tc only$" \
		ps_pathscope_b attach vB
	ps_check_eq "$p: the refusal changed nothing" "$(prog_id) $(ours)" "$id []"
	ps_pathscope_b attach vB --no-xdp || ps_fail "$p: attach --no-xdp" "exit $?"
	t0=$(tc_udp)
	ps_check_eq "$p: with pathscope at tc, the filter's verdicts and statistics are the same" \
		"$(mix_$p)" "$want"
	ps_check_eq "$p: pathscope's tc ingress counted every datagram the filter passed" \
		$(($(tc_udp) - t0)) "$passed"
	ps_pathscope_b detach vB || ps_fail "$p: detach" "exit $?"
	xf unload vB || ps_fail "$p: xdp-filter unload" "exit $?"
	ps_check_eq "$p: both removed" "$(prog_id) $(ls -d "$XF_DIR" 2>/dev/null)" "0 "
}

single_first() {
	local id out rc
	ps_pathscope_b attach vB || ps_fail "pathscope first: attach" "exit $?"
	id=$(prog_id)
	ps_check_eq "pathscope first: libxdp's single program, no dispatcher" \
		"$(ours | jq -r '.[0].state') $(components | wc -l)" "ok 0"
	out=$(xf load vB -m native -p allow 2>&1) && rc=0 || rc=$?
	ps_check_eq "pathscope first: xdp-filter load fails: libxdp does not replace a single program" \
		"$([ "$rc" -ne 0 ] && echo failed) $(grep -c 'Existing program is not using a dispatcher' <<<"$out")" \
		"failed 1"
	ps_check_eq "pathscope first: its program stays, status ok" "$(prog_id) $(state)" "$id ok"
	# xdp-filter's failed load leaves its (empty) pin directory: its own.
	rm -rf "$XF_DIR"
	ps_pathscope_b detach vB || ps_fail "pathscope first: detach" "exit $?"
	ps_check_eq "pathscope first: removed" "$(prog_id)" 0
}

# xdp-filter's policy changes the peer's program and its verdicts, not
# pathscope's way through the dispatcher (first, at priority 1, then on to
# the peer after its XDP_PASS): each guest with a dispatcher runs one policy
# in both orders, 6.1 allow and 6.12 deny, and any other kernel both
# (tests/vm/MOVED.md). The stand-in loaded by xdp-loader runs on each.
case ${PS_VM_KERNEL:-} in
6.1) policies=allow ;;
6.12) policies=deny ;;
*) policies="allow deny" ;;
esac
if [ "$JOINS" = true ]; then
	for order in peer-first pathscope-first; do
		for policy in $policies; do
			filter_joined "$policy" "$order"
		done
		loader_joined "$order"
	done
	unit_joined
else
	echo "# this kernel's dispatcher cannot take pathscope's program (features: dispatcher false)"
	filter_refused allow
	filter_refused deny
	single_first
fi

# ---- nothing left ------------------------------------------------------------
$had_libxdp_dir || rmdir "$LIBXDP_DIR" 2>/dev/null
ps_check_eq "nothing of pathscope or of the peers is left" \
	"$(ps_census_is "$base") xdpfilt=$(xdpfilt_progs) $(ls -d "$XF_DIR" 2>/dev/null)" "$base xdpfilt=$xdpfilt0 "
ps_done
