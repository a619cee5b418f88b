#!/usr/bin/env bash
# Hostile and malformed traffic through the live datapath: a generated corpus
# (tests/tools/hostile_corpus.py, python3-scapy: fuzzed and truncated
# Ethernet/VLAN/IPv4/IPv6/extension headers/TCP/UDP/ICMP, bogus lengths,
# fragments, runts, 9000-byte jumbo frames) is sent from A to B once without
# pathscope and once with it attached to vB, natively at MTU 1500 and in
# generic mode at MTU 9000. Each time, what B receives (captured by tcpdump
# on vB, after XDP) must be exactly the same frames; pathscope's classes must
# sum to its totals; and no counter may go backwards while it runs.
# Seed 7 (asserted): 4720 frames, the 4697 of up to 1514 bytes sent natively.
# tcpdump ends once it holds an end-marker frame sent behind the corpus from
# the same CPU; the counters are read at least 5 times while it runs.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3 # Debian's, with python3-scapy
MARKER="host 198.18.255.2 and udp dst port 47999" # pcap_frames.py end; not in the corpus
CORPUS_GEN=$PS_ROOT/tests/tools/hostile_corpus.py
FRAMES=$PS_ROOT/tests/tools/pcap_frames.py
ps_require_root hostile
ps_require_file hostile "$PATHSCOPE"
ps_require_cmd hostile tcpdump jq
"$PY" -c 'import scapy' 2>/dev/null || { ps_fail hostile "python3-scapy is not installed (make deps)"; ps_done; }

