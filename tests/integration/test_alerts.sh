#!/usr/bin/env bash
# packaging/alerts.yml, the Prometheus recording and alerting rules for serve:
#   1. promtool check rules accepts it; every pathscope metric it names is one
#      of tests/golden/metrics.prom (a name pathscope does not export is
#      caught: checked on a copy with one); each label a selector matches on
#      is one its family has there, each label="value" a value it takes;
#      packaging/prometheus.yml loads it (rule_files) and promtool check
#      config accepts it with alerts.yml where it names it.
#   2. promtool test rules tests/alerts/alerts_test.yml: exit 0 and SUCCESS;
#      the unit tests fire every alert and have a case where each must not
#      fire. The test of the test: broken copies of the rules (a threshold, a
#      floor, a for:, a severity, a matcher changed with sed), each still
#      accepted by promtool check rules, must each make it fail.
#   3. End to end, in namespace B: Debian's Prometheus scrapes `serve vB
#      --features all` (kernel for the drops by reason; all, so that every
#      family a rule reads is live) every 0.5 s and evaluates a copy of
#      alerts.yml whose for: are 2 s instead of minutes, so that the test takes
#      seconds. UDP datagrams to a closed port of B are NO_SOCKET drops:
#      /api/v1/alerts shows PathscopeKernelDrops firing with the labels iface
#      vB, reason NO_SOCKET, direction rx (and none before them); every rule
#      evaluates without error on the live series and every recording rule
#      has series (the p99 of each stage pathscope measures on veth).
# The broken copies are 16. About 16 s.
. "$(dirname "$0")/lib.sh"
N=alerts
ps_require_cmd "$N" promtool
RULES=$PS_ROOT/packaging/alerts.yml
UNIT=$PS_ROOT/tests/alerts/alerts_test.yml
GOLDEN=$PS_ROOT/tests/golden/metrics.prom
GOLDEN_Q=$PS_ROOT/tests/golden/metrics-queue.prom
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT # until ps_testbed_create's trap takes over (ps_at_exit below)

# Part 3's testbed, serve and Prometheus start first, where they can (root and
# the commands): Prometheus scrapes first 5-7 s after it starts (lib.sh), and
# serve's attach with every feature takes seconds. Parts 1 and 2 run meanwhile.
PORT=9464 PROM_PORT=9090 # namespace B's loopback
SERVE_PID='' PROM_PID='' E2E=
e2e_start() {
	ps_testbed_create 2 || return 1
	ps_at_exit 'for p in $PROM_PID $SERVE_PID; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "127.0.0.1:$PORT" --features all \
		>"$TMP/serve.out" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	# The shipped for: are minutes (10m for the drops); this copy's are 2 s.
	sed -E 's/^( +for: ).*/\12s/' "$RULES" >"$TMP/alerts-fast.yml"
	PS_PROM_RULES=$TMP/alerts-fast.yml ps_prometheus_b "$TMP" "$PROM_PORT" "'127.0.0.1:$PORT'"
	PROM_PID=$PS_PROM_PID
	E2E=started
}
if [ "$(id -u)" = 0 ] && [ -x "$PATHSCOPE" ] && [ -x "$UDPSEND" ] && command -v prometheus curl jq >/dev/null; then
	e2e_start || E2E=failed
fi

# ---- 1. The rules file -----------------------------------------------------------

out=$(promtool check rules "$RULES" 2>&1) && rc=0 || rc=$?
ps_check_eq "promtool check rules packaging/alerts.yml: exit 0, every rule found" \
	"$rc $(grep -o 'SUCCESS: [0-9]* rules found' <<<"$out")" \
	"0 SUCCESS: $(grep -cE '^ *- (record|alert):' "$RULES") rules found" || echo "$out" | sed 's/^/# /'

# pathscope metric names in FILE (recording rules' names, level:metric:ops, are not).
names() { grep -oP '(?<![\w:])pathscope_[a-z0-9_]+(?![\w:])' "$1" | sort -u; }
known=$({
	grep -oP '^# TYPE \K\S+' "$GOLDEN"
	grep -oP '^pathscope_[a-z0-9_]+(?=[{ ])' "$GOLDEN"
} | sort -u)
unknown() { comm -23 <(names "$1") <(echo "$known") | tr '\n' ' '; }
ps_check_eq "every pathscope metric alerts.yml names ($(names "$RULES" | wc -l)) is in tests/golden/metrics.prom" \
	"$(unknown "$RULES")" ""
