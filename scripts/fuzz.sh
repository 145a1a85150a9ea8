#!/usr/bin/env bash
# Runs every fuzz target for the given time each (default 60s):
#   scripts/fuzz.sh 2m
# Targets are found in the root module, and in the generated packages of
# spectest (decode+Validate of each revision's top-level message unions, and
# of a page of tools, ListToolsResult).
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-60s}
run() { # dir pkg target
	echo "== $2 $3 ($t)"
	(cd "$1" && go test -run '^$' -fuzz "^$3\$" -fuzztime "$t" "$2")
}
for f in $(grep -rl --include='*_test.go' '^func Fuzz' runtime schema gen 2>/dev/null); do
	pkg=./$(dirname "$f")
	for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
		run . "$pkg" "$target"
	done
done
(cd spectest && go generate ./...)
for rev in mcp20251125 mcp20260728; do
	for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "spectest/mcp/$rev/registry_test.go" | sed 's/^func //'); do
		run spectest "./mcp/$rev" "$target"
	done
done
# The decoders mcpgen tools generates (examples/hello's declarations).
(cd examples/hello && go generate ./...)
run examples/hello . FuzzArguments
