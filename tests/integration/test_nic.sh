#!/usr/bin/env bash
# `pathscope nic`: NIC facts from netlink against the kernel's own tools, on
# the testbed's 4-queue veth: channels and offloads equal `ethtool -l/-k`
# (also after changing them), rings are n/a on veth, the queue list follows
# the channel count with no NAPI ids and no qstats (n/a, not 0), link stats64
# equal `ip -s -j link` read at the same moment, softnet has one entry per
# CPU, and bad input gets one line and the documented exit status.
# The driver's own per-queue counters (ethtool -S, read with the ioctl):
# veth's rx_queue_N_xdp_packets equal `ethtool -S`, and with pathscope's XDP
# program on vB, N frames sent to RX queue 2 move pathscope's XDP count of
# queue 2 and the driver's by exactly N (stats --json, the table), and
# /metrics has the driver's series with ethtool -S's values (promtool check);
# a tap's driver (tun) has none, and nic says so naming it. RSS: veth has
# none, and nic says so in one line (JSON: available false, why).
. "$(dirname "$0")/lib.sh"
ps_require_root nic
ps_require_cmd nic ip ethtool jq ping nsenter getconf curl
ps_require_file nic "$PATHSCOPE"
ps_require_file nic "$UDPSEND"

ps_testbed_create 4 || {
	ps_fail nic "testbed setup failed"
	ps_done
}

# One jq filter over `pathscope nic vA --json`; "no output" when it fails.
jn() {
	local out
	out=$(ps_pathscope_a nic vA --json) && jq -c "$1" <<<"$out" || echo "no output"
}

# `ethtool -l vA` as [rx, tx, other, combined, rx_max, tx_max, other_max,
# combined_max], n/a as null: the order of jn's channels filter below.
ethtool_channels() {
	ps_in_a ethtool -l vA | awk '
		/^Pre-set maximums/ { s = "max" }
		/^Current hardware settings/ { s = "cur" }
		/^(RX|TX|Other|Combined):/ { k = tolower($1); sub(":", "", k); v[s, k] = $2 == "n/a" ? "null" : $2 }
		END {
			printf "[%s,%s,%s,%s,%s,%s,%s,%s]\n", v["cur", "rx"], v["cur", "tx"], v["cur", "other"],
				v["cur", "combined"], v["max", "rx"], v["max", "tx"], v["max", "other"], v["max", "combined"]
		}'
}
NIC_CHANNELS='.channels | [.rx, .tx, .other, .combined, .rx_max, .tx_max, .other_max, .combined_max]'

# `ethtool -k vA` as [[state, fixed]] for gro, lro, gso, tso, rx-hashing.
# tcp-segmentation-offload has no [fixed] of its own: it is fixed when every
# tx-tcp*-segmentation feature under it is.
ethtool_features() {
	ps_in_a ethtool -k vA | awk '
		function one(name) { return "[\"" st[name] "\"," (fx[name] ? "true" : "false") "]" }
		/^[a-z-]+: / { k = $1; sub(":", "", k); st[k] = $2; fx[k] = /\[fixed\]/ }
		/^\ttx-tcp.*-segmentation: / { tso_n++; tso_fixed += /\[fixed\]/ }
		END {
			fx["tcp-segmentation-offload"] = tso_n > 0 && tso_fixed == tso_n
			printf "[%s,%s,%s,%s,%s]\n", one("generic-receive-offload"), one("large-receive-offload"),
				one("generic-segmentation-offload"), one("tcp-segmentation-offload"), one("receive-hashing")
		}'
}
NIC_FEATURES='.features | [.gro, .lro, .gso, .tso, .rx_hashing] | map([.state, .fixed])'

# [rx queues, tx queues]
NIC_QUEUES='[([.queues[] | select(.type == "rx")] | length), ([.queues[] | select(.type == "tx")] | length)]'

