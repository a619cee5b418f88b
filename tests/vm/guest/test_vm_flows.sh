#!/usr/bin/env bash
# Why an RX queue is hot, on a NIC with RSS: the guest's second virtio-net
# NIC, with rss=on (qemu computes the Toeplitz hash and picks the queue from
# the table the guest set; the first NIC, of the other tests, steers as the
# tap does), 4 queues, in a guest of tests/vm/run.sh. The host sends 64 UDP
# flows (iperf3 -u -R -P 64: host port 5201 to 64 ports of the guest).
#   - 5.10 (virtio_net has RSS from 5.18): `nic` says RSS is not available,
#     in one line; nothing else here.
#   - 6.1, 6.12: the queue pathscope (flows, --flow-sample 1) gives each of
#     the 64 flows equals the queue that a Toeplitz written here (python3)
#     predicts from `ethtool -x`'s key and table and `ethtool -n`'s hashed
#     fields: exactly, every flow; and `flows --flow` predicts the same for
#     one of them. On 6.1 the device folds that queue onto the first 2: 6.1's
#     virtio_net gives the device the queue pairs it had at probe (2, one per
#     vCPU) in every RSS command, also after `ethtool -L combined 4`, while
#     `ethtool -x` shows a table of 4 (qemu takes the table's queue modulo
#     the pairs it was given). pathscope shows where the flows went; its
#     prediction, from the table the driver reports, cannot know;
#   - after `ethtool -X DEV weight 1 1 1 0`: queue 3 gets nothing (the
#     driver's own counter and pathscope's), every flow still where the
#     table says, and `flows` names the table for queue 3;
#   - after `ethtool -X DEV equal 4` and `ethtool -N DEV rx-flow-hash udp4
#     sd`: the 64 flows (one address pair) land on one queue, and its
#     verdict names the hashed fields.
. "$(dirname "$0")/../../integration/lib.sh"
N=vm_flows
[ "${PS_VM:-}" = 1 ] || { ps_unsupported "$N" "runs in a guest of tests/vm/run.sh only"; ps_done; }
ps_require_root "$N"
ps_require_cmd "$N" ethtool iperf3 jq python3
DEV=$PS_VM_RSS_DEV HOST=$PS_VM_RSS_HOST4 GUEST=$PS_VM_RSS_GUEST4
[ -n "$DEV" ] || { ps_fail "$N" "no virtio-net NIC with RSS (PS_VM_RSS_DEV)"; ps_done; }
ps_at_exit "\"$PATHSCOPE\" detach $DEV >/dev/null 2>&1; ethtool -X $DEV default >/dev/null 2>&1; ethtool -N $DEV rx-flow-hash udp4 sdfn >/dev/null 2>&1; ethtool -K $DEV rxhash off >/dev/null 2>&1"

rss_line=$("$PATHSCOPE" nic "$DEV" | grep '^RSS')
FOLD=4 # the queue pairs the device steers to (see above)
[ "$PS_VM_KERNEL" = 6.1 ] && FOLD=2
case $PS_VM_KERNEL in
5.10)
	ps_check_eq "$N: virtio_net of 5.10 has no RSS: 'pathscope nic' says so in one line" \
		"$(grep -c 'not available' <<<"$rss_line") $(wc -l <<<"$rss_line")" "1 1"
	ps_done
	;;
esac

