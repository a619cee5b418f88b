#!/usr/bin/env bash
# Every write checked (issue 49, item 7): a report that did not reach its
# file or reader is never a success. With vB attached:
#   stats --json > /dev/full: exit 1, "cannot write standard output: No space
#     left on device";
#   stats --interval 0.1 | head -c10 with SIGPIPE ignored: exit 141 (as if
#     SIGPIPE had ended it), nothing on stderr, within a second (not after
#     its --count of 100);
#   serve --jsonl /dev/full: "cannot write /dev/full: No space left on
#     device" at each interval; a jsonl on a full tmpfs ends on a complete
#     line (each line parses);
#   heatmap's --record and SVG on a full tmpfs (a mount namespace of its own):
#     exit 1 with the reason; the recording ends on a complete line (here:
#     none fit), the SVG is not left (not a truncated or 0-byte one); SVG to
#     /dev/full: exit 1 with the reason.
. "$(dirname "$0")/lib.sh"
ps_require_root writes
ps_require_file writes "$PATHSCOPE"
ps_require_cmd writes jq curl

ps_testbed_create 2 || { ps_fail writes "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
SPID=''
ps_at_exit '[ -n "$SPID" ] && { kill $SPID; _ps_reap $SPID; }; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'
ps_pathscope_b attach vB --features default >/dev/null || ps_fail "attach vB" "exit $?"

# ---- standard output -------------------------------------------------------------------
rc=0
ps_pathscope_b stats vB --json >/dev/full 2>"$TMP/err" || rc=$?
ps_check_eq "stats --json > /dev/full: exit 1 and the reason" "$rc $(cat "$TMP/err")" \
	"1 pathscope: cannot write standard output: No space left on device"
rc=0
ps_pathscope_b stats vB >/dev/full 2>"$TMP/err" || rc=$?
ps_check_eq "stats (the table) > /dev/full: exit 1 and the reason" "$rc $(cat "$TMP/err")" \
	"1 pathscope: cannot write standard output: No space left on device"
t0=$(date +%s%N)
out=$( (trap '' PIPE; nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" stats vB --interval 0.1 --count 100 2>"$TMP/err"; echo "rc $?" >"$TMP/rc") | head -c10 | wc -c)
ms=$((($(date +%s%N) - t0) / 1000000))
ps_check_eq "stats --interval | head -c10, SIGPIPE ignored: ends with 141, quietly, at once" \
	"$out $(cat "$TMP/rc") [$(cat "$TMP/err")] $([ "$ms" -lt $((5000 * PS_SLOW)) ] && echo fast || echo "slow: $ms ms")" \
	"10 rc 141 [] fast"

# ---- serve --jsonl -------------------------------------------------------------------------
nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen 127.0.0.1:9476 --jsonl /dev/full \
	--interval 0.2 >/dev/null 2>"$TMP/serve.err" &
SPID=$!
for _ in $(seq $((50 * PS_SLOW))); do
	[ "$(grep -c 'cannot write' "$TMP/serve.err")" -ge 2 ] && break
	sleep 0.1
done
kill -TERM "$SPID"
wait "$SPID"
rc=$?
SPID=''
ps_check_eq "serve --jsonl /dev/full: each interval says why, once" \
	"$(grep 'cannot write' "$TMP/serve.err" | sort -u)" "pathscope: cannot write /dev/full: No space left on device"
ps_check_eq "... and serve goes on, exits 0 on SIGTERM" "$rc" 0

# A tmpfs of 64 KiB in a mount namespace of this test's own: full after a
# few reports.
full() { # full CMD...: CMD in namespace B with $TMP/full a 64 KiB tmpfs
	unshare -m sh -c 'mount -t tmpfs -o size=64k ps-full "$0/full" && shift 0 && exec "$@"' \
		"$TMP" nsenter --net="/var/run/netns/$NS_B" "$@"
}
mkdir -p "$TMP/full"
rc=0
full sh -c '"$0" serve vB --listen 127.0.0.1:9477 --jsonl "$1/full/run.jsonl" --interval 0.05 >/dev/null 2>"$1/serve2.err" &
	pid=$!
	# three failed intervals: the file was cut back and opened again twice
	for i in $(seq 100); do [ "$(grep -c "cannot write" "$1/serve2.err")" -ge 3 ] && break; sleep 0.1; done
	kill -TERM $pid; wait $pid; echo "rc $?"
	jq -c .schema "$1/full/run.jsonl" >/dev/null 2>&1 && echo "every line parses" || echo "a line does not parse"
	tail -c1 "$1/full/run.jsonl" | od -An -tx1' "$PATHSCOPE" "$TMP" >"$TMP/full.out" || rc=$?
ps_check_eq "serve --jsonl on a full disk: the file ends on a complete line" \
	"$(tr -s '\n ' ' ' <"$TMP/full.out")" "rc 0 every line parses 0a "
ps_check_eq "... and serve said why" "$(grep -c 'cannot write .*/full/run.jsonl: No space left on device' "$TMP/serve2.err")" \
	"$(grep -c 'cannot write' "$TMP/serve2.err")"

# ---- heatmap -----------------------------------------------------------------------------
rc=0
ps_pathscope_b heatmap d2s vB --duration 0.2 --interval 0.1 -o /dev/full 2>"$TMP/err" || rc=$?
ps_check_eq "heatmap -o /dev/full: exit 1 and the reason" "$rc $(cat "$TMP/err")" \
	"1 pathscope: cannot write /dev/full: No space left on device"
# The tmpfs filled but for 2 KiB: less than one report, less than the SVG.
full sh -c 'head -c 62k /dev/zero >"$1/full/pad"
	"$0" heatmap d2s vB --duration 0.3 --interval 0.1 --record "$1/full/run.jsonl" >/dev/null 2>"$1/rec.err"
	echo "record rc $?"
	"$0" heatmap d2s vB --duration 0.2 --interval 0.1 -o "$1/full/h.svg" 2>"$1/svg.err"
	echo "svg rc $?"
	echo bytes $(stat -c %s "$1/full/run.jsonl")
	ls "$1/full"' "$PATHSCOPE" "$TMP" >"$TMP/heat.out"
ps_check_eq "heatmap --record and -o on a full disk: exit 1 each; the recording on complete lines (none fit), no SVG" \
	"$(tr '\n' ' ' <"$TMP/heat.out")" "record rc 1 svg rc 1 bytes 0 pad run.jsonl "
ps_check_eq "... each with the reason" "$(cat "$TMP/rec.err" "$TMP/svg.err")" \
	"pathscope: cannot write $TMP/full/run.jsonl: No space left on device
pathscope: cannot write $TMP/full/h.svg: No space left on device"
ps_done
