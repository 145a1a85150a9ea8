package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v24via "github.com/mcpgen/mcpgen/gateway/mcp/v20241105via20260728"
	v2503via "github.com/mcpgen/mcpgen/gateway/mcp/v20250326via20260728"
	v2506via "github.com/mcpgen/mcpgen/gateway/mcp/v20250618via20260728"
	v25via "github.com/mcpgen/mcpgen/gateway/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// Backends. Front clients share a backend (Shared), or each principal or
// stateful session has one of its own (Sharing): a slot each, which holds
// the backend's current life, an instance, and starts another when it
// dies. An instance is a session with the backend in the newest revision
// both speak and, for front clients of another revision the backend
// speaks, a session of theirs (so that what passes through is what the
// backend says in that revision: its tools of that era, its input
// requests with their keys), opened on first use (over stdio, a process
// each) and kept while the instance lives.

// Sharing says which front clients share a backend.
type Sharing int

const (
	// Shared: one backend serves every front client (the default). Over
	// stdio, one process for everyone.
	Shared Sharing = iota
	// PerPrincipal: each principal (the --token's, or the Auth
	// function's) has a backend of its own — a filesystem server per
	// user; clients with no principal share one.
	PerPrincipal
	// PerSession: each stateful front session has a backend of its own;
	// a stateless (2026-07-28) request, which belongs to no session, is
	// served by its principal's.
	PerSession
)

// String names the sharing as mcpgateway's --backend-per does.
func (s Sharing) String() string {
	switch s {
	case PerPrincipal:
		return "principal"
	case PerSession:
		return "session"
	}
	return "shared"
}

// slotKey names whose backend a slot holds: the zero key is the shared
// one (and, when backends are not shared, that of clients with no
// principal).
type slotKey struct {
	principal string
	session   *rt.Session
}

// slot is the backend of one key over its lives.
type slot struct {
	g   *Gateway
	key slotKey
	bh  *backendHandler
	// used is when a front request or a subscription last got its
	// instance (UnixNano), and busy counts the requests, backend calls
	// and subscriptions in progress on it: a slot not busy and unused
	// for Options.BackendIdle is closed.
	used atomic.Int64
	busy atomic.Int32

	mu       sync.Mutex
	cur      *instance
	starting chan struct{} // while a start is in progress; closed when it ends
	lastErr  error         // why the last start failed, or the backend died
	retryAt  time.Time     // no start before, after failures
	failures int           // starts in a row that failed or died young
	// restarting: the backend died; the next instance is a restart
	// (announced), and a failed start is tried again.
	restarting bool
	closed     bool
}

// instance is one life of a slot's backend.
type instance struct {
	sl      *slot
	def     *backend
	started time.Time
	// ctx ends when the instance does (it died, or was closed): the
	// streams it holds end with it.
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once

	mu    sync.Mutex
	byRev map[string]*revSession
}

// backend is one session with the backend.
type backend struct {
	in *instance
	cs *rt.ClientSession
	c  *v26.Client
	// native: the session speaks 2026-07-28, whose results pass through
	// as they are (input rounds included); an older session's are
	// converted by the bridges and its requests to the client parked
	// (park.go).
	native bool
}

func newBackend(in *instance, cs *rt.ClientSession) *backend {
	return &backend{in: in, cs: cs, c: v26.NewClient(cs), native: cs.ProtocolVersion() == "2026-07-28"}
}

// revSession is the session for one front revision, once ready: nil b
// when the backend does not speak it (the default session serves it).
type revSession struct {
	ready chan struct{}
	b     *backend
}

// clientCaps are the capabilities the gateway declares to the backend:
// whatever the backend asks, a front client may answer.
var clientCaps = wire.Raw(`{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true}}`)

// connect opens a session with the backend in era, pinned to version
// when not "", answered by bh. It asks for every log message: each front
// session keeps its own level.
func (g *Gateway) connect(ctx context.Context, bh *backendHandler, era rt.Era, version string) (*rt.ClientSession, error) {
	o := g.o
	co := rt.ClientOptions{Name: o.Name, Title: o.Title, Version: o.Version, Logger: o.Logger, LogLevel: "debug",
		Capabilities: clientCaps, Era: era, ProtocolVersion: version}
	if o.Client != nil {
		o.Client(&co)
	}
	session := new(atomic.Pointer[rt.ClientSession])
	co.Middleware = append(co.Middleware, g.taskMessages(session))
	cs, err := rt.Connect(ctx, o.Backend, co,
		v26.Mount(bh), v25via.Mount(bh), v2506via.Mount(bh), v2503via.Mount(bh), v24via.Mount(bh))
	if err != nil {
		return nil, err
	}
	session.Store(cs)
	return cs, nil
}

