#!/usr/bin/env bash
# Run every libFuzzer target of BUILD/fuzz for SECONDS each, starting from
# tests/fuzz/corpus/NAME (copied, so git's copy stays as it is). Inputs that
# once crashed a target are kept in tests/fuzz/regressions/NAME and replayed
# first. Prints one ok/not ok line per target and "N passed, N failed".
# Usage: tests/fuzz/run.sh BUILD SECONDS
set -u
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz} secs=${2:-60}
passed=0 failed=0
for f in "$build"/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	name=$(basename "$f")
	corpus=$build/corpus/$name artifacts=$build/artifacts/$name/
	mkdir -p "$corpus" "$artifacts"
	cp -n tests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null
	log=$build/$name.log
	if [ -d "tests/fuzz/regressions/$name" ] &&
		! "$f" tests/fuzz/regressions/"$name"/* >"$log" 2>&1; then
		echo "not ok - fuzz $name: a regression input fails again (see $log)"
		failed=$((failed + 1))
		continue
	fi
	if "$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1; then
		runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
		echo "ok - fuzz $name: ${runs:-?} inputs in $secs s, no crash"
		passed=$((passed + 1))
	else
		echo "not ok - fuzz $name: crashed; reproducer in $artifacts (copy it to tests/fuzz/regressions/$name/), log $log"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
