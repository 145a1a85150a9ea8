#!/bin/sh
# Run the pinned MCP conformance CLI on node 22, with every listen() of its mock
# servers forced onto 127.0.0.1 (loopback-preload.mjs, via NODE_OPTIONS so node
# processes the harness spawns get it too). Arguments are forwarded, e.g.
#   interop/conformance.sh list --server
#   interop/conformance.sh server --url http://127.0.0.1:3001/mcp --requirements 2025-11-25 -o /tmp/out
#   interop/conformance.sh client --command "/abs/everything-client" --scenario initialize
# node 22 is first on PATH, so a client command "node x.mjs" also runs on node 22.
set -eu
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
bins=$("$dir/bin-path.sh")
NODE_OPTIONS="--import=\"$dir/loopback-preload.mjs\"${NODE_OPTIONS:+ $NODE_OPTIONS}"
export NODE_OPTIONS
PATH="$bins:$PATH" exec "$dir/node.sh" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"
