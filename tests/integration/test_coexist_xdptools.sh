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
# The mixes and what each must give are tests/integration/xdptools.sh's
# (mix_allow, mix_deny, mix_loader and their WANT_*). For each xdp-filter
# policy: `attach --xdp-chain` and a plain attach are refused in one line
# (exit 1) naming xdp-filter, its pin and --no-xdp, and change nothing (the
# program id, xdp-filter's pins, no attachment); with `attach --no-xdp` the
# mix gives the same, tc ingress counts exactly what the filter passed (150,
# 190), and a port rule added meanwhile is listed and removed; after detach
# the program id is the same and `xdp-filter unload` removes its program and
# pins. xdp-loader's standin_lxdrop (libxdp's run config): --xdp-chain is
# refused in one line; standin_pdrop (no libxdp in it): chained, status
# --json's chained names it with loaded_by and pinned_at null, `xdp-loader
# unload -i ID` fails with "Program with ID ID not loaded on vB", detach puts
# it back by id. At the end the census of programs, maps, links, pins,
# qdiscs and XDP equals the one before, and libxdp's lock directory
# (/sys/fs/bpf/xdp) is removed if the test made it.
. "$(dirname "$0")/lib.sh"
export LC_ALL=C # sort and join agree, xdp-filter prints plain numbers
N=coexist_xdptools
. "$(dirname "$0")/xdptools.sh"
[ "$LIBXDP_USES" = xdp_dispatcher ] &&
	{ ps_unsupported "$N" "libxdp runs its dispatcher here (test_coexist_dispatcher)"; ps_done; }

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
# unload -i of the peer fails (docs/coexistence.md: what not to do while chained).
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
	"$(xl_shows "$(prog_id)")" "pathscope_xdp_chain 1"
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
