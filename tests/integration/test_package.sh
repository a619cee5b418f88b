#!/usr/bin/env bash
# The Debian package, end to end: 'make deb' (unless the package in the
# repository root is newer than every file that goes into it), lintian (no
# error; each warning listed in CONTRIBUTING.md), its contents, 'apt-get install
# ./pathscope_*.deb', the installed binary (its version is lib/version.h's and
# the package's; features; attach, stats and detach on a test veth), the man
# pages (man -w), the bash completion (found by bash-completion's loader),
# the example Prometheus configuration with its alerting rules (promtool
# check config of the installed files), the units (systemd-analyze verify; installed disabled; check-listen; two
# pathscope@ instances run as their ExecStart lines say, each on its port),
# then 'dpkg --purge' and nothing of the package left. Takes about 30 s,
# plus 25 s when it builds the package.
. "$(dirname "$0")/lib.sh"
ps_require_root package
ps_require_cmd package dpkg-buildpackage dh lintian apt-get man systemd-analyze curl jq promtool
VERSION=$(sed -n 's/^#define PATHSCOPE_VERSION "\([^"]*\)"$/\1/p' "$PS_ROOT/lib/version.h")
DEB=pathscope_${VERSION}_$(dpkg --print-architecture).deb
BIN=/usr/sbin/pathscope
if dpkg-query -W -f='${Status}' pathscope 2>/dev/null | grep -q 'ok installed'; then
	ps_fail package "the pathscope package is installed already; this test would remove it"
	ps_done
fi

# 1. The package. Rebuilt when something that goes into it is newer.
cd "$PS_ROOT" || exit 1
newer=
[ -f "$DEB" ] && newer=$(find Makefile lib/version.h scripts/deb.sh debian man packaging include \
	lib nic loader stats export cli xdp tc probes -type f -newer "$DEB" -print -quit)
if [ ! -f "$DEB" ] || [ -n "$newer" ]; then
	t0=$SECONDS
	nice -n 19 make --no-print-directory deb >/dev/null || { ps_fail "make deb" "exit $?"; ps_done; }
	echo "# make deb: $((SECONDS - t0)) s"
else
	echo "# $DEB is newer than its sources: not rebuilt"
fi
ps_check_eq "make deb: $DEB in the repository root" "$([ -f "$DEB" ] && echo yes)" yes
ps_check_eq "the package's version is lib/version.h's" "$(dpkg-deb -f "$DEB" Version)" "$VERSION"

# 2. lintian: no error; every warning is listed, with its reason, in CONTRIBUTING.md.
lint=$(lintian "$DEB" 2>/dev/null)
[ -n "$lint" ] && echo "$lint" | sed 's/^/# lintian: /'
echo "# lintian: $(grep -c '^[EW]:' <<<"$lint") errors and warnings"
ps_check_eq "lintian: no errors" "$(grep '^E:' <<<"$lint")" ""
unlisted=
for tag in $(sed -n 's/^W: [^ ]* \([^ ]*\).*/\1/p' <<<"$lint" | sort -u); do
	grep -q "^- \`$tag\`" CONTRIBUTING.md || unlisted+=" $tag"
done
ps_check_eq "lintian: every warning is listed in CONTRIBUTING.md" "$unlisted" ""

