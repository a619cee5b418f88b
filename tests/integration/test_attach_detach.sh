#!/usr/bin/env bash
# attach / detach: pins, links, programs and qdiscs come and go exactly;
# someone else's XDP program, clsact qdisc and tc filter are never touched;
# bad input gets one line and a non-zero exit and leaves nothing behind.
# In a guest of tests/vm/ (PS_VM=1) only what the kernel decides runs: the
# status text's layout and the bad input's messages are user space's, the
# same on every kernel, and run on the host (tests/vm/MOVED.md).
# status's text row and features line hold what its JSON says, its header's
# columns line up with the row's, and no line is over 120 columns.
. "$(dirname "$0")/lib.sh"
ps_require_root attach_detach
ps_require_file attach_detach "$PATHSCOPE"
ps_require_cmd attach_detach bpftool tc setpriv xdp-loader jq
STANDIN_XDP=$PS_BIN/tests/standin_xdp.bpf.o
STANDIN_TC=$PS_BIN/tests/standin_tc.bpf.o

ps_testbed_create 2 || { ps_fail attach_detach "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'


before=$(ps_census_stable)
# libxdp's lock directory: any libxdp user may have left it (KERNEL-NOTES.md),
# so pathscope must leave it as it found it, not absent.
xdp_dir0=$(ls -d /sys/fs/bpf/xdp 2>/dev/null)
# What this kernel gives (tests/vm/ runs this test on Debian's 5.10, 6.1 and
# 6.12 too), from the kernel, not from pathscope: TCX links from Linux 6.6;
# libxdp runs its dispatcher where the kernel has freplace, and pathscope's
# program is in it where the kernel takes it as an extension (not 5.10).
tcx=$(printf '6.6\n%s\n' "$(uname -r)" | sort -V -C && echo tcx || echo clsact)
links=$([ "$tcx" = tcx ] && echo "tce_link tci_link" || echo "tce_prog tci_prog")
xl_b() { nsenter --net="/var/run/netns/$NS_B" xdp-loader "$@"; }
# "ok", or in a dispatcher the state that names it (its id from ip link).
state_ok() {
	local id
	if ip -n "$NS_B" -d link show vB | grep -q 'name xdp_dispatcher'; then
		id=$(ip -n "$NS_B" -d -j link show vB | jq '.[0].xdp.prog.id')
		echo "ok (xdp in libxdp's dispatcher, id $id, alone)"
	else
		echo ok
	fi
}
# Scoped to this test's namespace: another attachment on the machine (a
# neighbour's, or a test killed earlier) must not change what is checked here.
tcx_links() { bpftool link show | grep -cE '(tcx|type 11)'; }
tcx0=$(tcx_links)
PINS=/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")

# 1. TCX (default) attach: XDP native + 2 TCX links, pinned; detach restores all.
ps_pathscope_b attach vB || ps_fail "attach vB" "exit $?"
st=$(ps_pathscope_b status --json)
ps_check_eq "status: one attachment, xdp native, tc $tcx, ok" \
	"$(jq -r 'map(select(.ifname == "vB" and .current_netns)) | .[0] | "\(.xdp_mode) \(.tc_mode) \(.state)"' <<<"$st")" \
	"native $tcx $(state_ok)"
# The text: vB's row holds what JSON says, in columns as wide as their
# content; its features on the line below; no line wider than 120.
# (Host only: layout, the same on every kernel.)
if [ "${PS_VM:-}" != 1 ]; then
	txt=$(ps_pathscope_b status)
	ps_check_eq "status text: vB's row and its features line, as JSON has them" \
		"$(awk -v ns="$(stat -Lc %i "/var/run/netns/$NS_B")" '$1 == "vB" && $3 == ns { print $4, $5, $6; getline; print $1, $2 }' <<<"$txt" | tr '\n' ' ')" \
		"$(jq -r 'map(select(.ifname == "vB" and .current_netns)) | .[0] | "\(.xdp_mode) \(.tc_mode) \(.queues) features \(.features) "' <<<"$st")"
	ps_check_eq "status text: its header's columns start where the row's do" \
		"$(awk 'NR == 1 { h = index($0, "XDP") "," index($0, "QUEUES") } $1 == "vB" { print h == index($0, " native ") + 1 "," index($0, " all ") + 1; exit }' <<<"$txt")" "1"
	ps_check_eq "status text: no line wider than 120 columns" "$(awk 'length($0) > 120' <<<"$txt" | wc -l)" 0
fi
ps_check_eq "TCX links (bpftool link type tcx/11): 2 with TCX, else none" \
	"$(($(tcx_links) - tcx0))" "$([ "$tcx" = tcx ] && echo 2 || echo 0)"
ps_check_eq "pins: meta, 3 stats maps, 3 echo maps, d2s map, 5 tcp maps (of 1 entry: tcp is opt-in, test_memory), xdp prog, 2 links or programs" \
	"$(find "$PINS" -mindepth 2 -type f -printf '%f\n' | sort | tr '\n' ' ')" \
	"$(printf '%s\n' d2s_stats icmp_peers icmp_pending icmp_stats meta $links tce_stats tci_stats tcp_flows tcp_halfopen tcp_hist tcp_peers tcp_stats xdp_prog xdp_stats | sort | tr '\n' ' ')"
ps_check_eq "xdp program attached is pathscope's (alone, or in libxdp's dispatcher)" \
	"$(xl_b status vB | grep -c ' pathscope_xdp ')" 1
ps_expect_error "second attach refused: already attached" "already attached" ps_pathscope_b attach vB
ps_pathscope_b detach vB || ps_fail "detach vB" "exit $?"
ps_check_eq "tcx: attach + detach leaves nothing behind" "$(ps_census_is "$before")" "$before"
ps_check_eq "no pin directory of this namespace left, libxdp's lock dir as before ('$xdp_dir0')" \
	"$(ls -d "$PINS" 2>/dev/null)|$(ls -d /sys/fs/bpf/xdp 2>/dev/null)" "|$xdp_dir0"

# 1b. --xdp-mode skb: generic XDP; features says which tc mode attach picks.
ps_pathscope_b attach vB --xdp-mode skb || ps_fail "attach --xdp-mode skb" "exit $?"
ps_check_eq "--xdp-mode skb: attached as xdpgeneric" \
	"$(ip -n "$NS_B" -d link show vB | grep -o 'xdpgeneric' | head -1) $(ps_pathscope_b status --json | jq -r '.[] | select(.ifname == "vB" and .current_netns) | .xdp_mode')" \
	"xdpgeneric skb"
ps_check_eq "features: the tc mode it announces is the one attach used" \
	"$(ps_pathscope_b features --json | jq -r .uses.tc)" \
	"$(ps_pathscope_b status --json | jq -r '.[] | select(.ifname == "vB" and .current_netns) | .tc_mode')"
ps_pathscope_b detach vB || ps_fail "detach (skb)" "exit $?"
ps_check_eq "--xdp-mode skb: attach + detach leaves nothing behind" "$(ps_census_is "$before")" "$before"

# 2. clsact mode on a device without clsact: creates it, removes it again.
ps_pathscope_b attach vB --tc-mode clsact --no-xdp || ps_fail "attach clsact" "exit $?"
ps_check_eq "clsact: qdisc created" "$(tc -n "$NS_B" qdisc show dev vB | grep -c clsact)" 1
ps_check_eq "clsact: pathscope filter names" \
	"$( (tc -n "$NS_B" filter show dev vB ingress; tc -n "$NS_B" filter show dev vB egress) | grep -o 'name pathscope_tc_[a-z]*' | tr '\n' ' ')" \
	"name pathscope_tc_in name pathscope_tc_eg "
ps_pathscope_b detach vB || ps_fail "detach clsact" "exit $?"
ps_check_eq "clsact: attach + detach leaves nothing behind (qdisc removed)" "$(ps_census_is "$before")" "$before"

# 3. Someone else's clsact qdisc and tc filter stay, and keep seeing packets.
tc -n "$NS_B" qdisc add dev vB clsact
tc -n "$NS_B" filter add dev vB ingress prio 10 handle 1 bpf da obj "$STANDIN_TC" sec tc ||
	ps_fail "stand-in tc filter" "tc filter add failed"
theirs=$(tc -n "$NS_B" filter show dev vB ingress)
base=$(ps_census_stable)
ps_pathscope_b attach vB --tc-mode clsact || ps_fail "attach next to a foreign filter" "exit $?"
ps_in_a ping -c 3 -i 0.2 -q "$PS_IP4_B" >/dev/null || ps_fail "ping through both filters" "failed"
ps_check_eq "pathscope saw the 3 echo requests at tc ingress" \
	"$(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.tc_ingress.total.l4.icmp')" 3
ps_pathscope_b detach vB || ps_fail "detach next to a foreign filter" "exit $?"
ps_check_eq "foreign clsact qdisc and filter untouched" \
	"$(tc -n "$NS_B" qdisc show dev vB | grep -c clsact) $(tc -n "$NS_B" filter show dev vB ingress)" \
	"1 $theirs"
ps_check_eq "foreign clsact: state as before pathscope" "$(ps_census_is "$base")" "$base"
# A clsact that pathscope created but someone else put a filter on stays too.
tc -n "$NS_B" qdisc del dev vB clsact
ps_pathscope_b attach vB --tc-mode clsact --no-xdp || ps_fail "attach clsact (2)" "exit $?"
tc -n "$NS_B" filter add dev vB egress prio 10 handle 1 bpf da obj "$STANDIN_TC" sec tc
ps_pathscope_b detach vB || ps_fail "detach clsact (2)" "exit $?"
ps_check_eq "clsact created by pathscope but used by another filter is kept" \
	"$(tc -n "$NS_B" qdisc show dev vB | grep -c clsact) $(tc -n "$NS_B" filter show dev vB egress | grep -c standin_tc)" \
	"1 1"
tc -n "$NS_B" qdisc del dev vB clsact

# 4. Someone else's XDP program: attach refused, their program keeps running.
ip -n "$NS_B" link set vB xdp obj "$STANDIN_XDP" sec xdp || ps_fail "stand-in xdp" "attach failed"
theirs=$(ip -n "$NS_B" -d link show vB | grep -o 'prog/xdp id [0-9]*')
base=$(ps_census_stable)
ps_expect_error "attach refused next to another XDP program" "already has an XDP program" \
	ps_pathscope_b attach vB
ps_check_eq "refused attach: their XDP program still attached, nothing else changed" \
	"$(ip -n "$NS_B" -d link show vB | grep -o 'prog/xdp id [0-9]*') $(ps_census_is "$base")" "$theirs $base"
ps_pathscope_b attach vB --no-xdp || ps_fail "attach --no-xdp next to their XDP" "exit $?"
ps_pathscope_b detach vB
ps_check_eq "--no-xdp attach + detach: their XDP program still attached" \
	"$(ip -n "$NS_B" -d link show vB | grep -o 'prog/xdp id [0-9]*') $(ps_census_is "$base")" "$theirs $base"
ip -n "$NS_B" link set vB xdp off

# 4b. Someone removes pathscope's XDP program: status says so, and a new
# attach clears the leftover state instead of refusing.
ps_pathscope_b attach vB --no-tc || ps_fail "attach --no-tc" "exit $?"
ip -n "$NS_B" link set vB xdp off
ps_check_eq "status: xdp removed by someone else is reported" \
	"$(ps_pathscope_b status --json | jq -r '.[] | select(.ifname == "vB" and .current_netns) | .state')" \
	"xdp detached by someone else"
err=$(ps_pathscope_b attach vB 2>&1) || ps_fail "attach over leftover state" "exit $?: $err"
ps_check_eq "attach over leftover state says it cleaned up" \
	"$(grep -c 'leftover state' <<<"$err")" 1
ps_pathscope_b detach vB || ps_fail "detach after re-attach" "exit $?"
ps_check_eq "leftover + re-attach + detach: nothing behind" "$(ps_census_is "$before")" "$before"

# 5. Bad input: one line, non-zero exit, nothing attached.
# (Host only: user space refuses each of these before it loads anything, the
# same on every kernel; the guests of tests/vm/ skip them.)
if [ "${PS_VM:-}" != 1 ]; then
	ps_expect_error "unknown interface" "unknown interface 'nosuch0'" ps_pathscope_b attach nosuch0
	ps_expect_error "interface without Ethernet framing" "no Ethernet framing" ps_pathscope_b attach lo
	ps_expect_error "queue beyond the interface's queues" "queue 2 does not exist" \
		ps_pathscope_b attach vB --queues 0-2
	ps_expect_error "malformed queue list" "bad queue list" ps_pathscope_b attach vB --queues 1,,2
	ps_expect_error "unknown feature" "unknown feature 'bogus'" ps_pathscope_b attach vB --features ecn,bogus
	ps_expect_error "bad --xdp-mode" "bad --xdp-mode" ps_pathscope_b attach vB --xdp-mode hw
	ps_expect_error "missing privileges named" "missing privileges: need CAP_BPF .*CAP_NET_ADMIN" \
		nsenter --net="/var/run/netns/$NS_B" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all "$PATHSCOPE" attach vB
	# Root without CAP_PERFMON (and CAP_SYS_ADMIN, which would stand in): named
	# before anything is loaded, not left to the verifier's EACCES.
	ps_expect_error "missing CAP_PERFMON named" "missing privileges: need CAP_PERFMON \\(or CAP_SYS_ADMIN\\) \\(run as root" \
		nsenter --net="/var/run/netns/$NS_B" setpriv --bounding-set=-perfmon,-sys_admin \
		--inh-caps=-perfmon,-sys_admin "$PATHSCOPE" attach vB
	ps_expect_error "detach of an interface that is not attached" "not attached" ps_pathscope_b detach vB
	ps_expect_error "stats of an interface that is not attached" "not attached" ps_pathscope_b stats vB
	ps_expect_error "stats of lo: not attached, and attach not suggested (it cannot be)" \
		"^pathscope: 'lo' is not attached \\(nor can it be: it has no Ethernet framing\\)$" ps_pathscope_b stats lo
	ps_expect_error "check of an unknown interface: the one wording" \
		"^pathscope: unknown interface 'nosuch0' \\(in this network namespace\\)$" ps_pathscope_b check nosuch0
	ps_expect_error "bad --interval" "bad --interval" ps_pathscope_b stats vB --interval 0
	ps_expect_error "unknown command" "unknown command" "$PATHSCOPE" frobnicate
	ps_check_eq "bad input left nothing behind" "$(ps_census_is "$before")" "$before"
fi
ps_done
