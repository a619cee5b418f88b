#!/usr/bin/env bash
# pathscope serve under hostile clients (tests/tools/hostile_http.py), in
# namespace B, attacked from namespace A's addresses; the scrapes come from
# B's loopback. Two serves of vB: P (plain HTTP, basic auth; it attaches)
# and T (TLS and basic auth; it adopts). Only what cannot be noise is
# asserted; the latencies are bench/serve_hostile.sh's.
#   1. slow headers: while 500 connections from one address (P) and 200
#      from 50 addresses (T, TLS) send a header line every 2 s and never end
#      them, 20 authenticated scrapes of each get 200; 10 connections that
#      send a header line every second (an idle timer never fires) are all
#      closed by serve, none before its 5 s deadline;
#   1b. 20 slow clients of one address that reconnect as serve closes them:
#      20 scrapes of each serve from that same address get 200 within 1 s
#      (a newcomer takes the slot of the address's oldest connection still
#      waiting for its headers);
#   2. bodies: a chunked POST without credentials gets 401 and a GET that
#      announces 1 MB gets 413, before any byte of them is sent; POST with
#      credentials 405;
#   3. a NUL in the password: the right password, a NUL and junk get 401;
#   4. a flood of 300 wrong passwords from 64 clients at once: none let in
#      (401, 503 when the checks' queue is full, or closed on a loaded
#      machine), while 20 scrapes with the cached password and 20 of /healthz
#      get 200 within 2 s each;
#   5. rotation: Prometheus scrapes T every 500 ms; its certificate and key
#      are replaced (another CN), and a user added: serve serves the new
#      certificate and takes the new user without a restart, the XDP program
#      is the same, and every scrape around it is up;
#   6. SIGTERM with bcrypts in flight (a cost-14 user, 40 wrong passwords):
#      P exits 0 within 2 s and detaches what it attached.
# The bounds in time (2 s, 2 scrapes a second) are the issue's, on a machine
# of its own (make test); under ASan beside the guests (.ci/run sets
# PS_SLOW) they stretch by PS_SLOW.
# On main 7fb081f, 15 of its checks fail.
. "$(dirname "$0")/lib.sh"
ps_require_root serve_hostile
ps_require_file serve_hostile "$PATHSCOPE"
ps_require_cmd serve_hostile curl jq openssl python3 prometheus bpftool

ps_testbed_create 2 || { ps_fail serve_hostile "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
chmod 755 "$TMP"
HOSTILE="$PS_ROOT/tests/tools/hostile_http.py"
PORT_P=9471 PORT_T=9472 PROM_PORT=9093 B=198.18.0.2
P_PID='' T_PID='' PROM_PID='' ATK=''
ps_at_exit 'for p in $ATK $T_PID $P_PID $PROM_PID; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'

# ---- certificates, hashes, configs --------------------------------------------------
cd "$TMP" || ps_done
ossl() { openssl "$@" >/dev/null 2>&1 || ps_fail "openssl $1" "exit $?"; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=pathscope test ca"
leaf() { # leaf NAME: a server certificate of the CA for 127.0.0.1 and B, CN=NAME
	ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$1"
	printf 'subjectAltName=IP:127.0.0.1,IP:%s\nextendedKeyUsage=serverAuth\n' "$B" >"$1.ext"
	ossl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days 2 -extfile "$1.ext"
}
leaf first
leaf rotated
cp first.pem server.pem
cp first.key server.key
PW='correct horse battery staple' PW2='a second password'
bcrypt() { python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << int(sys.argv[2]))))' "$1" "$2"; }
HASH=$(bcrypt "$PW" 10)
HASH2=$(bcrypt "$PW2" 10)
HASH14=$(bcrypt 'not this one' 14)
printf 'basic_auth_users:\n  prometheus: %s\n  slow: %s\n' "'$HASH'" "'$HASH14'" >plain.yml
tls_yml() { # the TLS config, with the users given
	printf 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\nbasic_auth_users:\n'
	printf '  %s\n' "$@"
}
tls_yml "prometheus: '$HASH'" >tls.yml
cd "$PS_ROOT" || ps_done

