#!/usr/bin/env bash
# make deb: build pathscope_<version>_<arch>.deb with dpkg-buildpackage and
# debian/, and put it in the repository root (DEB_OUT=DIR: there instead).
#
# The version has one place, lib/version.h (what 'pathscope version' prints):
# debian/changelog is not in the tree but written here from it, dated by the
# last commit (SOURCE_DATE_EPOCH follows from it). The build runs in a copy of
# the tree under build/deb/, because a package build starts with 'make clean',
# which would remove the developer's build/. build/deb/ keeps the .changes,
# .buildinfo and the -dbgsym package.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${DEB_OUT:-$root}

version=$(sed -n 's/^#define PATHSCOPE_VERSION "\([^"]*\)"$/\1/p' lib/version.h)
if ! [[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
	echo "deb: lib/version.h has no usable PATHSCOPE_VERSION ('$version')" >&2
	exit 1
fi
when=$(git log -1 --format=%cD 2>/dev/null || true)
[ -n "$when" ] || when=$(date -R)

work=$root/build/deb
src=$work/pathscope-$version
rm -rf "$work"
mkdir -p "$src"
# The tree without VCS data and build output.
tar -C "$root" --exclude=./.git --exclude='./build' --exclude='./build-*' \
	--exclude='./pathscope_*' --exclude='./pathscope-dbgsym_*' -cf - . | tar -C "$src" -xf -

cat >"$src/debian/changelog" <<EOF
pathscope ($version) unstable; urgency=medium

  * pathscope $version, built from its repository (lib/version.h); the changes
    are the repository's history.

 -- pathscope developers <pathscope@example.org>  $when
EOF

echo "deb: building pathscope $version in $src"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
	tail -n 40 "$work/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log is $work/build.log" >&2
	exit 1
}
rm -rf "$src"
debs=("$work"/pathscope_"$version"_*.deb)
[ -f "${debs[0]}" ] || { echo "deb: no package in $work" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out"/pathscope_*.deb
cp "${debs[@]}" "$out/"
echo "deb: $out/${debs[0]##*/}"
