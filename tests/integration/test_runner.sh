#!/usr/bin/env bash
# Self-test of tests/run.sh: a pattern that matches no test fails; a test that
# runs past PS_TEST_TIMEOUT is reported as timed out and its process group is
# ended, its trap removing its namespaces (nothing of it is left); a test
# that exits non-zero without saying why fails; and CI detection (lib.sh's
# ps_skip, the C tests' check_skip) treats any CI but "", "0" and "false"
# as CI. The runs of tests/run.sh here use tests of their own, written into
# a temporary directory (PS_INTEGRATION_DIR) and no C tests (PS_BUILD); their
# output is checked, not passed on.
# Also: two tests run side by side and a timing test after both, alone;
# PS_JOBS=1 runs one at a time, in order; a test that leaves an attachment of
# a gone namespace fails, and the attachment is removed.
. "$(dirname "$0")/lib.sh"
ps_require_root runner
ps_require_cmd runner setsid ip

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
runner() { # ENV... : run tests/run.sh on $TMP's tests; output in $TMP/out
	env PS_INTEGRATION_DIR="$TMP" PS_BUILD="$TMP/no-build" "$@" \
		bash "$PS_ROOT/tests/run.sh" "${PATTERN:-}" >"$TMP/out" 2>&1
}

# ---- a pattern that matches nothing --------------------------------------------
cat >"$TMP/test_fine.sh" <<'EOF'
echo "ok - fine"
EOF
rc=0
PATTERN="fine no_such_test" runner || rc=$?
ps_check_eq "a pattern that matches no test fails (status, report, summary)" \
	"$rc|$(grep -c "^not ok - tests/run.sh: no test matches 'no_such_test'$" "$TMP/out")|$(tail -1 "$TMP/out")" \
	"1|1|1 passed, 1 failed, 0 skipped"
rc=0
PATTERN=fine runner || rc=$?
ps_check_eq "a pattern that matches a test runs it" "$rc|$(tail -1 "$TMP/out")" "0|1 passed, 0 failed, 0 skipped"
rm "$TMP/test_fine.sh"

# ---- exit status without a report -----------------------------------------------
cat >"$TMP/test_exit.sh" <<'EOF'
exit 3
EOF
rc=0
runner || rc=$?
ps_check_eq "a test that exits 3 without a report fails" \
	"$rc|$(grep -c "^not ok - $TMP/test_exit.sh: exited with status 3$" "$TMP/out")|$(tail -1 "$TMP/out")" \
	"1|1|0 passed, 1 failed, 0 skipped"
rm "$TMP/test_exit.sh"

# ---- the timeout ------------------------------------------------------------------
# A test that builds a testbed, starts a process in one of its namespaces and
# one in the background here, then hangs.
cat >"$TMP/test_hang.sh" <<EOF
. "$PS_ROOT/tests/integration/lib.sh"
ps_testbed_create 1 || exit 9
echo "# testbed \$NS_A \$NS_B"
ip netns exec "\$NS_B" sleep 300 &
echo "# pid \$!"
sleep 301 &
echo "# pid \$!"
echo "ok - up"
sleep 302
echo "ok - not reached"
EOF
rc=0 start=$SECONDS
PS_TEST_TIMEOUT=5 runner || rc=$? # its testbed is up in ~1 s
took=$((SECONDS - start))
ps_check_eq "a test past PS_TEST_TIMEOUT fails as timed out (status, report, summary)" \
	"$rc|$(grep -c "^not ok - $TMP/test_hang.sh: timed out after 5 s$" "$TMP/out")|$(tail -1 "$TMP/out")" \
	"1|1|1 passed, 1 failed, 0 skipped"
[ "$took" -lt 22 ] && ps_ok "the runner went on after the timeout ($took s)" ||
	ps_fail "the runner went on after the timeout" "it took $took s"
read -r _ _ ns_a ns_b < <(grep '^# testbed ' "$TMP/out")
left=
for ns in $ns_a $ns_b; do [ -e "/var/run/netns/$ns" ] && left="$left $ns"; done
for pid in $(awk '/^# pid / { print $3 }' "$TMP/out"); do
	kill -0 "$pid" 2>/dev/null && left="$left pid:$pid" && kill "$pid"
done
[ -n "$ns_a" ] && ps_check_eq "after the timeout: its namespaces ($ns_a $ns_b) and its processes are gone" \
	"${left:-none}" none || ps_fail "the timed-out test built its testbed" "$(cat "$TMP/out")"