# Prometheus scrapes T from the start (its first scrape comes 5-7 s later).
mkdir -p "$TMP/prom"
cat >"$TMP/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 500ms
scrape_configs:
  - job_name: rot
    scheme: https
    basic_auth: { username: prometheus, password: '$PW' }
    tls_config: { ca_file: $TMP/ca.pem }
    static_configs: [ { targets: ['127.0.0.1:$PORT_T'] } ]
EOF
ps_in_b prometheus --config.file="$TMP/prom/prometheus.yml" --storage.tsdb.path="$TMP/prom/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$TMP/prom/log" 2>&1 &
PROM_PID=$!
PS_PROM_PORT=$PROM_PORT

start_serve() { # start_serve PORT CONFIG [ARGS...]: serve in B on every address; sets LAST_PID
	local port=$1 conf=$2
	shift 2
	nsenter --net="/var/run/netns/$NS_B" "$PATHSCOPE" serve vB --listen "0.0.0.0:$port" \
		--web-config "$conf" "$@" >"$TMP/serve-$port.out" 2>"$TMP/serve-$port.err" &
	LAST_PID=$!
}
# curl in B: curl ARGS... -> "HTTP_CODE EXIT"
req() {
	local rc=0 code
	code=$(ps_in_b curl -gs --max-time "${MAXT:-5}" --cacert "$TMP/ca.pem" -o /dev/null -w '%{http_code}' "$@") || rc=$?
	echo "$code $rc"
}
wait_ok() { # wait_ok URL...: until it answers 200 (10 s x PS_SLOW)
	local _
	for _ in $(seq $((100 * PS_SLOW))); do
		[ "$(req -u "prometheus:$PW" "$@")" = "200 0" ] && return 0
		sleep 0.1
	done
	return 1
}
P=http://127.0.0.1:$PORT_P T=https://127.0.0.1:$PORT_T
start_serve "$PORT_P" "$TMP/plain.yml"
P_PID=$LAST_PID
wait_ok "$P/healthz" || { ps_fail "serve P starts" "$(cat "$TMP/serve-$PORT_P.err")"; ps_done; }
start_serve "$PORT_T" "$TMP/tls.yml" --keep
T_PID=$LAST_PID
wait_ok "$T/healthz" || { ps_fail "serve T starts" "$(cat "$TMP/serve-$PORT_T.err")"; ps_done; }
PIN_DIR=$(find "/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")" -mindepth 1 -maxdepth 1)
XDP_ID=$(bpftool prog show pinned "$PIN_DIR/xdp_prog" -j | jq .id)

# ---- 1. slow headers -------------------------------------------------------------------
SRCS=
for i in $(seq 101 150); do
	ps_in_a ip addr add "198.18.0.$i/24" dev vA
	SRCS=$SRCS${SRCS:+,}198.18.0.$i
done
ps_in_a ip addr add 198.18.0.151/24 dev vA
ps_in_a python3 "$HOSTILE" slow "$B" "$PORT_P" --count 500 --sources 198.18.0.1 --reconnect --for 10 >"$TMP/slow-p.json" &
ATK="$!"
ps_in_a python3 "$HOSTILE" slow "$B" "$PORT_T" --tls --count 200 --sources "$SRCS" --reconnect --for 10 >"$TMP/slow-t.json" &
ATK="$ATK $!"
ps_in_a python3 "$HOSTILE" slow "$B" "$PORT_P" --count 10 --sources 198.18.0.151 --every 1 --for 8 >"$TMP/late.json" &
ATK="$ATK $!"
established() { ps_in_b ss -Htn state established "( sport = :$1 )" | grep -vc 127.0.0.1; }
for _ in $(seq $((100 * PS_SLOW))); do # the attack is on: its connections are in
	[ "$(established "$PORT_P")" -ge 16 ] && [ "$(established "$PORT_T")" -ge 150 ] && break
	sleep 0.1
