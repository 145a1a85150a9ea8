package main

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/listen"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/skills"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	redisstore "github.com/mcpgen/mcpgen/runtime/store/redis"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	// Every tool schema is checked, nested and combined ones included:
	// the reference server links the full JSON Schema validator.
	_ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"
	goredis "github.com/redis/go-redis/v9"

	v24 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20241105via20260728"
	v2503 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20250326via20260728"
	v2506 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20250618via20260728"
	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		os.Exit(1)
	}
}

func run() error {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on `ADDR` (at /mcp, and the HTTP+SSE transport of 2024-11-05 at /sse) instead of stdio; port 0 picks a free one")
	addrFile := flag.String("addr-file", "", "with --http, write the address listened on to `FILE`")
	verbose := flag.Bool("v", false, "log debug messages to stderr")
	redisURL := flag.String("redis", os.Getenv("EVERYTHING_REDIS"), "share state with other instances in Redis at `URL` (redis://host:port/db): stateful sessions, SSE event logs and count_to's operations (default $EVERYTHING_REDIS)")
	redisCluster := flag.String("redis-cluster", os.Getenv("EVERYTHING_REDIS_CLUSTER"), "as --redis, on a Redis Cluster reached at `URL` (redis://host:port?addr=host2:port2&addr=…: any of its nodes; the others are discovered) (default $EVERYTHING_REDIS_CLUSTER)")
	stateKeys := flag.String("state-keys", os.Getenv("EVERYTHING_STATE_KEYS"), "comma-separated base64 `KEYS` (at least 16 bytes each) sealing the requestState of 2026-07-28 input rounds: the first seals, the others still open states sealed before a rotation; instances behind one load balancer share them, so that a round's retry may reach any of them (default $EVERYTHING_STATE_KEYS, else a random key)")
	resumeKeys := flag.String("resume-keys", os.Getenv("EVERYTHING_RESUME_KEYS"), "comma-separated base64 `KEYS` (32 bytes each, the sealing key first) for count_to's resume tokens, shared by instances that honour each other's tokens (default $EVERYTHING_RESUME_KEYS, else a random key)")
	maxSessions := flag.Int("max-sessions", envInt("EVERYTHING_MAX_SESSIONS"), "with --http, bound the stateful sessions of all clients to `N`, shared fairly among them (default $EVERYTHING_MAX_SESSIONS, else 10000)")
	lease := flag.Duration("request-lease", envDuration("EVERYTHING_REQUEST_LEASE"), "with --http and --redis, hold a request `D` without renewing (default $EVERYTHING_REQUEST_LEASE, else 10s): how soon another instance calls it lost after this one stopped")
	bodyTimeout := flag.Duration("body-timeout", envDuration("EVERYTHING_BODY_TIMEOUT"), "with --http, give a POST body `D` to arrive after its headers (default $EVERYTHING_BODY_TIMEOUT, else 10s)")
	trusted := flag.String("trusted-proxies", os.Getenv("EVERYTHING_TRUSTED_PROXIES"), "with --http, believe the client address that the reverse proxies in these comma-separated `CIDRS` forward (Forwarded, X-Forwarded-For), for the per-client limits (default $EVERYTHING_TRUSTED_PROXIES, else none)")
	forwardedHeader := flag.String("forwarded-header", os.Getenv("EVERYTHING_FORWARDED_HEADER"), "with --trusted-proxies, the `HEADER` they write the client's address into, the only one read: X-Forwarded-For or Forwarded (default $EVERYTHING_FORWARDED_HEADER, else X-Forwarded-For)")
	rateLimit := flag.Float64("rate-limit", envFloat("EVERYTHING_RATE_LIMIT"), "limit each client (principal, else address, else the stdio connection) to `RATE` requests a second, 0 for no limit (default $EVERYTHING_RATE_LIMIT); with --redis the instances share each client's quota")
	rateBurst := flag.Float64("rate-burst", envFloat("EVERYTHING_RATE_BURST"), "with --rate-limit, let a client spend `N` requests at once (default $EVERYTHING_RATE_BURST, else the rate, at least 1)")
	revisions := flag.String("revisions", os.Getenv("EVERYTHING_REVISIONS"), "serve only these protocol `REVISIONS` (comma-separated, e.g. 2025-06-18; default $EVERYTHING_REVISIONS, else every one)")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	// stdout carries only MCP messages: logs go to stderr.
	var logHandler slog.Handler = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})

	// With OTEL_EXPORTER_OTLP_ENDPOINT set, traces and metrics go there
	// (OTLP, http/protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL says grpc),
	// and log records name the trace and span of their request.
	export, err := telemetry.FromEnv(context.Background(), "everything", telemetry.Options{})
	if err != nil {
		return err
	}
	if export != nil {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := export.Shutdown(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "everything: flushing telemetry:", err)
			}
		}()
		logHandler = telemetry.LogHandler(logHandler)
	}
	logger := slog.New(logHandler)

	var keys *resume.KeyRing
	if *resumeKeys != "" {
		var err error
		if keys, err = resume.ParseKeyRing(*resumeKeys); err != nil {
			return fmt.Errorf("--resume-keys: %w", err)
		}
	}
	var shared sharedState
	if *stateKeys != "" {
		if shared.stateKeys, err = parseStateKeys(*stateKeys); err != nil {
			return fmt.Errorf("--state-keys: %w", err)
		}
	}
	if *redisURL != "" && *redisCluster != "" {
		return errors.New("--redis and --redis-cluster: name one")
	}
	if *redisURL != "" || *redisCluster != "" {
		client, err := redisClient(*redisURL, *redisCluster)
		if err != nil {
			return err
		}
		defer client.Close()
		shared = sharedState{
			events:   redisstore.NewEventStore(client, redisstore.Options{}),
			sessions: redisstore.NewSessionStore(client, redisstore.Options{}),
			relay:    redisstore.NewRelay(client, redisstore.Options{}),
			announce: redisstore.NewBroadcast(client, redisstore.Options{}),
			tasks:    redisstore.NewTaskStore(client, redisstore.Options{}),
			resume:   redisstore.NewResumeStore(client, redisstore.Options{}),
			requests: redisstore.NewRequestLedger(client, redisstore.Options{}),
			redis:    client,
		}
	}
	if *rateLimit > 0 {
		burst := *rateBurst
		if burst <= 0 {
			burst = max(*rateLimit, 1)
		}
		limit := ratelimit.Limit{Rate: *rateLimit, Burst: burst}
		o := ratelimit.Options{Limit: limit, Logger: logger, Cost: ratelimit.ToolCosts(map[string]float64{"slow_compute": 5})}
		if shared.redis != nil {
			o.Limiter = redisstore.NewRateLimiter(shared.redis, redisstore.Options{}, limit)
		}
		shared.rateLimit = ratelimit.Middleware(o)
	}
	if export != nil {
		shared.telemetry = export.Telemetry
	}
	srv, err := newEverything(logger, rt.ValidateResultsAuto, keys, shared, strings.FieldsFunc(*revisions, func(r rune) bool { return r == ',' }))
	if err != nil {
		return err
	}

	// SIGTERM and SIGINT drain: the requests already received are answered
	// (within the transport's drain timeout), then the process exits 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr != "" {
		lim := limits{maxSessions: *maxSessions, bodyTimeout: *bodyTimeout, requestLease: *lease, forwardedHeader: *forwardedHeader}
		for _, c := range strings.FieldsFunc(*trusted, func(r rune) bool { return r == ',' }) {
			p, err := netip.ParsePrefix(strings.TrimSpace(c))
			if err != nil {
				return fmt.Errorf("--trusted-proxies: %w", err)
			}
			lim.trustedProxies = append(lim.trustedProxies, p)
		}
		err = serveHTTP(ctx, srv, *httpAddr, *addrFile, logger, shared, lim)
	} else {
		err = stdio.Serve(ctx, srv, os.Stdin, os.Stdout, stdio.Options{})
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil // a signal, and the drain it asked for is done
	}
	return err
}