ps_testbed_create 1 || { ps_fail hostile "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
ps_at_exit "ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf $TMP"
n=$("$PY" "$CORPUS_GEN" "$TMP/corpus.pcap" 7) || ps_fail hostile "corpus generation failed"
# Seed 7 gives 4720 frames, 23 of them longer than MTU 1500.
ps_check_eq "the corpus: 4720 frames, 4697 up to 1514 bytes" \
	"$n $("$PY" "$FRAMES" count "$TMP/corpus.pcap" 1514)" "4720 4697"

# Send the corpus (frames up to MAXLEN bytes) from A, capture on vB; prints
# how many were sent.
run() {
	local cap=$1 maxlen=$2 pid sent
	ps_wait_quiet 5 >/dev/null
	# Inbound only: B's own answers (ICMP errors, resets) are not the corpus.
	ip netns exec "$NS_B" tcpdump -i vB -Q in -s 0 -U -w "$cap" 2>"$cap.log" &
	pid=$!
	for i in $(seq 50); do grep -q "listening on" "$cap.log" && break; sleep 0.1; done
	# The corpus, then one fixed end-marker frame, both from CPU 0: vA and
	# vB have one queue, so the marker queues behind the corpus, and the
	# capture is complete once it holds the marker (both captures alike).
	sent=$(ip netns exec "$NS_A" taskset -c 0 "$PY" "$FRAMES" send vA "$TMP/corpus.pcap" "$maxlen")
	ip netns exec "$NS_A" taskset -c 0 "$PY" "$FRAMES" end vA || ps_fail "the end marker" "exit $?"
	for _ in $(seq 100); do
		[ "$(tcpdump -r "$cap" -nn "$MARKER" 2>/dev/null | wc -l)" = 1 ] && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid"
	grep -q "^0 packets dropped by kernel" "$cap.log" || ps_fail "tcpdump dropped packets" "$(cat "$cap.log")"
	echo "$sent"
}

# Every class sums to its total, at every hook (see man/pathscope-metrics.7, COUNTERS).
sums() {
	jq -r '.interfaces[0].totals | to_entries[] | select(.value.total.l3 != null) | .key as $h | .value.total |
		"\($h): l3 \(([.l3[]] | add) == .packets), l4 \(([.l4[]] | add) == .l3.ipv4 + .l3.ipv6), errors \(([.errors[]] | add) == .l3.malformed + .l4.malformed)"' |
		sort | tr '\n' ';'
}

for mode in native skb; do
	mtu=$([ "$mode" = native ] && echo 1500 || echo 9000)
	ps_in_a ip link set vA mtu "$mtu"
	ps_in_b ip link set vB mtu "$mtu"
	maxlen=$((mtu + 14))
	sent0=$(run "$TMP/without-$mode.pcap" "$maxlen")
	ps_pathscope_b attach vB --xdp-mode "$mode" --features all || ps_fail "$mode: attach" "exit $?"
	# Watch the counters while the corpus runs: none may go backwards, and
	# every read must work. One line per read: ok, backwards or unreadable.
	(
		prev=
		for _ in $(seq 300); do
			[ -e "$TMP/stop-$mode" ] && break
			if now=$(ps_pathscope_b stats vB --json 2>/dev/null | jq -c -e '[.interfaces[0].totals[] | .total.packets?, .total.bytes? | values]'); then
				if [ -n "$prev" ] && ! jq -e -n --argjson a "$prev" --argjson b "$now" '[range($a | length)] | all(. as $i | $b[$i] >= $a[$i])' >/dev/null; then
					echo backwards
				else
					echo ok
				fi
				prev=$now
			else
				echo unreadable
			fi
			sleep 0.05
		done
	) >"$TMP/mono-$mode" &
	watcher=$!
	j0=$(ps_pathscope_b stats vB --json)
	sent1=$(run "$TMP/with-$mode.pcap" "$maxlen")
	j1=$(ps_pathscope_b stats vB --json)
	touch "$TMP/stop-$mode"
	wait "$watcher"
	ps_check_eq "$mode: the same frames sent both times, all the corpus's $n up to $maxlen bytes" \
		"$sent0 $sent1" "$("$PY" "$FRAMES" count "$TMP/corpus.pcap" "$maxlen") $sent0"
	ps_check_eq "$mode: B received exactly the same frames with pathscope as without" \
		"$("$PY" "$FRAMES" compare "$TMP/without-$mode.pcap" "$TMP/with-$mode.pcap")" \
		"same $("$PY" "$FRAMES" compare "$TMP/without-$mode.pcap" "$TMP/without-$mode.pcap" | cut -d' ' -f2)"
	# XDP is the first to see a frame: every one sent. (The tap sees a few
	# fewer, with pathscope or without: the stack drops frames whose VLAN
	# tags are cut short before its taps.)
	ps_check_eq "$mode: XDP counted every frame sent, and the end marker" \
		$(($(jq .interfaces[0].totals.xdp.total.packets <<<"$j1") - $(jq .interfaces[0].totals.xdp.total.packets <<<"$j0"))) \
		$((sent1 + 1))
	ps_check_eq "$mode: classes sum to totals at every hook" "$(sums <<<"$j1")" \
		"tc_egress: l3 true, l4 true, errors true;tc_ingress: l3 true, l4 true, errors true;xdp: l3 true, l4 true, errors true;"
	ps_check_eq "$mode: malformed frames were seen and classified" \
		"$(jq '.interfaces[0].totals.xdp.total | (.l3.malformed + .l4.malformed) > 0 and .vlan_tagged > 0 and .l4.fragment > 0' <<<"$j1")" true
	ps_check_eq "$mode: while the corpus ran, every read of the counters worked and none went backwards" \
		"$(grep -v -c '^ok$' "$TMP/mono-$mode")" 0
	reads=$(grep -c '^ok$' "$TMP/mono-$mode")
	[ "$reads" -ge 5 ] && ps_ok "$mode: the counters were read $reads times meanwhile" ||
		ps_fail "$mode: the counters were read while the corpus ran" "$reads reads"
	ps_check_eq "$mode: still attached and live" "$(ps_pathscope_b status --json | jq -r 'map(select(.current_netns)) | .[0].state')" ok
	ps_pathscope_b detach vB || ps_fail "$mode: detach" "exit $?"
done
ps_in_a ip link set vA mtu 1500
ps_in_b ip link set vB mtu 1500
ps_done
