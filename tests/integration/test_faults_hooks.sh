#!/usr/bin/env bash
# Faults at the hooks (issue 49, items 4, 5, 6, 11), each as a deployment
# meets it, on veth in namespaces; after each, programs, maps, links, pins,
# qdiscs and XDP are as before it (ps_census):
#   - `bpftool link detach` of the tc ingress TCX link (the pin stays, the
#     link is defunct): status and serve's /healthz say "tc ingress detached
#     by someone else" (503), and attach replaces what is left in one line;
#   - `tc qdisc del dev vB clsact` in clsact mode: "clsact filters gone",
#     attach replaces it;
#   - a tracepoint link's pin removed (a tracepoint link cannot be detached,
#     only freed with its pin): "tracepoint probe txlat_queue gone";
#   - the attachment's pin directory removed by hand: pathscope's XDP program
#     (and in clsact mode its filters) left on vB is listed by status as an
#     orphan, `detach vB` and `attach vB` remove it in one line; someone
#     else's XDP program is never touched;
#   - pathscope run under `ip netns exec` (a mount namespace of its own,
#     /sys remounted, no bpffs), or with a bpffs mounted in a private mount
#     namespace: attach refuses in one line, nothing made; a private mount
#     namespace that sees the host's bpffs is fine;
#   - the veth peer's MTU above what native XDP takes: one line naming the
#     cause, the limit (checked: the limit works, one more fails) and the
#     choices; --xdp-mode skb works.
. "$(dirname "$0")/lib.sh"
ps_require_root faults_hooks
ps_require_file faults_hooks "$PATHSCOPE"
ps_require_cmd faults_hooks bpftool jq tc curl
STANDIN_XDP=$PS_BIN/tests/standin_xdp.bpf.o
printf '6.6\n%s\n' "$(uname -r)" | sort -V -C ||
	{ ps_unsupported faults_hooks "no TCX links before Linux 6.6"; ps_done; }

