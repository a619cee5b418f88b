#!/usr/bin/env bash
# The pathscope testbed for humans and the demo: the same two namespaces and
# veth pair the tests use (tests/integration/lib.sh), under fixed names.
#
#   scripts/testbed.sh up [NQUEUES]   (re)create psdemoA/psdemoB, NQUEUES
#                                     (default 4) rx and tx queues per veth
#   scripts/testbed.sh down           remove them (and end processes left inside)
#   scripts/testbed.sh status         show what is there
#
#   psdemoA: vA 198.18.0.1/24 2001:db8::1/64 <=veth=> vB 198.18.0.2/24 2001:db8::2/64 :psdemoB
#
# Then, for example:
#   ip netns exec psdemoB iperf3 -s -D
#   ip netns exec psdemoA iperf3 -c 198.18.0.2 -t 10
#   nsenter --net=/var/run/netns/psdemoB build/pathscope ...   # not `ip netns
#       exec`: that remounts /sys and hides /sys/fs/bpf
set -u
. "$(dirname "$0")/../tests/integration/lib.sh"

NS_A=psdemoA NS_B=psdemoB

usage() {
	if [ "${1:-2}" -eq 0 ]; then
		sed -n '2,16s/^# \{0,1\}//p' "$0"
	else
		echo "usage: scripts/testbed.sh up [NQUEUES] | down | status" >&2
	fi
	exit "${1:-2}"
}

[ "$(id -u)" -eq 0 ] || {
	echo "testbed.sh: needs root" >&2
	exit 1
}

case "${1:-}" in
up)
	nq=${2:-4}
	case $nq in '' | *[!0-9]* | 0) usage ;; esac
	if [ -e "/var/run/netns/$NS_A" ] || [ -e "/var/run/netns/$NS_B" ]; then
		echo "testbed.sh: removing the old $NS_A/$NS_B first"
		ps_testbed_destroy
	fi
	# On failure the trap installed by ps_testbed_create removes the half-built
	# testbed; on success ps_testbed_keep drops the trap so it stays up.
	ps_testbed_create "$nq" "$NS_A" "$NS_B" || exit 1
	ps_testbed_keep
	echo "testbed up: $NS_A/vA $PS_IP4_A $PS_IP6_A <-> $NS_B/vB $PS_IP4_B $PS_IP6_B, $nq queues"
	;;
down)
	ps_testbed_destroy
	echo "testbed down"
	;;
status)
	for ns in "$NS_A" "$NS_B"; do
		if [ -e "/var/run/netns/$ns" ]; then
			echo "== $ns"
			ip -n "$ns" -br addr show
			ip -n "$ns" -s link show dev "$([ "$ns" = "$NS_A" ] && echo vA || echo vB)"
		else
			echo "== $ns: not there"
		fi
	done
	;;
-h | --help | help) usage 0 ;;
*) usage ;;
esac
