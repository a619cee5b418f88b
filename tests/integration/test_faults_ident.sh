#!/usr/bin/env bash
# Faults of identity (issue 49, items 1-3): pathscope owns an attachment by
# what it made (its pin directory, per namespace and interface index, and
# its XDP program's id), not by the interface's name.
#   1. vB moved to another namespace while attached (ip link set vB netns
#      M): status says "moved to namespace M (ifindex N)"; `detach --gone`
#      removes the XDP program there and the TCX links (and, in clsact
#      mode, what the move left); an attach in M then works; `detach vB`
#      run in M removes it too.
#   2. Under serve, vB renamed to vR: /healthz stays 200 ("ok (vB renamed to
#      vR)"), pathscope_up and the packet series stay (under the name serve
#      was given); SIGTERM exits 0, says so in one line and leaves nothing.
#      An interface deleted, or moved to another namespace, under serve:
#      SIGTERM exits 0 with one line, nothing left.
#   3. Under serve, someone removes its XDP program (ip link set dev vB xdp
#      off) and a user attaches again (pathscope attach vB): SIGTERM exits 0,
#      says in one line that it leaves that attachment, which stays ok.
# After each case the census (programs, maps, links, pins, vB's qdiscs and
# XDP) is back at the start.
. "$(dirname "$0")/lib.sh"
ps_require_root faults_ident
ps_require_file faults_ident "$PATHSCOPE"
ps_require_cmd faults_ident bpftool jq tc curl

ps_testbed_create 2 || { ps_fail faults_ident "testbed setup failed"; ps_done; }
NS_M=psM-$$
_ps_namespaces "$NS_M" || { ps_fail faults_ident "namespace $NS_M not created"; ps_done; }
TMP=$(mktemp -d)
PORT=9466
SERVE_PID=''
# vB back home whatever happened (the census counts it in B), then detach it.
ps_at_exit '[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; _ps_reap "$SERVE_PID" 2>/dev/null;
	ip -n "$NS_M" link set vB netns "$NS_B" 2>/dev/null; ip -n "$NS_B" link set vR name vB 2>/dev/null;
	nsenter --net="/var/run/netns/$NS_M" "$PATHSCOPE" detach vB >/dev/null 2>&1;
	ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'

