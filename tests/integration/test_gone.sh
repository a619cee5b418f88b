#!/usr/bin/env bash
# A namespace deleted while pathscope is attached inside it (a container's,
# gone): `status` says "namespace gone", and `detach --gone` removes that
# attachment through its pins, without entering the namespace: no pin,
# program or link of it left. Another attachment, in a namespace that lives,
# stays as it was, and `detach --gone` with nothing gone changes nothing.
# The evidence is the pinned TCX link (ifindex 0 once its device is
# unregistered): TCX came in Linux 6.6.
# The gone attachment has its own veth pair and --features default,txlat
# (machine-wide tracepoint links); the live one's XDP counts 3 echo requests
# after it.
. "$(dirname "$0")/lib.sh"
ps_require_root gone
ps_require_file gone "$PATHSCOPE"
ps_require_cmd gone bpftool jq ping
printf '6.6\n%s\n' "$(uname -r)" | sort -V -C ||
	{ ps_unsupported gone "no TCX links before Linux 6.6"; ps_done; }

ps_testbed_create 2 || { ps_fail gone "testbed setup failed"; ps_done; }
# The namespace to delete: a veth pair of its own inside it, so that its end
# takes nothing of the testbed's with it.
NS_G=psG-$$
_ps_namespaces "$NS_G" || { ps_fail gone "namespace $NS_G not created"; ps_done; }
ip -n "$NS_G" link add g0 type veth peer name g1 && ip -n "$NS_G" link set g0 up &&
	ip -n "$NS_G" link set g1 up || { ps_fail gone "veth in $NS_G not created"; ps_done; }
ps_at_exit 'ps_pathscope_b detach vB >/dev/null 2>&1'
# On failure the gone attachment's pins are this test's own: unpinning them
# frees its links and programs.
ps_at_exit '[ -n "${dir_g:-}" ] && [ -d "$dir_g" ] && rm -rf "$dir_g" && rmdir "${dir_g%/*}" /sys/fs/bpf/pathscope 2>/dev/null'
ps_at_exit '[ -e "/var/run/netns/$NS_G" ] && nsenter --net="/var/run/netns/$NS_G" "$PATHSCOPE" detach g0 >/dev/null 2>&1'

pathscope_g() { nsenter --net="/var/run/netns/$NS_G" "$PATHSCOPE" "$@"; }
# The state status gives the attachment pinned in DIR.
state_of() { "$PATHSCOPE" status --json | jq -r --arg d "$1" '.[] | select(.pin_dir == $d) | .state'; }
# The pins of DIR, one line.
pins_of() { ls "$1" 2>/dev/null | tr '\n' ' '; }
# "prog ID" and "link ID" of every BPF object pinned in DIR (links' programs too).
ids_of() {
	local f
	for f in "$1"/*; do
		bpftool -j link show pinned "$f" 2>/dev/null | jq -r 'select(.id) | "link \(.id)", "prog \(.prog_id)"'
		bpftool -j prog show pinned "$f" 2>/dev/null | jq -r 'select(.id) | "prog \(.id)"'
	done | sort -u
}
# Of IDS ("prog N" / "link N" lines), those the kernel still has.
alive() {
	local kind id
	while read -r kind id; do
		[ -n "$id" ] && bpftool "$kind" show id "$id" >/dev/null 2>&1 && echo "$kind $id"
	done <<<"$1"
}
xdp_packets_b() { ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.packets'; }

# txlat: machine-wide tracepoint links, which outlive the namespace unless removed.
pathscope_g attach g0 --features default,txlat || ps_fail "attach g0 in $NS_G" "exit $?"
ps_pathscope_b attach vB || ps_fail "attach vB in $NS_B" "exit $?"
dir_g=/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_G")/$(ip -n "$NS_G" -j link show g0 | jq '.[0].ifindex')
dir_b=/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")/$(ip -n "$NS_B" -j link show vB | jq '.[0].ifindex')
pins_g=$(pins_of "$dir_g") pins_b=$(pins_of "$dir_b")
ids_g=$(ids_of "$dir_g") ids_b=$(ids_of "$dir_b")
ps_check_eq "both attached: g0 and vB ok" "$(state_of "$dir_g"), $(state_of "$dir_b")" "ok, ok"
ps_check_eq "g0 has txlat's tracepoint links" "$(grep -c '^link' <<<"$ids_g")" 6

# 1. Nothing gone: detach --gone leaves both.
"$PATHSCOPE" detach --gone || ps_fail "detach --gone, nothing gone" "exit $?"
ps_check_eq "nothing gone: detach --gone leaves both attachments' pins" \
	"$(pins_of "$dir_g")|$(pins_of "$dir_b")" "$pins_g|$pins_b"
ps_check_eq "nothing gone: detach --gone leaves their programs and links" \
	"$(alive "$ids_g")|$(alive "$ids_b")" "$ids_g|$ids_b"

# 2. Delete the namespace while attached. The kernel tears it down in a work
# queue: wait for the state (at most 5 s).
ip netns del "$NS_G"
for _ in $(seq 50); do
	case $(state_of "$dir_g") in "namespace gone"*) break ;; esac
	sleep 0.1
done
ps_check_eq "status: g0's namespace gone, with the command that removes it" "$(state_of "$dir_g")" \
	"namespace gone (deleted while attached); 'pathscope detach --gone' removes it"
ps_check_eq "status: vB still ok" "$(state_of "$dir_b")" ok
ps_check_eq "status (text): g0's STATE column says namespace gone" \
	"$("$PATHSCOPE" status | awk '$1 == "g0" && $2 == 3 {print $(NF-1), $NF}')" "namespace gone"
ps_check_eq "until detached, g0's programs and links stay (held by their pins)" "$(alive "$ids_g")" "$ids_g"

# 3. detach --gone removes it, without a word, and nothing else.
err=$("$PATHSCOPE" detach --gone 2>&1) && rc=0 || rc=$?
ps_check_eq "detach --gone: exit 0, nothing on stderr" "$rc|$err" "0|"
ps_check_eq "detach --gone: no pin left of g0" "$(ls -d "$dir_g" 2>/dev/null)" ""
left=$ids_g
for _ in $(seq 50); do # the kernel frees them after an RCU grace period
	left=$(alive "$ids_g")
	[ -z "$left" ] && break
	sleep 0.1
done
ps_check_eq "detach --gone: g0's programs and links are gone by id" "$left" ""
ps_check_eq "detach --gone: vB's pins stay" "$(pins_of "$dir_b")" "$pins_b"
ps_check_eq "detach --gone: vB's programs and links stay" "$(alive "$ids_b")" "$ids_b"
ps_check_eq "status: vB still ok, g0 no longer listed" \
	"$("$PATHSCOPE" status --json | jq -r --arg g "$dir_g" --arg b "$dir_b" \
		'[.[] | select(.pin_dir == $g or .pin_dir == $b) | .state] | join(",")')" ok
base=$(xdp_packets_b)
ps_in_a ping -q -c 3 -i 0.2 "$PS_IP4_B" >/dev/null || ps_fail "ping A -> B" "exit $?"
ps_check_eq "vB still counts: 3 echo requests at XDP" "$(($(xdp_packets_b) - base))" 3

ps_done
