package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Features. The engine serves the protocol's own methods — the lifecycle,
// a session's log level and resource subscriptions, server/discover — and
// the mounted handlers'. Whatever answers more plugs in above it as a
// Feature (ServerOptions.Features), through one narrow interface: declared
// tools, prompts and resources (runtime/features), subscriptions/listen
// streams (runtime/listen), skills (runtime/skills), tasks
// (runtime/tasks). A feature declares, once, the methods it serves (a step
// in front of what served them before, or an extension's method no
// revision's table lists), what it adds to the capabilities, and the
// announcements it wants; the engine builds every route from them when
// the server is made, so a request pays only for the steps of its own
// method.

// Feature is what plugs into a Server above its engine.
type Feature interface {
	// Attach is called once by NewServer, features in the order of
	// ServerOptions.Features: the feature declares on reg what it serves.
	// An error makes NewServer fail with it.
	Attach(reg *Registry) error
}

// FeatureFunc is a Feature that is a function.
type FeatureFunc func(reg *Registry) error

// Attach implements Feature.
func (f FeatureFunc) Attach(reg *Registry) error { return f(reg) }

// Step serves a request in front of what served its method before: the
// mounted handler, or the steps of features attached after this one. It
// calls next.Serve to leave the request to them (which answers -32601
// when nothing serves the method); a result or error it returns without
// calling it answers the request. The engine completes what it returns
// as it does a handler's result: stamped, checked, validated (see
// Request.Stamp for results written as JSON).
type Step func(ctx context.Context, r *Request, next Next) (wire.Marshaler, error)

// Next is what a Step stands in front of, for its request. It is a value
// (the engine builds none per request).
type Next struct {
	rc    *reqCtx
	route routeFunc
}

// Serve leaves the request to what the step stands in front of.
func (n Next) Serve() (wire.Marshaler, error) {
	if n.route == nil {
		return nil, notFound(n.rc)
	}
	return n.route(n.rc)
}

// Route is a method a feature serves.
type Route struct {
	// Role is the role of the method served, in every revision whose
	// table has one.
	Role protocol.Role
	// Method, when set, is a method no revision's table lists (an
	// extension's, say) that the feature adds where On accepts the
	// revision; Role is then unused.
	Method *protocol.Method
	// On reports the revisions the route is on (nil: every one).
	On func(p *protocol.Protocol) bool
	// Serves reports whether the feature serves the method now, for the
	// capabilities a revision declares and Request.Serves (nil: it
	// always does). A step whose feature does not serve a method calls
	// next.
	Serves func(p *protocol.Protocol) bool
	// Step serves the method.
	Step Step
}

// Capabilities is what a feature adds to the capabilities a revision
// declares (Registry.Capabilities).
type Capabilities struct {
	// Extensions are capability extensions by name (capabilities
	// .extensions, on revisions that have them).
	Extensions map[string]wire.Raw
	// Members are top-level capability members by name, declared on
	// revisions that know them (Protocol.Knows).
	Members map[string]wire.Raw
}

// Announcement is a change the server tells its clients of
// (Server.NotifyListChanged, NotifyResourceUpdated, on this instance or,
// through a Broadcast, on another).
type Announcement struct {
	// List is the list that changed; 0 for a resource update.
	List ListKind
	// URI is the resource updated.
	URI string
	// Principals are the principals told; nil tells every client.
	Principals []string
}

// Registry is how a Feature declares what it serves to the Server that
// NewServer is making (Feature.Attach). It is valid only during Attach.
type Registry struct {
	srv  *Server
	revs []*protocol.Protocol
	// cur is the index in ServerOptions.Features of the feature being
	// attached; declared the items declared so far, by kind and name.
	cur      int
	declared map[[2]string]int
}