// errClosing answers requests once the gateway is closing.
var errClosing = jsonrpc.NewError(jsonrpc.CodeInternalError, "the gateway is shutting down")

// backendFor is the backend session serving the front request in ctx:
// its slot's (started if need be), in the request's revision if the
// backend speaks it.
func (g *Gateway) backendFor(ctx context.Context) (*backend, error) {
	r := rt.RequestFrom(ctx)
	var in *instance
	for try := 0; ; try++ {
		sl, err := g.slotFor(r)
		if err != nil {
			return nil, err
		}
		in, err = sl.get(ctx)
		if errors.Is(err, errClosing) && try == 0 && !g.isClosing() {
			continue // the slot was reaped (or its session ended) just now: a new one
		}
		if err != nil {
			return nil, err
		}
		break
	}
	v := ""
	if r != nil {
		v = r.ProtocolVersion()
	}
	return in.session(ctx, v), nil
}

// slotFor is the slot of the front request r (nil: the shared one),
// made if need be, within the bounds: Options.MaxBackends in all, and a
// quarter of them (at least one) per principal with PerSession.
func (g *Gateway) slotFor(r *rt.Request) (*slot, error) {
	if r == nil || g.o.Sharing == Shared {
		return g.shared, nil
	}
	key := slotKey{principal: r.Principal()}
	if g.o.Sharing == PerSession {
		key.session = r.Session()
	}
	if key == (slotKey{}) {
		return g.shared, nil
	}
	g.slotsMu.Lock()
	defer g.slotsMu.Unlock()
	if sl := g.slots[key]; sl != nil {
		return sl, nil
	}
	if g.closing {
		return nil, errClosing
	}
	if len(g.slots)+1 >= g.o.MaxBackends {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the gateway runs %d backends (its bound, MaxBackends): try again later", g.o.MaxBackends)
	}
	if g.o.Sharing == PerSession && key.session != nil {
		n, per := 0, max(g.o.MaxBackends/4, 1)
		for k := range g.slots {
			if k.principal == key.principal {
				n++
			}
		}
		if n >= per {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the gateway runs %d backends for this principal's sessions (its bound, a quarter of MaxBackends): close a session first", per)
		}
	}
	sl := g.newSlot(key)
	g.slots[key] = sl
	return sl, nil
}

// isClosing reports whether Close has begun.
func (g *Gateway) isClosing() bool {
	g.slotsMu.Lock()
	defer g.slotsMu.Unlock()
	return g.closing
}

func (g *Gateway) newSlot(key slotKey) *slot {
	sl := &slot{g: g, key: key}
	sl.bh = &backendHandler{g: g, sl: sl}
	sl.used.Store(time.Now().UnixNano())
	return sl
}