# 3. What it holds.
files=$(dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|')
missing=
for f in /usr/sbin/pathscope /usr/libexec/pathscope/check-listen /etc/default/pathscope \
	/lib/systemd/system/pathscope.service /lib/systemd/system/pathscope@.service \
	/usr/share/bash-completion/completions/pathscope /usr/share/pathscope/prometheus.yml \
	/usr/share/pathscope/alerts.yml /usr/share/pathscope/instance.conf /usr/share/pathscope/grafana/pathscope.json \
	/usr/share/pathscope/web-config.yml \
	/usr/share/man/man8/pathscope.8.gz /usr/share/man/man7/pathscope-metrics.7.gz \
	/usr/share/man/man7/pathscope-json.7.gz /usr/share/doc/pathscope/copyright; do
	grep -qx "$f" <<<"$files" || missing+=" $f"
done
for c in attach detach status stats check nic serve features heatmap; do
	grep -qx "/usr/share/man/man8/pathscope-$c.8.gz" <<<"$files" || missing+=" pathscope-$c.8.gz"
done
ps_check_eq "the package holds the binary, man pages, completion, units, examples" "$missing" ""

# 4. apt-get install ./pathscope_*.deb. From here on, exit purges it.
ps_testbed_create 2 || { ps_fail package "testbed setup failed"; ps_done; }
TMP=$(mktemp -d)
PIDS=()
purge() {
	local i
	for i in $(seq 120); do
		dpkg --purge pathscope >"$TMP/purge.log" 2>&1 && return 0
		grep -q 'lock' "$TMP/purge.log" || break
		sleep 1 # someone else's dpkg or apt holds the lock
	done
	cat "$TMP/purge.log"
	return 1
}
ps_at_exit 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; _ps_reap "$p"; done; for d in vB vC; do nsenter --net="/var/run/netns/$NS_B" $BIN detach $d >/dev/null 2>&1; done; dpkg-query -W pathscope >/dev/null 2>&1 && purge >/dev/null; rm -rf "$TMP"'
t0=$SECONDS
DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=120 "./$DEB" >"$TMP/install.log" 2>&1 ||
	{ tail "$TMP/install.log"; ps_fail "apt-get install ./$DEB" "failed"; ps_done; }
echo "# apt-get install: $((SECONDS - t0)) s"
ps_check_eq "apt-get install ./$DEB: installed" "$(dpkg-query -W -f='${Status} ${Version}' pathscope)" \
	"install ok installed $VERSION"
installed=$(dpkg -L pathscope)

# 5. The installed binary.
ps_check_eq "$BIN version: lib/version.h's" "$($BIN version | awk '{ print $1, $2 }')" "pathscope $VERSION"
ps_check_eq "$BIN version = the build's" "$($BIN version)" "$("$PATHSCOPE" version 2>/dev/null || $BIN version)"
out=$($BIN features 2>&1) && rc=0 || rc=$?
ps_check_eq "$BIN features: exit 0, this kernel, the capability table" \
	"$rc $(sed -n '1p; 2s/ .*//p' <<<"$out" | paste -sd ' ')" "0 kernel $(uname -r) CAPABILITY"
PATHSCOPE=$BIN
ps_pathscope_b attach vB || ps_fail "$BIN attach vB" "exit $?"
ps_check_eq "$BIN status: vB ok" \
	"$(ps_pathscope_b status --json | jq -r --arg ns "$(stat -Lc %i "/var/run/netns/$NS_B")" '.[] | select(.netns == ($ns | tonumber)) | .ifname + " " + .state')" "vB ok"
ps_in_a ping -c 3 -i 0.02 -q "$PS_IP4_B" >/dev/null || ps_fail "ping A -> B" "exit $?"
ps_check_eq "$BIN stats vB: the 3 echo requests at xdp" \
	"$(ps_pathscope_b stats vB --json | jq '.interfaces[0].totals.xdp.total.l4.icmp')" 3
ps_pathscope_b detach vB || ps_fail "$BIN detach vB" "exit $?"
ps_check_eq "$BIN detach vB: nothing pinned, no XDP on vB" \
	"$(find "/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")" -mindepth 1 2>/dev/null | wc -l) $(ip -n "$NS_B" -d link show vB | grep -c 'prog/xdp')" "0 0"

# 6. Man pages and completion where man and bash-completion look.
for p in pathscope pathscope-attach pathscope-serve; do
	ps_check_eq "man -w $p" "$(man -w "$p" 2>&1)" "/usr/share/man/man8/$p.8.gz"
done
ps_check_eq "man pathscope renders its NAME" \
	"$(MANWIDTH=80 man -P cat pathscope 2>/dev/null | grep -m1 -A1 '^NAME' | tail -n 1 | awk '{ print $1 }')" pathscope
ps_check_eq "bash-completion's loader finds the completion" \
	"$(bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader pathscope; complete -p pathscope' 2>&1)" \
	"complete -F _pathscope pathscope"

# The example Prometheus configuration loads the installed rules, as they are in the tree.
ps_check_eq "/usr/share/pathscope/alerts.yml is packaging/alerts.yml" \
	"$(cmp -s /usr/share/pathscope/alerts.yml "$PS_ROOT/packaging/alerts.yml" && echo same)" same
out=$(promtool check config /usr/share/pathscope/prometheus.yml 2>&1) && rc=0 || rc=$?
ps_check_eq "promtool check config /usr/share/pathscope/prometheus.yml: valid, its rule file found" \
	"$rc $(grep -c 'SUCCESS: 1 rule files found' <<<"$out")" "0 1" || echo "$out" | sed 's/^/# /'

# 7. The units: systemd-analyze verify accepts them (Documentation= pages,
# ExecStart paths); installed disabled; their commands exist.
out=$(systemd-analyze verify /lib/systemd/system/pathscope.service 2>&1) && rc=0 || rc=$?
ps_check_eq "systemd-analyze verify pathscope.service" "$rc $out" "0 "
out=$(systemd-analyze verify pathscope@eth1.service 2>&1) && rc=0 || rc=$?
ps_check_eq "systemd-analyze verify pathscope@eth1.service (the template)" "$rc $out" "0 "
ps_check_eq "the units are installed disabled: nothing of them under /etc/systemd" \
	"$(find /etc/systemd -name '*pathscope*' | wc -l)" 0
ps_check_eq "the units' commands are these" \
	"$(grep -h '^ExecStart' /lib/systemd/system/pathscope.service /lib/systemd/system/pathscope@.service | awk '{ sub(/^[^=]*=/, ""); print $1 }' | sort -u | tr '\n' ' ')" \
	"/usr/libexec/pathscope/check-listen /usr/sbin/pathscope "