# ---- link stats64 against ip -s -j link -------------------------------------------
# First, while the link carries only our pings: changing channels later
# bounces the carrier and brings MLD reports.
LINK='[.link.rx_packets, .link.rx_bytes, .link.tx_packets, .link.tx_bytes, .link.rx_errors,
	.link.rx_dropped, .link.multicast, .link.tx_errors, .link.tx_dropped, .link.collisions]'
ip_link() {
	ps_in_a ip -s -j link show vA | jq -c '.[0].stats64 | [.rx.packets, .rx.bytes, .tx.packets,
		.tx.bytes, .rx.errors, .rx.dropped, .rx.multicast, .tx.errors, .tx.dropped, .tx.collisions]'
}
before=$(jn "$LINK")
ps_in_a ping -q -c 10 -i 0.05 -W 1 "$PS_IP4_B" >/dev/null || ps_fail "ping" "exit $?"
ps_wait_quiet 5 || ps_fail "quiet link after ping" "vA<->vB still busy"
after=$(jn "$LINK")
ps_check_eq "link stats64 equal ip -s -j link (no traffic running)" "$after" "$(ip_link)"
ps_check_eq "10 pings: rx and tx packets +10" \
	"$(jq -nc --argjson a "$after" --argjson b "$before" '[$a[0] - $b[0], $a[2] - $b[2]]')" "[10,10]"
ps_check_eq "link: rx_nohandler is a number" "$(jn '.link.rx_nohandler | type')" '"number"'

# ---- channels and features, as created ----------------------------------------
ps_check_eq "channels equal ethtool -l" "$(jn "$NIC_CHANNELS")" "$(ethtool_channels)"
ps_check_eq "channels: rx 4 tx 4 of 4, other and combined n/a" "$(jn "$NIC_CHANNELS")" \
	"[4,4,null,null,4,4,null,null]"
ps_check_eq "features equal ethtool -k" "$(jn "$NIC_FEATURES")" "$(ethtool_features)"
ps_check_eq "features: gro on (testbed turns it on)" "$(jn '.features.gro.state')" '"on"'

# ---- rings: veth has none ------------------------------------------------------
ps_check_eq "rings null on veth" "$(jn '.rings')" null
ps_check_eq "rings_na says EOPNOTSUPP" "$(jn '.rings_na | test("EOPNOTSUPP")')" true

# ---- queues: 4 + 4, no NAPI ids, no qstats ---------------------------------------
ps_check_eq "queues: 4 rx, 4 tx" "$(jn "$NIC_QUEUES")" "[4,4]"
ps_check_eq "queues: ids 0-3 each" "$(jn '[.queues[] | .id]')" "[0,1,2,3,0,1,2,3]"
ps_check_eq "queues: napi ids null (veth reports none)" "$(jn '[.queues[].napi_id] | unique')" "[null]"
ps_check_eq "queues: qstats null" "$(jn '[.queues[].qstats] | unique')" "[null]"
ps_check_eq "qstats_na has a reason" "$(jn '.qstats_na | type')" '"string"'
ps_check_eq "queues_na null" "$(jn '.queues_na')" null

# ---- after ethtool -K / -L -------------------------------------------------------
ps_in_a ethtool -K vA gro off || ps_fail "ethtool -K vA gro off" "exit $?"
ps_check_eq "gro off: features equal ethtool -k" "$(jn "$NIC_FEATURES")" "$(ethtool_features)"
ps_check_eq "gro off: reported off" "$(jn '.features.gro.state')" '"off"'
ps_in_a ethtool -K vA tso off || ps_fail "ethtool -K vA tso off" "exit $?"
ps_check_eq "tso off: features equal ethtool -k" "$(jn "$NIC_FEATURES")" "$(ethtool_features)"
ps_check_eq "tso off: reported off" "$(jn '.features.tso.state')" '"off"'
ps_in_a ethtool -K vA gro on tso on || ps_fail "ethtool -K vA gro on tso on" "exit $?"

