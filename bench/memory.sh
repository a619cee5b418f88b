#!/usr/bin/env bash
# bench/memory.sh OUT.json: the map memory pathscope allocates, per queue
# count and feature set. In a namespace of our own, a veth with 1, 8 and 64
# rx/tx queues; pathscope attached to one end with --features none, default
# and all; every map of the attachment (the maps its programs use, and the
# pinned ones) read with bpftool: type, value size, entries, bytes_memlock.
# Environment: PS_BENCH_BUILD (build dir, default build), PS_BENCH_MEM_QUEUES
# ("1 8 64").
set -u
OUT=${1:?usage: memory.sh OUT.json}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${PS_BENCH_BUILD:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
PATHSCOPE=$BUILD_DIR/pathscope
NS=psbenchM-$$
TMP=$(mktemp -d /tmp/psbench-mem.XXXXXX)
ATTACHED=

cleanup() {
	[ -n "$ATTACHED" ] && nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" detach m0 >/dev/null 2>&1
	[ -e "/var/run/netns/$NS" ] && ip netns del "$NS"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ps() { nsenter --net="/var/run/netns/$NS" "$PATHSCOPE" "$@"; }

# One attachment's programs and maps, as a JSON object.
collect() {
	local q=$1 feat=$2 dir f progs=() maps=()
	dir=$(ps status --json | jq -r '.[] | select(.current_netns and .ifname == "m0") | .pin_dir')
	[ -d "$dir" ] || return 1
	for f in "$dir"/*; do
		progs+=("$(bpftool -j prog show pinned "$f" 2>/dev/null | jq -r '.id // empty')")
		progs+=("$(bpftool -j link show pinned "$f" 2>/dev/null | jq -r '.prog_id // empty')")
		maps+=("$(bpftool -j map show pinned "$f" 2>/dev/null | jq -r '.id // empty')")
	done
	printf '%s\n' "${progs[@]}" | grep -E '^[0-9]+$' | sort -un | jq -s -c . >"$TMP/progs"
	printf '%s\n' "${maps[@]}" | grep -E '^[0-9]+$' | sort -un | jq -s -c . >"$TMP/pinned_maps"
	bpftool -j prog show >"$TMP/allprogs"
	bpftool -j map show >"$TMP/allmaps"
	jq -n -c --argjson q "$q" --arg feat "$feat" --argjson cpus "$(nproc --all)" \
		--slurpfile ids "$TMP/progs" --slurpfile pinned "$TMP/pinned_maps" \
		--slurpfile allp "$TMP/allprogs" --slurpfile allm "$TMP/allmaps" '
		($allp[0] | map(select(.id as $i | $ids[0] | index($i)))) as $progs |
		(($progs | map(.map_ids // []) | add) + $pinned[0] | unique) as $mids |
		{queues: $q, features: $feat, online_cpus: $cpus,
		 progs: ($progs | map({id, name, type, bytes_memlock, bytes_jited, bytes_xlated})),
		 maps: ($allm[0] | map(select(.id as $i | $mids | index($i))) |
			map({id, name, type, flags, bytes_key, bytes_value, max_entries, bytes_memlock}))}'
}

ip netns add "$NS" || exit 1
ip -n "$NS" link set lo up
first=1
echo '[' >"$OUT"
for q in ${PS_BENCH_MEM_QUEUES:-1 8 64}; do
	ip -n "$NS" link add m0 numtxqueues "$q" numrxqueues "$q" type veth peer name m1 \
		numtxqueues "$q" numrxqueues "$q" || exit 1
	ip -n "$NS" link set m0 up && ip -n "$NS" link set m1 up || exit 1
	for feat in none default all; do
		ps attach m0 --features "$feat" >/dev/null || exit 1
		ATTACHED=1
		[ $first = 1 ] || echo ',' >>"$OUT"
		first=0
		collect "$q" "$feat" >>"$OUT" || {
			echo "memory: cannot read the attachment's maps" >&2
			exit 1
		}
		ps detach m0 >/dev/null || exit 1
		ATTACHED=
	done
	ip -n "$NS" link del m0 || exit 1
done
echo ']' >>"$OUT"
exit 0
