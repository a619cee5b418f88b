#!/usr/bin/env bash
# bench/serve_hostile.sh OUT.json OUT.md: how `pathscope serve --web-config`
# answers Prometheus while clients misbehave (issue 41). In a testbed of two
# namespaces (tests/integration/lib.sh): serve in B, on a 2-queue veth,
# basic auth (cost 10), plain HTTP on one port and TLS on another; the
# hostile clients (tests/tools/hostile_http.py) in A, from 51 addresses; the
# scrapes from B's loopback, one at a time, curl's time_total each.
#   idle             20 scrapes of each port, nobody else
#   slow-1addr       the same while 500 connections from one address send a
#                    header line every 2 s and never finish (reconnecting
#                    when closed)
#   slow-50addr      the same with 200 such connections from 50 addresses
#   slow-shared      20 such connections from one address of A, and the
#                    scrapes from that same address (a NAT gateway, a shared
#                    Prometheus host), plain and TLS (issue 49)
#   flood            20 scrapes with the cached password and 20 of /healthz
#                    (TLS) while 64 clients send 300 wrong passwords
#   enumeration      10 wrong passwords each for a user of cost 4 (listed
#                    first), a user of cost 12, and a name nobody has
#   sigterm          serve's exit after SIGTERM with 40 cost-14 bcrypts in
#                    flight
# Targets (the issue's): every scrape under slow clients within 1 s; the
# flood's p99 (the slowest of 20) within 100 ms; SIGTERM within 2 s; an
# unknown name as dear as the dearest user. Asserts nothing.
# Environment: PS_BENCH_BUILD (build dir, default build).
set -u
OUT=${1:?usage: serve_hostile.sh OUT.json OUT.md}
MD=${2:?usage: serve_hostile.sh OUT.json OUT.md}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${PS_BENCH_BUILD:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
export PATHSCOPE=$BUILD_DIR/pathscope
. "$ROOT/tests/integration/lib.sh"
HOSTILE=$ROOT/tests/tools/hostile_http.py
ps_testbed_create 2 || exit 1
TMP=$(mktemp -d /tmp/psbench-hostile.XXXXXX)
chmod 755 "$TMP"
PORT_P=9481 PORT_T=9482 PORT_E=9483 B=198.18.0.2
P_PID='' T_PID='' ATK=''
ps_at_exit 'for p in $ATK $T_PID $P_PID; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'

cd "$TMP" || exit 1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=bench ca" >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr -subj "/CN=server" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1,IP:%s\n' "$B" >server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext >/dev/null 2>&1
PW='correct horse battery staple'
bcrypt() { python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << int(sys.argv[2]))))' "$1" "$2"; }
HASH=$(bcrypt "$PW" 10)
printf 'basic_auth_users:\n  prometheus: %s\n  slow: %s\n' "'$HASH'" "'$(bcrypt x 14)'" >plain.yml
printf 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\nbasic_auth_users:\n  prometheus: %s\n' "'$HASH'" >tls.yml
printf 'basic_auth_users:\n  fast: %s\n  slow: %s\n' "'$(bcrypt x 4)'" "'$(bcrypt x 12)'" >enum.yml
cd "$ROOT" || exit 1

serve() { # serve PORT CONFIG [ARGS]: sets LAST_PID
	local port=$1 conf=$2
	shift 2
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "0.0.0.0:$port" \
		--web-config "$TMP/$conf" "$@" >"$TMP/serve-$port.out" 2>"$TMP/serve-$port.err" &
	LAST_PID=$!
}
# scrape URL [CURL ARGS]: time_total in ms, or "fail"
# scrape URL [CURL ARGS]: one scrape from B's loopback (SCRAPE_IN=ps_in_a
# with --interface ADDR: from namespace A) -> its milliseconds, or "fail".
scrape() {
	local url=$1
	shift
	${SCRAPE_IN:-ps_in_b} curl -gs --max-time 10 --cacert "$TMP/ca.pem" -o /dev/null -w '%{http_code} %{time_total}\n' \
		-u "prometheus:$PW" "$@" "$url" | awk '$1 == 200 { printf "%.1f\n", $2 * 1000; next } { print "fail" }'
}
wait_ok() {
	for _ in $(seq 100); do [ "$(scrape "$1")" != fail ] && return 0; sleep 0.1; done
	return 1
}
P=http://127.0.0.1:$PORT_P/metrics T=https://127.0.0.1:$PORT_T/metrics
serve "$PORT_P" plain.yml
P_PID=$LAST_PID
wait_ok "$P" || { echo "serve_hostile: serve does not start: $(cat "$TMP/serve-$PORT_P.err")" >&2; exit 1; }
serve "$PORT_T" tls.yml --keep
T_PID=$LAST_PID
wait_ok "$T" || { echo "serve_hostile: TLS serve does not start: $(cat "$TMP/serve-$PORT_T.err")" >&2; exit 1; }
SRCS=
for i in $(seq 101 150); do
	ps_in_a ip addr add "198.18.0.$i/24" dev vA
	SRCS=$SRCS${SRCS:+,}198.18.0.$i
