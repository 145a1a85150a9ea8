#!/usr/bin/env bash
# size.sh — the binary size of one server on each stack: examples/hello
# (two tools, a prompt and a resource, stdio and Streamable HTTP, the
# 2025-11-25 and 2026-07-28 revisions) on mcpgen, and the same server on
# the official go-sdk (cmd/hello-go-sdk) and mcp-go (cmd/hello-mcp-go).
# Each is built as users build it, then with the build options that make
# it smaller; "stripped" is -ldflags='-s -w' (no symbol table, no DWARF).
# Then what each package adds to mcpgen's binary (go tool nm -size: code,
# read-only data and data; not bss, nor the 32 MB buffer crypto's DRBG
# keeps in uninitialized data). Not part of `make test`; `make
# bench-size` runs it.
#
#   OUT=../out/size bench/size.sh
#   BASE=HEAD~3 bench/size.sh     # also mcpgen at git revision REV
set -euo pipefail
cd "$(dirname "$0")"

OUT=${OUT:-../out/size}
BASE=${BASE:-}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
hello=$(cd ../examples/hello && pwd)
(cd "$hello" && go generate ./... >/dev/null)

# build NAME DIR PKG TAGS: NAME and NAME-stripped in $OUT.
build() {
	local name=$1 dir=$2 pkg=$3 tags=$4
	(cd "$dir" && go build -tags "$tags" -o "$OUT/$name" "$pkg" && go build -tags "$tags" -ldflags='-s -w' -o "$OUT/$name-stripped" "$pkg")
}
size() { stat -c %s "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'; }

rows=()
# row LABEL NAME: one line of the table.
row() { rows+=("$1|$(size "$OUT/$2")|$(size "$OUT/$2-stripped")"); }

if [ -n "$BASE" ]; then
	wt=$(mktemp -d)
	git -C .. worktree add -q --detach "$wt" "$BASE"
	(cd "$wt/examples/hello" && go generate ./... >/dev/null)
	build hello-mcpgen@base "$wt/examples/hello" . ""
	git -C .. worktree remove --force "$wt"
	row "mcpgen at $(git -C .. rev-parse --short "$BASE")" hello-mcpgen@base
fi
build hello-mcpgen "$hello" . ""
row "mcpgen" hello-mcpgen
# The same server on packages generated with --side server (a copy of
# examples/hello beside it, so that its go.mod's replace still holds).
side=$(cd "$hello/.." && pwd)/.hello-side
rm -rf "$side" && cp -r "$hello" "$side"
otel=$(cd "$hello/.." && pwd)/.hello-otel
full=$(cd "$hello/.." && pwd)/.hello-full
trap 'rm -rf "$side" "$otel" "$full"' EXIT
(cd "$side" && rm -rf mcp && for r in 2025-11-25 2026-07-28; do go tool mcpgen --revision "$r" --side server --out "mcp/v${r//-/}" || exit 1; done)
build hello-mcpgen-side "$side" . ""
row "mcpgen, packages --side server" hello-mcpgen-side
# The same server linking the full JSON Schema validator, as a program
# whose hand-written tools have schemas that are not flat does (the import
# of runtime/toolschema/fullschema, in a copy of examples/hello).
rm -rf "$full" && cp -r "$hello" "$full"
printf 'package main\n\nimport _ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"\n' > "$full/fullschema.go"
build hello-mcpgen-fullschema "$full" . ""
row "mcpgen importing toolschema/fullschema" hello-mcpgen-fullschema
build hello-mcpgen-small "$side" . nethttpomithttp2
row "mcpgen --side server, -tags nethttpomithttp2" hello-mcpgen-small
# With telemetry: the hello server exporting traces and metrics over
# OTLP/HTTP from the environment (telemetry.FromEnv, a copy of
# examples/hello given the telemetry module as a user would), beside the
# go-sdk server with the OpenTelemetry SDK and the upstream OTLP/HTTP
# exporters (-tags hello_otel).
rm -rf "$otel" && cp -r "$hello" "$otel"
(cd "$otel" && perl -0pi -e 's|("github.com/mcpgen/mcpgen/runtime/streamhttp"\n)|$1\t"github.com/mcpgen/mcpgen/runtime/telemetry"\n|; s|(\topts := mcp.ServerOptions\{.*\n)|$1\tif x, err := telemetry.FromEnv(ctx, "hello", telemetry.Options{}); err != nil {\n\t\tlog.Fatal(err)\n\t} else if x != nil {\n\t\tdefer x.Shutdown(context.Background())\n\t\tx.InstrumentServer(&opts)\n\t}\n|' main.go &&
	go mod edit -require=github.com/mcpgen/mcpgen/runtime/telemetry@v0.0.0 -replace=github.com/mcpgen/mcpgen/runtime/telemetry=../../runtime/telemetry &&
	go mod tidy >/dev/null && grep -q telemetry.FromEnv main.go)
build hello-mcpgen-otel "$otel" . ""
row "mcpgen with runtime/telemetry (OTLP/HTTP)" hello-mcpgen-otel
build hello-go-sdk . ./cmd/hello-go-sdk ""
row "go-sdk" hello-go-sdk
build hello-go-sdk-otel . ./cmd/hello-go-sdk hello_otel
row "go-sdk with the OTel SDK and OTLP/HTTP exporters" hello-go-sdk-otel
build hello-go-sdk-small . ./cmd/hello-go-sdk nethttpomithttp2
row "go-sdk -tags nethttpomithttp2" hello-go-sdk-small
build hello-mcp-go . ./cmd/hello-mcp-go ""
row "mcp-go" hello-mcp-go

gosdk=$(size "$OUT/hello-go-sdk")
gosdks=$(size "$OUT/hello-go-sdk-stripped")
{
	printf "%-66s %10s %8s %10s %8s\n" "the hello server on" "MB" "/go-sdk" "stripped" "/go-sdk"
	for r in "${rows[@]}"; do
		IFS='|' read -r label full stripped <<<"$r"
		printf "%-66s %10s %8.2f %10s %8.2f\n" "$label" "$(mb "$full")" "$(echo "$full / $gosdk" | bc -l)" "$(mb "$stripped")" "$(echo "$stripped / $gosdks" | bc -l)"
	done
	echo
	echo "generated lines (examples/hello/mcp): $(cat "$hello"/mcp/*/*.go | wc -l)"
	echo
	echo "what each package adds to mcpgen's binary (KB of symbols; the top 25):"
	go tool nm -size "$OUT/hello-mcpgen" | awk '$3 !~ /^[bBU]$/ {
		n = $4; sub(/^go:(itab|string)\./, "", n); sub(/^type:\*?/, "", n)
		i = match(n, /\/[^\/]*$/); pre = i ? substr(n, 1, i) : ""; rest = i ? substr(n, i + 1) : n
		d = index(rest, "."); if (d) rest = substr(rest, 1, d - 1)
		if ($2 < 8000000) s[pre rest] += $2 } END { for (k in s) printf "%8.0f  %s\n", s[k] / 1000, k }' | sort -rn | head -25 || true
} | tee "$OUT/summary.txt"
