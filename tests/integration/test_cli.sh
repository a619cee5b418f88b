#!/usr/bin/env bash
# Every option of attach, and of serve, which takes the same ones (one table,
# cli/attach_options.c), through the binary: each class of bad value exits 2
# with one line and touches nothing (no pin, link, program, map or namespace
# after it); each good value is accepted and has the effect --help states.
# Also help CMD, version and help's own arguments, and what serve leaves at
# exit: it detaches what it attached or took over from a serve that died, and
# keeps what it adopted from 'pathscope attach'.
# Numbers: 41 classes of bad value for attach and serve, 23 of the other
# commands' options and operands; --peer-prefix 24,48, 16,32 and 32,128 by
# 3+3 handshakes from A counted under A's subnets; the global -j and -p give
# what each command's --json gives (-p indented), and a command without JSON
# refuses them with exit 2.
. "$(dirname "$0")/lib.sh"
ps_require_root cli
ps_require_file cli "$PATHSCOPE"
ps_require_cmd cli jq bpftool python3 tc curl

ps_testbed_create 4 || { ps_fail cli "testbed setup failed"; ps_done; }
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'
THINK="$PS_ROOT/tests/tools/tcpthink.py"

# CMD... exits 2 with exactly one line on stderr matching RE.
usage_error() {
	local name=$1 re=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -qE -- "$re" <<<"$err"; then
		ps_ok "$name: exit 2, one line"
	else
		ps_fail "$name: exit 2, one line matching '$re'" "exit $rc, stderr '$err'"
	fi
}
netns_count() { ip netns list | wc -l; }
# pathscope in B, bounded: a serve that wrongly accepted would run on.
pb() { timeout 10 nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" "$@"; }

# ---- 1. help and version ------------------------------------------------------
for cmd in attach detach status stats check nic serve features flows; do
	want=$("$PATHSCOPE" "$cmd" --help)
	got=$("$PATHSCOPE" help "$cmd") && rc=0 || rc=$?
	ps_check_eq "help $cmd: exit 0, the command's own --help" \
		"$rc $(md5sum <<<"$got")" "0 $(md5sum <<<"$want")"
done
got=$("$PATHSCOPE" help) && rc=0 || rc=$?
ps_check_eq "help: exit 0, the global usage" "$rc $(head -n 1 <<<"$got")" "0 usage: pathscope COMMAND [ARGS]"
usage_error "help foo" "help: unknown command 'foo'" "$PATHSCOPE" help foo
usage_error "help attach serve" "help: expected at most one command name" "$PATHSCOPE" help attach serve
usage_error "version extra" "version: unexpected argument 'extra'" "$PATHSCOPE" version extra
usage_error "version --foo" "version: unexpected argument '--foo'" "$PATHSCOPE" version --foo
usage_error "frobnicate" "unknown command 'frobnicate'" "$PATHSCOPE" frobnicate
err=$("$PATHSCOPE" 2>&1 >/dev/null) && rc=0 || rc=$?
ps_check_eq "no command: exit 2, the usage on stderr" "$rc $(head -n 1 <<<"$err")" "2 usage: pathscope COMMAND [ARGS]"
ps_check_eq "version: exit 0, one line" "$("$PATHSCOPE" version | wc -l)" 1
for v in --version -V; do
	ps_check_eq "$v: exit 0, the line of version" "$("$PATHSCOPE" $v && echo ok)" "$("$PATHSCOPE" version)
ok"
done

# ---- 2. bad values: exit 2, one line, nothing touched ----------------------------
# Each case: a name, the line's pattern, the options. Both commands run each;
# the interface is vB, which exists, so that only the value can be refused.
BAD=(
	"--queues letters|bad queue list 'abc'|--queues abc"
	"--queues open range|bad queue list '1-'|--queues 1-"
	"--queues past the limit|bad queue list|--queues 0-5000"
	"--queues empty|empty queue list|--queues="
	"--features empty|bad feature list '': an empty name|--features="
	"--features ,|bad feature list ',': an empty name|--features ,"
	"--features trailing comma|bad feature list 'ecn,'|--features ecn,"
	"--features all,none|none stands alone|--features all,none"
	"--features unknown|unknown feature 'bogus'|--features ecn,bogus"
	"--xdp-mode|bad --xdp-mode 'hw'|--xdp-mode hw"
	"--tc-mode|bad --tc-mode 'ingress'|--tc-mode ingress"
	"--tc-prio 0|bad --tc-prio '0'|--tc-prio 0"
	"--tc-prio 65536|bad --tc-prio '65536'|--tc-prio 65536"
	"--tc-prio letters|bad --tc-prio 'x'|--tc-prio x"
	"--probe-mode|bad --probe-mode 'kprobe'|--probe-mode kprobe"
	"--sample 0|bad --sample '0'|--sample 0"
	"--sample 1048577|bad --sample '1048577'|--sample 1048577"
	"--sample negative|bad --sample '-1'|--sample=-1"
	"--softirq-sample 0|bad --softirq-sample '0'|--softirq-sample 0 --features firsthop"
	"--softirq-sample 65537|bad --softirq-sample '65537'|--softirq-sample 65537 --features firsthop"
	"--softirq-sample garbage|bad --softirq-sample '8x'|--softirq-sample 8x --features firsthop"
	"--softirq-sample without firsthop|--softirq-sample needs feature firsthop|--softirq-sample 4"
	"--peer-prefix 33,48|bad --peer-prefix '33,48'|--peer-prefix 33,48"
	"--peer-prefix 24,129|bad --peer-prefix '24,129'|--peer-prefix 24,129"
	"--peer-prefix 24|bad --peer-prefix '24'|--peer-prefix 24"
	"--peer-prefix garbage|bad --peer-prefix 'garbage'|--peer-prefix garbage"
	"--peer-prefix ,48|bad --peer-prefix ',48'|--peer-prefix ,48"
	"--tcp-rx|bad --tcp-rx 'sometimes'|--tcp-rx sometimes"
	"--xdp-join without a slot|bad --xdp-join 'foo'|--xdp-join foo"
	"--xdp-join without a path|bad --xdp-join ':0'|--xdp-join :0"
	"--xdp-join bad slot|bad --xdp-join '/sys/fs/bpf/x:y'|--xdp-join /sys/fs/bpf/x:y"
	"--no-xdp --no-tc|--no-xdp and --no-tc leave nothing|--no-xdp --no-tc"
	"--no-tc with tcp|feature tcp samples at tc egress|--no-tc --features default,tcp"
	"--no-tc with sock|feature sock samples at tc ingress|--no-tc --features default,sock"
	"--tcp-rx xdp without tcp|--tcp-rx xdp needs feature tcp|--tcp-rx xdp"
	"--tcp-rx xdp --no-xdp|--tcp-rx xdp needs feature tcp|--tcp-rx xdp --no-xdp --features default,tcp"
	"--xdp-chain --no-xdp|no --no-xdp or --xdp-mode with them|--xdp-chain --no-xdp"
	"--xdp-chain --xdp-mode|no --no-xdp or --xdp-mode with them|--xdp-chain --xdp-mode skb"
	"--xdp-chain --xdp-join|--xdp-chain or --xdp-join, not both|--xdp-chain --xdp-join /sys/fs/bpf/x:0"
	"unknown option|unknown option '--frob'|--frob"
	"missing value|--queues needs a value|--queues"
)
census0=$(ps_census_stable) ns0=$(netns_count)
for cmd in attach serve; do
	for c in "${BAD[@]}"; do
		IFS='|' read -r name re opts <<<"$c"
		# shellcheck disable=SC2086 # the options are words
		usage_error "$cmd $name" "$re" pb "$cmd" vB $opts
	done
done
# The other commands' options and operands.
OTHER=(
	"detach: nothing|detach: expected one interface name, --all or --gone|detach"
	"detach: --all and --gone|detach: expected one interface name, --all or --gone|detach --all --gone"
	"detach: an interface and --all|detach: expected one interface name, --all or --gone|detach vB --all"
	"detach: two interfaces|detach: expected one interface name, --all or --gone|detach vB vA"
	"status: an operand|status: unexpected argument 'x'|status --json x"
	"features: an operand|features: unexpected argument 'x'|features x"
	"stats --interval 0|bad --interval '0'|stats vB --interval 0"
	"stats --interval letters|bad --interval 'x'|stats vB --interval x"
	"stats --count 0|bad --count '0'|stats vB --count 0"
	"stats --count letters|bad --count 'x'|stats vB --count x"
	"check: no interface|check: expected one interface name|check"
	"check --duration 0|bad --duration '0'|check vB --duration 0"
	"check --duration 3601|bad --duration '3601'|check vB --duration 3601"
	"check --probe-mode|bad --probe-mode 'x'|check vB --probe-mode x"
	"nic: two interfaces|nic: expected one interface name|nic vB vA"
	"serve --listen name|bad --listen 'localhost:9464'|serve vB --listen localhost:9464"
	"serve --listen port 0|bad --listen '127.0.0.1:0'|serve vB --listen 127.0.0.1:0"
	"serve --interval 0|bad --interval '0'|serve vB --interval 0"
	"flows --interval 0|bad --interval '0'|flows vB --interval 0"
	"flows --count letters|bad --count 'x'|flows vB --count x"
	"heatmap --duration 0|bad --duration '0'|heatmap vB --duration 0"
	"heatmap --interval letters|bad --interval 'x'|heatmap vB --interval x"
	"serve --detail|bad --detail 'queues'|serve vB --detail queues"
	"serve --queue-detail empty|bad feature list ''|serve vB --queue-detail="
	"serve --queue-detail unknown|unknown feature 'bogus'|serve vB --queue-detail bogus"
	"serve: an interface twice|serve: interface 'vB' given twice|serve vB vB"
	"every command: unknown option|stats: unknown option '--frob'|stats --frob"
	"global -j: a command without JSON|-j/--json and -p/--pretty: 'attach' has no JSON output \\(they apply to status, stats, check, nic, features, flows\\)|-j attach vB"
	"global -p: a command without JSON|-j/--json and -p/--pretty: 'detach' has no JSON output|-p detach vB"
	"global -j: help|-j/--json and -p/--pretty: 'help' has no JSON output|-j help"
	"global -j: -V|-j/--json and -p/--pretty: '-V' has no JSON output|-j -V"
	"global -p: --version|-j/--json and -p/--pretty: '--version' has no JSON output|-p --version"
)
for c in "${OTHER[@]}"; do
	IFS='|' read -r name re opts <<<"$c"
	# shellcheck disable=SC2086 # the options are words
	usage_error "$name" "$re" pb $opts
done
usage_error "attach: the bad queue list is named before the unknown interface" \
	"bad queue list 'abc'" pb attach nosuch0 --queues abc
usage_error "attach: the bad --xdp-join before the unknown interface" \
	"bad --xdp-join 'foo'" pb attach nosuch0 --xdp-join foo
usage_error "attach: no interface" "attach: expected one interface name" pb attach
usage_error "attach: two interfaces" "attach: expected one interface name" pb attach vB lo
usage_error "serve: no interface" "serve: expected at least one interface" pb serve
ps_check_eq "after $((2 * ${#BAD[@]} + ${#OTHER[@]} + 5)) refused commands: no pin, link, program, map, qdisc or XDP of pathscope" \
	"$(ps_census_is "$census0")" "$census0"
ps_check_eq "after the refused commands: no network namespace more" "$(netns_count)" "$ns0"

# ---- 3. good values: accepted, with their effect -----------------------------------
sb() { ps_pathscope_b status --json | jq -c --arg ns "$(stat -Lc %i "/var/run/netns/$NS_B")" ".[] | select(.netns == (\$ns | tonumber)) | $1"; }
jb() { ps_pathscope_b stats vB --json | jq -c ".interfaces[0] | $1"; }
attached() { ps_pathscope_b status --json | jq -r --arg ns "$(stat -Lc %i "/var/run/netns/$NS_B")" '[.[] | select(.netns == ($ns | tonumber))] | length'; }
# attach vB with the options, run the check, detach.
good() {
	local name=$1 opts=$2 query=$3 want=$4 where=${5:-sb}
	# shellcheck disable=SC2086 # the options are words
	if ps_pathscope_b attach vB $opts; then
		ps_check_eq "attach $opts: $name" "$($where "$query")" "$want"
	else
		ps_fail "attach $opts: accepted" "exit $?"
	fi
	ps_pathscope_b detach vB >/dev/null || ps_fail "detach after $opts" "exit $?"
}
good "the queues selected" "--queues 1,3" '.queues' '"1,3"'
good "all queues" "--queues all" '.queues' '"all"'
good "the features" "--features ecn,sizes" '.features' '"ecn,sizes"'
good "counters only" "--features none" '.features' '"none"'
good "default is all but tcp, sock, txlat, kernel" "--features default" '.features' '"class,ecn,sizes,gro,icmp,d2s"'
good "generic XDP" "--xdp-mode skb" '.xdp_mode' '"skb"'
good "native XDP (veth has it)" "--xdp-mode native" '.xdp_mode' '"native"'
# TCX links from Linux 6.6, clsact before (uname, not pathscope's own probe).
TC_AUTO=tcx
printf '6.6\n%s\n' "$(uname -r)" | sort -V -C || TC_AUTO=clsact
good "no XDP program" "--no-xdp" '[.xdp_mode, .tc_mode]' "[\"none\",\"$TC_AUTO\"]"
good "no tc programs" "--no-tc" '[.xdp_mode, .tc_mode]' '["native","none"]'
good "clsact" "--tc-mode clsact" '.tc_mode' '"clsact"'
ps_pathscope_b attach vB --tc-mode clsact --tc-prio 7 || ps_fail "attach --tc-prio 7" "exit $?"
ps_check_eq "attach --tc-mode clsact --tc-prio 7: the filters' priority" \
	"$(for d in ingress egress; do tc -n "$NS_B" -j filter show dev vB "$d"; done | jq -s -c '[.[][] | .pref] | unique')" "[7]"
ps_pathscope_b detach vB >/dev/null
good "txlat times 1 in 8" "--features txlat --sample 8" '.totals.tx_latency.sample_every' 8 jb
good "firsthop times 1 NET_RX run in 4" "--features firsthop --softirq-sample 4" '[.queues[0].firsthop.softirq_sample_every, .queues[0].firsthop.sample_every]' '[4,4]' jb
good "firsthop times 1 NET_RX run in 8 by default" "--features firsthop" '.queues[0].firsthop.softirq_sample_every' 8 jb
# A classic tracepoint's link can be pinned from Linux 5.15 (perf-event links).
if printf '5.15\n%s\n' "$(uname -r)" | sort -V -C; then
	good "classic tracepoints" "--features txlat --probe-mode tracepoint" '.probe_mode' '"tracepoint"' jb
else
	ps_expect_error "attach --probe-mode tracepoint on $(uname -r): refused in one line, naming tp_btf" \
		"cannot pin classic tracepoint links .*use --probe-mode tp_btf$" pb attach vB --features txlat --probe-mode tracepoint
	ps_check_eq "the refused attach left nothing" "$(attached)" 0
fi
good "tcp matched at XDP" "--features default,tcp --tcp-rx xdp" '.tcp_rx' '"xdp"'
good "tcp matched at tc" "--features default,tcp --tcp-rx tc" '.tcp_rx' '"tc"'
good "the default peer prefixes" "--features default,tcp" '.tcp_peer_prefix' '"24,48"' jb

# --peer-prefix: 3 IPv4 and 3 IPv6 connections from A; B counts their
# handshakes under A's /24 and /48, then under /16 and /32.
peers() {
	local p=$1 want=$2 port=7100
	ps_pathscope_b attach vB --features default,tcp --peer-prefix "$p" || { ps_fail "attach --peer-prefix $p" "exit $?"; return; }
	for dst in "$PS_IP4_B" "$PS_IP6_B"; do
		port=$((port + 1))
		ps_in_b timeout 20 python3 "$THINK" accept --bind "$dst" --port $port --count 3 --seconds 15 >/dev/null 2>&1 &
		# Until it listens. (Its "ready" in a file the IPv4 one had written
		# too: a loaded machine's fork truncated the file only after the
		# wait had read the old "ready", and the connect was refused.)
		_ps_wait_port "$NS_B" tcp $port
		ps_in_a timeout 20 python3 "$THINK" connect --dst "$dst" --port $port --count 3 >/dev/null || ps_fail "connect $dst" "exit $?"
		wait $!
	done
	ps_check_eq "attach --peer-prefix $p: stats --json names the prefixes" "$(jb .tcp_peer_prefix)" "\"$p\""
	ps_check_eq "attach --peer-prefix $p: A's 3+3 handshakes under its subnets" \
		"$(jb '[.tcp_peers[] | select(.handshake_count > 0) | [.subnet, .handshake_count]] | sort')" "$want"
	ps_pathscope_b detach vB >/dev/null
}
peers 24,48 '[["198.18.0.0/24",3],["2001:db8::/48",3]]'
peers 16,32 '[["198.18.0.0/16",3],["2001:db8::/32",3]]'
peers 32,128 '[["198.18.0.1/32",3],["2001:db8::1/128",3]]'
ps_check_eq "after the good values: nothing left" "$(ps_census_is "$census0")" "$census0"

# ---- 4. serve: the same options, and what it leaves at exit -------------------------
PORT=9471
serve_b() { # serve vB in B with the options; sets SERVE (pid), waits for /healthz
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$PORT" "$@" >/tmp/cli-serve.$$ 2>&1 &
	SERVE=$!
	ps_at_exit "kill $SERVE 2>/dev/null"
	ps_wait_healthz_b "$PORT" "$SERVE" && return 0
	ps_fail "serve vB $*: /healthz 200" "$(cat /tmp/cli-serve.$$)"
	return 1
}
serve_stop() { kill -"${1:-TERM}" "$SERVE"; wait "$SERVE" 2>/dev/null; }

serve_b --features default,tcp --queues 0-1 --tc-mode clsact --tc-prio 9 --peer-prefix 16,32 --tcp-rx xdp &&
	ps_check_eq "serve with attach's options: status has them" \
		"$(sb '[.features, .queues, .tc_mode, .tcp_rx]')" '["class,ecn,sizes,gro,icmp,d2s,tcp","0-1","clsact","xdp"]' &&
	ps_check_eq "serve with attach's options: the peer prefixes, the filter priority" \
		"$(jb .tcp_peer_prefix) $(tc -n "$NS_B" -j filter show dev vB ingress | jq -c '[.[] | .pref] | unique')" '"16,32" [9]'
ps_check_eq "serve says it attached" "$(head -n 1 /tmp/cli-serve.$$)" "serving vB (attached) on http://127.0.0.1:$PORT/metrics"
serve_stop
ps_check_eq "serve attached: SIGTERM detaches" "$(attached)" 0

ps_pathscope_b attach vB --features ecn || ps_fail "attach vB" "exit $?"
serve_b --features all
ps_check_eq "serve adopts an attachment of 'pathscope attach' (its features, not serve's)" \
	"$(head -n 1 /tmp/cli-serve.$$) $(sb .features)" "serving vB (adopted) on http://127.0.0.1:$PORT/metrics \"ecn\""
serve_stop
ps_check_eq "serve adopted: SIGTERM leaves the attachment, live" "$(attached) $(sb '.state | startswith("ok")')" '1 true'
ps_pathscope_b detach vB >/dev/null

serve_b --features ecn
serve_stop KILL
ps_check_eq "serve killed (SIGKILL): the attachment stays, live" "$(attached) $(sb '.state | startswith("ok")')" '1 true'
serve_b
ps_check_eq "the next serve takes over what the killed serve attached" \
	"$(head -n 1 /tmp/cli-serve.$$)" "serving vB (taken over) on http://127.0.0.1:$PORT/metrics"
serve_stop
ps_check_eq "taken over: SIGTERM detaches" "$(attached)" 0

serve_b --keep
serve_stop
ps_check_eq "serve --keep: SIGTERM leaves what it attached" "$(attached) $(sb '.state | startswith("ok")')" '1 true'
ps_pathscope_b detach vB >/dev/null
rm -f /tmp/cli-serve.$$

# Global -j/--json and -p/--pretty, as ip and bpftool have them.
ps_pathscope_b attach vB --features ecn >/dev/null || ps_fail "attach for -j/-p" "exit $?"
ps_check_eq "global -j stats: the command's own --json, key for key" \
	"$(ps_pathscope_b -j stats vB | jq -c 'del(.interfaces[].time_ns, .interfaces[].window_s, .interfaces[].rates, .time_ns) | [paths | map(tostring) | join(".")] | sort | join(" ")' | md5sum)" \
	"$(ps_pathscope_b stats vB --json | jq -c 'del(.interfaces[].time_ns, .interfaces[].window_s, .interfaces[].rates, .time_ns) | [paths | map(tostring) | join(".")] | sort | join(" ")' | md5sum)"
ps_check_eq "global --json status: what status --json prints" \
	"$(ps_pathscope_b --json status | jq -c 'map(select(.current_netns)) | .[0] | [.ifname, .features]')" '["vB","ecn"]'
pretty=$(ps_pathscope_b -p status)
ps_check_eq "global -p status: indented JSON, one key a line, the same values" \
	"$(jq -c 'map(select(.current_netns)) | .[0] | [.ifname, .features]' <<<"$pretty") $(grep -c '^    "ifname": "' <<<"$pretty")" \
	'["vB","ecn"] '"$(jq length <<<"$pretty")"
ps_check_eq "global -p features: indented, as features --json in values" \
	"$(ps_pathscope_b -p features | jq -c .)" "$(ps_pathscope_b features --json | jq -c .)"
ps_pathscope_b detach vB >/dev/null
ps_check_eq "at the end: nothing left" "$(ps_census_is "$census0")" "$census0"
ps_done