done
ps_check_eq "the slow clients are connected (P: 16 of one address and the late ones; T: of 200 from 50 addresses, at least 150)" \
	"$([ "$(established "$PORT_P")" -ge 16 ] && [ "$(established "$PORT_T")" -ge 150 ] && echo yes)" yes
codes_p='' codes_t=''
for _ in $(seq 20); do
	codes_p="$codes_p $(req -u "prometheus:$PW" "$P/metrics")"
	codes_t="$codes_t $(req -u "prometheus:$PW" "$T/metrics")"
done
ps_check_eq "500 slow clients of one address: 20 scrapes of P, each 200" "$(tr ' ' '\n' <<<"$codes_p" | grep -c '^200$')" 20
ps_check_eq "200 slow clients of 50 addresses over TLS: 20 scrapes of T, each 200" "$(tr ' ' '\n' <<<"$codes_t" | grep -c '^200$')" 20
for p in $ATK; do wait "$p"; done
ATK=
late=$(cat "$TMP/late.json")
ps_check_eq "late headers (a line a second): serve closed all 10 ($late)" \
	"$(jq -c '[.opened, .closed_by_server, .open_at_end]' <<<"$late")" "[10,10,0]"
ps_check_eq "... none before the 5 s deadline" "$(jq '.first_close_s >= 4.9' <<<"$late")" true
slow_p=$(cat "$TMP/slow-p.json")
ps_check_eq "500 from one address: serve closed each it took when late or when a newcomer of the address came ($slow_p)" \
	"$(jq '.closed_by_server > 0' <<<"$slow_p")" true
ps_check_eq "serve answers after the attack" "$(req -u "prometheus:$PW" "$P/healthz")" "200 0"

# ---- 1b. slow clients behind the scraper's own address (a NAT gateway) ----------------------
# 20 slow-header clients of 198.18.0.152 reconnect as serve closes them; the
# scrapes come from that address too: each newcomer takes the slot of the
# address's oldest connection still waiting for its headers.
SHARED=198.18.0.152
ps_in_a ip addr add "$SHARED/24" dev vA
ps_in_a python3 "$HOSTILE" slow "$B" "$PORT_P" --count 20 --sources "$SHARED" --reconnect --for 8 >"$TMP/shared-p.json" &
ATK="$!"
ps_in_a python3 "$HOSTILE" slow "$B" "$PORT_T" --tls --count 20 --sources "$SHARED" --reconnect --for 8 >"$TMP/shared-t.json" &
ATK="$ATK $!"
from_shared() { ps_in_b ss -Htn state established "( sport = :$1 and dst $SHARED )" | grep -c .; }
for _ in $(seq $((100 * PS_SLOW))); do # the address's 16 slots are taken
	[ "$(from_shared "$PORT_P")" -ge 16 ] && [ "$(from_shared "$PORT_T")" -ge 16 ] && break
	sleep 0.1
done
ps_check_eq "the slow clients hold the address's 16 slots of P and of T" \
	"$([ "$(from_shared "$PORT_P")" -ge 16 ] && [ "$(from_shared "$PORT_T")" -ge 16 ] && echo yes)" yes
shared_req() { # shared_req URL: a scrape from the shared address, "HTTP_CODE EXIT"
	local rc=0 code
	code=$(ps_in_a curl -gs --interface "$SHARED" --max-time "$PS_SLOW" --cacert "$TMP/ca.pem" \
		-u "prometheus:$PW" -o /dev/null -w '%{http_code}' "$1") || rc=$?
	echo "$code $rc"
}
codes_p='' codes_t=''
for _ in $(seq 20); do
	codes_p="$codes_p $(shared_req "http://$B:$PORT_P/metrics")"
	codes_t="$codes_t $(shared_req "https://$B:$PORT_T/metrics")"
done
ps_check_eq "20 slow clients of the scraper's address: 20 scrapes of P from it, each 200 within ${PS_SLOW} s" \
	"$(grep -o '200 0' <<<"$codes_p" | grep -c .)" 20