// get is the slot's running instance, started (or waited for) if need
// be. While the backend fails to start, requests fail at once, naming
// why and when the gateway tries again.
func (sl *slot) get(ctx context.Context) (*instance, error) {
	sl.used.Store(time.Now().UnixNano())
	for {
		sl.mu.Lock()
		switch {
		case sl.closed:
			sl.mu.Unlock()
			return nil, errClosing
		case sl.cur != nil:
			in := sl.cur
			sl.mu.Unlock()
			return in, nil
		case sl.starting == nil:
			if wait := time.Until(sl.retryAt); wait > 0 {
				err, restarting := sl.lastErr, sl.restarting
				sl.mu.Unlock()
				when := "a request after " + wait.Round(time.Millisecond).String() + " starts it again"
				if restarting {
					when = "the gateway starts it again in " + wait.Round(time.Millisecond).String()
				}
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the backend is not running (%v): %s", err, when)
			}
			sl.begin()
		}
		starting := sl.starting
		sl.mu.Unlock()
		select {
		case <-starting:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// nextStart is how long until the slot's backend may be started again
// (at least 100 ms).
func (sl *slot) nextStart() time.Duration {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return max(time.Until(sl.retryAt), backoff(1))
}

// begin starts a start; sl.mu is held.
func (sl *slot) begin() {
	sl.starting = make(chan struct{})
	go sl.start()
}

// startTimeout bounds one start: the backend's process and its
// initialize.
const startTimeout = 30 * time.Second

// start opens a new instance of the backend, and says so to the front
// clients after the first. A start that fails is tried again after a
// backoff if the backend died (a supervisor's restart); else the next
// request tries.
func (sl *slot) start() {
	g := sl.g
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	cs, err := g.connect(ctx, sl.bh, rt.Auto, "")
	cancel()
	sl.mu.Lock()
	starting := sl.starting
	sl.starting = nil
	defer close(starting)
	if err != nil {
		sl.failures++
		sl.lastErr = err
		wait := backoff(sl.failures)
		sl.retryAt = time.Now().Add(wait)
		again := sl.restarting && !sl.closed
		sl.mu.Unlock()
		g.log.Warn("gateway: the backend did not start", "backend", sl.name(), "err", err, "retry_in", wait)
		if again {
			time.AfterFunc(wait, sl.retry)
		}
		return
	}
	if sl.closed {
		sl.mu.Unlock()
		cs.Close()
		return
	}
	in := &instance{sl: sl, started: time.Now(), byRev: map[string]*revSession{}}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	in.def = newBackend(in, cs)
	sl.cur = in
	restarted := sl.restarting
	sl.restarting = false
	sl.mu.Unlock()
	in.watch(cs, "")
	if in.def.native && g.ready.Load() && g.listChanged { // New watches its first
		in.watchLists()
	}
	if restarted {
		bg := context.Background()
		g.log.Info("gateway: the backend restarted", "backend", sl.name(), "revision", cs.ProtocolVersion())
		sl.tellLog(bg, "notice", "the backend was restarted: its lists and subscriptions are those of its new life")
		for _, kind := range []rt.ListKind{rt.ToolsList, rt.PromptsList, rt.ResourcesList} {
			sl.tellList(bg, kind)
		}
	}
}

// retry starts the slot's backend again after it died, unless it is
// running, starting, closed, or (unshared) no longer used.
func (sl *slot) retry() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	unused := sl.key != (slotKey{}) && time.Since(time.Unix(0, sl.used.Load())) > sl.g.o.BackendIdle
	if sl.closed || sl.cur != nil || sl.starting != nil || unused {
		return
	}
	sl.begin()
}

// backoff is how long a slot waits before its n-th start in a row that
// failed (or whose backend died young): 100 ms doubling to 30 s.
func backoff(n int) time.Duration {
	return min(100*time.Millisecond<<min(n-1, 9), 30*time.Second)
}

// youth is how long a backend must run for its death not to count as a
// failed start (a crash loop backs off).
const youth = 10 * time.Second

// lost ends in, which died (why), and starts the next life of the slot:
// at once, or after a backoff when it died young.
func (sl *slot) lost(in *instance, why error) {
	g := sl.g
	sl.mu.Lock()
	if sl.cur != in {
		sl.mu.Unlock()
		return
	}
	sl.cur = nil
	sl.lastErr = fmt.Errorf("it died: %w", why)
	if time.Since(in.started) < youth {
		sl.failures++
	} else {
		sl.failures = 0
	}
	var wait time.Duration
	if sl.failures > 0 {
		wait = backoff(sl.failures)
	}
	sl.retryAt = time.Now().Add(wait)
	sl.restarting = true
	closed := sl.closed
	sl.mu.Unlock()
	g.closers.Go(in.close)
	if closed || !g.ready.Load() {
		return
	}
	g.log.Warn("gateway: the backend died; restarting it", "backend", sl.name(), "err", why, "after", wait)
	sl.tellLog(context.Background(), "error", fmt.Sprintf("the backend died (%v): requests in progress failed; the gateway restarts it", why))
	time.AfterFunc(wait, sl.retry)
}

// failed is err, a backend call's error, as the front client is answered:
// a backend that ended (its connection closed; over HTTP, the session
// forgotten) is noticed and restarted, and the error says so.
func (b *backend) failed(err error) error {
	if err == nil {
		return nil
	}
	if !errors.Is(err, jsonrpc.ErrClosed) && !errors.Is(err, streamhttp.ErrSessionExpired) {
		return err
	}
	if b.in.ctx.Err() == nil {
		b.in.sl.lost(b.in, err)
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "the backend ended during the request (%v): the gateway restarts it; send the request again", err)
}

// name describes the slot in logs.
func (sl *slot) name() string {
	switch {
	case sl.key.session != nil:
		return "session of " + fmt.Sprintf("%q", sl.key.principal)
	case sl.key.principal != "":
		return fmt.Sprintf("principal %q", sl.key.principal)
	}
	return "shared"
}

// tellLog sends a log message of the gateway's to the front sessions
// the slot serves.
func (sl *slot) tellLog(ctx context.Context, level, msg string) {
	data, _ := json.Marshal(msg)
	sl.log(ctx, level, "mcpgateway", data)
}

// log sends a log message to the front sessions the slot serves whose
// level admits it: every one (Shared), its principal's, or its session.
func (sl *slot) log(ctx context.Context, level, logger string, data wire.Raw) {
	g := sl.g
	switch {
	case sl.key.session != nil:
		if admits(level, sl.key.session.LogLevel()) {
			params, _ := json.Marshal(struct {
				Level  string   `json:"level"`
				Logger string   `json:"logger,omitempty"`
				Data   wire.Raw `json:"data"`
			}{level, logger, data})
			_ = sl.key.session.Peer().Notify(ctx, "notifications/message", wire.Raw(params))
		}
	case !g.ready.Load():
		// New has not made the front server yet: no front client to tell
		// (a backend may notify while the gateway connects to it).
	case g.o.Sharing == Shared:
		g.srv.NotifyLog(ctx, level, logger, data)
	default:
		g.srv.NotifyLogTo(ctx, level, logger, data, sl.key.principal)
	}
}

// tellList tells the front clients the slot serves that a list changed.
func (sl *slot) tellList(ctx context.Context, kind rt.ListKind) {
	g := sl.g
	switch {
	case sl.key.session != nil:
		method := map[rt.ListKind]string{rt.ToolsList: "notifications/tools/list_changed", rt.PromptsList: "notifications/prompts/list_changed", rt.ResourcesList: "notifications/resources/list_changed"}[kind]
		_ = sl.key.session.Peer().Notify(ctx, method, nil)
	case !g.ready.Load():
		// New has not made the front server yet: no front client to tell
		// (a backend may notify while the gateway connects to it).
	case g.o.Sharing == Shared:
		g.srv.NotifyListChanged(ctx, kind)
	default:
		g.srv.NotifyListChangedTo(ctx, kind, sl.key.principal)
	}
}

// tellUpdated tells the front clients the slot serves, subscribed to
// uri, that it changed.
func (sl *slot) tellUpdated(ctx context.Context, uri string) {
	g := sl.g
	switch {
	case sl.key.session != nil:
		if g.sessionHas(sl.key.session, uri) {
			params, _ := json.Marshal(map[string]string{"uri": uri})
			_ = sl.key.session.Peer().Notify(ctx, "notifications/resources/updated", wire.Raw(params))
		}
	case !g.ready.Load():
		// New has not made the front server yet: no front client to tell
		// (a backend may notify while the gateway connects to it).
	case g.o.Sharing == Shared:
		g.srv.NotifyResourceUpdated(ctx, uri)
	default:
		g.srv.NotifyResourceUpdatedTo(ctx, uri, sl.key.principal)
	}
}

// levels are the log levels, least severe first.
var levels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// admits reports whether a session at level threshold (the client's
// logging/setLevel; "" for none set: every message) takes a message of
// level.
func admits(level, threshold string) bool {
	return threshold == "" || levels[level] >= levels[threshold]
}

// close ends the slot and its instance.
func (sl *slot) close() {
	sl.mu.Lock()
	sl.closed = true
	in := sl.cur
	sl.cur = nil
	starting := sl.starting
	sl.mu.Unlock()
	if starting != nil {
		<-starting
	}
	if in != nil {
		in.close()
	}
}

// idle closes the slot's instance if no request used it for d: true if
// it did (or there was none).
func (sl *slot) idle(d time.Duration) bool {
	if sl.busy.Load() > 0 || time.Since(time.Unix(0, sl.used.Load())) < d {
		return false
	}
	sl.mu.Lock()
	if sl.starting != nil {
		sl.mu.Unlock()
		return false
	}
	in := sl.cur
	sl.cur = nil
	sl.mu.Unlock()
	if in != nil {
		sl.g.log.Info("gateway: closing an idle backend", "backend", sl.name())
		in.close()
	}
	return true
}

// reap closes the unshared backends idle for Options.BackendIdle, until
// ctx ends.
func (g *Gateway) reap(ctx context.Context) {
	t := time.NewTicker(max(g.o.BackendIdle/4, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		g.slotsMu.Lock()
		slots := make([]*slot, 0, len(g.slots))
		for _, sl := range g.slots {
			slots = append(slots, sl)
		}
		g.slotsMu.Unlock()
		for _, sl := range slots {
			if sl.idle(g.o.BackendIdle) {
				g.slotsMu.Lock()
				if g.slots[sl.key] == sl {
					delete(g.slots, sl.key)
				}
				g.slotsMu.Unlock()
				sl.close()
			}
		}
		g.shared.idle(g.o.BackendIdle)
	}
}

// sessionEnded drops the subscriptions of each front session that ends
// and closes its backend (with PerSession), then tells next.
func (g *Gateway) sessionEnded(next func(rt.SessionEnd)) func(rt.SessionEnd) {
	return func(end rt.SessionEnd) {
		if end.Session != nil {
			for _, ref := range g.sessionUnsub(end.Session, "") {
				g.unsubscribe(ref)
			}
			g.tasks.forget(nil, end.Session)
		}
		key := slotKey{principal: end.Principal, session: end.Session}
		g.slotsMu.Lock()
		sl := g.slots[key]
		if g.o.Sharing == PerSession {
			delete(g.slots, key)
		}
		g.slotsMu.Unlock()
		if sl != nil && g.o.Sharing == PerSession {
			g.closers.Go(sl.close)
		}
		if next != nil {
			next(end)
		}
	}
}

// close ends the instance's sessions.
func (in *instance) close() {
	in.once.Do(func() {
		in.cancel()
		in.mu.Lock()
		revs := in.byRev
		in.byRev = map[string]*revSession{}
		in.mu.Unlock()
		tasks := &in.sl.g.tasks // the next instance knows none of their tasks
		for _, rs := range revs {
			<-rs.ready
			if rs.b != nil {
				rs.b.cs.Close()
				tasks.forget(rs.b.cs, nil)
			}
		}
		in.def.cs.Close()
		tasks.forget(in.def.cs, nil)
	})
}

// session is the instance's session for a front client of revision v
// (opened on first use, and kept), or its default session when the
// backend does not speak v.
func (in *instance) session(ctx context.Context, v string) *backend {
	g := in.sl.g
	if v == "" || v == in.def.cs.ProtocolVersion() {
		return in.def
	}
	in.mu.Lock()
	rs := in.byRev[v]
	if rs == nil {
		rs = &revSession{ready: make(chan struct{})}
		in.byRev[v] = rs
		in.mu.Unlock()
		era := rt.Stateful
		if v >= "2026-07-28" {
			era = rt.Stateless
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
		cs, err := g.connect(cctx, in.sl.bh, era, v)
		cancel()
		switch {
		case err != nil:
			g.log.Info("gateway: the backend does not speak the front client's revision; the newest both speak serves it", "revision", v, "via", in.def.cs.ProtocolVersion(), "err", err)
		case cs.ProtocolVersion() != v:
			g.log.Info("gateway: the backend does not speak the front client's revision; the newest both speak serves it", "revision", v, "via", in.def.cs.ProtocolVersion())
			cs.Close()
		default:
			rs.b = newBackend(in, cs)
			in.watch(cs, v)
		}
		close(rs.ready)
		if in.ctx.Err() != nil && rs.b != nil { // closed meanwhile
			rs.b.cs.Close()
		}
	} else {
		in.mu.Unlock()
		select {
		case <-rs.ready:
		case <-ctx.Done():
			return in.def
		}
	}
	if rs.b == nil {
		return in.def
	}
	return rs.b
}

// watch ends the instance when cs's connection ends by itself (a stdio
// backend exited): rev names the session, "" for the default one.
func (in *instance) watch(cs *rt.ClientSession, rev string) {
	done := cs.Done()
	if done == nil {
		return // the transport cannot tell: a failed call will (backend.failed)
	}
	why := errors.New("its connection ended (the process exited)")
	if rev != "" {
		why = fmt.Errorf("its %s session's connection ended (the process exited)", rev)
	}
	go func() {
		select {
		case <-done:
			in.sl.lost(in, why)
		case <-in.ctx.Done():
		}
	}()
}

// watchLists holds a listen stream open on a 2026-07-28 backend, which
// announces list changes only on such streams: each change reaches
// backendHandler (ToolListChanged, …), which tells the front clients. It
// ends with the instance.
func (in *instance) watchLists() {
	yes := wire.Some(true)
	params := &v26.SubscriptionsListenRequestParams{Notifications: &v26.SubscriptionFilter{ToolsListChanged: yes, PromptsListChanged: yes, ResourcesListChanged: yes}}
	go func() {
		for _, err := range listen.Stream(in.ctx, in.def.cs, params) {
			if err != nil {
				if in.ctx.Err() == nil {
					in.sl.g.log.Warn("gateway: the backend's list-change stream ended; its list changes no longer reach the front clients", "err", err)
				}
				return
			}
		}
	}()
}
