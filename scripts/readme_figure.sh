#!/usr/bin/env bash
# README.md's figure: the demo's heatmap of the iperf3 flows' TCP RTT (what
# `make demo` records), rendered by Debian's headless Chromium at the SVG's
# own size to docs/heatmap-demo.png. Run as root: `make readme-figure`; then
# commit the PNG with the change that moved it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/${PS_BUILD:-build}/demo
mkdir -p "$out"
echo "== running the demo (its output in $out.txt)"
DEMO_OUT=$out bash scripts/demo.sh >"$out.txt" 2>&1 || {
	echo "readme-figure: the demo failed; see $out.txt" >&2
	exit 1
}
svg=$out/tcp_rtt.svg
size=$(grep -o '<svg [^>]*' "$svg" | sed 's/.* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/')
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--force-device-scale-factor=1 --user-data-dir="$profile" --window-size="$size" \
	--screenshot="$PWD/docs/heatmap-demo.png" "file://$svg" >/dev/null 2>&1
echo "docs/heatmap-demo.png: ${size/,/x} pixels, from $svg"