ps_in_a ethtool -L vA rx 2 || ps_fail "ethtool -L vA rx 2" "exit $?"
ps_check_eq "rx 2: channels equal ethtool -l" "$(jn "$NIC_CHANNELS")" "$(ethtool_channels)"
ps_check_eq "rx 2: channels" "$(jn "$NIC_CHANNELS")" "[2,4,null,null,4,4,null,null]"
ps_check_eq "rx 2: queues 2 rx, 4 tx" "$(jn "$NIC_QUEUES")" "[2,4]"
ps_in_a ethtool -L vA rx 4 || ps_fail "ethtool -L vA rx 4" "exit $?"
ps_check_eq "rx 4 again: queues 4 rx, 4 tx" "$(jn "$NIC_QUEUES")" "[4,4]"

# ---- softnet: one entry per online CPU -----------------------------------------------
ncpu=$(getconf _NPROCESSORS_ONLN)
ps_check_eq "softnet: one entry per CPU ($ncpu)" "$(jn '.softnet | length')" "$ncpu"
ps_check_eq "softnet: cpu ids 0..$((ncpu - 1))" "$(jn '[.softnet[].cpu] == ([range(0; .softnet | length)])')" \
	true
ps_check_eq "softnet: processed is a number" "$(jn '.softnet[0].processed | type')" '"number"'

# ---- the table ------------------------------------------------------------------------
table=$(ps_pathscope_a nic vA)
ps_check_eq "table: exit 0" "$?" 0
ps_check_eq "table: channels line" \
	"$(grep -c '^channels: rx 4 (max 4), tx 4 (max 4), other n/a, combined n/a$' <<<"$table")" 1
ps_check_eq "table: rings n/a with the reason" "$(grep -c '^rings:    n/a (EOPNOTSUPP' <<<"$table")" 1
ps_check_eq "table: 8 queue rows" "$(sed '/^ethtool:/,$d' <<<"$table" | grep -cE '^  (rx|tx)-[0-3] ')" 8
ps_check_eq "table: one softnet row per CPU" "$(grep -cE '^ +[0-9]+ +[0-9]+ ' <<<"$table")" "$ncpu"

# ---- RSS: veth has none: one line in the table, available false in JSON ---------------
ps_check_eq "table: RSS not available in one line, naming veth" \
	"$(grep -c '^RSS' <<<"$table") $(grep -A1 '^RSS' <<<"$table" | grep -c '^  ')" "1 0"
ps_check_eq "table: the RSS line" "$(grep '^RSS' <<<"$table")" \
	"RSS:      not available (veth has no RSS: ETHTOOL_MSG_RSS_GET, ETHTOOL_GRSSH: Operation not supported)"
ps_check_eq "json: rss available false, why" "$(jn '.rss | [.available, (.why | test("^veth has no RSS"))]')" \
	"[false,true]"
ps_check_eq "json: rss has only available and why" "$(jn '.rss | keys')" '["available","why"]'
ps_check_eq "ethtool -x vA agrees: no RSS" "$(ps_in_a ethtool -x vA >/dev/null 2>&1; echo $?)" 1

# ---- the driver's per-queue counters (ethtool -S) ------------------------------------
# veth counts, per RX queue, the frames of its NAPI poll (rx_queue_N_xdp_packets);
# it has no per-queue packets or bytes, and nothing per TX queue by a known name.
ethtool_xdp() { # NS DEV: [rx_queue_0_xdp_packets, ..., rx_queue_3_xdp_packets]
	local q v out=
	for q in 0 1 2 3; do
		v=$(ps_ethtool_stat "$1" "$2" "rx_queue_${q}_xdp_packets") || v=null
		out=$out${out:+,}$v
	done
	echo "[$out]"
}
ps_wait_quiet 5 || ps_fail "quiet link before ethtool -S" "vA<->vB still busy"
ps_check_eq "ethtool_stats: rx 0-3, no tx queue" "$(jn '[.ethtool_stats[] | "\(.type)-\(.id)"]')" \
	'["rx-0","rx-1","rx-2","rx-3"]'
ps_check_eq "ethtool_stats: packets and bytes null (veth has none), xdp_packets and drops numbers" \
	"$(jn '[.ethtool_stats[] | [.packets, .bytes, (.xdp_packets | type), (.drops | type)]] | unique')" \
	'[[null,null,"number","number"]]'