// newEverything is the server bin/everything runs: every published
// revision, tasks and skills; validate chooses whether it checks the
// results it sends; keys seal count_to's resume tokens (nil: a random key
// of this process); shared is what it shares with other instances (the
// zero value: nothing); only, when not empty, names the revisions served.
func newEverything(logger *slog.Logger, validate rt.ResultValidation, keys *resume.KeyRing, shared sharedState, only []string) (*rt.Server, error) {
	catalog, err := loadSkills()
	if err != nil {
		return nil, err
	}
	f := newFixtures(resume.NewTokens(keys))
	if shared.resume != nil {
		f.resume.Store = shared.resume
	}
	// One handler set, written for 2026-07-28, serves every revision: the
	// older ones through the bridges mcpgen convert generates, which
	// convert each request and result and turn InputRequiredResult rounds
	// into requests to the client of a stateful session.
	h := &handlers{f}
	mounts := []rt.Mount{
		v24.Mount(h), v2503.Mount(h), v2506.Mount(h), v25.Mount(h),
		v26.Mount(h),
	}
	if len(only) > 0 {
		mounts = slices.DeleteFunc(mounts, func(m rt.Mount) bool { return !slices.Contains(only, m.Protocol.Revision) })
		if len(mounts) == 0 {
			return nil, fmt.Errorf("--revisions %s: none of them is served (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)", strings.Join(only, ","))
		}
	}
	opts := rt.ServerOptions{
		Name:         "everything",
		Title:        "mcpgen everything server",
		Version:      "0.1.0",
		Instructions: "A test server: every tool, resource and prompt of the conformance fixture set, plus echo.",
		ListChanged:  true,
		// The skills first (they read skill:// resources before the
		// declared ones), then the declared tools, prompts and resources,
		// then listen streams.
		Features:        []rt.Feature{skills.Feature(catalog, skills.ServeOptions{DirectoryRead: true}), f.set, listen.Feature(listen.Options{}), tasks.Feature(tasks.Options{Store: shared.tasks})},
		Broadcast:       shared.announce,
		ValidateResults: validate,
		Logger:          logger,
		Middleware:      middleware(shared.rateLimit),
	}
	if len(shared.stateKeys) > 0 {
		opts.StateKey, opts.PreviousStateKeys = shared.stateKeys[0], shared.stateKeys[1:]
	}
	if shared.telemetry != nil {
		shared.telemetry.InstrumentServer(&opts)
	}
	srv, err := rt.NewServer(opts, mounts...)
	if err != nil {
		return nil, err
	}
	return srv, nil
}

