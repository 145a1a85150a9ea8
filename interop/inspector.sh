#!/bin/sh
# Run the pinned 2025-era MCP inspector CLI (@modelcontextprotocol/inspector-cli,
# build/index.js) on node 22, forwarding all arguments. Examples:
#   interop/inspector.sh --method tools/list -- bin/everything --stdio
#   interop/inspector.sh http://127.0.0.1:3000/mcp --method tools/call --tool-name echo --tool-arg text=hi
# It runs in the caller's cwd: inspector-fix.mjs works around the CLI's
# package.json lookup bug (see there), so relative stdio commands keep working.
set -eu
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
exec "$dir/node.sh" --import="$dir/lib/inspector-fix.mjs" \
	"$dir/node_modules/@modelcontextprotocol/inspector-cli/build/index.js" "$@"