ps_check_eq "ethtool_stats: xdp_packets equal ethtool -S (idle link)" \
	"$(jn '[.ethtool_stats[].xdp_packets]')" "$(ethtool_xdp "$NS_A" vA)"
ps_check_eq "ethtool_stats_na null" "$(jn '.ethtool_stats_na')" null
table=$(ps_pathscope_a nic vA)
ps_check_eq "table: ethtool line and 4 rows" \
	"$(grep -c '^ethtool:  per-queue counters of ethtool -S: 4 rx, 0 tx (of ' <<<"$table") $(grep -cE '^  rx-[0-3] +n/a +n/a +[0-9]+ +[0-9]+$' <<<"$table")" \
	"1 4"

# With pathscope's XDP program on vB every frame vB receives goes through its
# NAPI poll (veth turns TSO off on vA), so XDP and the driver count the same frames.
ps_at_exit 'kill "$SERVE_PID" 2>/dev/null; _ps_reap "$SERVE_PID"; ps_pathscope_b detach vB >/dev/null 2>&1'
SERVE_PID=
ps_pathscope_b attach vB >/dev/null || ps_fail "attach vB" "exit $?"
# [[queue, pathscope's XDP packets, the driver's xdp_packets as pathscope reads them]]
XQ='[.interfaces[0].queues[] | select(.queue != "other") | [.queue, .xdp.total.packets, .nic.ethtool.rx_xdp_packets]]'
sj() {
	local out
	out=$(ps_pathscope_b stats vB --json) && jq -c "$1" <<<"$out" || echo "no output"
}
N=40 Q=2
ps_wait_quiet 5 || ps_fail "quiet link before the frames" "vA<->vB still busy"
before=$(sj "$XQ")
ps_check_eq "stats --json: nic.ethtool.rx_xdp_packets of every queue equal ethtool -S (idle link)" \
	"$(jq -c '[.[][2]]' <<<"$before")" "$(ethtool_xdp "$NS_B" vB)"
ps_txq_pin "$NS_A" vA $Q || ps_fail "txq pin $Q" "ps_txq_pin failed"
ps_sink_start "$NS_B" 9000 --expect $N --timeout 10
ps_in_a "$UDPSEND" -n $N "$PS_IP4_B" 9000 || ps_fail "udpsend $N" "exit $?"
ps_check_eq "sink received $N" "$(ps_sink_wait)" $N
ps_txq_unpin "$NS_A" vA
ps_wait_quiet 5 || ps_fail "quiet link after the frames" "vA<->vB still busy"
after=$(sj "$XQ")
ps_check_eq "$N frames to RX queue $Q: [pathscope XDP, driver xdp_packets] moved by exactly [$N, $N] on queue $Q, 0 elsewhere" \
	"$(jq -nc --argjson a "$after" --argjson b "$before" '[range(0; 4) as $i | [$a[$i][1] - $b[$i][1], $a[$i][2] - $b[$i][2]]]')" \
	"[[0,0],[0,0],[$N,$N],[0,0]]"
ps_check_eq "after: nic.ethtool.rx_xdp_packets equal ethtool -S" \
	"$(jq -c '[.[][2]]' <<<"$after")" "$(ethtool_xdp "$NS_B" vB)"
ps_check_eq "stats --json: veth has no qstats, ethtool rx_packets null" \
	"$(sj '[.interfaces[0].queues[] | select(.queue != "other") | [.nic.rx.qstats, .nic.ethtool.rx_packets, .nic.ethtool.tx_packets]] | unique')" \
	'[[null,null,null]]'
table=$(ps_pathscope_b stats vB)
row=$(grep -E "^     $Q +n/a +n/a +[0-9]+ +[0-9]+ +n/a +[0-9-]+  ethtool$" <<<"$table")
ps_check_eq "stats table: queue $Q's row, the driver's XDP beside pathscope's, source ethtool" \
	"$(awk '{ print $4 - $5 }' <<<"$row")" \
	"$(jq -r --argjson q $Q '.[$q] | .[2] - .[1]' <<<"$after")"
