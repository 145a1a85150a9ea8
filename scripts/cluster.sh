#!/usr/bin/env bash
# Several bin/everything instances sharing one redis-server behind a
# round-robin proxy without stickiness (bin/rrproxy).
#
#   scripts/cluster.sh demo    three instances; bin/everything-client's demo
#                              session through the proxy; which instance
#                              answered each request
#   scripts/cluster.sh bench   16 clients through the proxy, stateful and
#                              stateless: 1 instance in memory, 1, 2 and 3
#                              with Redis; calls/s, p50/p99, Redis
#                              commands and round trips per call
#                              (out/cluster/)
#
# Needs redis-server and redis-cli (Debian redis-server), and make build.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-demo}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# await FILE: wait until a process wrote its address to FILE.
await() {
	for _ in $(seq 500); do [ -s "$1" ] && return 0; sleep 0.02; done
	echo "cluster: nothing wrote $1" >&2
	exit 1
}

# One key ring for all instances: each honours the others' resume tokens;
# and one state key: a 2026 input round's retry may reach any of them.
resume_key=$(head -c 32 /dev/urandom | base64)
state_key=$(head -c 32 /dev/urandom | base64)

redis_port=0
start_redis() {
	for _ in $(seq 20); do
		redis_port=$((20000 + RANDOM % 20000))
		redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$tmp" --save '' --appendonly no >"$tmp/redis.log" 2>&1 &
		local pid=$!
		for _ in $(seq 100); do
			# Ours, not another server already on the port (then ours
			# exited: try another port).
			kill -0 "$pid" 2>/dev/null || break
			if redis-cli -p "$redis_port" ping >/dev/null 2>&1 && kill -0 "$pid" 2>/dev/null; then
				pids+=("$pid") # first: stop_cluster keeps it
				return 0
			fi
			sleep 0.02
		done
		kill "$pid" 2>/dev/null || true
	done
	echo "cluster: redis-server did not start" >&2
	exit 1
}

# start_cluster N REDIS(yes|no): N instances and the proxy; sets $url.
inst=0
start_cluster() {
	local n=$1 backends=()
	for _ in $(seq "$n"); do
		inst=$((inst + 1))
		# The instances trust the proxy's X-Forwarded-For: the clients
		# behind it are told apart for the per-client limits.
		local flags=(--trusted-proxies 127.0.0.1/32 --state-keys "$state_key")
		[ "$2" = yes ] && flags+=(--redis "redis://127.0.0.1:$redis_port/0" --resume-keys "$resume_key")
		bin/everything --http 127.0.0.1:0 --addr-file "$tmp/addr$inst" "${flags[@]}" 2>>"$tmp/everything.log" &
		pids+=($!)
		await "$tmp/addr$inst"
		backends+=("http://$(cat "$tmp/addr$inst")/mcp")
	done
	bin/rrproxy -v --addr-file "$tmp/proxy$inst" "${backends[@]}" 2>"$tmp/proxy$inst.log" &
	pids+=($!)
	await "$tmp/proxy$inst"
	url="http://$(cat "$tmp/proxy$inst")/mcp"
	proxy_log="$tmp/proxy$inst.log"
}

stop_cluster() {
	for p in "${pids[@]:1}"; do kill "$p" 2>/dev/null || true; done
	pids=("${pids[0]}")
}

redis_commands() {
	redis-cli -p "$redis_port" INFO commandstats | sed -n 's/^cmdstat_[a-z]*:calls=\([0-9]*\),.*/\1/p' | awk '{s+=$1} END {print s+0}'
}

# redis_reads: the read events Redis processed, one per round trip a
# client made (a pipeline arrives in one read; a script is one command).
redis_reads() {
	redis-cli -p "$redis_port" INFO stats | sed -n 's/^total_reads_processed:\([0-9]*\).*/\1/p'
}

start_redis
case "$mode" in
demo)
	start_cluster 3 yes
	echo "== three bin/everything instances sharing redis-server :$redis_port, behind bin/rrproxy at $url (round robin, no stickiness)"
	bin/everything-client --demo --url "$url"
	echo
	echo "== which instance answered each request of the session (bin/rrproxy's log)"
	grep -o 'backend=[^ ]*' "$proxy_log" | sort | uniq -c
	;;
bench)
	mkdir -p out/cluster
	out=out/cluster/runs.jsonl
	: >"$out"
	(cd bench && go build -o ../bin/mcpload ./cmd/mcpload)
	printf '%-22s %-11s %10s %9s %9s %16s %14s\n' setup era "calls/s" "p50 µs" "p99 µs" "redis cmds/call" "redis RTs/call"
	for setup in memory-1 redis-1 redis-2 redis-3; do
		n=${setup#*-}
		shared=yes
		[ "${setup%-*}" = memory ] && shared=no
		for era in 2025-11-25 2026-07-28; do
			start_cluster "$n" "$shared"
			# Warm up apart, so that the counters cover the timed calls only.
			bin/mcpload --url "$url" --era "$era" --concurrency 16 --duration 1s --warmup 0s --label warmup >/dev/null
			before=$(redis_commands) reads_before=$(redis_reads)
			line=$(bin/mcpload --url "$url" --era "$era" --concurrency 16 --duration "${DURATION:-3s}" --warmup 0s --label "$setup")
			after=$(redis_commands) reads_after=$(redis_reads)
			echo "$line" >>"$out"
			calls=$(echo "$line" | sed -n 's/.*"calls":\([0-9]*\).*/\1/p')
			cps=$(echo "$line" | sed -n 's/.*"calls_per_sec":\([0-9.]*\).*/\1/p')
			p50=$(echo "$line" | sed -n 's/.*"p50_us":\([0-9.]*\).*/\1/p')
			p99=$(echo "$line" | sed -n 's/.*"p99_us":\([0-9.]*\).*/\1/p')
			errs=$(echo "$line" | sed -n 's/.*"errors":\([0-9]*\).*/\1/p')
			per=$(awk -v a="$before" -v b="$after" -v c="$calls" 'BEGIN {printf "%.2f", (b - a) / (c > 0 ? c : 1)}')
			# (The redis-cli calls between are three reads, three commands;
			# a session's opening, its initialize and closing, adds a few.)
			rts=$(awk -v a="$reads_before" -v b="$reads_after" -v c="$calls" 'BEGIN {printf "%.2f", (b - a - 3) / (c > 0 ? c : 1)}')
			printf '%-22s %-11s %10.0f %9.0f %9.0f %16s %14s%s\n' "$setup" "$era" "$cps" "$p50" "$p99" "$per" "$rts" "$([ "$errs" != 0 ] && echo " ($errs errors)")"
			stop_cluster
		done
	done
	echo "(runs in $out; Redis commands and round trips over the timed calls, sessions opened and closed included)"
	;;
*)
	echo "usage: scripts/cluster.sh demo|bench" >&2
	exit 2
	;;
esac
