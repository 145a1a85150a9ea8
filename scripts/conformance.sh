#!/bin/sh
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in interop/package.json) against our example:
#
#   server mode: bin/everything serving Streamable HTTP (both eras on one
#                endpoint), for the 2025-11-25 and 2026-07-28 requirement
#                sets and for --suite all (pending and extension scenarios
#                too: tasks, custom headers, ...);
#   client mode: bin/everything-client acting each scenario against the
#                harness's mock servers (auth/* included), for the same
#                three selections.
#
# The verdict is interop/results.mjs's: a FAILURE check fails the run
# unless interop/expected-failures.yaml excuses it with a reason, or the
# requirement set marks the scenario not scored. The tables are printed
# and the raw checks kept under OUT.
#
# usage: scripts/conformance.sh [OUT]        (default: out/conformance)
# needs: bin/everything, bin/everything-client (make build) and
#        interop/node_modules (make interop-deps).
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
out=${1:-$root/out/conformance}
conf="$root/interop/conformance.sh"
results() { "$root/interop/node.sh" "$root/interop/results.mjs" --expected-failures "$root/interop/expected-failures.yaml" "$@"; }

for b in everything everything-client; do
	[ -x "$root/bin/$b" ] || { echo "conformance: bin/$b is missing (make build)" >&2; exit 2; }
done
rm -rf "$out"
mkdir -p "$out"

# The server picks a free loopback port and writes its address.
"$root/bin/everything" --http 127.0.0.1:0 --addr-file "$out/addr" 2>"$out/everything.log" &
server=$!
clients=
cleanup() {
	kill "$server" 2>/dev/null || true
	[ -z "$clients" ] || kill "$clients" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
i=0
until [ -s "$out/addr" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$server" 2>/dev/null; then
		echo "conformance: bin/everything did not start; its log:" >&2
		cat "$out/everything.log" >&2
		exit 1
	fi
	sleep 0.1
done
url="http://$(cat "$out/addr")/mcp"
echo "conformance: bin/everything at $url; results in $out"

# run NAME ARGS...: one harness run, its output kept in OUT/NAME.log. The
# harness's own exit status is not the verdict (results.mjs is).
run() {
	name=$1
	shift
	start=$(date +%s)
	"$conf" "$@" -o "$out/$name" >"$out/$name.log" 2>&1 || true
	echo "conformance: $name done in $(($(date +%s) - start))s"
}

# Client runs use the harness's own mock servers: run them alongside.
(
	run client-2025-11-25 client --command "$root/bin/everything-client" --requirements 2025-11-25
	run client-2026-07-28 client --command "$root/bin/everything-client" --requirements 2026-07-28
	run client-all client --command "$root/bin/everything-client" --suite all
) &
clients=$!

# Server runs share one server, whose fixtures some scenarios change (the
# list-changed triggers): one at a time.
run server-2025-11-25 server --url "$url" --requirements 2025-11-25
run server-2026-07-28 server --url "$url" --requirements 2026-07-28
run server-all server --url "$url" --suite all
wait "$clients"
clients=

status=0
echo
echo "== requirement set 2025-11-25"
results --requirements 2025-11-25 "$out/server-2025-11-25" "$out/client-2025-11-25" || status=1
echo
echo "== requirement set 2026-07-28"
results --requirements 2026-07-28 "$out/server-2026-07-28" "$out/client-2026-07-28" || status=1
echo
echo "== every scenario (--suite all: pending, draft and extensions too)"
results "$out/server-all" "$out/client-all" || status=1
results --json "$out/server-2025-11-25" "$out/client-2025-11-25" "$out/server-2026-07-28" "$out/client-2026-07-28" "$out/server-all" "$out/client-all" >"$out/summary.json" 2>/dev/null || true
exit $status
