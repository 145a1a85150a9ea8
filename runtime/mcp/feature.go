package mcp

import (
	"context"
	"log/slog"

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
// calls next to leave the request to them (next answers -32601 when
// nothing serves the method); a result or error it returns without
// calling next answers the request. The engine completes what it returns
// as it does a handler's result: stamped, checked, validated (see
// Request.Stamp for results written as JSON).
type Step func(ctx context.Context, r *Request, next func() (wire.Marshaler, error)) (wire.Marshaler, error)

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
	for _, f := range fs {
		if f == nil {
			continue
		}
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
		return step(rc, &rc.r, func() (wire.Marshaler, error) {
			if next == nil {
				return nil, notFound(rc)
			}
			return next(rc)
		})
	}
}