sed 's/pathscope_napi_polls_total/pathscope_softnet_squeezed_total/' "$RULES" >"$TMP/invented.yml"
ps_check_eq "the name check catches a name pathscope does not export" \
	"$(unknown "$TMP/invented.yml")" "pathscope_softnet_squeezed_total "

# Selectors of pathscope families in FILE whose matchers the golden fixtures
# (both detail levels) do not bear out: a label the family does not have, or
# label="value" (or each value of label=~"a|b") with a value it never takes.
bad_selectors() {
	local sel name body m l v bad=
	local -a ms
	while read -r sel; do
		name=${sel%%\{*} body=${sel#*\{}
		body=${body%\}}
		IFS=, read -ra ms <<<"$body"
		for m in "${ms[@]}"; do
			m=${m// /}
			l=${m%%[=!~]*}
			if [[ $m =~ ^[a-z_]+=\"([^\"]*)\"$ ]]; then
				grep -qE "^$name\{([^}]*,)?$l=\"${BASH_REMATCH[1]}\"" "$GOLDEN" "$GOLDEN_Q" || bad+=" $name{$m}"
			elif [[ $m =~ ^[a-z_]+=~\"([a-z0-9_|]*)\"$ ]]; then # a|b|c: each of them
				for v in ${BASH_REMATCH[1]//|/ }; do
					grep -qE "^$name\{([^}]*,)?$l=\"$v\"" "$GOLDEN" "$GOLDEN_Q" || bad+=" $name{$l=~$v}"
				done
			else
				grep -qE "^$name\{([^}]*,)?$l=" "$GOLDEN" "$GOLDEN_Q" || bad+=" $name{$m}"
			fi
		done
	done < <(grep -oP '(?<![\w:])pathscope_[a-z0-9_]+\{[^}]*\}' "$1")
	echo "${bad# }"
}
ps_check_eq "every selector's labels and values are the golden fixture's ($(grep -oP '(?<![\w:])pathscope_[a-z0-9_]+\{[^}]*\}' "$RULES" | wc -l) selectors)" \
	"$(bad_selectors "$RULES")" ""
sed 's/vector="net_rx"/vector="netrx"/; s/hook="xdp", queue!="other"}\[5m\]/hook="xdp", rxq!="other"}[5m]/
	s/"tc_ingress|tc_egress"/"tc_ingress|tc_egres"/' "$RULES" >"$TMP/mislabelled.yml"
ps_check_eq "the selector check catches values and a label the family does not have" \
	"$(bad_selectors "$TMP/mislabelled.yml")" \
	'pathscope_packets_total{hook=~tc_egres} pathscope_packets_total{rxq!="other"} pathscope_softirq_seconds_total{vector="netrx"}'

ps_check_eq "packaging/prometheus.yml loads /usr/share/pathscope/alerts.yml" \
	"$(grep -A1 '^rule_files:' "$PS_ROOT/packaging/prometheus.yml" | tail -n 1)" "  - /usr/share/pathscope/alerts.yml"
sed "s|/usr/share/pathscope/alerts.yml|$RULES|" "$PS_ROOT/packaging/prometheus.yml" >"$TMP/prometheus-example.yml"
out=$(promtool check config "$TMP/prometheus-example.yml" 2>&1) && rc=0 || rc=$?
ps_check_eq "promtool check config packaging/prometheus.yml (alerts.yml where it names it): valid, 1 rule file" \
	"$rc $(grep -c 'SUCCESS: 1 rule files found' <<<"$out")" "0 1" || echo "$out" | sed 's/^/# /'

# ---- 2. The unit tests, and broken copies that must fail them --------------------

out=$(promtool test rules "$UNIT" 2>&1) && rc=0 || rc=$?
ps_check_eq "promtool test rules tests/alerts/alerts_test.yml: exit 0, SUCCESS" \
	"$rc $(grep -c '^  SUCCESS$' <<<"$out")" "0 1" || echo "$out" | sed 's/^/# /'
alerts=$(grep -oP '^ *- alert: \K\w+' "$RULES" | sort)
covered=$(awk '/alertname:/ { a = $2 } /exp_alerts: \[\]/ { neg[a] = 1 } /exp_alerts:$/ { pos[a] = 1 }
	END { for (a in pos) if (a in neg) print a }' "$UNIT" | sort)
ps_check_eq "the unit tests fire each of the $(wc -l <<<"$alerts") alerts and have a case where it must not" \
	"$covered" "$alerts"

# Each line: what is broken | the sed -E that breaks it. Each copy is in a
# directory of its own, with the unit tests at their relative path to it
# (../../packaging/alerts.yml).
copies=0 whats=()
while IFS='|' read -r what expr; do
	copies=$((copies + 1)) whats[copies]=$what
	mkdir -p "$TMP/m$copies/packaging" "$TMP/m$copies/tests/alerts"
	cp "$UNIT" "$TMP/m$copies/tests/alerts/"
	sed -E "$expr" "$RULES" >"$TMP/m$copies/packaging/alerts.yml"
done <<'EOF'
kernel drops: share threshold 1% -> 0.1%|s/(kernel_drops:ratio5m > )0\.01$/\10.001/
kernel drops: rate floor 10/s -> 1/s|s/(kernel_drops:rate5m > )10$/\11/
kernel drops: for 10m -> 5m|/alert: PathscopeKernelDrops/,/for:/s/for: 10m/for: 5m/
XDP exceptions: for 10m -> 3m|/alert: PathscopeXdpExceptions/,/for:/s/for: 10m/for: 3m/
TX queue drops: share threshold 0.1% -> 1%|s/(txlat_dropped:ratio5m > )0\.001$/\10.01/
qdisc drops: share threshold 0.1% -> 1%|s/(qdisc_drops:ratio5m > )0\.001$/\10.01/
qdisc drops: rate floor 10/s -> 1/s|s/(qdisc_drops:rate5m > )10$/\11/
softnet squeeze: 10/s -> 1/s|s/(times_squeezed:rate5m > )10$/\11/
softnet backlog drops: 1/s -> 0.1/s|s/(softnet_dropped:rate5m > )1$/\10.1/
RSS: every queue slot counted as active|s/(queue!="other"\}\)) > 0\)/\1 >= 0)/
RSS: rate floor 1000/s -> 100/s|s/(rx_packets:rate5m > )1000\)/\1100)/
RSS: 3 times the other queues' mean -> 2.5|s/expr: 3 \/ /expr: 2.5 \/ /
NAPI: threshold 50% -> 70%|s/(budget_exhausted:ratio5m > )0\.5$/\10.7/
NET_RX softirq: per-CPU series summed over the interfaces|s/max without \(iface\)/sum without (iface)/
p99: driver_to_stack threshold 1 ms -> 5 ms|s/vector\(0\.001\)/vector(0.005)/
p99: socket_read threshold 10 ms -> 5 ms|s/vector\(0\.010\)/vector(0.005)/
CE: tc_ingress counted too|s/hook=~"xdp[|]tc_egress"/hook=~"xdp|tc_ingress|tc_egress"/g
CE: rate floor 100/s -> 1/s|s/(ip_packets:rate5m > )100$/\11/
attachment down: severity critical -> warning|/alert: PathscopeAttachmentDown/,/severity:/s/critical/warning/
scrape failed: up of every job|s/up\{job="pathscope"\} == 0/up == 0/
EOF
# promtool checks and tests each copy, four at a time: a test run takes ~1 s,
# half of it waiting (0.5 s of CPU).
seq "$copies" | xargs -P 4 -I{} sh -c 'd=$0/m$1
	promtool check rules "$d/packaging/alerts.yml" >/dev/null 2>&1; echo $? >"$d/check.rc"
	promtool test rules "$d/tests/alerts/alerts_test.yml" >"$d/test.out" 2>&1; echo $? >"$d/test.rc"' "$TMP" {}
for i in $(seq "$copies"); do
	d=$TMP/m$i what=${whats[i]}
	if cmp -s "$RULES" "$d/packaging/alerts.yml"; then
		ps_fail "broken copy: $what" "the sed changed nothing"
	elif [ "$(cat "$d/check.rc")" != 0 ]; then
		ps_fail "broken copy: $what" "promtool check rules refuses it: not a test of behaviour"
	else
		ps_check_eq "broken copy, valid rules, fails the unit tests: $what" \
			"$(cat "$d/test.rc") $(grep -c '^  FAILED:$' "$d/test.out")" "1 1"
	fi
done

# ---- 3. End to end: serve, Prometheus with the rules, drops by reason -------------

ps_require_root "$N: end to end"
ps_require_file "$N: end to end" "$PATHSCOPE"
ps_require_file "$N: end to end" "$UDPSEND"
ps_require_cmd "$N: end to end" prometheus curl jq
if [ -z "$E2E" ]; then e2e_start || E2E=failed; fi # (started above where it could)
[ "$E2E" = started ] || {
	ps_fail "$N" "testbed setup failed"
	ps_done
}
in_b() { ip netns exec "$NS_B" "$@"; }
api() { in_b curl -s --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/$1"; }

ps_wait_healthz_b "$PORT" "$SERVE_PID"
ps_check_eq "serve vB --features all answers /healthz" \
	"$(in_b curl -s "http://127.0.0.1:$PORT/healthz")" ok || {
	cat "$TMP/serve.err"
	ps_done
}
ps_check_eq "the end-to-end copy of alerts.yml: every for: 2s, the rest as shipped" \
	"$(grep -c '^ *for: 2s$' "$TMP/alerts-fast.yml") $(diff "$RULES" "$TMP/alerts-fast.yml" | grep -c '^>')" \
	"$(grep -c '^ *- alert:' "$RULES") $(grep -c '^ *- alert:' "$RULES")"
# Two scrapes that reached serve (those before it listened have up 0).
for _ in $(seq 300); do # up to 30 s
	[ "$(ps_promq 'sum_over_time(up{job="pathscope"}[1m])')" -ge 2 ] 2>/dev/null && break
	sleep 0.1
done
ps_check_eq "prometheus scrapes serve: up 1" "$(ps_promq 'up{job="pathscope"}')" 1
ps_check_eq "prometheus loaded every rule of the copy" \
	"$(api rules | jq '[.data.groups[].rules[]] | length')" "$(grep -cE '^ *- (record|alert):' "$RULES")"
unevaluated() { api rules | jq '[.data.groups[] | select(.lastEvaluation | startswith("0001-"))] | length'; }
for _ in $(seq 100); do # up to 10 s
	[ "$(unevaluated)" = 0 ] && break
	sleep 0.1
done
ps_check_eq "prometheus has evaluated every group" "$(unevaluated)" 0

# PathscopeKernelDrops alerts: "STATE IFACE REASON DIRECTION SEVERITY", comma-separated.
drops_alerts() {
	api alerts | jq -r '[.data.alerts[] | select(.labels.alertname == "PathscopeKernelDrops")
		| "\(.state) \(.labels.iface) \(.labels.reason) \(.labels.direction) \(.labels.severity)"] | join(", ")'
}
ps_check_eq "before the workload: no PathscopeKernelDrops alert, not even pending" "$(drops_alerts)" ""

# The first datagrams to the closed port make the NO_SOCKET series; once
# Prometheus has it, 6000 more: their 5-minute rate is 6000 / 300 s = 20/s,
# above the rule's 10/s, and each is one skb at tc ingress (100% > 1%).
# udpsend -r sends again what an ICMP error made the kernel refuse. Every
# datagram leaves vA on TX queue 1 and arrives on vB's RX queue 1: the drops
# are counted per RX queue, and a series born with the 6000 in it (another
# queue than the first datagrams') would show no increase to rate().
ps_txq_pin "$NS_A" vA 1
ps_wait_quiet 5
ps_in_a "$UDPSEND" -r -n 10 "$PS_IP4_B" 9999 || ps_fail "udpsend: 10 datagrams to a closed port" "exit $?"
SEL='pathscope_kernel_drops_total{job="pathscope",iface="vB",direction="rx",reason="NO_SOCKET"}'
for _ in $(seq 100); do
	[ "$(ps_promq "sum($SEL)")" != none ] && break
	sleep 0.1
done
ps_check_eq "prometheus has the NO_SOCKET drops of vB: 10, on RX queue 1" \
	"$(ps_promq "sum($SEL)") $(ps_promq "sum(${SEL%\}},queue=\"1\"})")" "10 10"