// Declare records that the feature being attached serves the item of kind
// (tool, prompt, resource, template) named name (a resource's URI, a
// template's URI template): two features declaring one item is an error
// naming both, which NewServer returns, since a client would reach only
// the first.
func (g *Registry) Declare(kind, name string) error {
	if g.declared == nil {
		g.declared = map[[2]string]int{}
	}
	key := [2]string{kind, name}
	if prev, ok := g.declared[key]; ok && prev != g.cur {
		fs := g.srv.opts.Features
		return fmt.Errorf("mcp: ServerOptions.Features[%d] (%T) and Features[%d] (%T) both serve the %s %q: a client would reach only the first; rename or remove one", prev, fs[prev], g.cur, fs[g.cur], kind, name)
	}
	g.declared[key] = g.cur
	return nil
}

// Server is the server being made: features keep it to announce changes
// and reach their clients once it serves (not during Attach).
func (g *Registry) Server() *Server { return g.srv }

// Revisions are the revisions mounted on the server.
func (g *Registry) Revisions() []*protocol.Protocol { return g.revs }

// Logger is the server's logger.
func (g *Registry) Logger() *slog.Logger { return g.srv.log }

// Options are the server's options.
func (g *Registry) Options() ServerOptions { return g.srv.opts }

// ListChanged declares that the server announces changes to its lists
// (ServerOptions.ListChanged): a feature whose items change while the
// server runs.
func (g *Registry) ListChanged() { g.srv.opts.ListChanged = true }

// Route declares a method the feature serves.
func (g *Registry) Route(rt Route) { g.srv.feats.routes = append(g.srv.feats.routes, rt) }

// Capabilities declares what the feature adds to the capabilities of each
// revision: f fills c for revision p, where serves reports the roles the
// server answers (its handler's and the features'). It is called each
// time the capabilities are written (initialize, server/discover).
func (g *Registry) Capabilities(f func(p *protocol.Protocol, serves func(protocol.Role) bool, c *Capabilities)) {
	g.srv.feats.caps = append(g.srv.feats.caps, f)
}

// OnAnnounce registers f, which learns of every announcement the server
// makes (or hears of from another instance), after the stateful sessions
// it concerns were told.
func (g *Registry) OnAnnounce(f func(ctx context.Context, a Announcement)) {
	g.srv.feats.announce = append(g.srv.feats.announce, f)
}

// Broadcast registers deliver for the announcements of kind that the
// other instances of the server publish on ServerOptions.Broadcast, and
// returns how to publish one (it does nothing without a Broadcast). Kinds
// are the feature's own names, without a newline.
func (g *Registry) Broadcast(kind string, deliver func(ctx context.Context, arg string)) (publish func(ctx context.Context, arg string)) {
	s := g.srv
	s.feats.kinds[kind] = deliver
	return func(ctx context.Context, arg string) { s.ann.broadcast(ctx, kind, arg) }
}

// OnClose registers f, run by Server.Close.
func (g *Registry) OnClose(f func()) { g.srv.feats.close = append(g.srv.feats.close, f) }

// Provide makes v the value Server.Feature returns for key, so that code
// handed only a Request or a Server (a handler, generated code) reaches
// the feature's state.
func (g *Registry) Provide(key, v any) { g.srv.feats.values[key] = v }

// Feature returns the value a feature provided for key (Registry.Provide),
// or nil.
func (s *Server) Feature(key any) any { return s.feats.values[key] }

// features is what the attached features declared.
type features struct {
	routes   []Route
	caps     []func(*protocol.Protocol, func(protocol.Role) bool, *Capabilities)
	announce []func(context.Context, Announcement)
	kinds    map[string]func(context.Context, string)
	close    []func()
	values   map[any]any
}

// attach runs every feature's Attach; revs are the mounted revisions.
func (s *Server) attach(fs []Feature, revs []*protocol.Protocol) error {
	s.feats.kinds, s.feats.values = map[string]func(context.Context, string){}, map[any]any{}
	reg := &Registry{srv: s, revs: revs}
	for i, f := range fs {
		if f == nil {
			continue
		}
		reg.cur = i
		if err := f.Attach(reg); err != nil {
			return err
		}
	}
	return nil
}

