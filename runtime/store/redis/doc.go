// Package redis keeps what several instances of an MCP server behind a
// load balancer must share in Redis: the SSE event logs of Streamable HTTP
// sessions (EventStore, so a stream cut at one instance can be resumed
// from its Last-Event-ID) and the state and completions of resumable calls
// (ResumeStore, so an instance refuses a token of an operation another
// completed). It is a module of its own so that the runtime's module does
// not depend on a Redis client.
//
// The client is github.com/redis/go-redis/v9: the official Go client,
// maintained by Redis, context-first, with pipelines, streams, cluster and
// sentinel support behind one UniversalClient interface. (rueidis is
// faster under heavy pipelining, but its command builder is a larger API
// to learn for what these stores need: a few commands a call.)
//
// Keys live under Options.Prefix; a session's keys share a hash tag
// ({session}), so on Redis Cluster they sit in one slot. Every key expires
// (Options.TTL after its last write), and each event log is trimmed to
// about Options.PerStream events: nothing grows without bound.
//
// Run Redis with persistence (appendonly yes; appendfsync always loses
// nothing acknowledged, everysec up to a second) and a maxmemory-policy
// that does not evict (noeviction, or volatile-* with room to spare):
// while Redis is down the instances serve the sessions they hold and
// write them back, but the sessions no instance holds, the tasks, the
// completions of resumable operations and the request ledger live only in
// Redis, and an evicted completion would let its operation's tokens be
// honoured again.
package redis
