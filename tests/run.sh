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
# PS_JOBS: how many tests may run at once (default 2). Two kinds of test
# always run alone, with nothing beside them, whatever PS_JOBS says (the
# lists below, ALONE_TIMING and ALONE_CENSUS): those that hold a latency to
# a clock outside pathscope, and those that count the machine's BPF objects
# and pins. Every other test builds its own namespaces and counts only its
# own traffic, so two of them may share the machine. First the tests that
# may share run, two at a time, each one's output printed whole when it
# ends; then the others, one by one, their output as it comes. With
# PS_JOBS=1 every test runs alone, in the order of the list.
# A test that leaves an attachment behind (a directory under
# /sys/fs/bpf/pathscope/<netns>/ that was not there before it, whose
# namespace is gone) fails, and the runner removes what it left, so that the
# next test's census starts clean. Only such orphans: an attachment whose
# namespace lives may be another runner's (test_runner runs one beside
# other tests).
# The run fails too if, at its end, an attachment is there whose namespace
# is gone that was not there at its start.
set -u
cd "$(dirname "$0")/.." || exit 1
patterns=${1:-}
timeout_s=${PS_TEST_TIMEOUT:-600}
integration=${PS_INTEGRATION_DIR:-tests/integration}
jobs=${PS_JOBS:-2}
passed=0 failed=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Tests (file names) that time a latency against a reference outside
# pathscope (a delay line, a reader's clock, a shaped qdisc, brackets of
# CLOCK_MONOTONIC around crafted frames, the machine's softirq time in
# /proc/stat, ftrace's events, which it filters by device name): another test
# beside them would move what they measure. A new
# latency test goes here.
ALONE_TIMING=" test_d2s test_echo test_tcp_brackets test_d2s.sh test_heatmap.sh test_icmp_rtt.sh
	test_kernel_path.sh test_sock.sh test_tcp_delay.sh test_txcompletion.sh test_txlat.sh
	test_firsthop.sh "
# Tests that take a census of the machine's BPF programs, maps, links and
# pins, or of libxdp's and xdp-filter's machine-wide pins (lib.sh's
# ps_census): another test's objects would show in it. test_gone runs the
# machine-wide `detach --gone`, which would take another test's deliberate
# leftovers (test_faults' deleted interface) from under it.
ALONE_CENSUS=" test_attach_detach.sh test_cli.sh test_coexist_dispatcher.sh test_faults_hooks.sh
	test_coexist_xdptools.sh test_faults.sh test_faults_ident.sh test_gone.sh "

bad_number() { # NAME VALUE: not a number > 0
	case $2 in '' | *[!0-9]* | 0) ;; *) return 1 ;; esac
	echo "not ok - tests/run.sh: $1 must be a number > 0, not '$2'"
	echo "0 passed, 1 failed, 0 skipped"
}
bad_number "PS_TEST_TIMEOUT (seconds)" "$timeout_s" && exit 1
bad_number PS_JOBS "$jobs" && exit 1

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

alone() { # PATH: must it run alone?
	[ "$jobs" -eq 1 ] && return 0
	case "$ALONE_TIMING $ALONE_CENSUS" in *[[:space:]]"${1##*/}"[[:space:]]*) return 0 ;; esac
	return 1
}

# The attachment directories that exist now, one per line.
attachments() { find /sys/fs/bpf/pathscope -mindepth 2 -maxdepth 2 -type d 2>/dev/null | sort; }
# Of the attachment directories on stdin, those whose network namespace (the
# first component below pathscope/: its inode) no longer exists.
orphans() {
	local live d d2
	live=" $(stat -Lc %i /var/run/netns/* /proc/[0-9]*/ns/net 2>/dev/null | sort -u | tr '\n' ' ') "
	while read -r d; do
		[ -n "$d" ] || continue
		d2=${d#/sys/fs/bpf/pathscope/}
		case $live in *" ${d2%%/*} "*) ;; *) echo "$d" ;; esac
	done
}

# ---- running tests -------------------------------------------------------------
# Each test runs in a process group of its own (setsid), so that a timeout
# or Ctrl-C reaches what it started too (sinks, servers, the delay line).
# Per running test, by the group's PID: its name, start, deadline, log and
# the attachments before it.
declare -A NAME=() T0=() DEADLINE=() LOG=() BEFORE=() TIMED_OUT=() BESIDE=()
nlogs=0

stop_group() { # PID: SIGTERM to the group, SIGKILL 30 s later if still there
	local _
	kill -TERM -- "-$1" 2>/dev/null || return 0
	for _ in $(seq 150); do
		kill -0 -- "-$1" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL -- "-$1" 2>/dev/null
}
on_signal() {
	local pid
	for pid in "${!NAME[@]}"; do stop_group "$pid"; done
	rm -rf "$tmp"
	exit 130
}
trap on_signal INT TERM