// on reports whether rt is a route of revision p: one of its table's roles,
// or a method it adds there.
func (rt *Route) on(p *protocol.Protocol) bool { return rt.On == nil || rt.On(p) }

// featureCaps gathers what the features add to the capabilities of m.
func (f *features) featureCaps(m *mounted) Capabilities {
	c := Capabilities{Extensions: map[string]wire.Raw{}, Members: map[string]wire.Raw{}}
	for _, add := range f.caps {
		add(m.Protocol, m.serves, &c)
	}
	return c
}

// stepRoute is a route served by step in front of next.
func stepRoute(step Step, next routeFunc) routeFunc {
	return func(rc *reqCtx) (wire.Marshaler, error) {
		return step(rc, &rc.r, Next{rc, next})
	}
}

// Announcements: a change the server tells its clients of — a list that
// changed, a resource updated — reaches this instance's stateful sessions
// (as the revision's notification) and the features that asked
// (Registry.OnAnnounce: listen streams), and, with a Broadcast, the other
// instances, which tell theirs. Streams: requests that last until the
// server ends them (a listen stream), registered so that a drain ends
// them.

// ListKind names a list whose changes the server announces.
type ListKind int

// The lists.
const (
	ToolsList ListKind = iota + 1
	PromptsList
	ResourcesList
)

// Broadcast shares a server's announcements — list changes and resource
// updates, and what its features publish (Registry.Broadcast) — with the
// other instances of the same server, so that a client attached to one
// instance (a stateful session's GET stream, a listen stream) hears of a
// change announced on another. Implementations must be safe for
// concurrent use (runtime/store/redis has one, on pub/sub).
type Broadcast interface {
	// Publish hands msg to every instance (the publisher's own copy is
	// dropped by the server).
	Publish(ctx context.Context, msg []byte) error
	// Subscribe calls deliver with every message published until ctx
	// ends; it returns once it receives.
	Subscribe(ctx context.Context, deliver func(msg []byte)) error
}

// The announcements on a Broadcast: "<instance>\n<kind>\n<argument>",
// kind "list" (argument tools, prompts or resources), "list-to" (the list
// and the principals, NUL-separated), "resource" (the URI),
// "resource-to" (the URI and the principals), or a feature's kind.
const (
	announceList       = "list"
	announceListTo     = "list-to"
	announceResource   = "resource"
	announceResourceTo = "resource-to"
)

var listNames = map[ListKind]string{ToolsList: "tools", PromptsList: "prompts", ResourcesList: "resources"}

// announcer is a server's side of the announcements and streams.
type announcer struct {
	srv *Server
	// instance names this server on its Broadcast; stop ends the
	// subscription.
	instance string
	stop     context.CancelFunc

	mu      sync.Mutex
	streams map[*requestStream]struct{}
}