rm "$TMP/test_hang.sh"

# ---- two at a time, and alone ------------------------------------------------------
# Two tests that may share the machine run at once: each waits (at most 2 s)
# for the other's file. test_sock.sh is a timing test (the runner's list):
# it runs after them, alone. Each notes its start and end (epoch ns) in
# $TMP/spans.
for t in a b; do
	o=$([ $t = a ] && echo b || echo a)
	cat >"$TMP/test_pair_$t.sh" <<EOF
echo "$t \$(date +%s%N) start" >>"$TMP/spans"
touch "$TMP/here.$t"
for _ in \$(seq 20); do [ -e "$TMP/here.$o" ] && break; sleep 0.1; done
[ -e "$TMP/here.$o" ] && echo "ok - $t met $o" || echo "not ok - $t: $o never ran beside it"
echo "$t \$(date +%s%N) end" >>"$TMP/spans"
EOF
done
cat >"$TMP/test_sock.sh" <<EOF
echo "sock \$(date +%s%N) start" >>"$TMP/spans"
echo "ok - alone"
echo "sock \$(date +%s%N) end" >>"$TMP/spans"
EOF
rc=0
runner || rc=$?
ps_check_eq "PS_JOBS 2: two tests side by side, then the timing test (status, summary)" \
	"$rc|$(tail -1 "$TMP/out")" "0|3 passed, 0 failed, 0 skipped"
ps_check_eq "the timing test ran after both others had ended" \
	"$(sort -k2,2n "$TMP/spans" | awk '{ print $1, $3 }' | tail -2 | tr '\n' ' ')" "sock start sock end "
rm -f "$TMP/spans" "$TMP"/here.*
rc=0
PS_JOBS=1 runner || rc=$?
ps_check_eq "PS_JOBS 1: one at a time in the list's order (a waits for b in vain)" \
	"$rc|$(grep -c '^not ok - a: b never ran beside it$' "$TMP/out")|$(awk '{ print $1 }' "$TMP/spans" | uniq | tr '\n' ' ')" \
	"1|1|a b sock "
rm -f "$TMP"/test_pair_* "$TMP/test_sock.sh" "$TMP/spans" "$TMP"/here.*
rc=0
PS_JOBS=x runner || rc=$?
ps_check_eq "PS_JOBS must be a number" "$rc|$(head -1 "$TMP/out")" \
	"1|not ok - tests/run.sh: PS_JOBS must be a number > 0, not 'x'"

# ---- an attachment left behind -------------------------------------------------------
# A test beside another that leaves the directory of an attachment whose
# namespace is gone (an inode no namespace has) fails; the runner removes it.
ghost=/sys/fs/bpf/pathscope/1/$$
cat >"$TMP/test_leak.sh" <<EOF
mkdir -p "$ghost"
echo "ok - leaked"
EOF
cat >"$TMP/test_fine.sh" <<'EOF'
echo "ok - fine"
EOF
rc=0
runner || rc=$?
# Side by side, the runner cannot tell which of the two left it: the one
# that ends first names itself and the other.
ps_check_eq "a test that leaves an attachment of a gone namespace fails; it is removed" \
	"$rc|$(grep -cE "^not ok - $TMP/test_(leak|fine).sh: left attachments behind: $ghost \(removed\)(; or one of the tests beside it: $TMP/test_(leak|fine).sh)?$" "$TMP/out")|$([ -e "$ghost" ] && echo left)|$(tail -1 "$TMP/out")" \
	"1|1||2 passed, 1 failed, 0 skipped"
rmdir /sys/fs/bpf/pathscope/1 2>/dev/null
rm -f "$TMP/test_leak.sh" "$TMP/test_fine.sh"

# ---- CI detection -------------------------------------------------------------------
cat >"$TMP/skip.sh" <<EOF
. "$PS_ROOT/tests/integration/lib.sh"
ps_skip thing "cannot"
EOF
for ci in "" 0 false FALSE 1 true yes; do
	got=$(CI=$ci bash "$TMP/skip.sh" | cut -d' ' -f1-2)
	case $ci in "" | 0 | false | FALSE) want="skip -" ;; *) want="not ok" ;; esac
	ps_check_eq "lib.sh: CI='$ci': a skip is '$want'" "$got" "$want"
done
ps_check_eq "lib.sh: CI unset: a skip is 'skip -'" "$(env -u CI bash "$TMP/skip.sh" | cut -d' ' -f1-2)" "skip -"
ps_done