# start NAME STREAM CMD...: start the test in the background; with STREAM=1
# its output also goes to this terminal as it comes. Sets STARTED (its PID).
start() {
	local name=$1 stream=$2 log pid
	shift 2
	nlogs=$((nlogs + 1))
	log=$tmp/$nlogs.log
	if [ "$stream" = 1 ]; then
		echo "# $name"
		# shellcheck disable=SC2016 # expanded by that bash
		# tee ignores TERM and INT: what the test prints while its trap
		# cleans up still gets through.
		PS_RUN_LOG=$log setsid bash -c \
			'"$@" 2>&1 | (trap "" TERM INT; exec tee "$PS_RUN_LOG"); exit "${PIPESTATUS[0]}"' \
			sh "$@" &
	else
		# shellcheck disable=SC2016
		PS_RUN_LOG=$log setsid bash -c '"$@" >"$PS_RUN_LOG" 2>&1' sh "$@" &
	fi
	STARTED=$!
	# Which tests ran beside which: a leftover is theirs or this one's.
	for pid in "${!NAME[@]}"; do
		BESIDE[$pid]+=" $name"
		BESIDE[$STARTED]+=" ${NAME[$pid]}"
	done
	NAME[$STARTED]=$name T0[$STARTED]=$SECONDS LOG[$STARTED]=$log
	DEADLINE[$STARTED]=$((SECONDS + timeout_s)) BEFORE[$STARTED]=$(attachments)
}

# finish PID STREAMED: collect an ended test: its output (unless streamed),
# its counts, its leftovers, its time.
finish() {
	local pid=$1 streamed=$2 rc=0 p f s left name log
	name=${NAME[$pid]} log=${LOG[$pid]}
	wait "$pid" || rc=$?
	[ "$streamed" = 1 ] || { echo "# $name"; cat "$log"; }
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	s=$(grep -c '^skip - ' "$log")
	if [ -n "${TIMED_OUT[$pid]:-}" ]; then
		echo "not ok - $name: timed out after $timeout_s s"
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc"
		f=1
	fi
	left=$(comm -13 <(echo "${BEFORE[$pid]}") <(attachments) | orphans)
	if [ -n "$left" ]; then
		left=$(tr '\n' ' ' <<<"$left")
		echo "not ok - $name: left attachments behind: $left(removed)${BESIDE[$pid]:+; or one of the tests beside it:${BESIDE[$pid]}}"
		f=$((f + 1))
		# shellcheck disable=SC2086 # one path per word, as listed
		rm -rf $left
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "# $name: $((SECONDS - T0[$pid])) s"
	rm -f "$log"
	unset "NAME[$pid]" "T0[$pid]" "DEADLINE[$pid]" "LOG[$pid]" "BEFORE[$pid]" "TIMED_OUT[$pid]" "BESIDE[$pid]"
}

# Wait until one of the running tests ends (or its time is up); collect it.
reap_one() {
	local pid
	while :; do
		for pid in "${!NAME[@]}"; do
			if ! kill -0 "$pid" 2>/dev/null; then
				finish "$pid" "$1"
				return
			fi
			if [ "$SECONDS" -ge "${DEADLINE[$pid]}" ]; then
				TIMED_OUT[$pid]=1
				stop_group "$pid"
			fi
		done
		sleep 0.1
	done
}

command_of() { # PATH: the command that runs it (CMD as words in CMD_WORDS)
	# shellcheck disable=SC2206 # PS_WRAP is a command line, split into words
	case $1 in
	*.sh) CMD_WORDS=(bash "$1") ;;
	# PS_WRAP: a command to run the C tests under (make test-valgrind).
	*) CMD_WORDS=(${PS_WRAP:-} "$1") ;;
	esac
}

skipped_by_env() {
	local p
	for p in ${PS_TEST_SKIP:-}; do
		case "$1" in *"$p"*) return 0 ;; esac
	done
	return 1
}

run_start=$(attachments)
shared=() single=()
for t in "${tests[@]}"; do
	wanted "$t" || continue
	if skipped_by_env "$t"; then
		echo "# not run (PS_TEST_SKIP): $t"
		continue
	fi
	if alone "$t"; then single+=("$t"); else shared+=("$t"); fi
done

# The tests that may share the machine, PS_JOBS at a time.
for t in "${shared[@]}"; do
	[ "${#NAME[@]}" -ge "$jobs" ] && reap_one 0
	command_of "$t"
	start "$t" 0 "${CMD_WORDS[@]}"
done
while [ "${#NAME[@]}" -gt 0 ]; do reap_one 0; done

# Then one at a time, nothing beside them.
for t in "${single[@]}"; do
	command_of "$t"
	start "$t" 1 "${CMD_WORDS[@]}"
	reap_one 1
done

left=$(comm -13 <(echo "$run_start") <(attachments) | orphans | tr '\n' ' ')
if [ -n "$left" ]; then
	echo "not ok - tests/run.sh: attachments there at the end that were not at the start: $left(removed)"
	failed=$((failed + 1))
	# shellcheck disable=SC2086
	rm -rf $left
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