ps_testbed_create 2 || { ps_fail faults_hooks "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
SERVE_PID=''
PORT=9471 URL=http://127.0.0.1:9471
ps_at_exit '[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; _ps_reap "$SERVE_PID"; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'
ps_at_exit 'ip -n "$NS_B" link set vB xdp off 2>/dev/null'
DIR=/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")/$(ip -n "$NS_B" -j link show vB | jq '.[0].ifindex')
# The state status gives vB (or its orphan).
state() { ps_pathscope_b status --json | jq -r '[.[] | select(.current_netns and .ifname == "vB") | .state] | join(",")'; }
# Wait (at most 5 s) until vB's state is WANT; print it.
state_is() {
	local deadline=$((SECONDS + 5)) now
	while :; do
		now=$(state)
		[ "$now" = "$1" ] || [ "$SECONDS" -ge "$deadline" ] && break
		sleep 0.1
	done
	echo "$now"
}
xdp_id() { ip -n "$NS_B" -d link show vB | grep -o 'prog/xdp id [0-9]*' | grep -o '[0-9]*$'; }
# Run CMD; print "EXIT|STDERR".
run() {
	local err rc
	err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
	echo "$rc|$err"
}

base=$(ps_census_stable)

# ---- 1. tc ingress TCX link detached by someone else ------------------------------------
ps_pathscope_b attach vB || ps_fail "attach (tcx)" "exit $?"
nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --keep --listen "127.0.0.1:$PORT" \
	>"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE_PID=$!
code() { ip netns exec "$NS_B" curl -gs --max-time 5 -o "$TMP/body" -w '%{http_code}' "$URL/healthz"; }
for _ in $(seq $((100 * PS_SLOW))); do
	[ "$(code)" = 200 ] && break
	sleep 0.1
done
ps_check_eq "tcx: serve's /healthz 200 while every hook is there" "$(code) $(cat "$TMP/body")" "200 ok"
bpftool link detach pinned "$DIR/tci_link" || ps_fail "bpftool link detach" "exit $?"
ps_check_eq "tcx: the detached link stays pinned" "$(ls "$DIR/tci_link" 2>/dev/null)" "$DIR/tci_link"
ps_check_eq "tcx: status says tc ingress detached by someone else" \
	"$(state_is "tc ingress detached by someone else")" "tc ingress detached by someone else"
ps_check_eq "tcx: /healthz 503 with the state" "$(code) $(cat "$TMP/body")" \
	"503 vB: tc ingress detached by someone else"
kill "$SERVE_PID"
_ps_reap "$SERVE_PID"
SERVE_PID=''
ps_check_eq "tcx: attach replaces it in one line" "$(run ps_pathscope_b attach vB)" \
	"0|pathscope: 'vB': replaced a half-removed attachment (tc ingress detached by someone else)"
ps_check_eq "tcx: replaced: ok" "$(state)" ok
ps_pathscope_b detach vB || ps_fail "detach (tcx)" "exit $?"
ps_check_eq "tcx: nothing left" "$(ps_census_is "$base")" "$base"

# The egress link too, by its own name.
ps_pathscope_b attach vB --features none || ps_fail "attach (tcx egress)" "exit $?"
bpftool link detach pinned "$DIR/tce_link" || ps_fail "bpftool link detach egress" "exit $?"
ps_check_eq "tcx egress: status says so" "$(state_is "tc egress detached by someone else")" \
	"tc egress detached by someone else"
ps_pathscope_b detach vB || ps_fail "detach (tcx egress)" "exit $?"
ps_check_eq "tcx egress: detach leaves nothing" "$(ps_census_is "$base")" "$base"

# ---- 2. clsact qdisc deleted in clsact mode ---------------------------------------------
ps_pathscope_b attach vB --tc-mode clsact || ps_fail "attach (clsact)" "exit $?"
ps_check_eq "clsact: ok" "$(state)" ok
tc -n "$NS_B" qdisc del dev vB clsact
ps_check_eq "clsact: status says the filters are gone" "$(state_is "clsact filters gone")" \
	"clsact filters gone"
ps_check_eq "clsact: attach replaces it in one line" "$(run ps_pathscope_b attach vB --tc-mode clsact)" \
	"0|pathscope: 'vB': replaced a half-removed attachment (clsact filters gone)"
ps_check_eq "clsact: replaced: ok, both filters back" \
	"$(state) $(tc -n "$NS_B" filter show dev vB ingress | grep -c pathscope_tc)$(tc -n "$NS_B" filter show dev vB egress | grep -c pathscope_tc)" \
	"ok 11"
# One filter deleted by hand: named by its direction.
tc -n "$NS_B" filter del dev vB egress
ps_check_eq "clsact: an egress filter deleted is named" "$(state_is "clsact egress filter gone")" \
	"clsact egress filter gone"
ps_pathscope_b detach vB || ps_fail "detach (clsact)" "exit $?"
ps_check_eq "clsact: nothing left" "$(ps_census_is "$base")" "$base"

# ---- 3. a tracepoint link's pin removed -------------------------------------------------
ps_pathscope_b attach vB --features default,txlat || ps_fail "attach (txlat)" "exit $?"
rm "$DIR/txlat_queue"
ps_check_eq "tracepoint: status says which probe is gone" \
	"$(state_is "tracepoint probe txlat_queue gone: its pin removed")" \
	"tracepoint probe txlat_queue gone: its pin removed"
ps_check_eq "tracepoint: attach replaces it in one line" \
	"$(run ps_pathscope_b attach vB --features default,txlat)" \
	"0|pathscope: 'vB': replaced a half-removed attachment (tracepoint probe txlat_queue gone: its pin removed)"
ps_check_eq "tracepoint: replaced: ok" "$(state)" ok
ps_pathscope_b detach vB || ps_fail "detach (txlat)" "exit $?"
ps_check_eq "tracepoint: nothing left" "$(ps_census_is "$base")" "$base"

# ---- 4. the pin directory removed by hand -----------------------------------------------
ps_pathscope_b attach vB || ps_fail "attach (pins)" "exit $?"
id=$(xdp_id)
rm -rf "$DIR"
ps_check_eq "pins removed: status lists pathscope's XDP program as an orphan" \
	"$(ps_pathscope_b status --json | jq -r '.[] | select(.current_netns and .ifname == "vB") | "\(.state) \(.xdp_prog_id)"')" \
	"orphan $id"
ps_check_eq "pins removed: status (text) says what removes it" \
	"$(ps_pathscope_b status | grep '^? vB')" \
	"? vB: orphan: pathscope's XDP program (id $id) left without its pins; 'pathscope detach vB' removes it"
ps_check_eq "pins removed: detach vB removes it in one line" "$(run ps_pathscope_b detach vB)" \
	"0|pathscope: 'vB': removed pathscope's XDP program (id $id) left without its pins"
ps_check_eq "pins removed: detach: no XDP, nothing left" "$(xdp_id)|$(ps_census_is "$base")" "|$base"
ps_pathscope_b attach vB || ps_fail "attach (pins 2)" "exit $?"
id=$(xdp_id)
rm -rf "$DIR"
ps_check_eq "pins removed: attach removes the orphan in one line and attaches" \
	"$(run ps_pathscope_b attach vB)" \
	"0|pathscope: 'vB': removed pathscope's XDP program (id $id) left without its pins"
ps_check_eq "pins removed: attached anew: ok" "$(state)" ok
ps_pathscope_b detach vB || ps_fail "detach (pins 2)" "exit $?"
ps_check_eq "pins removed: nothing left" "$(ps_census_is "$base")" "$base"
# In clsact mode the filters stay too (they hold their programs): orphans as well.
ps_pathscope_b attach vB --tc-mode clsact || ps_fail "attach (pins, clsact)" "exit $?"
id=$(xdp_id)
ti=$(tc -n "$NS_B" filter show dev vB ingress | grep -o 'id [0-9]* name pathscope_tc_in' | grep -o '[0-9]*')
te=$(tc -n "$NS_B" filter show dev vB egress | grep -o 'id [0-9]* name pathscope_tc_eg' | grep -o '[0-9]*')
rm -rf "$DIR"
ps_check_eq "pins removed (clsact): status lists the XDP program and both filters" \
	"$(ps_pathscope_b status | grep '^? vB')" \
	"? vB: orphan: pathscope's XDP program (id $id) and clsact filters (ids $ti, $te) left without their pins; 'pathscope detach vB' removes it"
ps_check_eq "pins removed (clsact): status --json: their ids" \
	"$(ps_pathscope_b status --json | jq -c '.[] | select(.current_netns and .ifname == "vB") | [.state, .xdp_prog_id, .tc_prog_ids]')" \
	"[\"orphan\",$id,[$ti,$te]]"
ps_check_eq "pins removed (clsact): detach vB removes them in one line" "$(run ps_pathscope_b detach vB)" \
	"0|pathscope: 'vB': removed pathscope's XDP program (id $id) and clsact filters (ids $ti, $te) left without their pins"
ps_check_eq "pins removed (clsact): no XDP, no filter; the clsact qdisc stays (whose it is, is not known)" \
	"$(xdp_id)|$(tc -n "$NS_B" filter show dev vB ingress)$(tc -n "$NS_B" filter show dev vB egress)|$(tc -n "$NS_B" qdisc show dev vB | grep -c clsact)" "||1"
tc -n "$NS_B" qdisc del dev vB clsact
ps_check_eq "pins removed (clsact): nothing left" "$(ps_census_is "$base")" "$base"
# Someone else's XDP program is no orphan of pathscope's.
ip -n "$NS_B" link set vB xdp obj "$STANDIN_XDP" sec xdp || ps_fail "stand-in xdp" "attach failed"
theirs=$(xdp_id)
ps_check_eq "someone else's XDP program: not listed" "$(state)" ""
ps_check_eq "someone else's XDP program: detach vB leaves it" "$(run ps_pathscope_b detach vB) $(xdp_id)" \
	"1|pathscope: 'vB' is not attached $theirs"
ip -n "$NS_B" link set vB xdp off

# ---- 5. no host bpffs in this mount namespace (ip netns exec) ---------------------------
b5=$(ps_census_stable)
out=$(run ip netns exec "$NS_B" "$PATHSCOPE" attach vB)
ps_check_eq "ip netns exec: attach refuses in one line" \
	"$(cut -d'|' -f1 <<<"$out") $(grep -c . <<<"$out")" "1 1"
ps_check_eq "ip netns exec: it says why and what to do" \
	"$(grep -cE "/sys/fs/bpf is not a bpf filesystem.*(not the host's|cannot be told).*mount bpffs on /sys/fs/bpf in the host's mount namespace.*nsenter --net" <<<"$out")" 1
ps_check_eq "ip netns exec: nothing attached, nothing mounted" \
	"$(ps_census_is "$b5") $(ip netns exec "$NS_B" stat -f -c %T /sys/fs/bpf)" "$b5 sysfs"

# A bpffs of a private mount namespace (mounted there over the host's): refused.
out=$(run nsenter --net="/var/run/netns/$NS_B" unshare -m --propagation private \
	sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0" attach vB' "$PATHSCOPE")
ps_check_eq "private bpffs: attach refuses in one line, says which" \
	"$(cut -d'|' -f1 <<<"$out") $(grep -c . <<<"$out") $(grep -cE "/sys/fs/bpf here is a bpf filesystem of this mount namespace \([0-9]+\), not the host's \([0-9]+\): pins there vanish with it" <<<"$out")" "1 1 1"
ps_check_eq "private bpffs: nothing attached" "$(ps_census_is "$b5")" "$b5"
# A private mount namespace that sees the host's bpffs: its pins last; taken.
out=$(run nsenter --net="/var/run/netns/$NS_B" unshare -m --propagation private "$PATHSCOPE" attach vB --features none)
ps_check_eq "private mount namespace on the host's bpffs: attach works" \
	"$out $(state)" "0| ok"
ps_pathscope_b detach vB

# ---- 6. the veth peer's MTU too large for native XDP ------------------------------------
ip -n "$NS_A" link set vA mtu 9000
out=$(run ps_pathscope_b attach vB)
max=$(grep -oE 'at most [0-9]+' <<<"$out" | grep -oE '[0-9]+$')
ps_check_eq "mtu: one line: the cause, the limit, the choices" "$out" \
	"1|pathscope: cannot attach XDP to 'vB': its veth peer's MTU (9000) is too large for native XDP (at most ${max:-?} on this kernel); attach with --xdp-mode skb, or lower the peer's MTU"
ps_check_eq "mtu: nothing left" "$(ps_census_is "$base")" "$base"
ps_pathscope_b attach vB --xdp-mode skb --features none || ps_fail "mtu: --xdp-mode skb" "exit $?"
ps_pathscope_b detach vB
if [ -n "$max" ]; then
	ip -n "$NS_A" link set vA mtu "$((max + 1))"
	ps_check_eq "mtu: the limit named is the kernel's: one more is refused" \
		"$(run ps_pathscope_b attach vB --features none | cut -c1-2)" "1|"
	ip -n "$NS_A" link set vA mtu "$max"
	ps_check_eq "mtu: the limit named is the kernel's: it is taken" \
		"$(run ps_pathscope_b attach vB --features none)" "0|"
	ps_check_eq "mtu: while attached, the peer cannot go above it" \
		"$(ip -n "$NS_A" link set vA mtu "$((max + 1))" 2>/dev/null && echo raised || echo refused)" refused
	ps_pathscope_b detach vB
fi
ip -n "$NS_A" link set vA mtu 1500
ps_check_eq "mtu: nothing left" "$(ps_census_is "$base")" "$base"

ps_done