// middleware is the server's middleware: mw when it is not nil.
func middleware(mw ...rt.Middleware) []rt.Middleware {
	var out []rt.Middleware
	for _, m := range mw {
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

// envFloat is the number in environment variable name, 0 when unset or
// not a number.
func envFloat(name string) float64 {
	f, _ := strconv.ParseFloat(os.Getenv(name), 64)
	return f
}

// envInt is the integer in environment variable name, 0 when unset or
// not an integer.
func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

// envDuration is the duration in environment variable name, 0 when unset
// or not a duration.
func envDuration(name string) time.Duration {
	d, _ := time.ParseDuration(os.Getenv(name))
	return d
}

// redisClient is the client of the Redis --redis names (one server), or
// of the Redis Cluster --redis-cluster names. Both fail fast when Redis is
// down (the URL's max_retries and dial_timeout still apply): the sessions
// this instance holds go on being served meanwhile, and a request should
// not wait seconds for each store call to give up. The Cluster client
// reloads the map of slots as soon as a call fails (FollowFailovers), so
// it reaches a replica promoted after its master died at once.
func redisClient(single, cluster string) (goredis.UniversalClient, error) {
	if cluster != "" {
		c, err := redisstore.NewClient(cluster, true)
		if err != nil {
			return nil, fmt.Errorf("--redis-cluster: %w", err)
		}
		return c, nil
	}
	c, err := redisstore.NewClient(single, false)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	return c, nil
}

// parseStateKeys reads --state-keys: comma-separated base64 keys, the
// sealing one first.
func parseStateKeys(s string) ([][]byte, error) {
	var keys [][]byte
	for i, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			b, err = base64.RawURLEncoding.DecodeString(k)
		}
		if err != nil {
			return nil, fmt.Errorf("key %d is not base64: %w", i+1, err)
		}
		if len(b) < 16 {
			return nil, fmt.Errorf("key %d has %d bytes; at least 16, please (32 random ones: head -c 32 /dev/urandom | base64)", i+1, len(b))
		}
		keys = append(keys, b)
	}
	return keys, nil
}

// sharedState is what instances started with the same --redis share; the
// zero value keeps everything in this process.
type sharedState struct {
	// stateKeys seal requestState (the first) and open it (all): shared
	// by instances behind one load balancer (--state-keys).
	stateKeys [][]byte
	events    streamhttp.EventStore
	sessions  streamhttp.SessionStore
	relay     streamhttp.Relay
	announce  rt.Broadcast
	tasks     tasks.Store
	resume    resume.Store
	requests  streamhttp.RequestLedger
	// redis is the client of the shared Redis (nil: none).
	redis goredis.UniversalClient
	// rateLimit limits each client's requests (nil: no limit); with
	// Redis its buckets are shared.
	rateLimit rt.Middleware
	// telemetry traces and measures every message (nil: none).
	telemetry *telemetry.Telemetry
}
