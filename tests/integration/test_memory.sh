#!/usr/bin/env bash
# Map memory follows the features: on a 4-queue veth, for --features none,
# default and all, and with --no-xdp, every map of the attachment (bpftool)
# has exactly the entries its feature asks for: a per-queue map of a feature
# that is on has queues + 1 slots, every map of a feature that is off one
# entry. The per-queue bytes per CPU are then exactly the value sizes of the
# per-queue per-CPU maps in use: 5,832 B counters only (three hooks of 1,944
# B), 10,224 B with ICMP alone (+ 4,392), 12,432 B with the default features
# (+ d2s 2,208), 10,488 B for those with --no-xdp (no XDP hook), 17,360 B with
# every feature (+ tcp 120, sock 64, txlat 4,408, kernel 56, flows 280; the tcp and sock
# histograms are one copy for all CPUs). status's map_memory_bytes is the kernel's
# memlock sum of the same maps, and stats works at every setting.
. "$(dirname "$0")/lib.sh"
ps_require_root memory
ps_require_file memory "$PATHSCOPE"
ps_require_cmd memory bpftool jq

NQ=4
ps_testbed_create $NQ || {
	ps_fail memory "testbed setup failed"
	ps_done
}
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'

pin_dir() { ps_pathscope_b status --json | jq -r '.[] | select(.ifname == "vB" and .current_netns) | .pin_dir'; }
# Every map of the attachment (its programs' maps and its pins), as JSON.
# One listing of each kind with its pins (bpftool -f), not five bpftool and jq
# calls per pin (~130 of them, 2-3 s per setting).
maps_json() {
	local dir
	dir=$(pin_dir)
	(bpftool -j -f prog show; bpftool -j -f link show; bpftool -j -f map show) | jq -c -s --arg dir "$dir/" '
		def pinned: any(.pinned // [] | .[]; startswith($dir) and (ltrimstr($dir) | contains("/") | not));
		.[0] as $progs | .[2] as $maps
		| [.[1][] | select(pinned) | .prog_id] as $linked
		| ([$progs[] | select(pinned or (.id as $i | $linked | index($i))) | .map_ids // [] | .[]]
		   + [$maps[] | select(pinned) | .id] | unique) as $ids
		| $maps | map(select(.id as $i | $ids | index($i)) | {name, type, max_entries, bytes_value, bytes_memlock})'
}

# Maps by feature (those a feature alone uses) and the per-queue ones.
declare -A FEATURE_OF=(
	[icmp_pending]=icmp [icmp_stats]=icmp [icmp_waiting]=icmp [icmp_peers]=icmp
	[d2s_slot]=d2s [d2s_stats]=d2s
	[tcp_flows]=tcp [tcp_seen]=tcp [tcp_halfopen]=tcp [tcp_stats]=tcp [tcp_hist]=tcp [tcp_peers]=tcp
	[sock_tick]=sock [sock_pending]=sock [sock_stats]=sock [sock_hist]=sock [sock_ports]=sock [sock_armed]=sock [sock_addr]=sock
	[flows]=flows [flows_q]=flows [flow_tick]=flows
)
PER_QUEUE=" xdp_stats tci_stats tce_stats icmp_stats d2s_stats tcp_stats tcp_hist sock_stats sock_hist txlat_stats kern_stats flows_q "

check_setting() { # NAME FEATURES-ON(space list) WANT-PERCPU-BYTES ATTACH-ARGS...
	local name=$1 on=" $2 " want=$3 js bad per mem
	shift 3
	ps_pathscope_b attach vB "$@" || {
		ps_fail "$name: attach" "exit $?"
		return
	}
	js=$(maps_json)
	bad=
	while read -r m entries; do
		f=${FEATURE_OF[$m]:-}
		if [ -n "$f" ] && [[ "$on" != *" $f "* ]]; then
			[ "$entries" = 1 ] || bad+=" $m:$entries(want 1)"
		elif [[ "$PER_QUEUE" == *" $m "* ]]; then
			[ "$entries" = $((NQ + 1)) ] || bad+=" $m:$entries(want $((NQ + 1)))"
		fi
	done < <(jq -r '.[] | "\(.name) \(.max_entries)"' <<<"$js")
	ps_check_eq "$name: maps of features that are off have 1 entry, per-queue maps of the others $((NQ + 1))" "${bad:-none wrong}" "none wrong"
	per=$(jq --arg pq "$PER_QUEUE" '[.[] | select(.type == "percpu_array" and .max_entries > 1
		and (.name as $n | $pq | contains(" " + $n + " "))) | .bytes_value] | add' <<<"$js")
	echo "# $name: $(jq -r 'map("\(.name)=\(.max_entries)x\(.bytes_value)") | join(" ")' <<<"$js")"
	ps_check_eq "$name: per-queue bytes per CPU" "$per" "$want"
	mem=$(ps_pathscope_b status --json | jq '.[] | select(.ifname == "vB" and .current_netns) | .map_memory_bytes')
	ps_check_eq "$name: status's map memory is the maps' memlock sum" "$mem" "$(jq '[.[].bytes_memlock] | add' <<<"$js")"
	ps_pathscope_b stats vB --json >/dev/null || ps_fail "$name: stats" "exit $?"
	ps_pathscope_b stats vB --latency >/dev/null || ps_fail "$name: stats --latency" "exit $?"
	ps_pathscope_b detach vB || ps_fail "$name: detach" "exit $?"
}

check_setting "none" "" 5832 --features none
check_setting "default" "icmp d2s" 12432
check_setting "all" "icmp d2s tcp sock flows" 17360 --features all
check_setting "default, --no-xdp" "icmp d2s" 10488 --no-xdp
check_setting "icmp only" "icmp" 10224 --features icmp
ps_done
