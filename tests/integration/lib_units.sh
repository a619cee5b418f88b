# shellcheck shell=bash
# lib.sh's helpers for the systemd units and for heatmaps of a test's own workload.
# Sourced by lib.sh: read lib.sh first.

# ---- systemd units -------------------------------------------------------------

# The ExecStart of template UNIT for instance IFACE with instance file CONF, as
# words, one per line, as systemd makes them: Environment= defaults, then the
# file's values (quotes removed), %I the interface; a ${VAR} is one word, a
# $VAR split at blanks.
ps_unit_exec_line() {
	local unit=$1 conf=$2 iface=$3 word line key val
	local -A env=()
	for word in $(sed -n 's/^Environment=//p' "$unit"); do env[${word%%=*}]=${word#*=}; done
	while IFS= read -r line; do
		[[ $line =~ ^([A-Z_]+)=(.*)$ ]] || continue
		key=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		val=${val#\"} val=${val%\"}
		env[$key]=$val
	done <"$conf"
	for word in $(sed -n 's/^ExecStart=//p' "$unit"); do
		word=${word//%I/$iface}
		if [[ $word =~ ^\$([A-Z_]+)$ ]]; then
			# shellcheck disable=SC2086 # split at blanks, as systemd does
			[ -n "${env[${BASH_REMATCH[1]}]-}" ] && printf '%s\n' ${env[${BASH_REMATCH[1]}]}
		else
			while [[ $word =~ \$\{([A-Z_]+)\} ]]; do
				word=${word//"${BASH_REMATCH[0]}"/${env[${BASH_REMATCH[1]}]-}}
			done
			printf '%s\n' "$word"
		fi
	done
}

# The HTTP code of serve's /healthz on 127.0.0.1:PORT in namespace B (000: no
# answer).
ps_healthz_b() { ps_in_b curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz"; }
# Wait until serve (PID) answers /healthz 200 on PORT in B: 0, or 1 when it
# exits first or 10 s (times PS_SLOW) pass.
ps_wait_healthz_b() {
	local _
	for _ in $(seq $((100 * PS_SLOW))); do
		[ "$(ps_healthz_b "$1")" = 200 ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# pathscope@IFACE.service as the sidecar runs, in namespace B: the unit's own
# ExecStartPre (check-listen) and ExecStart (packaging/pathscope@.service, with
# this build's binary) with an instance file that sets LISTEN (port
# PS_UNIT_PORT) and OPTIONS. ps_unit_start IFACE OPTIONS waits for /healthz
# 200; ps_unit_stop NAME sends SIGTERM, as systemctl stop does, and checks
# exit 0, an empty stderr and nothing of pathscope left in B.
PS_UNIT_PORT=9481
ps_unit_start() {
	local iface=$1 opts=$2 cmd
	if [ -z "${PS_UNIT_DIR:-}" ]; then
		PS_UNIT_DIR=$(mktemp -d)
		ps_at_exit "rm -rf $PS_UNIT_DIR"
	fi
	printf 'LISTEN=127.0.0.1:%s\nOPTIONS="%s"\n' "$PS_UNIT_PORT" "$opts" >"$PS_UNIT_DIR/$iface.conf"
	PATHSCOPE_CONFDIR=$PS_UNIT_DIR PATHSCOPE_DEFAULTS=$PS_UNIT_DIR/none sh "$PS_ROOT/packaging/check-listen" "$iface" ||
		ps_fail "unit '$opts': ExecStartPre (check-listen)" "exit $?"
	mapfile -t cmd < <(ps_unit_exec_line "$PS_ROOT/packaging/pathscope@.service" "$PS_UNIT_DIR/$iface.conf" "$iface")
	cmd[0]=$PATHSCOPE
	echo "# pathscope@$iface: ${cmd[*]}"
	nsenter --net="/var/run/netns/$NS_B" "${cmd[@]}" >"$PS_UNIT_DIR/out" 2>"$PS_UNIT_DIR/err" &
	PS_UNIT_PID=$!
	ps_at_exit "kill $PS_UNIT_PID 2>/dev/null"
	if ps_wait_healthz_b "$PS_UNIT_PORT" "$PS_UNIT_PID"; then
		ps_ok "unit '$opts': /healthz 200"
	else
		ps_fail "unit '$opts': /healthz 200" "$(ps_healthz_b "$PS_UNIT_PORT") $(cat "$PS_UNIT_DIR/err")"
	fi
}
ps_unit_stop() {
	local rc
	kill -TERM "$PS_UNIT_PID"
	wait "$PS_UNIT_PID" && rc=0 || rc=$?
	ps_check_eq "unit $1: SIGTERM: exit 0, stderr empty, nothing of pathscope left" \
		"$rc $(cat "$PS_UNIT_DIR/err") $("$PATHSCOPE" status --json | jq --arg ns "$(stat -Lc %i "/var/run/netns/$NS_B")" '[.[] | select(.netns == ($ns | tonumber))] | length')" "0  0"
}

# ---- heatmaps of a test's own workload ------------------------------------------
#
#   ps_heat_mark FILE NS IFACE    append a `stats IFACE --json` report (in NS) to
#                                 FILE: before a workload, then after it
#   ps_heat_check NAME FILE STAGE IFACE [WANT]
#                                 `pathscope heatmap STAGE IFACE --from FILE`: its
#                                 cells must be the recording's histogram
#                                 differences as tests/tools/heatmap_cells.py
#                                 computes them, exactly, and add up to WANT
#                                 samples (without WANT: to some)
ps_heat_mark() { nsenter --net="/var/run/netns/$2" "$PATHSCOPE" stats "$3" --json >>"$1"; }
ps_heat_check() {
	local name=$1 rec=$2 stage=$3 ifname=$4 want=${5:-} svg got n err
	svg=$(mktemp --suffix=.svg)
	if ! err=$("$PATHSCOPE" heatmap "$stage" "$ifname" --from "$rec" -o "$svg" 2>&1); then
		ps_fail "$name: heatmap $stage of $ifname" "$err"
		rm -f "$svg"
		return
	fi
	got=$(/usr/bin/python3 "$PS_ROOT/tests/tools/heatmap_cells.py" svg "$svg")
	ps_check_eq "$name: heatmap $stage: its cells are the recording's histogram differences" \
		"$got" "$(/usr/bin/python3 "$PS_ROOT/tests/tools/heatmap_cells.py" recording "$rec" "$stage" "$ifname")"
	n=$(awk '{ n += $4 } END { print n + 0 }' <<<"$got")
	if [ -n "$want" ]; then
		ps_check_eq "$name: heatmap $stage: the workload's $want samples" "$n" "$want"
	else
		ps_check_eq "$name: heatmap $stage: the workload's samples" "$([ "$n" -gt 0 ] && echo some)" some
	fi
	rm -f "$svg"
}

# The links of the kernel feature's probes (programs pathscope_k*), pinned
# anywhere but in the attachment directory of a namespace other than NS_A's
# and NS_B's: tests beside this one have theirs there, and a link that is
# not pinned goes with its process.
ps_kprobe_links() {
	local mine
	mine="$(stat -Lc %i "/var/run/netns/$NS_A") $(stat -Lc %i "/var/run/netns/$NS_B")"
	(bpftool -j prog show; bpftool -j -f link show) | jq -s --arg mine "$mine" '
		[.[0][] | select(.name // "" | test("^pathscope_kt?_")) | .id] as $ids | ($mine | split(" ")) as $m
		| def theirs: test("^/sys/fs/bpf/pathscope/[0-9]+/")
			and (capture("^/sys/fs/bpf/pathscope/(?<ns>[0-9]+)/").ns as $n | $m | index($n) | not);
		[.[1][] | select(.prog_id as $p | $ids | index($p)) | select(any(.pinned // [] | .[]; theirs | not))] | length'
}