# The driver's per-queue XDP packets, "q0 q1 q2 q3" (test_vm_virtio's).
drv_xdp() {
	ethtool -S "$DEV" | sed -nE 's/^ *rx(_queue_)?([0-9]+)_xdp_packets: ([0-9]+)$/\2 \3/p' |
		awk '{ v[$1] = $2 } END { for (q = 0; q < 4; q++) printf "%s%d", q ? " " : "", v[q] }'
}
# A fresh attachment, then the RSS settings "$@" (after it: attaching XDP
# makes 6.1's virtio_net send VQ_PAIRS_SET, on which qemu turns RSS off
# until the driver commits a table again; ethtool -X commits it), 64 flows
# from the host, pathscope flows --json in /tmp/flows.json, iperf3's in
# /tmp/iperf.json, the driver's per-queue XDP packets over it in DRV.
run_flows() {
	local before after q
	"$PATHSCOPE" detach "$DEV" >/dev/null 2>&1
	read -ra before <<<"$(drv_xdp)"
	"$PATHSCOPE" attach "$DEV" --features default,flows --flow-sample 1 >/dev/null || return 1
	"$@" || return 1
	iperf3 -c "$HOST" -p "$PS_VM_IPERF_PORT" -u -R -P 64 -b 40K -l 200 -t 2 -J >/tmp/iperf.json || return 1
	# Both reads between two equal ones of the driver's: nothing arrived in
	# between (iperf3's last packets may come after it returns).
	for ((i = 0; i < 50 * PS_SLOW; i++)); do
		read -ra after <<<"$(drv_xdp)"
		"$PATHSCOPE" flows "$DEV" --top 100 --json >/tmp/flows.json
		[ "$(drv_xdp)" = "${after[*]}" ] && break
		sleep 0.2
	done
	DRV=
	for q in 0 1 2 3; do DRV+="${DRV:+ }$((after[q] - before[q]))"; done
}
# The host's flows to the guest's iperf3 ports: "queue" per flow, one a line.
flow_queues() {
	jq -r --slurpfile i /tmp/iperf.json '($i[0].start.connected | map(.local_port)) as $p |
		.queues[] | .queue as $q | .flows[] | select(.sport == 5201 and (.dport as $d | $p | index($d) != null)) | $q' /tmp/flows.json
}
# Each flow's queue as pathscope saw it and as this test's Toeplitz predicts
# it: "matched seen flows" (64 64 64 when every flow is where RSS says).
predict() {
	ethtool -x "$DEV" >/tmp/ethx.txt
	ethtool -n "$DEV" rx-flow-hash udp4 >/tmp/ethn.txt
	python3 - "$HOST" "$GUEST" "$FOLD" <<'EOF'
import json, re, socket, sys
host, guest, fold = sys.argv[1], sys.argv[2], int(sys.argv[3])
x = open("/tmp/ethx.txt").read()
table = [int(v) for line in x.split("RSS hash key")[0].splitlines()
         if re.match(r"^\s*\d+:", line) for v in line.split(":", 1)[1].split()]
key = bytes(int(b, 16) for b in re.search(r"RSS hash key:\s*\n([0-9a-f:]+)", x).group(1).split(":"))
fields = open("/tmp/ethn.txt").read()
def toeplitz(data):  # Microsoft's RSS spec: the key's 32-bit window at each input bit
    k = int.from_bytes(key, "big"); kbits = len(key) * 8; h = 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (kbits - 32 - (i * 8 + b))) & 0xffffffff
    return h
ports = [c["local_port"] for c in json.load(open("/tmp/iperf.json"))["start"]["connected"]]
seen = {}
for q in json.load(open("/tmp/flows.json"))["queues"]:
    for f in q["flows"]:
        if f["proto"] == "udp" and f["src"] == host and f["dst"] == guest and f["sport"] == 5201:
            seen[f["dport"]] = q["queue"]
matched = 0
for p in ports:
    data = b""
    if "IP SA" in fields: data += socket.inet_aton(host)
    if "IP DA" in fields: data += socket.inet_aton(guest)
    if "bytes 0 & 1" in fields: data += (5201).to_bytes(2, "big")
    if "bytes 2 & 3" in fields: data += p.to_bytes(2, "big")
    q = table[toeplitz(data) % len(table)] % fold
    matched += seen.get(p) == q
    if seen.get(p) != q:
        print("port %d: seen %s, predicted %d" % (p, seen.get(p), q), file=sys.stderr)