ps_check_eq "stats table: the driver's per-queue table fits in 100 columns" \
	"$(awk '/the driver.s per-queue counts/ { f = 1 } /^Per CPU/ { f = 0 } f && length($0) > 100' <<<"$table" | grep -c .)" 0

# /metrics: the driver's per-queue series, with ethtool -S's values.
nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen 127.0.0.1:9464 --keep \
	>/dev/null 2>&1 &
SERVE_PID=$!
for _ in $(seq $((100 * PS_SLOW))); do
	[ "$(ps_in_b curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9464/healthz)" = 200 ] && break
	sleep 0.1
done
metrics=$(ps_in_b curl -s --max-time 10 http://127.0.0.1:9464/metrics)
kill -TERM "$SERVE_PID"
_ps_reap "$SERVE_PID"
SERVE_PID=
want=$(ethtool_xdp "$NS_B" vB)
ps_check_eq "/metrics: pathscope_nic_queue_xdp_packets_total of queues 0-3 equal ethtool -S" \
	"$(for q in 0 1 2 3; do grep -F "pathscope_nic_queue_xdp_packets_total{iface=\"vB\",queue=\"$q\",source=\"ethtool\"} " <<<"$metrics" | awk '{ print $2 }'; done | paste -sd, | sed 's/^/[/; s/$/]/')" \
	"$want"
ps_check_eq "/metrics: 4 xdp series (one per RX queue), no packets series (veth: no qstats, no per-queue packets)" \
	"$(grep -c '^pathscope_nic_queue_xdp_packets_total{' <<<"$metrics") $(grep -c '^pathscope_nic_queue_packets_total{' <<<"$metrics")" \
	"4 0"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <<<"$metrics" 2>&1)
	ps_check_eq "/metrics: promtool check metrics" "$? $out" "0 "
else
	ps_skip "/metrics: promtool check metrics" "no promtool"
fi
ps_pathscope_b detach vB >/dev/null || ps_fail "detach vB" "exit $?"

# ---- errors ---------------------------------------------------------------------------
# status, number of stderr lines, first stderr line
run() {
	local err rc=0
	err=$(ps_pathscope_a "$@" 2>&1 >/dev/null) || rc=$?
	echo "$rc $(grep -c . <<<"$err") ${err%%$'\n'*}"
}
ps_check_eq "unknown interface: exit 1, one line" "$(run nic nosuch0)" \
	"1 1 pathscope: unknown interface 'nosuch0' (in this network namespace)"
ps_check_eq "no interface: exit 2" "$(run nic | cut -d' ' -f1-2)" "2 1"
ps_check_eq "two interfaces: exit 2" "$(run nic vA lo | cut -d' ' -f1-2)" "2 1"
ps_check_eq "unknown option: exit 2" "$(run nic --bogus vA | cut -d' ' -f1)" 2
ps_check_eq "--help: exit 0 with examples" \
	"$(ps_pathscope_a nic --help | grep -c '^examples:')" 1

# ---- a down interface lists no queues ------------------------------------------------
ip -n "$NS_A" link set vA down
ps_check_eq "down: queues null" "$(jn '.queues')" null
ps_check_eq "down: queues_na" "$(jn '.queues_na')" '"interface is down"'
ps_check_eq "down: channels still read" "$(jn '.channels.rx')" 4

# ---- a driver without ethtool -S counters: the reason names it -------------------------
# tun has none ("no stats available"); its name as `ethtool -i` gives it.
ip -n "$NS_A" tuntap add dev pstap0 mode tap
drv=$(ps_in_a ethtool -i pstap0 | awk '$1 == "driver:" { print $2 }')
ps_check_eq "tap: ethtool -S n/a, naming the driver as ethtool -i does" \
	"$(ps_in_a ethtool -S pstap0 2>&1 | tail -c 19) $(ps_pathscope_a nic pstap0 --json | jq -r '.ethtool_stats_na')" \
	"no stats available the driver (${drv:-?}) has no ethtool -S counters"

ps_done
