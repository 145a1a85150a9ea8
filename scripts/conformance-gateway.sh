#!/bin/sh
# The official conformance suite's server scenarios through bin/mcpgateway
# (issue 48):
#
#   1. fronting bin/everything (every revision, over stdio): requirement
#      sets 2025-11-25 and 2026-07-28, the same checks as against
#      bin/everything directly (scripts/conformance.sh), with the same
#      results (interop/expected-failures-gateway.yaml lists none);
#   2. fronting bin/everything of each older revision (--revisions R):
#      requirement set 2025-11-25, failing exactly what R cannot carry
#      (interop/expected-failures-gateway-R.yaml, each with why);
#   3. fronting server-everything (npm, over stdio), and server-everything
#      directly (Streamable HTTP): requirement set 2025-11-25; no check
#      fails through the gateway that passes directly
#      (interop/no-worse.mjs; the other way round it lists them).
#
# usage: scripts/conformance-gateway.sh [OUT]   (default: out/conformance-gateway)
# needs: bin/mcpgateway, bin/everything (make build), interop/node_modules.
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
out=${1:-$root/out/conformance-gateway}
conf="$root/interop/conformance.sh"
node="$root/interop/node.sh"
results() { "$node" "$root/interop/results.mjs" "$@"; }
for b in everything mcpgateway; do
	[ -x "$root/bin/$b" ] || { echo "conformance-gateway: bin/$b is missing (make build)" >&2; exit 2; }
done
rm -rf "$out"
mkdir -p "$out"
pids=
cleanup() { [ -z "$pids" ] || kill $pids 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# await FILE PID: wait until the process wrote its address to FILE.
await() {
	i=0
	until [ -s "$1" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$2" 2>/dev/null; then
			echo "conformance-gateway: nothing wrote $1" >&2
			exit 1
		fi
		sleep 0.1
	done
}

# gateway NAME BACKEND: bin/mcpgateway --stdio BACKEND on a free port; sets $url.
gateway() {
	"$root/bin/mcpgateway" --stdio "$2" --http 127.0.0.1:0 --addr-file "$out/$1.addr" 2>"$out/$1.log" &
	pid=$!
	pids="$pids $pid"
	await "$out/$1.addr" "$pid"
	url="http://$(cat "$out/$1.addr")/mcp"
}

# run NAME URL ARGS...: one harness run (its own exit status is not the verdict).
run() {
	name=$1 u=$2
	shift 2
	start=$(date +%s)
	"$conf" server --url "$u" "$@" -o "$out/$name" >"$out/$name.log" 2>&1 || true
	echo "conformance-gateway: $name done in $(($(date +%s) - start))s"
}

status=0
everything="'$root/bin/everything'"

# 1. Every revision behind the gateway.
gateway everything "$everything"
run everything-2025-11-25 "$url" --requirements 2025-11-25
run everything-2026-07-28 "$url" --requirements 2026-07-28
echo
echo "== bin/everything behind the gateway, requirement set 2025-11-25"
results --expected-failures "$root/interop/expected-failures-gateway.yaml" --requirements 2025-11-25 "$out/everything-2025-11-25" || status=1
echo
echo "== bin/everything behind the gateway, requirement set 2026-07-28"
results --expected-failures "$root/interop/expected-failures-gateway.yaml" --requirements 2026-07-28 "$out/everything-2026-07-28" || status=1

# 2. Each older revision behind the gateway, to clients of 2025-11-25.
for rev in 2024-11-05 2025-03-26 2025-06-18 2025-11-25; do
	gateway "everything-$rev" "$everything --revisions $rev"
	run "everything-$rev-only" "$url" --requirements 2025-11-25
	echo
	echo "== bin/everything serving only $rev behind the gateway, requirement set 2025-11-25"
	results --expected-failures "$root/interop/expected-failures-gateway-$rev.yaml" --requirements 2025-11-25 "$out/everything-$rev-only" || status=1
done

# 3. server-everything behind the gateway, and directly.
script="$root/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
gateway server-everything "'$node' '$script' stdio"
run npm-via-gateway "$url" --requirements 2025-11-25
port=$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
NODE_OPTIONS="--import=\"$root/interop/loopback-preload.mjs\"" PORT=$port "$node" "$script" streamableHttp >"$out/npm-direct.server.log" 2>&1 &
pids="$pids $!"
i=0
until "$node" -e "require('net').connect($port,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || { echo "conformance-gateway: server-everything did not listen" >&2; exit 1; }
	sleep 0.1
done
run npm-direct "http://127.0.0.1:$port/mcp" --requirements 2025-11-25
results --json --requirements 2025-11-25 "$out/npm-via-gateway" >"$out/npm-via-gateway.json" || true
results --json --requirements 2025-11-25 "$out/npm-direct" >"$out/npm-direct.json" || true
echo
echo "== server-everything behind the gateway vs directly, requirement set 2025-11-25"
"$node" "$root/interop/no-worse.mjs" "$out/npm-direct.json" "$out/npm-via-gateway.json" || status=1
exit $status