# check-listen, on a configuration directory of the test's own.
CONF=$TMP/conf
mkdir "$CONF"
export PATHSCOPE_CONFDIR=$CONF PATHSCOPE_DEFAULTS=$TMP/default
cl() { /usr/libexec/pathscope/check-listen "$@" 2>&1; echo "exit $?"; }
ps_check_eq "check-listen: an instance without its file is refused" "$(cl vB | tail -n 1)" "exit 1"
printf 'LISTEN=127.0.0.1:9465\n' >"$CONF/vB.conf"
printf '# a port of its own, quoted, more options\nLISTEN="127.0.0.1:9466"\nFEATURES=default,kernel\nOPTIONS="--interval 5"\n' >"$CONF/vC.conf"
ps_check_eq "check-listen: vB on 9465" "$(cl vB)" "exit 0"
ps_check_eq "check-listen: vC on 9466" "$(cl vC)" "exit 0"
printf 'LISTEN=0.0.0.0:9465\n' >"$CONF/vD.conf"
ps_check_eq "check-listen: a third instance on vB's port (wildcard) is refused" "$(cl vD | sed 's|/[^ ]*/conf/|CONF/|g')" \
	"pathscope@vD (CONF/vD.conf): LISTEN 0.0.0.0:9465 collides with 127.0.0.1:9465 of pathscope@vB (CONF/vB.conf); give each a port of its own
exit 1"
printf 'LISTEN=127.0.0.1:9464\n' >"$CONF/vD.conf"
ps_check_eq "check-listen: an instance on pathscope.service's default port is refused" "$(cl vD | tail -n 1)" "exit 1"
rm "$CONF/vD.conf"
ps_check_eq "check-listen: pathscope.service on its default port" "$(cl)" "exit 0"

# Two instances, run as their ExecStart says: Environment= defaults, then the
# instance's file (a value of ${VAR} is one word, of $VAR split at blanks),
# %I the interface. vC and its peer vD are a second veth pair in namespace B.
ip -n "$NS_B" link add vC type veth peer name vD || ps_fail "veth vC" "exit $?"
ip -n "$NS_B" link set vC up && ip -n "$NS_B" link set vD up
unit=/lib/systemd/system/pathscope@.service
for i in vB vC; do
	mapfile -t cmd < <(ps_unit_exec_line "$unit" "$CONF/$i.conf" "$i")
	echo "# pathscope@$i: ${cmd[*]}"
	nsenter --net="/var/run/netns/$NS_B" "${cmd[@]}" >"$TMP/$i.out" 2>"$TMP/$i.err" &
	PIDS+=($!)
done
metrics() { ip netns exec "$NS_B" curl -s --max-time 5 "http://127.0.0.1:$1/metrics"; }
for _ in $(seq 100); do
	[ -n "$(metrics 9465)" ] && [ -n "$(metrics 9466)" ] && break
	sleep 0.1
done
ps_check_eq "pathscope@vB serves vB on 9465" "$(metrics 9465 | grep '^pathscope_up{' | tr '\n' ' ')" 'pathscope_up{iface="vB"} 1 '
ps_check_eq "pathscope@vC serves vC on 9466, with its features" \
	"$(metrics 9466 | grep -c '^pathscope_up{iface="vC"} 1$') $(metrics 9466 | grep -Ec '^pathscope_attachment_info\{iface="vC",.*features="([a-z0-9]+,)*kernel(,[a-z0-9]+)*"')" "1 1"
for p in "${PIDS[@]}"; do kill -TERM "$p"; done
rc=
for p in "${PIDS[@]}"; do wait "$p" && rc+="0" || rc+="$?"; done
PIDS=()
ps_check_eq "both instances exit 0 on SIGTERM, having said nothing on stderr" "$rc $(cat "$TMP"/v?.err)" "00 "
ps_check_eq "and detached: nothing pinned in namespace B" \
	"$(find "/sys/fs/bpf/pathscope/$(stat -Lc %i "/var/run/netns/$NS_B")" -mindepth 1 2>/dev/null | wc -l)" 0
unset PATHSCOPE_CONFDIR PATHSCOPE_DEFAULTS

# 8. dpkg --purge: nothing of the package left.
t0=$SECONDS
purge || ps_fail "dpkg --purge pathscope" "failed"
echo "# dpkg --purge: $((SECONDS - t0)) s"
ps_check_eq "dpkg --purge: the package is gone from dpkg's database" \
	"$(dpkg-query -W -f='${Status}' pathscope 2>/dev/null || echo none)" none
left=
while IFS= read -r f; do
	[ -e "$f" ] && [ ! -d "$f" ] && left+=" $f"
done <<<"$installed"
for d in /etc/pathscope /usr/share/pathscope /usr/libexec/pathscope /usr/share/doc/pathscope /etc/default/pathscope; do
	[ -e "$d" ] && left+=" $d"
done
left+=$(find /etc/systemd /var/lib/systemd -name '*pathscope*' -printf ' %p' 2>/dev/null)
ps_check_eq "dpkg --purge: none of its files, directories, conffiles or unit state left" "$left" ""
ps_check_eq "man -w pathscope: no page any more" "$(man -w pathscope >/dev/null 2>&1; echo $?)" 16
ps_done
