#!/usr/bin/env bash
# The bash completion (packaging/bash-completion/pathscope; PS_COMPLETION=FILE
# tests another copy, e.g. the installed one) driven through COMP_WORDS and
# COMP_CWORD as bash fills them, inside namespace B (interfaces lo and vB):
# commands; each command's options, which must be those of its man page (so a
# new option in --help completes without a change to the completion, and a
# missing man entry fails test_manpages); the choices of --xdp-mode, --tc-mode
# and --probe-mode; feature names, which must be those the binary accepts, and
# lists of them; interface names; the attached interfaces of this namespace
# only for detach, stats, check and flows, and every interface when status cannot be
# read (no privileges); file names for --jsonl, --web-config and --xdp-join.
. "$(dirname "$0")/lib.sh"
ps_require_root completion
ps_require_file completion "$PATHSCOPE"
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
[ -r "$BASH_COMPLETION" ] || { ps_skip completion "bash-completion not installed (make deps)"; ps_done; }
: "${PS_COMPLETION:=$PS_ROOT/packaging/bash-completion/pathscope}"
MAN=$PS_ROOT/man

ps_testbed_create 2 || { ps_fail completion "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
chmod 755 "$TMP"
ps_at_exit 'ps_pathscope_a detach vA >/dev/null 2>&1; ps_pathscope_b detach vB >/dev/null 2>&1; rm -rf "$TMP"'

# The candidates for LINE (the cursor at its end), sorted, space-separated.
# LINE is split as bash splits it for completion: at blanks, and the
# COMP_WORDBREAKS characters = and : are words of their own. Runs in
# namespace B (nsenter --net keeps /sys/fs/bpf), as WHO (root by default).
WHO=()
candidates() {
	nsenter --net="/var/run/netns/$NS_B" "${WHO[@]}" bash -c '
		. "$1" && . "$2" || exit 1
		line=$3 words=() w=
		for ((i = 0; i < ${#line}; i++)); do
			ch=${line:i:1}
			case $ch in
			" ") [ -n "$w" ] && words+=("$w"); w= ;;
			"=" | ":")
				[ -n "$w" ] && [[ $w != [=:]* ]] && { words+=("$w"); w=; }
				w+=$ch ;;
			*)
				[[ $w == [=:]* ]] && { words+=("$w"); w=; }
				w+=$ch ;;
			esac
		done
		words+=("$w")
		COMP_WORDS=("${words[@]}") COMP_CWORD=$((${#words[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		f=$(complete -p pathscope | sed -E "s/.*-F ([^ ]+).*/\1/")
		"$f" pathscope "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$BASH_COMPLETION" "$PS_COMPLETION" "$1" |
		sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'
}
P=$PATHSCOPE saved_completion=$PS_COMPLETION
is() { ps_check_eq "complete '${1/#$P/pathscope}'${3:+ ($3)}" "$(candidates "$1")" "$2"; }
words() { tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'; }

ps_check_eq "the completion registers for pathscope" \
	"$(bash -c '. "$1"; . "$2"; complete -p pathscope' _ "$BASH_COMPLETION" "$PS_COMPLETION" | grep -c -- '-F')" 1

# Commands: those of pathscope(8)'s COMMANDS list.
is "$P " "$(awk '/^\.Sh / { on = ($0 == ".Sh COMMANDS") } on && /^\.It Cm / { print $3 }' "$MAN/pathscope.8" | words)"
is "$P st" "stats status"
is "$P help " "$(awk '/^\.Sh / { on = ($0 == ".Sh COMMANDS") } on && /^\.It Cm / { print $3 }' "$MAN/pathscope.8" | grep -vxE 'help|version' | words)" "help CMD: the commands with a help of their own"
is "$P help st" "stats status"
is "$P help stats " ""

# Options: those of each command's page, OPTIONS section.
for c in attach check detach features flows heatmap nic serve stats status; do
	want=$(awk '/^\.Sh / { on = ($0 == ".Sh OPTIONS") }
		on && /^\.It Fl / { s = $0; while (match(s, /Fl -[a-z][a-z0-9-]*/)) { print "-" substr(s, RSTART + 3, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) } }' "$MAN/pathscope-$c.8" | words)
	is "$P $c --" "$want"
done
is "$P attach --no" "--no-tc --no-xdp"
is "$P attach vB " "$(candidates "$P attach --")"
is "$P status " "--json"

# Choices.
is "$P attach --xdp-mode " "native skb"
is "$P attach --tc-mode " "clsact tcx"
is "$P attach --probe-mode " "tp_btf tracepoint"
is "$P check vB --probe-mode tr" "tracepoint"
is "$P serve vB --detail " "interface queue"
is "$P stats --interval " ""
is "$P serve --listen " ""

# Latency stages: heatmap's first operand and stats --heatmap's value.
stages="wire_to_xdp softirq_wait thread_wait softirq_place driver_to_stack d2s socket_read sock qdisc_sojourn sojourn tx_completion completion icmp_rtt tcp_rtt tcp_handshake icmp_response tcp_response tcp_ack_delay"
is "$P heatmap " "$(echo "$stages budget" | words)"
is "$P heatmap tcp_r" "tcp_response tcp_rtt"
is "$P stats --heatmap " "$(echo "$stages" | words)"
is "$P stats vB --heatmap d" "d2s driver_to_stack"

# Features: the names the binary knows ("unknown feature ... (known: ...)").
known=$("$PATHSCOPE" attach ps-nosuch0 --features zz-bogus 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d , | words)
ps_check_eq "the binary lists the features it knows" "$([ "$(wc -w <<<"$known")" -ge 8 ] && echo yes)" yes
is "$P attach --features " "$known"
is "$P serve vB --features " "$known"
is "$P attach --features cl" "class"
is "$P attach --features class,e" "class,ecn"
is "$P attach --features class,ecn," "$(for f in $known; do case $f in class | ecn) ;; *) echo "class,ecn,$f" ;; esac; done | words)"
is "$P serve vB --features=ic" "icmp"
is "$P serve vB --queue-detail " "$known"
is "$P serve vB --queue-detail d2s,t" "d2s,tcp d2s,txlat"

# Files.
mkdir "$TMP/fdir" && touch "$TMP/file.jsonl" "$TMP/other"
is "$P serve vB --jsonl $TMP/f" "$TMP/fdir $TMP/file.jsonl"
is "$P serve vB --web-config $TMP/f" "$TMP/fdir $TMP/file.jsonl"
is "$P attach vB --xdp-join $TMP/o" "$TMP/other"
is "$P heatmap d2s --from $TMP/f" "$TMP/fdir $TMP/file.jsonl"
is "$P heatmap d2s --output $TMP/o" "$TMP/other"

# Interfaces of namespace B (lo, vB); nothing attached there yet.
is "$P attach " "lo vB"
is "$P attach v" "vB"
is "$P nic " "lo vB"
is "$P serve vB " "lo"
is "$P detach " "" "nothing attached"
is "$P stats " "" "nothing attached"
is "$P flows " "" "nothing attached"

# Attached: vB in B, vA in A. In B, only vB; every interface without privileges.
ps_pathscope_b attach vB --features none >/dev/null || ps_fail "attach vB" "exit $?"
ps_pathscope_a attach vA --features none >/dev/null || ps_fail "attach vA" "exit $?"
is "$P detach " "vB" "vB attached here, vA in namespace A"
is "$P stats " "vB" "vB attached here, vA in namespace A"
is "$P check " "vB" "vB attached here, vA in namespace A"
is "$P flows " "vB" "vB attached here, vA in namespace A"
is "$P flows vB --flow 198.18.0.1 198.18.0.2 udp 1 2 --t" "--top" "after --flow's five arguments"
is "$P heatmap tcp_rtt " "vB" "heatmap's IFACE after its STAGE: the attached ones"
is "$P stats vB " ""
is "$P detach v" "vB"
# As nobody: the clone may live in a private directory (root's home is
# 0700), so nobody runs copies of the binary and the completion from $TMP
# (0755), as it would the installed ones.
WHO=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
install -m 0755 "$PATHSCOPE" "$TMP/pathscope"
install -m 0644 "$PS_COMPLETION" "$TMP/completion"
ps_check_eq "as nobody, status cannot be read" \
	"$(nsenter --net="/var/run/netns/$NS_B" "${WHO[@]}" "$TMP/pathscope" status --json >/dev/null 2>&1; echo $?)" 1
P=$TMP/pathscope PS_COMPLETION=$TMP/completion
is "$P detach " "lo vB" "as nobody: every interface"
is "$P attach --xdp-mode " "native skb" "as nobody"
WHO=() P=$PATHSCOPE PS_COMPLETION=$saved_completion
ps_pathscope_a detach vA || ps_fail "detach vA" "exit $?"
ps_pathscope_b detach vB || ps_fail "detach vB" "exit $?"
is "$P detach " "" "after detach"
ps_done
