#!/usr/bin/env bash
# Install every build and test dependency of pathscope from Debian 12's archive.
# (libclang-rt-14-dev: the sanitizer and libFuzzer runtimes of make test-asan
# and make fuzz; python3-scapy, tcpdump: the hostile-traffic test; xdp-tools:
# xdp-filter and xdp-loader, real peers of test_coexist_xdptools;
# build-essential, dpkg-dev, debhelper, lintian: make deb and test_package;
# mandoc, man-db: test_manpages; bash-completion: test_completion; python3:
# test_dashboard; systemd: systemd-analyze verify of the units; sockperf:
# test_tcp_rtt, netperf's stand-in in Debian; chromium, python3-pil: test_heatmap
# renders a heatmap headless and reads the PNG back; libprotobuf-c-dev, protobuf-c-compiler:
# serve's protobuf exposition; libyaml-dev, libcrypt-dev, libgnutls28-dev: serve
# --web-config (YAML, bcrypt, TLS); openssl: test_serve_tls's certificates.)
# Idempotent: skips apt-get entirely when everything is already present.
# `deps.sh demo`: only what `make demo` needs (the build, and the testbed's
# iproute2, ethtool, iperf3 and ping).
set -euo pipefail

BUILD_PKGS=(
	make gcc libc6-dev clang llvm libbpf-dev libxdp-dev libelf-dev zlib1g-dev libmnl-dev libjson-c-dev
	libprotobuf-c-dev protobuf-c-compiler libyaml-dev libcrypt-dev libgnutls28-dev
	libmicrohttpd-dev bpftool
)
DEMO_PKGS=(iproute2 ethtool iperf3 iputils-ping)
TEST_PKGS=(
	openssl jq clang-format prometheus curl
	valgrind python3-scapy tcpdump libclang-rt-14-dev xdp-tools
	build-essential dpkg-dev debhelper lintian mandoc man-db bash-completion python3 systemd
	sockperf chromium python3-pil
)
case ${1:-all} in
demo) PKGS=("${BUILD_PKGS[@]}" "${DEMO_PKGS[@]}") ;;
all) PKGS=("${BUILD_PKGS[@]}" "${DEMO_PKGS[@]}" "${TEST_PKGS[@]}") ;;
*) echo "deps: unknown set '$1' (demo or all)" >&2; exit 2 ;;
esac

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install: ${missing[*]} (run as root or with sudo)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# On a systemd host the prometheus package starts its own server on :9090. The
# tests run their own inside a test namespace: stop the one apt just started.
if printf '%s\n' "${missing[@]}" | grep -qx prometheus && [ -d /run/systemd/system ]; then
	systemctl disable --now prometheus >/dev/null 2>&1 || true
	echo "deps: stopped and disabled the prometheus service the package started"
fi