done

series() { # series NAME URL [CURL ARGS]: 20 scrapes -> "NAME ms ms ..." into $TMP/series
	local name=$1 url=$2 line
	shift 2
	line=$name
	for _ in $(seq 20); do line="$line $(scrape "$url" "$@")"; done
	echo "$line" >>"$TMP/series"
}
: >"$TMP/series"
series idle-plain "$P"
series idle-tls "$T"
attack() { # attack COUNT SOURCES CONNECTED: slow clients at both ports, 25 s at most
	ps_in_a python3 "$HOSTILE" slow "$B" "$PORT_P" --count "$1" --sources "$2" --reconnect --for 25 >"$TMP/atk-p.json" &
	ATK=$!
	ps_in_a python3 "$HOSTILE" slow "$B" "$PORT_T" --tls --count "$1" --sources "$2" --reconnect --for 25 >"$TMP/atk-t.json" &
	ATK="$ATK $!"
	for _ in $(seq 100); do # connected
		[ "$(ps_in_b ss -Htn state established "( sport = :$PORT_T )" | grep -vc 127.0.0.1)" -ge "$3" ] && break
		sleep 0.1
	done
}
attack 500 198.18.0.1 16
series slow-1addr-plain "$P"
series slow-1addr-tls "$T"
for p in $ATK; do wait "$p"; done
jq -c '{plain: input, tls: input}' -n "$TMP/atk-p.json" "$TMP/atk-t.json" >"$TMP/atk-1addr.json"
attack 200 "$SRCS" 150
series slow-50addr-plain "$P"
series slow-50addr-tls "$T"
for p in $ATK; do wait "$p"; done
jq -c '{plain: input, tls: input}' -n "$TMP/atk-p.json" "$TMP/atk-t.json" >"$TMP/atk-50addr.json"
# 20 slow clients that reconnect from the scrapes' own address (a NAT
# gateway, a shared Prometheus host): the scrapes come from there too.
SHARED=198.18.0.152
ps_in_a ip addr add "$SHARED/24" dev vA
attack 20 "$SHARED" 16
SCRAPE_IN=ps_in_a series slow-shared-plain "http://$B:$PORT_P/metrics" --interface "$SHARED"
SCRAPE_IN=ps_in_a series slow-shared-tls "https://$B:$PORT_T/metrics" --interface "$SHARED"
for p in $ATK; do wait "$p"; done
jq -c '{plain: input, tls: input}' -n "$TMP/atk-p.json" "$TMP/atk-t.json" >"$TMP/atk-shared.json"

scrape "$T" >/dev/null # the password cached
ps_in_a python3 "$HOSTILE" flood "$B" "$PORT_T" --tls --count 300 --clients 64 --sources "$SRCS" --auth prometheus:wrong >"$TMP/flood.json" &
ATK=$!
for _ in $(seq 100); do [ "$(ps_in_b ss -Htn state established "( sport = :$PORT_T )" | wc -l)" -ge 32 ] && break; sleep 0.01; done
line="flood-metrics-tls" hline="flood-healthz-tls"
for _ in $(seq 20); do
	line="$line $(scrape "$T")"
	hline="$hline $(scrape "https://127.0.0.1:$PORT_T/healthz")"
done
FLOOD_ON=$(kill -0 "$ATK" 2>/dev/null && echo true || echo false)
echo "$line" >>"$TMP/series"
echo "$hline" >>"$TMP/series"
wait "$ATK"
ATK=

