// Package gateway puts an MCP server of any revision in front of clients
// of every revision: it opens a session with the backend (a command over
// stdio, or a Streamable HTTP or HTTP+SSE endpoint), and serves, on a
// runtime/mcp Server, the five published revisions, each request carried
// to the backend and its answer back.
//
// The gateway is written in one revision, 2026-07-28. In front, clients of
// the older revisions reach it through the bridges mcpgen convert
// generates (their requests converted up, the answers down); behind, the
// generated 2026-07-28 Client reaches a backend of any revision through the
// same bridges on the client side. What a revision cannot carry fails with
// the bridges' precise errors (protocol.NotCarriedError), never silently:
// the packages' doc.gen.go list it for every pair.
//
// What the backend asks of its client (sampling, elicitation, roots)
// reaches the front client: a 2026-07-28 client as input rounds
// (InputRequiredResult, the call parked here between rounds), a client of
// the stateful era as requests of its own (the front bridge asks it).
// Tools, prompts, resources, templates and completions pass through with
// their icons, _meta and app metadata; list changes and resource updates
// are announced to the front clients; progress and cancellation follow a
// call.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/listen"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v24 "github.com/mcpgen/mcpgen/gateway/mcp/v20241105"
	v24via "github.com/mcpgen/mcpgen/gateway/mcp/v20241105via20260728"
	v2503 "github.com/mcpgen/mcpgen/gateway/mcp/v20250326"
	v2503via "github.com/mcpgen/mcpgen/gateway/mcp/v20250326via20260728"
	v2506 "github.com/mcpgen/mcpgen/gateway/mcp/v20250618"
	v2506via "github.com/mcpgen/mcpgen/gateway/mcp/v20250618via20260728"
	v25 "github.com/mcpgen/mcpgen/gateway/mcp/v20251125"
	v25via "github.com/mcpgen/mcpgen/gateway/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// Options configure a Gateway.
type Options struct {
	// Backend reaches the server behind the gateway:
	// stdio.CommandTransport for a command, streamhttp.ClientTransport for
	// an endpoint (Streamable HTTP, falling back to HTTP+SSE).
	Backend rt.ClientTransport
	// Name, Title and Version describe the gateway to the backend
	// (clientInfo); default "mcpgateway".
	Name, Title, Version string
	// Server is applied to the front server's options after the gateway
	// filled them in from the backend (its serverInfo, instructions,
	// capabilities): middleware, features, state keys, a logger.
	Server func(*rt.ServerOptions)
	// Client is applied to the options of each session the gateway opens
	// with the backend (after it filled them in): client middleware,
	// telemetry (telemetry.InstrumentClient: with the front server
	// instrumented too, a backend call's span is the child of the front
	// request's, and its trace context goes on to the backend).
	Client func(*rt.ClientOptions)
	// MaxParked bounds the calls parked between input rounds, waiting for
	// a 2026-07-28 client to answer what the backend asked (default
	// 1024; a principal's calls a quarter of them); ParkedTTL is how long
	// one waits (default 10 minutes), after which its backend call is
	// cancelled.
	MaxParked int
	ParkedTTL time.Duration
	// Logger receives the gateway's logs (default: discard).
	Logger *slog.Logger
	// Sharing says which front clients share a backend: all of them
	// (Shared, the default), each principal, or each stateful session
	// (a process each, over stdio). MaxBackends bounds the backends
	// when they are not shared (default 64; with PerSession, a
	// principal's sessions have a quarter of them at most); one unused
	// for BackendIdle (default 10 minutes) is closed, and started
	// again when its principal or session comes back.
	Sharing     Sharing
	MaxBackends int
	BackendIdle time.Duration
}

// Gateway is a backend served to clients of every revision: one for all
// of them, or one per principal or session (Options.Sharing), each
// restarted when it dies.
type Gateway struct {
	o   Options
	log *slog.Logger
	// shared is the backend every front client shares (Shared), and,
	// else, that of clients with no principal; its first session gave
	// the front server its serverInfo and capabilities.
	shared *slot
	first  *rt.ClientSession
	// listChanged: the front declares list changes (the backend did).
	// ready is set once New has made the front server (srv, listChanged):
	// a backend that dies before that tells no front client.
	listChanged bool
	ready       atomic.Bool
	// closers are the instances and slots being closed in the
	// background; Close waits for them.
	closers  sync.WaitGroup
	slotsMu  sync.Mutex
	slots    map[slotKey]*slot // the unshared backends
	closing  bool
	stopReap context.CancelFunc

	srv    *rt.Server
	parked *parking
	asked  atomic.Uint64 // numbers the questions asked of front clients

	subMu    sync.Mutex
	subs     map[subKey]*upstream              // the backend subscriptions front clients share
	subsBy   map[string]int                    // front subscriptions by principal
	sessSubs map[*rt.Session]map[string]subRef // stateful sessions' subscriptions, by URI

	flightMu sync.Mutex
	inflight map[*rt.Request]flight // stateless front requests in progress

	tasks taskOwners // the backend's tasks passed on, and whose they are
}

// flight is a stateless front request in progress: its context, and the
// slot serving it.
type flight struct {
	ctx context.Context
	sl  *slot
}

