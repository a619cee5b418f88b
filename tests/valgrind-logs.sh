#!/usr/bin/env bash
# After make test-valgrind: print every valgrind log that reports an error
# (valgrind's notes on bpf() commands it does not model are not errors) and
# fail when there is one.
# Usage: tests/valgrind-logs.sh DIR
set -u
dir=$1
total=0 bad=0
for log in "$dir"/*.log; do
	[ -f "$log" ] || continue
	total=$((total + 1))
	if grep -v -e 'WARNING: unhandled eBPF command' -e '^--[0-9]*-- *$' "$log" | grep -q .; then
		bad=$((bad + 1))
		echo "# valgrind: $log"
		head -60 "$log"
	fi
done
echo "# valgrind: $total runs logged, $bad with errors"
[ "$bad" -eq 0 ]