if matched != len(ports):  # what else would explain the queues seen (for the log)
    variants = {
        "addresses only": lambda p: socket.inet_aton(host) + socket.inet_aton(guest),
        "ports swapped": lambda p: socket.inet_aton(host) + socket.inet_aton(guest) + p.to_bytes(2, "big") + (5201).to_bytes(2, "big"),
        "reversed": lambda p: socket.inet_aton(guest) + socket.inet_aton(host) + p.to_bytes(2, "big") + (5201).to_bytes(2, "big"),
    }
    for name, f in variants.items():
        n = sum(seen.get(p) == table[toeplitz(f(p)) % len(table)] % fold for p in ports)
        print("variant %s: %d of %d" % (name, n, len(ports)), file=sys.stderr)
    print("table " + " ".join(map(str, table[:16])) + " ...; key " + key.hex(), file=sys.stderr)
print(matched, len([p for p in ports if p in seen]), len(ports))
EOF
}

ps_check_eq "$N: RSS facts from 'pathscope nic' (toeplitz)" "$(grep -c toeplitz <<<"$("$PATHSCOPE" nic "$DEV")")" 1
equal4() { ethtool -K "$DEV" rxhash on && ethtool -X "$DEV" equal 4; }
run_flows equal4 || ps_fail "$N: attach and 64 flows from the host" "failed"
ps_check_eq "$N: each of the 64 flows on the queue this test's Toeplitz predicts from ethtool -x and -n" \
	"$(predict 2>/tmp/predict.err)" "64 64 64" || sed 's/^/# /' /tmp/predict.err
ps_check_eq "$N: pathscope's packets per queue equal the driver's XDP packets" \
	"$(jq -r '[.queues[] | select(.queue != "other") | .packets] | join(" ")' /tmp/flows.json)" "$DRV"
port=$(jq '.start.connected[0].local_port' /tmp/iperf.json)
one=$("$PATHSCOPE" flows "$DEV" --json --flow "$HOST" "$GUEST" udp 5201 "$port")
ps_check_eq "$N: flows --flow: RSS's prediction (modulo $FOLD) is where pathscope saw the flow" \
	"$(jq -r '.flow | "\(.predicted) \(.seen)"' <<<"$one" | awk -v f="$FOLD" '{ print ($1 % f == $2) ? "same" : $0 }')" same

weights() { ethtool -K "$DEV" rxhash on && ethtool -X "$DEV" weight 1 1 1 0; }
run_flows weights || ps_fail "$N: ethtool -X weight 1 1 1 0, 64 flows" "failed"
ps_check_eq "$N: weight 1 1 1 0: the driver's queue 3 gets nothing, nor pathscope's" \
	"$(cut -d' ' -f4 <<<"$DRV") $(jq '[.queues[] | select(.queue == 3) | .packets][0]' /tmp/flows.json)" "0 0"
ps_check_eq "$N: weight 1 1 1 0: every flow still where the table says" "$(predict 2>/tmp/predict.err)" "64 64 64" ||
	sed 's/^/# /' /tmp/predict.err
ps_check_eq "$N: weight 1 1 1 0: flows names the table for queue 3" \
	"$(jq -r '[.cold[] | select(.queue == 3) | .cause] | join(",")' /tmp/flows.json)" table

# virtio_net hands new hashed fields to the device only with receive-hashing on.
udp4_sd() { ethtool -K "$DEV" rxhash on && ethtool -X "$DEV" equal 4 && ethtool -N "$DEV" rx-flow-hash udp4 sd; }
run_flows udp4_sd || ps_fail "$N: ethtool -N rx-flow-hash udp4 sd, 64 flows" "failed"
hot=$(flow_queues | wc -l)
queues=$(flow_queues | sort -u | tr '\n' ' ' | sed 's/ $//')
ps_check_eq "$N: udp4 hashed on addresses only: the 64 flows ($hot seen) on one queue ($queues)" \
	"$hot $(wc -w <<<"$queues")" "64 1"
ps_check_eq "$N: its verdict names the hashed fields" \
	"$(jq -r --argjson q "${queues:-0}" '[.hot[] | select(.queue == $q) | .cause] | join(",")' /tmp/flows.json)" fields
"$PATHSCOPE" flows "$DEV" | sed -n '/^hot:/,$p' | sed 's/^/# /'
ps_done
