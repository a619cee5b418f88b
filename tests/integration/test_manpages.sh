#!/usr/bin/env bash
# The man pages (man/*.8 and man/*.7, mdoc) against the binary: Debian's mandoc lints them
# clean, every command of 'pathscope help' has its page and its entry in
# pathscope(8), and each command's --help and its page's OPTIONS list name the
# same options (a new option in one and not in the other fails here). Every
# option they name is one the command's parser accepts. groff (man-db, which
# renders them for 'man') reports nothing either. No root needed.
# Every error message of the command line (each ps_error format in cli/ and
# lib/) is listed in pathscope(8)'s DIAGNOSTICS as it is printed
# (tests/tools/diagnostics.py).
. "$(dirname "$0")/lib.sh"
ps_require_file manpages "$PATHSCOPE"
ps_require_cmd manpages mandoc man
MAN=$PS_ROOT/man

# The options of 'pathscope CMD --help': every --option of its usage line, and
# the leading --options of its option lines ("  --opt VALUE   text", two
# spaces of indent, the first column up to two spaces). --help is implicit.
help_opts() {
	"$PATHSCOPE" "$1" --help | awk '
		/^usage:/ { s = $0; while (match(s, /--[a-z][a-z0-9-]*/)) { print substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } }
		/^  (-[a-zA-Z], )?--/ { c = substr($0, 3); i = index(c, "  "); if (i) c = substr(c, 1, i - 1)
			  n = split(c, w, /[ ,]+/); for (k = 1; k <= n; k++) if (w[k] ~ /^--[a-z]/) print w[k] }' | sort -u
}
# The short options of a command's --help ("  -j, --json ..."), as "-j --json".
help_short() {
	"$PATHSCOPE" "$1" --help | awk '/^  -[a-zA-Z], --[a-z]/ { sub(/,$/, "", $1); print $1, $2 }'
}
# The options of a page's section SECTION: every "Fl -option" on its macro lines
# (.It lines only with ONLY_IT=1).
man_opts() {
	awk -v sec="$2" -v only_it="${3:-0}" '
		/^\.Sh / { in_sec = ($0 == ".Sh " sec); next }
		in_sec && /^\./ && (!only_it || /^\.It /) { s = $0; while (match(s, /Fl -[a-z][a-z0-9-]*/)) { print "-" substr(s, RSTART + 3, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) } }' "$1" | sort -u
}
# The commands of 'pathscope help' (its "commands:" list) that are not help/version.
commands() {
	"$PATHSCOPE" help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }' |
		tr -d , | grep -vx 'help\|version' | sort -u
}