t0=$SECONDS
ps_in_a "$UDPSEND" -r -n 6000 "$PS_IP4_B" 9999 || ps_fail "udpsend: 6000 datagrams to a closed port" "exit $?"
for _ in $(seq 300); do # up to 30 s
	[ "$(drops_alerts)" = "firing vB NO_SOCKET rx critical" ] && break
	sleep 0.1
done
echo "# PathscopeKernelDrops: $(drops_alerts) $((SECONDS - t0)) s after the workload began"
ps_check_eq "/api/v1/alerts: PathscopeKernelDrops firing for vB, reason NO_SOCKET, rx, critical" \
	"$(drops_alerts)" "firing vB NO_SOCKET rx critical" || {
	for q in "sum($SEL)" 'iface_reason:pathscope_kernel_drops:rate5m' 'iface_reason:pathscope_kernel_drops:ratio5m' \
		'iface_direction:pathscope_tc_skbs:rate5m{direction="rx"}' 'count_over_time(up{job="pathscope"}[1m])' \
		'sum_over_time(up{job="pathscope"}[1m])' 'max_over_time(scrape_duration_seconds[1m])'; do
		echo "# $q = $(ps_promq "$q")"
	done
	tail -n 5 "$TMP/prometheus.log" "$TMP/serve.err" | sed 's/^/# /'
}
alert=$(api alerts | jq -c '[.data.alerts[] | select(.labels.alertname == "PathscopeKernelDrops")][0]')
ps_check_eq "its labels, exactly" "$(jq -cS .labels <<<"$alert")" \
	"{\"alertname\":\"PathscopeKernelDrops\",\"direction\":\"rx\",\"iface\":\"vB\",\"instance\":\"127.0.0.1:$PORT\",\"job\":\"pathscope\",\"reason\":\"NO_SOCKET\",\"severity\":\"critical\"}"