ino_b=$(stat -Lc %i "/var/run/netns/$NS_B") ino_m=$(stat -Lc %i "/var/run/netns/$NS_M")
ifindex_b=$(ip -n "$NS_B" -j link show vB | jq '.[0].ifindex')
DIR_B=/sys/fs/bpf/pathscope/$ino_b/$ifindex_b
pathscope_m() { nsenter --net="/var/run/netns/$NS_M" "$PATHSCOPE" "$@"; }
state_of() { "$PATHSCOPE" status --json | jq -r --arg d "$1" '.[] | select(.pin_dir == $d) | .state'; }
xdp_in() { ip -n "$1" -d link show "$2" 2>/dev/null | grep -c 'prog/xdp'; }
# vB from namespace $1 back to B, up; without an XDP program (one left is
# checked before: the next case must not fail for it).
home() {
	ip -n "$1" link set vB netns "$NS_B" && ip -n "$NS_B" link set vB up
	ip -n "$NS_B" link set vB xdp off
}
code() { ps_in_b curl -gs --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$1"; }
get() { ps_in_b curl -gs --max-time 5 "http://127.0.0.1:$PORT$1"; }
serve_start() {
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve "$@" --listen "127.0.0.1:$PORT" \
		>"$TMP/serve.out" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	ps_wait_healthz_b "$PORT" "$SERVE_PID" ||
		ps_fail "serve $*" "not answering: $(cat "$TMP/serve.err")"
}
# SIGTERM serve, wait (at most 10 s): its exit status in SERVE_RC.
serve_stop() {
	SERVE_RC=timeout
	kill -TERM "$SERVE_PID"
	for _ in $(seq $((100 * PS_SLOW))); do
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! kill -0 "$SERVE_PID" 2>/dev/null; then
		SERVE_RC=0
		wait "$SERVE_PID" || SERVE_RC=$?
	fi
	SERVE_PID=
}
# "prog ID", "map ID" and "link ID" of every BPF object pinned in DIR (links'
# programs too): what an attachment made, to find none of it left after.
ids_of() {
	local f
	for f in "$1"/*; do
		bpftool -j link show pinned "$f" 2>/dev/null | jq -r 'select(.id) | "link \(.id)", "prog \(.prog_id)"' |
			while read -r kind id; do
				echo "$kind $id"
				[ "$kind" = prog ] && bpftool -j prog show id "$id" | jq -r '"map \(.map_ids[]?)"'
			done
		bpftool -j prog show pinned "$f" 2>/dev/null | jq -r 'select(.id) | "prog \(.id)", "map \(.map_ids[]?)"'
		bpftool -j map show pinned "$f" 2>/dev/null | jq -r 'select(.id) | "map \(.id)"'
	done | sort -u
}
# What serve says it removed of an attachment of IDS pinned in DIR.
removed() {
	local n k out='' w
	for k in prog map link pin; do
		if [ "$k" = pin ]; then n=$(ls "$2" | wc -l); else n=$(grep -c "^$k " <<<"$1"); fi
		w="$n ${k}s"
		[ "$n" = 1 ] && w="$n $k"
		out="$out${out:+, }$w"
	done
	echo "removed what serve attached (${out/progs/programs})" | sed 's/1 prog,/1 program,/'
}
# Of IDS, those the kernel still has (freed asynchronously: wait up to 5 s).
alive() {
	local kind id left _
	for _ in $(seq 50); do
		left=$(while read -r kind id; do
			[ -n "$id" ] && bpftool "$kind" show id "$id" >/dev/null 2>&1 && echo "$kind $id"
		done <<<"$1")
		[ -z "$left" ] && break
		sleep 0.1
	done
	printf '%s' "$left" | tr '\n' ' '
}
# NAME: none of IDS left (the attachment's own objects: robust to other
# tests' beside this one), and the census as at the start (run alone).
# Then, so that the next case does not fail for this one's leftovers (on
# code that leaves some), vB detached and without XDP, and no leftover.
nothing_left() {
	ps_check_eq "$1: none of its programs, maps and links left" "$(alive "$2")" ""
	ps_check_eq "$1: no pin directory of $NS_B or $NS_M left" \
		"$(ls -d "/sys/fs/bpf/pathscope/$ino_b" "/sys/fs/bpf/pathscope/$ino_m" 2>/dev/null)" ""
	ps_check_eq "$1: the census as at the start" "$(ps_census_is "$base")" "$base"
	ps_pathscope_b detach vB >/dev/null 2>&1
	ip -n "$NS_B" link set vB xdp off 2>/dev/null
	[ -z "$(alive "$2")" ] || "$PATHSCOPE" detach --gone >/dev/null 2>&1
}
# serve's lines after "serving ...", and its stderr.
serve_said() { grep -v '^serving ' "$TMP/serve.out"; cat "$TMP/serve.err"; }

base=$(ps_census_stable)

# ---- 1. moved to another namespace while attached ----------------------------------
for mode in tcx clsact; do
	fb=''
	[ "$mode" = clsact ] && fb=tcx
	PATHSCOPE_FORCE_FALLBACK=$fb ps_pathscope_b attach vB || ps_fail "move ($mode): attach" "exit $?"
	ids=$(ids_of "$DIR_B")
	ip -n "$NS_B" link set vB netns "$NS_M"
	idx_m=$(ip -n "$NS_M" -j link show vB | jq '.[0].ifindex')
	ps_check_eq "move ($mode): status names where it went" "$(state_of "$DIR_B")" \
		"moved to namespace $NS_M (ifindex $idx_m); 'pathscope detach --gone' removes it"
	"$PATHSCOPE" detach --gone || ps_fail "move ($mode): detach --gone" "exit $?"
	ps_check_eq "move ($mode): detach --gone removed the XDP program in $NS_M, and the pins" \
		"xdp=$(xdp_in "$NS_M" vB) pins=$(ls "$DIR_B" 2>/dev/null | wc -l)" "xdp=0 pins=0"
	pathscope_m attach vB >/dev/null 2>"$TMP/err"
	ps_check_eq "move ($mode): an attach in $NS_M is not refused" "$? $(cat "$TMP/err")" "0 "
	pathscope_m detach vB || ps_fail "move ($mode): detach in $NS_M" "exit $?"
	home "$NS_M"
	nothing_left "move ($mode)" "$ids"
done

# detach by name in the namespace it moved to
ps_pathscope_b attach vB || ps_fail "move, detach vB: attach" "exit $?"
ids=$(ids_of "$DIR_B")
ip -n "$NS_B" link set vB netns "$NS_M"
pathscope_m detach vB 2>"$TMP/err"
ps_check_eq "move: 'detach vB' in $NS_M finds it and removes it" \
	"$? $(cat "$TMP/err") xdp=$(xdp_in "$NS_M" vB) pins=$(ls "$DIR_B" 2>/dev/null | wc -l)" "0  xdp=0 pins=0"
home "$NS_M"
nothing_left "move, detach vB" "$ids"

# ---- 2. renamed, deleted, moved under serve ----------------------------------------
serve_start vB
ids=$(ids_of "$DIR_B") said=$(removed "$ids" "$DIR_B")
series() { grep -c '^pathscope_packets_total{iface="vB",' <<<"$1"; }
series0=$(series "$(get /metrics)")
ip -n "$NS_B" link set vB down && ip -n "$NS_B" link set vB name vR && ip -n "$NS_B" link set vR up
ps_check_eq "renamed under serve: /healthz 200, says so" "$(code /healthz) $(get /healthz)" \
	"200 ok (vB renamed to vR)"
m=$(get /metrics)
ps_check_eq "renamed under serve: pathscope_up 1 under the name serve was given" \
	"$(grep -c '^pathscope_up{iface="vB"} 1$' <<<"$m")" 1
ps_check_eq "renamed under serve: the packet series stay (under the name serve was given)" \
	"$(series "$m")" "$series0"
ps_check_eq "renamed under serve: they are some" "$([ "$series0" -gt 0 ] && echo some)" some
serve_stop
ps_check_eq "renamed under serve: SIGTERM exits 0 with one line" "$SERVE_RC|$(serve_said)" \
	"0|vB was renamed to vR: $said"
ip -n "$NS_B" link set vR down && ip -n "$NS_B" link set vR name vB && ip -n "$NS_B" link set vB up
nothing_left "renamed under serve" "$ids"

# Deleted: an interface of its own (vB is the testbed's).
ip -n "$NS_B" link add vD type veth peer name vE && ip -n "$NS_B" link set vD up &&
	ip -n "$NS_B" link set vE up || ps_fail "deleted: veth vD" "not created"
serve_start vD
dir_d=/sys/fs/bpf/pathscope/$ino_b/$(ip -n "$NS_B" -j link show vD | jq '.[0].ifindex')
ids=$(ids_of "$dir_d") said=$(removed "$ids" "$dir_d")
ip -n "$NS_B" link del vD
serve_stop
ps_check_eq "deleted under serve: SIGTERM exits 0 with one line" "$SERVE_RC|$(serve_said)" \
	"0|vD is gone: $said"
nothing_left "deleted under serve" "$ids"

# Moved.
serve_start vB
ids=$(ids_of "$DIR_B") said=$(removed "$ids" "$DIR_B")
ip -n "$NS_B" link set vB netns "$NS_M"
ps_check_eq "moved under serve: /healthz 503" "$(code /healthz)" 503
serve_stop
ps_check_eq "moved under serve: SIGTERM exits 0 with one line" "$SERVE_RC|$(serve_said)" \
	"0|vB moved to namespace $NS_M: $said"
ps_check_eq "moved under serve: no XDP program left on vB in $NS_M" "$(xdp_in "$NS_M" vB)" 0
home "$NS_M"
nothing_left "moved under serve" "$ids"

# ---- 3. serve removes only what it owns ----------------------------------------------
serve_start vB
ids=$(ids_of "$DIR_B")
ps_in_b ip link set dev vB xdp off
ps_pathscope_b attach vB 2>"$TMP/err" || ps_fail "re-attach under serve" "exit $?: $(cat "$TMP/err")"
serve_stop
ps_check_eq "re-attached under serve: SIGTERM exits 0, leaves it, says so in one line" \
	"$SERVE_RC|$(serve_said | sed 's/(pid [0-9]*)/(pid P)/')" \
	"0|vB: attached again since serve attached it (pid P): left as it is"
ps_check_eq "re-attached under serve: the user's attachment stays, ok" "$(state_of "$DIR_B")" ok
ids="$ids
$(ids_of "$DIR_B")"
ps_pathscope_b detach vB || ps_fail "re-attached under serve: detach" "exit $?"
nothing_left "re-attached under serve" "$ids"

ps_done
