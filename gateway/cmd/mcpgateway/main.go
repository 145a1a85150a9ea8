// Command mcpgateway puts an MCP server of any revision in front of
// clients of every revision (package gateway).
//
//	mcpgateway --stdio "npx -y @modelcontextprotocol/server-memory"          # stdio in front
//	mcpgateway --url http://127.0.0.1:8080/mcp --http 127.0.0.1:9090         # HTTP in front
//
// The backend is a command (--stdio, run with its arguments; no shell:
// quote an argument that holds spaces) or an endpoint (--url: Streamable
// HTTP, falling back to the HTTP+SSE transport of 2024-11-05). The front
// is stdio, or Streamable HTTP with --http (at /mcp for both eras, the
// HTTP+SSE transport at /sse for 2024-11-05 clients). One backend serves
// every client, or each principal or session has its own
// (--backend-per); a backend that dies is restarted, its clients told.
// SIGINT or SIGTERM drains: requests in progress are answered, then the
// backends are closed.
package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	redisstore "github.com/mcpgen/mcpgen/runtime/store/redis"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	// The gateway checks the arguments of any backend's tools, whatever
	// their schemas: it links the full JSON Schema validator.
	_ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"

	"github.com/mcpgen/mcpgen/gateway"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgateway:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := pflag.NewFlagSet("mcpgateway", pflag.ContinueOnError)
	backendCmd := fs.String("stdio", "", "run the backend `COMMAND` (with its arguments, split as a shell would, without one) and talk to it over stdio")
	backendURL := fs.String("url", "", "reach the backend at `URL` (Streamable HTTP, falling back to HTTP+SSE)")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on `ADDR` (/mcp for both eras, /sse for 2024-11-05 clients) instead of stdio; port 0 picks a free one")
	addrFile := fs.String("addr-file", "", "with --http, write the address listened on to `FILE`")
	verbose := fs.BoolP("verbose", "v", false, "log debug messages to stderr")
	tokens := fs.StringArray("token", nil, "with --http, accept `TOKEN=PRINCIPAL`: requests must carry Authorization: Bearer TOKEN and act for PRINCIPAL (repeatable; $MCPGATEWAY_TOKENS adds comma-separated ones; none: no authentication)")
	hosts := fs.StringSlice("allowed-hosts", nil, "with --http, the Host `NAMES` accepted besides loopback ones (name, name:port, or * for any), against DNS rebinding")
	origins := fs.StringSlice("allowed-origins", nil, "with --http, the browser `ORIGINS` accepted (scheme://host[:port], or *); default loopback ones")
	rate := fs.Float64("rate-limit", 0, "limit each client (its principal, else its address; the stdio client is one) to `RATE` requests a second; 0: no limit")
	burst := fs.Float64("rate-burst", 0, "with --rate-limit, let a client spend `N` requests at once (default the rate, at least 1)")
	logRequests := fs.Bool("log-requests", false, "log every message the front clients send and receive, with its outcome and duration")
	redisURL := fs.String("redis", "", "with --http, share the front sessions with other gateway instances in Redis at `URL` (redis://host:port/db): sessions, stream event logs, the request ledger, announcements and rate-limit quotas")
	redisCluster := fs.String("redis-cluster", "", "as --redis, on a Redis Cluster reached at `URL` (redis://host:port?addr=host2:port2&addr=…)")
	per := fs.String("backend-per", "shared", "who shares a backend: `shared` (one for every client; over stdio, one process), principal (one per --token principal: a filesystem server per user), or session (one per stateful client session; stateless requests use their principal's)")
	maxBackends := fs.Int("max-backends", 64, "with --backend-per principal or session, run at most `N` backends (a principal's sessions a quarter of them)")
	backendIdle := fs.Duration("backend-idle", 10*time.Minute, "with --backend-per principal or session, close a backend unused for `DURATION` (started again when its client comes back)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE` (for benchmarks)")
	_ = fs.MarkHidden("cpuprofile")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: quote the backend command, --stdio \"COMMAND ARGS\"", fs.Args())
	}
	var sharing gateway.Sharing
	switch *per {
	case "shared":
	case "principal":
		sharing = gateway.PerPrincipal
	case "session":
		sharing = gateway.PerSession
	default:
		return fmt.Errorf("--backend-per %q: want shared, principal or session", *per)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	var logHandler slog.Handler = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})
	// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans and metrics go there
	// (OTLP over http/protobuf): a span per front request, its backend
	// call's span a child of it, the trace context passed on to the
	// backend; log records name their request's trace and span.
	export, err := telemetry.FromEnv(context.Background(), "mcpgateway", telemetry.Options{})
	if err != nil {
		return err
	}
	if export != nil {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := export.Shutdown(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "mcpgateway: flushing telemetry:", err)
			}
		}()
		logHandler = telemetry.LogHandler(logHandler)
	}
	log := slog.New(logHandler)

	var backend rt.ClientTransport
	switch {
	case (*backendCmd == "") == (*backendURL == ""):
		return errors.New("name the backend: --stdio \"COMMAND ARGS\" or --url URL (one of them)")
	case *backendCmd != "":
		argv, err := splitCommand(*backendCmd)
		if err != nil {
			return fmt.Errorf("--stdio: %w", err)
		}
		backend = &stdio.CommandTransport{Path: argv[0], Args: argv[1:], Stderr: os.Stderr, Env: os.Environ()}
	default:
		backend = &streamhttp.ClientTransport{URL: *backendURL, Logger: log}
	}

	auth, err := bearerAuth(append(*tokens, splitList(os.Getenv("MCPGATEWAY_TOKENS"))...))
	if err != nil {
		return err
	}
	if auth != nil && *httpAddr == "" {
		return errors.New("--token needs --http: a stdio front has no requests to authenticate")
	}
	var rdb goredis.UniversalClient
	switch {
	case *redisURL != "" && *redisCluster != "":
		return errors.New("--redis and --redis-cluster: name one")
	case (*redisURL != "" || *redisCluster != "") && *httpAddr == "":
		return errors.New("--redis needs --http: a stdio front has one client, whose session no other instance serves")
	case *redisURL != "":
		if rdb, err = redisstore.NewClient(*redisURL, false); err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
	case *redisCluster != "":
		if rdb, err = redisstore.NewClient(*redisCluster, true); err != nil {
			return fmt.Errorf("--redis-cluster: %w", err)
		}
	}
	if rdb != nil {
		defer rdb.Close()
	}
	var middleware []rt.Middleware
	if *logRequests {
		middleware = append(middleware, rt.RequestLog(log, slog.LevelInfo))
	}
	if *rate > 0 {
		b := *burst
		if b <= 0 {
			b = max(*rate, 1)
		}
		o := ratelimit.Options{Limit: ratelimit.Limit{Rate: *rate, Burst: b}, Logger: log}
		if rdb != nil { // the instances share each client's quota
			o.Limiter = redisstore.NewRateLimiter(rdb, redisstore.Options{}, o.Limit)
		}
		middleware = append(middleware, ratelimit.Middleware(o))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g, err := gateway.New(ctx, gateway.Options{Backend: backend, Logger: log, Sharing: sharing, MaxBackends: *maxBackends, BackendIdle: *backendIdle, Server: func(so *rt.ServerOptions) {
		so.Middleware = append(so.Middleware, middleware...)
		if rdb != nil { // list changes and resource updates reach every instance's sessions
			so.Broadcast = redisstore.NewBroadcast(rdb, redisstore.Options{})
		}
		if export != nil {
			export.InstrumentServer(so)
		}
	}, Client: func(co *rt.ClientOptions) {
		if export != nil {
			export.InstrumentClient(co)
		}
	}})
	if err != nil {
		return err
	}
	defer g.Close()
	if cs := g.Backend(); cs != nil {
		log.Info("backend connected", "revision", cs.ProtocolVersion(), "backend_per", sharing)
	}
	if *httpAddr == "" {
		return stdio.Serve(ctx, g.Server(), os.Stdin, os.Stdout, stdio.Options{})
	}
	ho := streamhttp.Options{Logger: log, Auth: auth, AllowedHosts: withLoopback(*hosts), AllowedOrigins: *origins}
	if rdb != nil {
		ro := redisstore.Options{}
		ho.SessionStore, ho.EventStore, ho.Relay = redisstore.NewSessionStore(rdb, ro), redisstore.NewEventStore(rdb, ro), redisstore.NewRelay(rdb, ro)
		ho.Requests = redisstore.NewRequestLedger(rdb, ro)
	}
	h := streamhttp.NewHandler(g.Server(), ho)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h.SSE())
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *httpAddr)
	if err != nil {
		return err
	}
	if *addrFile != "" {
		tmp := *addrFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			return err
		}
		if err := os.Rename(tmp, *addrFile); err != nil {
			ln.Close()
			return err
		}
	}
	log.Info("serving Streamable HTTP", "endpoint", "http://"+ln.Addr().String()+"/mcp", "legacy_sse", "http://"+ln.Addr().String()+"/sse")
	return streamhttp.Serve(ctx, ln, mux)
}