ps_check_eq "its summary names the reason, the interface and the direction, with a rate" \
	"$(jq -r .annotations.summary <<<"$alert" | sed -E 's|: [0-9.]+/s$|: N/s|')" \
	"NO_SOCKET drops on vB (rx) of 127.0.0.1:$PORT: N/s"
ps_check_eq "its value, the 5-minute drop rate, is above 10/s (about 20)" \
	"$(jq -r .value <<<"$alert" | awk '{ print ($1 > 10 && $1 < 40) ? "yes" : "no: " $1 }')" yes
firing=$(api alerts | jq -r '[.data.alerts[] | select(.state == "firing") | .labels.alertname] | unique | join(" ")')
echo "# firing: $firing"
ps_check_eq "PathscopeAttachmentDown and PathscopeScrapeFailed do not fire" \
	"$(tr ' ' '\n' <<<"$firing" | grep -cxE 'PathscopeAttachmentDown|PathscopeScrapeFailed')" 0

# Every rule evaluated on the live series without error (a many-to-many
# match, say), and every recording rule has series.
ps_check_eq "every rule's health is ok" \
	"$(api rules | jq -r '[.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.health) \(.lastError // "")"] | join("; ")')" ""
empty=
for r in $(grep -oP '^ *- record: \K\S+' "$RULES" | sort -u); do
	[ "$(ps_promq "count($r)")" = none ] && empty+=" $r"
done
ps_check_eq "every recording rule has series from serve's exposition" "${empty# }" ""
ps_check_eq "p99 per stage: driver_to_stack, qdisc_sojourn, socket_read (veth has no TX completion)" \
	"$(in_b curl -s --max-time 5 --data-urlencode 'query=iface_stage:pathscope_latency_seconds:p99_5m{iface="vB"}' \
		"http://127.0.0.1:$PROM_PORT/api/v1/query" | jq -r '[.data.result[].metric.stage] | sort | join(" ")')" \
	"driver_to_stack qdisc_sojourn socket_read"
ps_done
