#!/usr/bin/env bash
# Run every libFuzzer target of BUILD/fuzz for SECONDS each, starting from
# tests/fuzz/corpus/NAME (copied, so git's copy stays as it is). Inputs that
# once crashed a target are kept in tests/fuzz/regressions/NAME. Both are
# replayed first, each input once (a few seconds of fuzzing need not reach
# every seed's checks), with the same 10 s per input. Prints one ok/not ok
# line per target and "N passed, N failed".
# Targets run PS_JOBS at a time (default 2: each fuzzer uses one CPU).
# Usage: tests/fuzz/run.sh BUILD SECONDS
set -u
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build-fuzz} secs=${2:-60} jobs=${PS_JOBS:-2}
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT

# NAME: fuzz one target; its report line into $res/NAME.
fuzz_one() {
	local f=$build/fuzz/$1 name=$1 corpus artifacts log runs i files=()
	corpus=$build/corpus/$name artifacts=$build/artifacts/$name/ log=$build/$name.log
	mkdir -p "$corpus" "$artifacts"
	cp -n tests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null
	for i in tests/fuzz/corpus/"$name"/* tests/fuzz/regressions/"$name"/*; do
		[ -f "$i" ] && files+=("$i")
	done
	if [ "${#files[@]}" -gt 0 ] && ! "$f" -timeout=10 "${files[@]}" >"$log" 2>&1; then
		echo "not ok - fuzz $name: a seed or regression input fails (see $log)"
		return
	fi
	if "$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1; then
		runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
		echo "ok - fuzz $name: ${runs:-?} inputs in $secs s, no crash"
	else
		echo "not ok - fuzz $name: crashed; reproducer in $artifacts (copy it to tests/fuzz/regressions/$name/), log $log"
	fi
}

names=()
for f in "$build"/fuzz/fuzz_*; do
	[ -x "$f" ] && names+=("$(basename "$f")")
done
running=0
for name in "${names[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	fuzz_one "$name" >"$res/$name" &
	running=$((running + 1))
done
wait
for name in "${names[@]}"; do cat "$res/$name"; done
passed=$(cat "$res"/* 2>/dev/null | grep -c '^ok - ')
failed=$(cat "$res"/* 2>/dev/null | grep -c '^not ok - ')
[ "${#names[@]}" -gt 0 ] || { echo "not ok - fuzz: no target in $build/fuzz"; failed=1; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