# Enumeration: 10 wrong passwords per name, one at a time, each timed.
serve "$PORT_E" enum.yml --keep
E_PID=$LAST_PID
for _ in $(seq 100); do ps_in_b bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT_E" 2>/dev/null && break; sleep 0.1; done
: >"$TMP/enum"
for name in fast slow nobody; do
	line=$name
	for _ in $(seq 10); do
		line="$line $(ps_in_b curl -s -o /dev/null -w '%{time_total}' -u "$name:wrong" "http://127.0.0.1:$PORT_E/metrics" | awk '{ printf "%.1f", $1 * 1000 }')"
	done
	echo "$line" >>"$TMP/enum"
done
kill "$E_PID"
_ps_reap "$E_PID"

kill "$T_PID"
_ps_reap "$T_PID"
T_PID=
ps_in_a python3 "$HOSTILE" flood "$B" "$PORT_P" --count 40 --clients 40 --sources "$SRCS" --timeout 5 --auth slow:wrong >/dev/null &
ATK=$!
for _ in $(seq 100); do [ "$(ps_in_b ss -Htn state established "( sport = :$PORT_P )" | wc -l)" -ge 20 ] && break; sleep 0.01; done
t0=$(date +%s%N)
kill -TERM "$P_PID"
wait "$P_PID"
SIGTERM_MS=$((($(date +%s%N) - t0) / 1000000))
P_PID=
wait "$ATK" 2>/dev/null
ATK=

python3 - "$TMP" "$OUT" "$MD" "$FLOOD_ON" "$SIGTERM_MS" "$(git -C "$ROOT" rev-parse --short HEAD)" <<'EOF'
import json, sys, statistics as st
tmp, out, md, flood_on, sigterm_ms, commit = sys.argv[1:]
def nums(xs):
    return [float(x) for x in xs if x != "fail"]
rows = []
for line in open(tmp + "/series"):
    name, *xs = line.split()
    v = nums(xs)
    rows.append({"case": name, "scrapes": len(xs), "failed": len(xs) - len(v),
                 "p50_ms": st.median(v) if v else None, "max_ms": max(v) if v else None})
enum = {}
for line in open(tmp + "/enum"):
    name, *xs = line.split()
    enum[name] = st.median(nums(xs))
res = {"commit": commit, "rows": rows, "enumeration_median_ms": enum,
       "attack_1addr": json.load(open(tmp + "/atk-1addr.json")),
       "attack_50addr": json.load(open(tmp + "/atk-50addr.json")),
       "attack_shared": json.load(open(tmp + "/atk-shared.json")),
       "flood_codes": json.load(open(tmp + "/flood.json")), "flood_still_on_after_scrapes": flood_on == "true",
       "sigterm_ms": int(sigterm_ms)}
json.dump(res, open(out, "w"), indent=1)
L = ["## serve under hostile clients (`bench/serve_hostile.sh`, %s)" % commit, "",
     "| case | scrapes | failed | p50 ms | slowest ms | target |", "|---|---|---|---|---|---|"]
for r in rows:
    tgt = "each < 1000 ms" if r["case"].startswith("slow") else "slowest <= 100 ms" if r["case"].startswith("flood") else ""
    ok = ""
    if tgt and r["max_ms"] is not None:
        ok = " **met**" if (r["failed"] == 0 and r["max_ms"] < (1000 if r["case"].startswith("slow") else 100.0001)) else " **missed**"
    elif tgt:
        ok = " **missed**"
    f = lambda x: "-" if x is None else "%.1f" % x
    L.append("| %s | %d | %d | %s | %s | %s%s |" % (r["case"], r["scrapes"], r["failed"], f(r["p50_ms"]), f(r["max_ms"]), tgt, ok))
L += ["", "Slow clients (hostile_http.py's counts): one address %s; 50 addresses %s; "
        "20 from the scrapes' own address %s." % (
        json.dumps(res["attack_1addr"]), json.dumps(res["attack_50addr"]),
        json.dumps(res["attack_shared"])),
      "Flood of 300 wrong passwords from 64 clients: %s (still on after the scrapes: %s)." % (
        json.dumps(res["flood_codes"], sort_keys=True), res["flood_still_on_after_scrapes"]),
      "Enumeration, median of 10 wrong passwords: %s ms (unknown/dearest %.2f)." % (
        ", ".join("%s %.1f" % kv for kv in enum.items()), enum["nobody"] / enum["slow"]),
      "SIGTERM with 40 cost-14 bcrypts in flight: exit after %d ms (target 2000: %s)." % (
        res["sigterm_ms"], "**met**" if res["sigterm_ms"] <= 2000 else "**missed**"), ""]
open(md, "w").write("\n".join(L))
print("\n".join(L))
EOF
