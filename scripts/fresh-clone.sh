#!/usr/bin/env bash
# A fresh clone as a newcomer has it: no spec directory beside it.
#   1. make demo passes through mcpgen's download path: the revisions are
#      fetched from a local mirror at the pinned layout (specmirror, so
#      that CI needs no network beyond the package registries), checked
#      against the pinned SHA-256 and cached;
#   2. with neither a spec directory nor the download, make generate stops
#      with the one error that names what was tried and the ways out.
# The clone is of the committed tree (what CI checks out), in a directory
# of its own. SPEC_ROOT is where the mirror reads the revisions from.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
spec=$(cd "${SPEC_ROOT:-$repo/../shared/mcp-schema}" && pwd)
work=$(mktemp -d)
mirror=""
cleanup() {
	[ -n "$mirror" ] && kill "$mirror" 2>/dev/null || true
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

(cd "$repo" && go build -o "$work/specmirror" ./internal/specsource/cmd/specmirror)
"$work/specmirror" -root "$spec" >"$work/url" &
mirror=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(cat "$work/url")

# What pointed this checkout at its spec directory must not reach the
# clone's make (SPEC_ROOT would win over the Makefile's default).
unset SPEC_ROOT MCPGEN_SPEC_ROOT MCPGEN_SPEC_URL MCPGEN_CACHE
git clone -q "$repo" "$work/clone/mcpgen"
cd "$work/clone/mcpgen"
test ! -e ../shared || { echo "fresh-clone: ../shared exists beside the clone"; exit 1; }

echo "== make demo in a fresh clone, the revisions downloaded from $url"
start=$(date +%s)
MCPGEN_SPEC_URL=$url MCPGEN_CACHE=$work/cache make demo 2>&1 | tee "$work/demo.log" | tail -n 5
echo "fresh-clone: make demo passed in $(( $(date +%s) - start )) s"
grep -q "mcpgen: downloading $url/" "$work/demo.log" || { echo "fresh-clone: make demo did not download the revisions"; exit 1; }

echo "== make generate with neither a spec directory nor the download"
if MCPGEN_SPEC_URL=http://127.0.0.1:9 MCPGEN_CACHE=$work/empty make generate >"$work/offline.log" 2>&1; then
	echo "fresh-clone: make generate passed offline with nothing to read"; exit 1
fi
for want in "mcpgen looked for 2024-11-05 in the spec root" "$work/clone/shared/mcp-schema (--spec-root, \$MCPGEN_SPEC_ROOT): it does not exist" \
	"$work/empty/spec/" "the download from http://127.0.0.1:9: unreachable" "with network once" "offline: put"; do
	grep -qF -- "$want" "$work/offline.log" || { echo "fresh-clone: the offline error does not say: $want"; cat "$work/offline.log"; exit 1; }
done
grep -m1 -A3 "mcpgen looked for" "$work/offline.log"
echo "fresh-clone: the offline error names what was tried"
