#!/usr/bin/env bash
# blackbox.sh — the black-box comparison: mcpgen, go-sdk, mcp-go and a
# plain standard-library JSON-RPC loop, each a server binary of its own
# (cmd/echo-STACK) driven by cmd/mcpload over stdio and loopback HTTP.
# Not part of `make test`; `make bench-blackbox` runs it.
#
# Each repetition runs every case for every stack that has it, back to
# back, in an order rotated by the repetition (A B C D, then B C D A, ...),
# after waiting for a quiet machine (less than QUIET_BUSY percent of the
# CPUs busy over one second). Every run prints one JSON line into
# $OUT/runs.jsonl; the summary gives the median of every figure and the
# goal rows as per-repetition ratios.
#
# BASE=REV also builds echo-mcpgen from git revision REV (a worktree) and
# runs it beside this tree's as stack mcpgen@base: the summary's goal rows
# then have a before column measured in the same run, on the same machine.
#
#   REPS=3 DURATION=5s WARMUP=1s OUT=../out/blackbox bench/blackbox.sh
#   BASE=HEAD~3 bench/blackbox.sh
set -euo pipefail
cd "$(dirname "$0")"

REPS=${REPS:-3}
DURATION=${DURATION:-5s}
WARMUP=${WARMUP:-1s}
OUT=${OUT:-../out/blackbox}
QUIET_BUSY=${QUIET_BUSY:-10}   # percent of all CPUs
QUIET_WAIT=${QUIET_WAIT:-120}  # seconds to wait for quiet before going on anyway
VALIDATE=${VALIDATE:-1}        # also run the decode+validate benchmarks of spectest
BASE=${BASE:-}                 # a git revision to compare with (stack mcpgen@base)

mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
go generate ./...
for s in mcpgen go-sdk mcp-go plain; do
	go build -o "$OUT/bin/echo-$s" "./cmd/echo-$s"
done
go build -o "$OUT/bin/mcpload" ./cmd/mcpload
base=""
if [ -n "$BASE" ]; then
	wt=$(mktemp -d)
	git -C .. worktree add -q --detach "$wt" "$BASE"
	(cd "$wt/bench" && go generate ./... && go build -o "$OUT/bin/echo-mcpgen@base" ./cmd/echo-mcpgen)
	git -C .. worktree remove --force "$wt"
	base="mcpgen@base"
	echo "blackbox: mcpgen@base is $(git -C .. rev-parse --short "$BASE")" >&2
fi
runs="$OUT/runs.jsonl"
: > "$runs"

# busy prints the percentage of CPU time not idle over the next second.
busy() {
	read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ < /proc/stat
	sleep 1
	read -r _ u2 n2 s2 i2 w2 q2 sq2 st2 _ < /proc/stat
	local idle=$(( (i2 + w2) - (i1 + w1) ))
	local total=$(( (u2+n2+s2+i2+w2+q2+sq2+st2) - (u1+n1+s1+i1+w1+q1+sq1+st1) ))
	echo $(( total > 0 ? 100 * (total - idle) / total : 0 ))
}

wait_quiet() {
	local waited=0 b
	while b=$(busy); [ "$b" -ge "$QUIET_BUSY" ]; do
		waited=$((waited + 1))
		if [ "$waited" -ge "$QUIET_WAIT" ]; then
			echo "blackbox: machine still ${b}% busy after ${QUIET_WAIT}s; measuring anyway" >&2
			return
		fi
	done
}

# Cases: transport era concurrency text-bytes stacks...
cases=(
	"stdio 2025-11-25 1 5 mcpgen go-sdk mcp-go plain"
	"stdio 2026-07-28 1 5 mcpgen plain"
	"stdio 2025-11-25 16 5 mcpgen go-sdk mcp-go plain"
	"stdio 2026-07-28 16 5 mcpgen plain"
	"stdio 2025-11-25 16 65536 mcpgen plain"
	"http 2025-11-25 16 5 mcpgen go-sdk mcp-go plain"
	"http 2026-07-28 16 5 mcpgen plain"
)

for rep in $(seq 1 "$REPS"); do
	for c in "${cases[@]}"; do
		read -r tx era conc text stacks <<<"$c"
		[ -n "$base" ] && stacks=${stacks/mcpgen/mcpgen $base}
		read -ra st <<<"$stacks"
		n=${#st[@]}
		for k in $(seq 0 $((n - 1))); do
			s=${st[$(( (k + rep - 1) % n ))]}
			wait_quiet
			flags=()
			[ "$tx" = http ] && flags+=(--http)
			echo "blackbox: rep $rep $tx $era $conc×${text}B $s" >&2
			"$OUT/bin/mcpload" --rep "$rep" --label "$s" --cmd "$OUT/bin/echo-$s" "${flags[@]}" \
				--era "$era" --concurrency "$conc" --text-bytes "$text" --duration "$DURATION" --warmup "$WARMUP" | tee -a "$runs"
		done
	done
done

"$OUT/bin/mcpload" summarize "$runs" | tee "$OUT/summary.txt"

if [ "$VALIDATE" = 1 ]; then
	echo
	echo "== decode+Validate vs jsonschema v5 (spectest, -count 6)"
	(cd ../spectest && go generate ./... && go test -run '^$' -bench 'Validate/(ListToolsResult|CallToolRequest)' -benchmem -count 6 ./mcp/mcp20251125 ./mcp/mcp20260728) | tee "$OUT/validate.txt"
fi