// start subscribes to the other instances' announcements.
func (a *announcer) start() error {
	s := a.srv
	a.streams = map[*requestStream]struct{}{}
	b := s.opts.Broadcast
	if b == nil {
		return nil
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	a.instance = hex.EncodeToString(id[:])
	ctx, cancel := context.WithCancel(context.Background())
	a.stop = cancel
	return b.Subscribe(ctx, func(msg []byte) {
		from, rest, _ := strings.Cut(string(msg), "\n")
		kind, arg, _ := strings.Cut(rest, "\n")
		if from == a.instance {
			return
		}
		switch kind {
		case announceList, announceListTo:
			parts := strings.Split(arg, "\x00")
			for k, name := range listNames {
				if name == parts[0] {
					a.tell(ctx, Announcement{List: k, Principals: parts[1:len(parts):len(parts)]}, kind == announceListTo)
				}
			}
		case announceResource:
			a.tell(ctx, Announcement{URI: arg}, false)
		case announceResourceTo:
			parts := strings.Split(arg, "\x00")
			a.tell(ctx, Announcement{URI: parts[0], Principals: parts[1:len(parts):len(parts)]}, true)
		default:
			if deliver := s.feats.kinds[kind]; deliver != nil {
				deliver(ctx, arg)
			}
		}
	})
}

// broadcast tells the other instances of an announcement made here.
func (a *announcer) broadcast(ctx context.Context, kind, arg string) {
	b := a.srv.opts.Broadcast
	if b == nil {
		return
	}
	if err := b.Publish(context.WithoutCancel(ctx), []byte(a.instance+"\n"+kind+"\n"+arg)); err != nil {
		a.srv.log.Error("mcp: broadcasting an announcement failed", "kind", kind, "arg", arg, "err", err)
	}
}

// NotifyListChanged tells every client that the server's tools, prompts or
// resources changed: stateful sessions get notifications/<kind>/list_changed,
// and the features that listen (listen streams that opted in) hear of it.
// With a Broadcast, the clients of the other instances hear of it too.
func (s *Server) NotifyListChanged(ctx context.Context, kind ListKind) {
	s.ann.tell(ctx, Announcement{List: kind}, false)
	s.ann.broadcast(ctx, announceList, listNames[kind])
}

// NotifyListChangedTo tells only the clients of the principals named
// (sessions and listen streams they opened, on every instance with a
// Broadcast) that a list changed: what a list shows one principal (items
// visible by principal) changed for them alone.
func (s *Server) NotifyListChangedTo(ctx context.Context, kind ListKind, principals ...string) {
	if len(principals) == 0 {
		return
	}
	s.ann.tell(ctx, Announcement{List: kind, Principals: principals}, true)
	s.ann.broadcast(ctx, announceListTo, listNames[kind]+"\x00"+strings.Join(principals, "\x00"))
}

// NotifyLog sends a log message that belongs to no request — a
// gateway's backend's, say — to every stateful session of this instance
// whose log level admits level (notifications/message: data is any JSON
// value, logger may be empty). A stateless client hears of logs only
// within its requests (Request.Log).
func (s *Server) NotifyLog(ctx context.Context, level, logger string, data wire.Raw) {
	s.notifyLog(ctx, nil, level, logger, data)
}

// NotifyLogTo is NotifyLog to the sessions of the principals named only.
func (s *Server) NotifyLogTo(ctx context.Context, level, logger string, data wire.Raw, principals ...string) {
	if len(principals) > 0 {
		s.notifyLog(ctx, principals, level, logger, data)
	}
}

func (s *Server) notifyLog(ctx context.Context, principals []string, level, logger string, data wire.Raw) {
	for _, sess := range s.sessionsNow() {
		if (principals == nil || slices.Contains(principals, sess.Principal())) && severity(level) >= severity(sess.LogLevel()) {
			sess.notify(ctx, protocol.RoleLog, logParams{level, logger, data})
		}
	}
}

// sessionsNow is a snapshot of the server's stateful sessions.
func (s *Server) sessionsNow() []*Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	sessions := make([]*Session, 0, len(s.sessions))
	for sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	return sessions
}

// NotifyResourceUpdated tells the clients subscribed to uri that it
// changed (with a Broadcast, those of every instance).
func (s *Server) NotifyResourceUpdated(ctx context.Context, uri string) {
	s.ann.tell(ctx, Announcement{URI: uri}, false)
	s.ann.broadcast(ctx, announceResource, uri)
}

// NotifyResourceUpdatedTo tells only the clients of the principals named
// that are subscribed to uri that it changed: a resource that is each
// principal's own (a gateway's backend per principal).
func (s *Server) NotifyResourceUpdatedTo(ctx context.Context, uri string, principals ...string) {
	if len(principals) == 0 {
		return
	}
	s.ann.tell(ctx, Announcement{URI: uri, Principals: principals}, true)
	s.ann.broadcast(ctx, announceResourceTo, uri+"\x00"+strings.Join(principals, "\x00"))
}