ps_check_eq "... and of T, over TLS" "$(grep -o '200 0' <<<"$codes_t" | grep -c .)" 20
for p in $ATK; do wait "$p"; done
ATK=
ps_check_eq "the slow clients of the shared address were closed by serve (late, or for a newcomer) ($(cat "$TMP/shared-p.json"))" \
	"$(jq ".closed_by_server > 0" "$TMP/shared-p.json")" true

# ---- 2. bodies ----------------------------------------------------------------------------
early() { ps_in_b python3 "$HOSTILE" early 127.0.0.1 "$@" | sed 's/ | .*//' | tr -d '\r'; }
ps_check_eq "chunked POST without credentials: 401 before any body" \
	"$(early "$PORT_P" POST /metrics 'Transfer-Encoding: chunked')" "HTTP/1.1 401 Unauthorized"
ps_check_eq "... over TLS too" \
	"$(early "$PORT_T" --tls POST /metrics 'Transfer-Encoding: chunked')" "HTTP/1.1 401 Unauthorized"
ps_check_eq "GET announcing 1 MB with credentials: 413 before any body" \
	"$(early "$PORT_P" --auth "prometheus:$PW" GET /metrics 'Content-Length: 1000000')" "HTTP/1.1 413 Content Too Large"
ps_check_eq "chunked POST with credentials: 405 before any body" \
	"$(early "$PORT_P" --auth "prometheus:$PW" POST /metrics 'Transfer-Encoding: chunked')" "HTTP/1.1 405 Method Not Allowed"

# ---- 3. a NUL in the password ----------------------------------------------------------------
b64() { printf "$1" | base64 -w0; }
ps_check_eq "the right password: 200" "$(ps_in_b python3 "$HOSTILE" raw_auth 127.0.0.1 "$PORT_P" "$(b64 "prometheus:$PW")")" 200
ps_check_eq "the right password, a NUL and junk: 401" \
	"$(ps_in_b python3 "$HOSTILE" raw_auth 127.0.0.1 "$PORT_P" "$(b64 "prometheus:$PW\\0junk")")" 401

# ---- 4. a flood of wrong passwords ---------------------------------------------------------
req -u "prometheus:$PW" "$T/metrics" >/dev/null # cached
ps_in_a python3 "$HOSTILE" flood "$B" "$PORT_T" --tls --count 300 --clients 64 --sources "$SRCS" --auth prometheus:wrong >"$TMP/flood.json" &
ATK=$!
for _ in $(seq $((100 * PS_SLOW))); do # the flood is on
	[ "$(ps_in_b ss -Htn state established "( sport = :$PORT_T )" | wc -l)" -ge 32 ] && break
	sleep 0.01
done
codes=''
for _ in $(seq 20); do
	codes="$codes $(MAXT=$((2 * PS_SLOW)) req -u "prometheus:$PW" "$T/metrics") $(MAXT=$((2 * PS_SLOW)) req -u "prometheus:$PW" "$T/healthz")"
done
flood_busy=$(kill -0 "$ATK" 2>/dev/null && echo on)
wait "$ATK"
ATK=
flood=$(cat "$TMP/flood.json")
ps_check_eq "during 300 wrong passwords from 64 clients: 40 cached scrapes and health checks, each 200 within $((2 * PS_SLOW)) s (the flood was still on: $flood_busy)" \
	"$(tr ' ' '\n' <<<"$codes" | grep -c '^200$')" 40
