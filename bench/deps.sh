#!/usr/bin/env bash
# Packages only the benchmark needs (make bench), from Debian 12's archive:
# bpftrace (the peer tools netsize/nettxlat), tcpdump (the capture peer),
# iperf3 and ping (the workloads), jq and python3 (aggregation). The build and
# test dependencies come from scripts/deps.sh (make deps).
# Idempotent: skips apt-get entirely when everything is already present.
set -euo pipefail

PKGS=(bpftrace tcpdump iperf3 iputils-ping jq ethtool iproute2 util-linux python3)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "bench deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "bench deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