// tell tells this instance's clients of an announcement: the stateful
// sessions it concerns, then the features. An announcement to principals
// (to) with none named concerns nobody.
func (a *announcer) tell(ctx context.Context, an Announcement, to bool) {
	s := a.srv
	if to && len(an.Principals) == 0 {
		return
	}
	if !to {
		an.Principals = nil
	}
	if an.List == ToolsList {
		s.tools.Forget()
	}
	for _, sess := range s.sessionsNow() {
		if an.Principals != nil && !slices.Contains(an.Principals, sess.Principal()) {
			continue
		}
		switch {
		case an.List != 0:
			sess.notify(ctx, listRoles[an.List], emptyObject)
		case sess.subscribed(an.URI):
			sess.notify(ctx, protocol.RoleResourceUpdated, wire.StrMember{Name: "uri", Value: an.URI})
		}
	}
	for _, f := range s.feats.announce {
		f(ctx, an)
	}
}

// listRoles are the roles of the notifications of each list.
var listRoles = map[ListKind]protocol.Role{
	ToolsList:     protocol.RoleToolsListChanged,
	PromptsList:   protocol.RolePromptsListChanged,
	ResourcesList: protocol.RoleResourcesListChanged,
}

// ListRole is the role of the notification announcing a change of list.
func ListRole(kind ListKind) protocol.Role { return listRoles[kind] }

// requestStream is a request that lasts until the server ends it
// (Request.Stream).
type requestStream struct {
	out  Outbound // the transport's, to end the streams of a connection
	stop chan struct{}
	once sync.Once
}

func (st *requestStream) end() { st.once.Do(func() { close(st.stop) }) }

// Stream marks the request a stream that lasts until the server ends it:
// ended is closed when it does (Server.EndStreams at a drain, or the
// request's connection draining); call done once the stream is over.
func (r *Request) Stream() (ended <-chan struct{}, done func()) {
	a := &r.server.ann
	st := &requestStream{out: r.transportOut(), stop: make(chan struct{})}
	a.mu.Lock()
	a.streams[st] = struct{}{}
	a.mu.Unlock()
	return st.stop, func() {
		a.mu.Lock()
		delete(a.streams, st)
		a.mu.Unlock()
	}
}

// EndStream ends the stream of a request the server ended the way its
// transport ends one: on stdio the revision's cancellation notification
// referencing the request (reason its reason), after which the request
// gets no response — EndStream returns true, and the stream's handler
// returns context.Canceled; elsewhere it returns false, and the handler
// answers with its result.
func (r *Request) EndStream(ctx context.Context, reason string) bool {
	se, ok := r.out.(streamEnder)
	if !ok || !se.endsStreamsByCancel() {
		return false
	}
	if name := r.Protocol.RoleName(protocol.RoleCancelled); name != "" {
		_ = r.out.Notify(ctx, name, cancelParams{r.ID, reason})
	}
	return se.Cancel(r.ID)
}

// streamEnder is implemented by an Outbound that ends a stream its own
// way: on stdio the server sends the revision's cancellation notification
// referencing the stream's request, and cancels it, instead of answering
// it.
type streamEnder interface {
	Cancel(id jsonrpc.ID) bool
	endsStreamsByCancel() bool
}

// EndStreams ends every stream gracefully (a server shutting down).
func (s *Server) EndStreams() { s.ann.endStreams(nil) }

// endStreams ends the streams whose messages go to out (every one when
// out is nil).
func (a *announcer) endStreams(out Outbound) {
	a.mu.Lock()
	var ending []*requestStream
	for st := range a.streams {
		if out == nil || st.out == out {
			ending = append(ending, st)
		}
	}
	a.mu.Unlock()
	for _, st := range ending {
		st.end()
	}
}

// Close stops what the server runs in the background (its subscription
// to the other instances' announcements, the features'). Sessions are the
// transports'.
func (s *Server) Close() {
	if s.ann.stop != nil {
		s.ann.stop()
	}
	for _, f := range s.feats.close {
		f()
	}
}

// Serves reports whether the server answers the method in role on the
// request's revision: its handler implements it, or a feature serves it
// now.
func (r *Request) Serves(role protocol.Role) bool { return r.mount != nil && r.mount.serves(role) }
