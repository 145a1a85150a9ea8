#!/usr/bin/env bash
# gateway.sh — what bin/mcpgateway costs per call: bench/cmd/mcpload
# driving echo calls at bin/everything directly and through the gateway
# (bin/mcpgateway --stdio bin/everything), over stdio and Streamable HTTP,
# both eras, one call in flight and 16. Prints calls/s, p50 and p99
# latency, and the ratio through/direct; the runs' JSON lines are kept
# in $OUT/runs.jsonl. Not part of `make test`; `make bench-gateway` runs
# it (after make build).
#
#   DURATION=3s OUT=../out/gateway bench/gateway.sh
set -euo pipefail
cd "$(dirname "$0")"
DURATION=${DURATION:-3s}
OUT=${OUT:-../out/gateway}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
root=$(cd .. && pwd)
for b in everything mcpgateway; do
	[ -x "$root/bin/$b" ] || { echo "gateway.sh: bin/$b is missing (make build)" >&2; exit 2; }
done
go build -o "$OUT/mcpload" ./cmd/mcpload
runs="$OUT/runs.jsonl"
: >"$runs"
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
printf '%-6s %-11s %4s  %22s  %22s  %22s\n' tx era conc "direct calls/s p50 p99" "gateway calls/s p50 p99" "ratio calls/s, p50"
for tx in stdio http; do
	flags=()
	[ "$tx" = http ] && flags+=(--http)
	for era in 2025-11-25 2026-07-28; do
		for conc in 1 16; do
			direct=$("$OUT/mcpload" --label direct --cmd "$root/bin/everything" "${flags[@]}" --era "$era" --concurrency "$conc" --duration "$DURATION" --warmup 1s)
			via=$("$OUT/mcpload" --label gateway --cmd "$root/bin/mcpgateway --stdio $root/bin/everything" "${flags[@]}" --era "$era" --concurrency "$conc" --duration "$DURATION" --warmup 1s)
			echo "$direct" >>"$runs"
			echo "$via" >>"$runs"
			dc=$(echo "$direct" | field calls_per_sec) d50=$(echo "$direct" | field p50_us) d99=$(echo "$direct" | field p99_us)
			vc=$(echo "$via" | field calls_per_sec) v50=$(echo "$via" | field p50_us) v99=$(echo "$via" | field p99_us)
			printf '%-6s %-11s %4s  %8.0f %6.0fµs %6.0fµs  %8.0f %6.0fµs %6.0fµs  %10s %10s\n' "$tx" "$era" "$conc" "$dc" "$d50" "$d99" "$vc" "$v50" "$v99" \
				"$(awk -v a="$vc" -v b="$dc" 'BEGIN {printf "%.2f", a / b}')" "$(awk -v a="$v50" -v b="$d50" 'BEGIN {printf "%.2f", a / b}')"
		done
	done
done