# Each answered 401 or 503 (busy), or, on a loaded machine, was closed for
# late headers or refused at connect: none let in.
ps_check_eq "the flood: none of the 300 wrong passwords let in, each answered 401 or 503 or closed ($flood)" \
	"$(jq -r '"\(.["200"] // 0) \([.[]] | add)"' <<<"$flood")" "0 300"

# ---- 5. rotation under Prometheus -----------------------------------------------------------
subject() { ps_in_b openssl s_client -connect "127.0.0.1:$PORT_T" -CAfile "$TMP/ca.pem" </dev/null 2>/dev/null | openssl x509 -noout -subject 2>/dev/null | sed 's/.*CN *= *//'; }
ps_check_eq "T serves the first certificate" "$(subject)" first
ps_wait_scrapes 3
t_rot=$(date +%s)
cp "$TMP/rotated.pem" "$TMP/new.pem" && mv "$TMP/new.pem" "$TMP/server.pem"
cp "$TMP/rotated.key" "$TMP/new.key" && mv "$TMP/new.key" "$TMP/server.key"
(cd "$TMP" && tls_yml "prometheus: '$HASH'" "second: '$HASH2'" >new.yml && mv new.yml tls.yml)
for _ in $(seq $((100 * PS_SLOW))); do
	[ "$(subject)" = rotated ] && [ "$(req -u "second:$PW2" "$T/healthz")" = "200 0" ] && break
	sleep 0.1
done
ps_check_eq "after rotation: T serves the new certificate" "$(subject)" rotated
ps_check_eq "after rotation: the new user gets 200, the first still 200" \
	"$(req -u "second:$PW2" "$T/healthz") $(req -u "prometheus:$PW" "$T/healthz")" "200 0 200 0"
ps_check_eq "serve said so, once per change: 'reloaded ...'" \
	"$(grep -c "^reloaded $TMP/tls.yml$" "$TMP/serve-$PORT_T.out")" 1
ps_check_eq "nothing restarted: the same process, the same XDP program" \
	"$(kill -0 "$T_PID" && bpftool prog show pinned "$PIN_DIR/xdp_prog" -j | jq .id)" "$XDP_ID"
ps_wait_scrapes 4
window=$(($(date +%s) - t_rot + 3))
err=$(ps_in_b curl -s --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/targets" | jq -r '.data.activeTargets[0].lastError')
ps_check_eq "Prometheus around the rotation: every scrape up (min of up over ${window}s; last error '$err')" \
	"$(ps_promq "min_over_time(up{job=\"rot\"}[${window}s])")" 1
ps_check_eq "... and at least 2 scrapes a second of it$([ "$PS_SLOW" -gt 1 ] && echo ", over PS_SLOW $PS_SLOW")" \
	"$(ps_promq "count_over_time(up{job=\"rot\"}[${window}s]) >= bool $((window * 2 / PS_SLOW - 4))")" 1
kill "$PROM_PID"
_ps_reap "$PROM_PID"
PROM_PID=

# ---- 6. SIGTERM with bcrypts in flight --------------------------------------------------
kill -TERM "$T_PID"
rc=0
wait "$T_PID" || rc=$?
T_PID=
ps_check_eq "T: SIGTERM exits 0, stderr empty" "$rc $(cat "$TMP/serve-$PORT_T.err")" "0 "
ps_in_a python3 "$HOSTILE" flood "$B" "$PORT_P" --count 40 --clients 40 --sources "$SRCS" --timeout 5 --auth slow:wrong >/dev/null &
ATK=$!
for _ in $(seq $((100 * PS_SLOW))); do # in flight: the connections are in
	[ "$(ps_in_b ss -Htn state established "( sport = :$PORT_P )" | wc -l)" -ge 20 ] && break
	sleep 0.01
done
t0=$(date +%s%N)
kill -TERM "$P_PID"
rc=0
wait "$P_PID" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
P_PID=
ps_check_eq "P: SIGTERM with cost-14 bcrypts in flight: exits 0 within $((2 * PS_SLOW)) s (${ms} ms), stderr empty" \
	"$rc $([ "$ms" -le $((2000 * PS_SLOW)) ] && echo fast) $(cat "$TMP/serve-$PORT_P.err")" "0 fast "
ps_check_eq "P detached what it attached: no pins, no XDP program" \
	"$(find "$PIN_DIR" 2>/dev/null | wc -l) $(bpftool prog show id "$XDP_ID" >/dev/null 2>&1 && echo left)" "0 "
wait "$ATK" 2>/dev/null
ATK=
ps_done