// New connects to the backend and makes the front server, mirroring the
// backend's serverInfo, instructions and capabilities.
func New(ctx context.Context, o Options) (*Gateway, error) {
	if o.Backend == nil {
		return nil, errors.New("gateway: Options.Backend is nil")
	}
	if o.Name == "" {
		o.Name, o.Version = "mcpgateway", "0.1.0"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxParked <= 0 {
		o.MaxParked = 1024
	}
	if o.ParkedTTL <= 0 {
		o.ParkedTTL = 10 * time.Minute
	}
	if o.MaxBackends <= 0 {
		o.MaxBackends = 64
	}
	if o.BackendIdle <= 0 {
		o.BackendIdle = 10 * time.Minute
	}
	g := &Gateway{o: o, log: o.Logger, subs: map[subKey]*upstream{}, subsBy: map[string]int{}, sessSubs: map[*rt.Session]map[string]subRef{}, inflight: map[*rt.Request]flight{}, slots: map[slotKey]*slot{}}
	g.parked = newParking(o.MaxParked, o.ParkedTTL)
	g.shared = g.newSlot(slotKey{})
	in, err := g.shared.get(ctx)
	if err != nil {
		g.shared.close()
		if cause := g.shared.lastErr; cause != nil && ctx.Err() == nil {
			err = cause // the start's own error, its chain whole
		}
		return nil, fmt.Errorf("gateway: connecting to the backend: %w", err)
	}
	g.first = in.def.cs
	so, err := g.serverOptions()
	if err != nil {
		g.shared.close()
		return nil, err
	}
	if o.Server != nil {
		o.Server(&so)
	}
	so.OnSessionEnd = g.sessionEnded(so.OnSessionEnd)
	h := frontHandler(g, g.first.ServerCapabilities())
	srv, err := rt.NewServer(so, v26.Mount(h), v25via.Mount(h), v2506via.Mount(h), v2503via.Mount(h), v24via.Mount(h))
	if err != nil {
		g.shared.close()
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g.srv = srv
	g.listChanged = so.ListChanged
	g.ready.Store(true)
	if in.def.native && so.ListChanged {
		in.watchLists()
	}
	if o.Sharing != Shared {
		rctx, cancel := context.WithCancel(context.Background())
		g.stopReap = cancel
		go g.reap(rctx)
	}
	return g, nil
}

// The generated packages the bridges convert between are linked through
// them; these keep the revisions' own packages named for go doc readers.
var _ = []any{v24.Protocol, v2503.Protocol, v2506.Protocol, v25.Protocol}

// serverOptions are the front server's options, from the backend's
// initialize or discover result.
func (g *Gateway) serverOptions() (rt.ServerOptions, error) {
	so := rt.ServerOptions{Logger: g.log, Instructions: g.first.Instructions(),
		// The gateway's subscriptions first: they see a listen stream
		// before listen.Feature serves it.
		Features: []rt.Feature{g.feature(), listen.Feature(listen.Options{})}}
	info, err := v26.NewClient(g.first).ServerInfo()
	if err != nil || info == nil {
		return so, fmt.Errorf("gateway: the backend's serverInfo: %v", err)
	}
	so.Name, so.Version = info.Name, info.Version
	if t, ok := info.Title.Get(); ok {
		so.Title = t
	}
	caps := g.first.ServerCapabilities()
	for _, list := range []string{"tools", "prompts", "resources"} {
		if c, ok := wire.MemberOf(caps, list); ok {
			if lc, ok := wire.MemberOf(c, "listChanged"); ok && string(lc) == "true" {
				so.ListChanged = true
			}
		}
	}
	if tc, ok := g.coreTasks(); ok {
		so.Features = append(so.Features, g.coreTasksFeature(tc))
	}
	if exts, ok := wire.MemberOf(caps, "extensions"); ok {
		for name, v := range members(exts) {
			if name == protocol.TasksExtension && g.first.ProtocolVersion() == v26.Protocol().Revision {
				so.Features = append(so.Features, g.tasksFeature(v))
				continue
			}
			if !carriedExtensions[name] {
				g.log.Warn("gateway: the backend declares an extension the gateway does not carry; its clients are not told of it", "extension", name)
				continue
			}
			if so.Extensions == nil {
				so.Extensions = map[string]wire.Raw{}
			}
			so.Extensions[name] = v
		}
	}
	return so, nil
}

// carriedExtensions are the capability extensions the gateway carries as
// they are: those without methods of their own (MCP Apps: _meta on tools
// and resources, which pass through). Of the extensions with methods, the
// tasks extension of a 2026-07-28 backend is carried (tasks.go); another
// (skills) is not declared to the front: its methods would not be served.
var carriedExtensions = map[string]bool{features.AppExtension: true}

// members splits a JSON object into its members (nil for anything else).
func members(obj wire.Raw) map[string]wire.Raw {
	out := map[string]wire.Raw{}
	d := wire.NewDecoder(obj)
	if d.Object(func(key []byte) error {
		v, err := d.Raw()
		out[string(key)] = v
		return err
	}) != nil {
		return nil
	}
	return out
}

// Server is the front server: serve it with runtime/stdio or
// runtime/streamhttp.
func (g *Gateway) Server() *rt.Server { return g.srv }

// Backend is the shared backend's session in the newest revision both
// speak: nil while it restarts (or, backends not shared, was closed for
// being idle).
func (g *Gateway) Backend() *rt.ClientSession {
	g.shared.mu.Lock()
	defer g.shared.mu.Unlock()
	if g.shared.cur == nil {
		return nil
	}
	return g.shared.cur.def.cs
}

// Close ends the parked calls, the front server and the backends.
func (g *Gateway) Close() error {
	if g.stopReap != nil {
		g.stopReap()
	}
	g.parked.closeAll()
	if g.srv != nil {
		g.srv.Close()
	}
	g.slotsMu.Lock()
	g.closing = true
	slots := g.slots
	g.slots = map[slotKey]*slot{}
	g.slotsMu.Unlock()
	g.subMu.Lock()
	for _, u := range g.subs {
		u.cancel()
	}
	g.subMu.Unlock()
	var wg sync.WaitGroup
	for _, sl := range slots {
		wg.Go(sl.close)
	}
	wg.Go(g.shared.close)
	wg.Wait()
	g.closers.Wait()
	return nil
}
