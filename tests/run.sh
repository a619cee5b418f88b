#!/usr/bin/env bash
# Run every pathscope test and end with one line: "N passed, N failed, N skipped".
# Each test program prints "ok - NAME", "not ok - NAME: WHY" or "skip - NAME: WHY";
# a program that exits non-zero without reporting a failure counts as one failure.
# With CI set to anything but "", "0" or "false", a test that cannot run (no BPF,
# no root) fails instead of skipping.
# Usage: tests/run.sh ["PATTERN..."]   (run only tests whose path contains one of
#        the space-separated PATTERNs; a PATTERN that matches no test fails)
# PS_TEST_TIMEOUT: seconds one test program may run (default 600); then its
# whole process group gets SIGTERM (the integration tests' traps remove their
# namespaces), SIGKILL 30 s later if anything is left, and the test fails:
# "timed out after N s".
# PS_INTEGRATION_DIR: where the shell tests are (default tests/integration).
# PS_TEST_SKIP: space-separated path patterns of tests not to run (each is
# named in a "# not run (PS_TEST_SKIP): PATH" line); make test-asan's
# ASAN_SKIP.
# A test that leaves an attachment behind (a directory under
# /sys/fs/bpf/pathscope/<netns>/ that was not there before it) fails, and the
# runner removes what it left, so that the next test's census starts clean.
set -u
cd "$(dirname "$0")/.." || exit 1
patterns=${1:-}
timeout_s=${PS_TEST_TIMEOUT:-600}
integration=${PS_INTEGRATION_DIR:-tests/integration}
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

case $timeout_s in '' | *[!0-9]* | 0)
	echo "not ok - tests/run.sh: PS_TEST_TIMEOUT must be a number of seconds > 0, not '$timeout_s'"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
	;;
esac

# Every test program, C tests first: "PATH" (C) or "sh PATH" (shell).
tests=()
for t in "${PS_BUILD:-build}"/tests/test_*; do
	[ -x "$t" ] && tests+=("$t")
done
for t in "$integration"/test_*.sh; do
	[ -f "$t" ] && tests+=("$t")
done

wanted() {
	local p
	[ -z "$patterns" ] && return 0
	for p in $patterns; do
		case "$1" in *"$p"*) return 0 ;; esac
	done
	return 1
}

# A pattern that matches nothing is a mistake (a typo would pass silently).
for p in $patterns; do
	found=
	for t in "${tests[@]}"; do
		case "$t" in *"$p"*) found=1 ;; esac
	done
	if [ -z "$found" ]; then
		echo "not ok - tests/run.sh: no test matches '$p'"
		failed=$((failed + 1))
	fi
done

# The running test's process group, for the timeout and for Ctrl-C (the
# test runs in a session of its own, so the terminal's signals miss it).
current=
stop_current() { # SIGTERM to the group, SIGKILL 30 s later if still there
	local _
	kill -TERM -- "-$current" 2>/dev/null || return 0
	for _ in $(seq 150); do
		kill -0 -- "-$current" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL -- "-$current" 2>/dev/null
}
on_signal() {
	[ -n "$current" ] && stop_current
	rm -f "$log"
	exit 130
}
trap on_signal INT TERM

# The attachment directories that exist now, one per line.
attachments() { find /sys/fs/bpf/pathscope -mindepth 2 -maxdepth 2 -type d 2>/dev/null | sort; }

run_one() {
	local name=$1 rc=0 p f s deadline timed_out="" t0=$SECONDS before left
	shift
	echo "# $name"
	before=$(attachments)
	# setsid: a process group of its own, so that a timeout reaches what the
	# test started too (sinks, servers, the delay line). tee ignores TERM and
	# INT: what the test prints while its trap cleans up still gets through.
	PS_RUN_LOG=$log setsid bash -c \
		'"$@" 2>&1 | (trap "" TERM INT; exec tee "$PS_RUN_LOG"); exit "${PIPESTATUS[0]}"' \
		sh "$@" &
	current=$!
	deadline=$((SECONDS + timeout_s))
	while kill -0 "$current" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			timed_out=1
			stop_current
			break
		fi
		sleep 0.2
	done
	wait "$current" || rc=$?
	current=
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	s=$(grep -c '^skip - ' "$log")
	if [ -n "$timed_out" ]; then
		echo "not ok - $name: timed out after $timeout_s s"
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc"
		f=1
	fi
	left=$(comm -13 <(echo "$before") <(attachments) | grep . | tr '\n' ' ')
	if [ -n "$left" ]; then
		echo "not ok - $name: left attachments behind: $left(removed)"
		f=$((f + 1))
		# shellcheck disable=SC2086 # one path per word, as listed
		rm -rf $left
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "# $name: $((SECONDS - t0)) s"
}

skipped_by_env() {
	local p
	for p in ${PS_TEST_SKIP:-}; do
		case "$1" in *"$p"*) return 0 ;; esac
	done
	return 1
}

for t in "${tests[@]}"; do
	wanted "$t" || continue
	if skipped_by_env "$t"; then
		echo "# not run (PS_TEST_SKIP): $t"
		continue
	fi
	case $t in
	*.sh) run_one "$t" bash "$t" ;;
	# PS_WRAP: a command to run the C tests under (make test-valgrind).
	*) run_one "$t" ${PS_WRAP:-} "$t" ;;
	esac
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