# 1. mandoc -T lint: nothing at any level (-W style), but for cross references to
# pages that this machine's mandoc database does not have (this tree's own pages,
# not installed; bpftool(8) where its package is missing). Each Xr to a pathscope
# page must then be a page here.
lint=$(cd "$MAN" && mandoc -T lint -W style ./*.8 ./*.7 2>&1 |
	grep -v 'referenced manual not found\|outdated mandoc.db\|mandoc.db')
ps_check_eq "mandoc -T lint: no errors, warnings or style messages" "$lint" ""
missing=$(cd "$MAN" && grep -ho '^\.Xr pathscope[a-z-]* [0-9]' ./*.8 ./*.7 | sort -u |
	while read -r _ page sec; do [ -f "$page.$sec" ] || echo "$page.$sec"; done)
ps_check_eq "every Xr to a pathscope page has its page" "$missing" ""
groff_out=$(for f in "$MAN"/*.8 "$MAN"/*.7; do LC_ALL=C.UTF-8 MANROFFSEQ='' man --warnings -E UTF-8 -l -Tutf8 -Z "$f" 2>&1 >/dev/null; done)
ps_check_eq "groff (man --warnings, as lintian runs it): no warnings" "$groff_out" ""

# 2. Commands: a page each, an entry each in pathscope(8)'s COMMANDS.
cmds=$(commands)
ps_check_eq "pathscope help lists the 10 commands" "$(wc -w <<<"$cmds")" 10
pages=$(cd "$MAN" && ls pathscope-*.8 | sed 's/^pathscope-//; s/\.8$//' | sort -u)
ps_check_eq "one page per command: man/pathscope-CMD.8" "$pages" "$cmds"
listed=$(awk '/^\.Sh / { on = ($0 == ".Sh COMMANDS") } on && /^\.It Cm / { print $3 }' "$MAN/pathscope.8" |
	grep -vx 'help\|version' | sort -u)
ps_check_eq "pathscope(8) COMMANDS lists every command" "$listed" "$cmds"

# 3. Per command: --help and the page's OPTIONS list name the same options; the
# page's SYNOPSIS names no other; the parser accepts each.
WHO=()
[ "$(id -u)" -eq 0 ] && WHO=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
for c in $cmds; do
	page=$MAN/pathscope-$c.8
	[ -f "$page" ] || { ps_fail "$c: page" "no $page"; continue; }
	h=$(help_opts "$c") m=$(man_opts "$page" OPTIONS 1) syn=$(man_opts "$page" SYNOPSIS)
	ps_check_eq "$c: the options of --help are those of pathscope-$c(8) OPTIONS" \
		"$(tr '\n' ' ' <<<"$h")" "$(tr '\n' ' ' <<<"$m")"
	ps_check_eq "$c: pathscope-$c(8) SYNOPSIS names no option outside OPTIONS" \
		"$(comm -23 <(echo "$syn") <(echo "$m") | tr '\n' ' ')" ""
	ps_check_eq "$c: the help names at least one option" "$([ -n "$h" ] && echo yes)" yes
	# Followed by an unknown option, a flag stops at that one; an option with a
	# value takes it and fails on it: neither acts, and nobody (no capabilities)
	# could. A name the parser does not know is "unknown option '--name'".
	bad=
	for o in $h $m; do
		err=$("${WHO[@]}" "$PATHSCOPE" "$c" "$o" --zz-not-an-option 2>&1 >/dev/null)
		# (stderr is pathscope's own one line: the command did run)
		if grep -qF "unknown option '$o'" <<<"$err" || [[ $err != pathscope:* ]]; then
			bad+=" $o"
		fi
	done
	ps_check_eq "$c: the parser accepts every option of --help and the page" "$bad" ""
	# Each short option of --help is its long one: the page says so on the
	# long one's .It line, and the parser takes it.
	bad=
	while read -r short long; do
		[ -n "$short" ] || continue
		grep -qE "^\.It (.* )?Fl ${short#-} , Fl ${long#-}( |\$)" "$page" || bad+=" $short(page)"
		err=$("${WHO[@]}" "$PATHSCOPE" "$c" "$short" --zz-not-an-option 2>&1 >/dev/null)
		if grep -qF "unknown option '$short'" <<<"$err" || [[ $err != pathscope:* ]]; then
			bad+=" $short(parser)"
		fi
	done < <(help_short "$c")
	ps_check_eq "$c: every short option of --help is on its long one's line in the page and parsed" "$bad" ""
done

# heatmap's STAGE list in --help (written from the families' registry) and in
# its page's list of stages (written by hand) name the same stages and aliases.
help_stages=$("$PATHSCOPE" heatmap --help | awk '/^STAGE:/ { on = 1 } on && /^  -/ { exit } on' |
	tr '\n' ' ' | tr -s ' ' | sed 's/.*STAGE://; s/; or budget.*//' | tr -d '(),' | tr ' ' '\n' | grep . | sort)
page_stages=$(awk '/^The stages, with their hooks/ { on = 1; next } /^\.El/ { on = 0 } on && /^\.It Cm / {
	for (i = 3; i <= NF; i++) if ($i != "," && $i != "Pq" && $i != "Cm") print $i }' \
	"$MAN/pathscope-heatmap.8" | grep -vx budget | sort)
ps_check_eq "heatmap: --help's stages (from the registry) are its page's" \
	"$help_stages" "$page_stages"
ps_check_eq "heatmap: --help lists the 14 stages and 4 aliases" "$(wc -l <<<"$help_stages")" 18

# One wording per error: every message of the command line (cli/, lib/) is
# in pathscope(8)'s DIAGNOSTICS, as it is printed.
ps_check_eq "every command-line error message is listed in pathscope(8) DIAGNOSTICS" \
	"$(python3 "$PS_ROOT/tests/tools/diagnostics.py" "$MAN/pathscope.8" "$PS_ROOT"/cli/*.c "$PS_ROOT"/lib/*.c)" ""
ps_done
