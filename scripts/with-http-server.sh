#!/bin/sh
# Runs COMMAND... with the URL of a bin/everything serving Streamable HTTP
# on a free loopback port appended as its last argument, and stops the
# server afterwards:
#   scripts/with-http-server.sh bin/everything-client --demo --url
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
dir=$(mktemp -d)
"$root/bin/everything" --http 127.0.0.1:0 --addr-file "$dir/addr" 2>"$dir/log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
i=0
until [ -s "$dir/addr" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 $server 2>/dev/null; then
		echo "with-http-server: bin/everything did not start:" >&2
		cat "$dir/log" >&2
		exit 1
	fi
	sleep 0.1
done
"$@" "http://$(cat "$dir/addr")/mcp"
