#!/usr/bin/env bash
# Run every pathscope test and end with one line: "N passed, N failed, N skipped".
# Each test program prints "ok - NAME", "not ok - NAME: WHY" or "skip - NAME: WHY";
# a program that exits non-zero without reporting a failure counts as one failure.
# With CI=true, a test that cannot run (no BPF, no root) fails instead of skipping.
# Usage: tests/run.sh ["PATTERN..."]   (run only tests whose path contains one of
#        the space-separated PATTERNs)
set -u
cd "$(dirname "$0")/.."
patterns=${1:-}
wanted() {
	local p
	[ -z "$patterns" ] && return 0
	for p in $patterns; do
		case "$1" in *"$p"*) return 0 ;; esac
	done
	return 1
}
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() {
	local name=$1
	shift
	echo "# $name"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	local p f s
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	s=$(grep -c '^skip - ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

for t in "${PS_BUILD:-build}"/tests/test_*; do
	[ -x "$t" ] || continue
	# PS_WRAP: a command to run the C tests under (make test-valgrind).
	wanted "$t" && run_one "$t" ${PS_WRAP:-} "$t"
done
for t in tests/integration/test_*.sh; do
	[ -f "$t" ] || continue
	wanted "$t" && run_one "$t" bash "$t"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