// bearerAuth authenticates requests by bearer token: each of specs is
// TOKEN=PRINCIPAL. Tokens are compared in constant time (as SHA-256
// digests). nil when there are none.
func bearerAuth(specs []string) (func(*http.Request) (context.Context, error), error) {
	if len(specs) == 0 {
		return nil, nil
	}
	type entry struct {
		sum       [32]byte
		principal string
	}
	var entries []entry
	for _, spec := range specs {
		tok, principal, ok := strings.Cut(spec, "=")
		if !ok || tok == "" || principal == "" {
			return nil, fmt.Errorf("--token %q: want TOKEN=PRINCIPAL", redact(spec))
		}
		entries = append(entries, entry{sha256.Sum256([]byte(tok)), principal})
	}
	return func(r *http.Request) (context.Context, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || tok == "" {
			return nil, &streamhttp.AuthError{Description: "a bearer token is required"}
		}
		sum := sha256.Sum256([]byte(tok))
		principal := ""
		for _, e := range entries { // every entry, whichever matches
			if subtle.ConstantTimeCompare(sum[:], e.sum[:]) == 1 {
				principal = e.principal
			}
		}
		if principal == "" {
			return nil, &streamhttp.AuthError{Code: "invalid_token", Description: "the token is not known"}
		}
		return rt.WithPrincipal(r.Context(), principal), nil
	}, nil
}

// redact hides the token of a TOKEN=PRINCIPAL spec in messages.
func redact(spec string) string {
	if _, p, ok := strings.Cut(spec, "="); ok {
		return "…=" + p
	}
	return "…"
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// withLoopback is the Host allow-list: the loopback names, which the
// default allows, and names (nil: the default alone).
func withLoopback(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	return append([]string{"localhost", "127.0.0.1", "[::1]"}, names...)
}

// splitCommand splits a command line into words as a POSIX shell would
// without expanding anything: blanks separate words; single quotes keep
// everything, double quotes everything but \" and \\; a backslash
// outside quotes keeps the next character.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false // a word is being built
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}
