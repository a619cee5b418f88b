#!/usr/bin/env bash
# After make test-asan: every report of AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer went to a file of its own in DIR (log_path), so
# that none is lost where a test ignores a command's status or output (inside
# $(...), a cleanup's >/dev/null, a background watcher). Print each and fail
# when there is one.
# Usage: tests/sanitizer-logs.sh DIR
set -u
dir=$1
n=0
for log in "$dir"/*; do
	[ -f "$log" ] || continue
	n=$((n + 1))
	echo "# sanitizer report: $log"
	head -60 "$log"
done
echo "# sanitizers: $n reports in $dir"
[ "$n" -eq 0 ]
