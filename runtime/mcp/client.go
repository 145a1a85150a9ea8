package mcp

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ClientConn is one connection of a client transport: a stdio process or
// an HTTP endpoint. Requests and notifications the server sends are given
// to the jsonrpc.Handler the transport was dialled with.
type ClientConn interface {
	// CallWithID sends a request and waits for its result; onID, if not
	// nil, learns the request's id before it is sent.
	CallWithID(ctx context.Context, method string, params wire.Marshaler, result wire.Into, onID func(jsonrpc.ID)) error
	Notify(ctx context.Context, method string, params wire.Marshaler) error
	Close() error
}

// ClientTransport opens client connections.
type ClientTransport interface {
	Dial(ctx context.Context, h jsonrpc.Handler) (ClientConn, error)
}

// Negotiator is implemented by connections that need to know the outcome
// of version negotiation (the HTTP transport sends the version as a
// header, keeps the session id and mirrors params in headers as the
// revision's table says).
type Negotiator interface {
	// Negotiated reports the revision the session speaks from now on; nil
	// while a stateful session is being opened (its initialize carries no
	// version and no session).
	Negotiated(p *protocol.Protocol)
	// Opened reports the session open: a stateful session's client sent
	// notifications/initialized (the HTTP transport opens its GET stream
	// then).
	Opened(ctx context.Context)
}

// Era is the runtime's era (protocol.Era), named here for clients.
type Era = protocol.Era

// The eras a client may open a conversation in (ClientOptions.Era): the
// runtime's two, and Auto, the zero value, which picks one.
const (
	// Auto probes with server/discover and falls back to initialize: the
	// default, which connects to a server of either era.
	Auto protocol.Era = 0
	// Stateful opens with initialize (2024-11-05 … 2025-11-25) only.
	Stateful = protocol.Stateful
	// Stateless sends stateless requests, each with _meta (2026-07-28
	// on), only.
	Stateless = protocol.Stateless
)

// ClientOptions configure a client session.
type ClientOptions struct {
	// Name, Title and Version describe the client (clientInfo).
	Name, Title, Version string
	// Era is the era to open the conversation in: Stateful, Stateless,
	// or Auto (the zero value) to probe.
	Era protocol.Era
	// ProtocolVersion pins the protocol version; default the preferred
	// mounted revision of the era (Preferred: the newest published one).
	ProtocolVersion string
	// Capabilities is the client's capabilities object; default derived
	// from the handler (sampling, elicitation, roots).
	Capabilities wire.Raw
	// Logger (default: discard).
	Logger *slog.Logger
	// Tasks, when set (runtime/tasks.Client), turns on tasks in both
	// roles. As a receiver (2025-11-25) the client hosts tasks: a server
	// may ask for sampling/createMessage and elicitation/create as tasks,
	// which run the handler in the background while the server polls
	// (capabilities.tasks names the methods the handler implements). As a
	// requestor (2026) the client declares the io.modelcontextprotocol/tasks
	// extension, and typed calls wait for the task handles servers answer
	// with (AwaitTask); in 2025-11-25 that happens when a call sets
	// params.task.
	Tasks ClientTasks
	// Cache, when set, answers the calls of the methods a revision marks
	// cacheable from the results it kept (package runtime/cache's Client).
	Cache CallCache
	// Middleware wraps every message the session sends and receives (see
	// Middleware); the first wraps the others.
	Middleware []Middleware
	// NoRecovery turns off the recovery from panics of the handlers that
	// answer the server's requests (see Recovery).
	NoRecovery bool
	// OnSessionEnd, when set, learns when the session ends (Close), from
	// when it connected (session metrics, say).
	OnSessionEnd func(SessionEnd)
	// SendUndeclared sends requests whose capability the server did not
	// declare at initialize (tools/call to a server without tools, say),
	// which otherwise fail before they are sent (*UndeclaredError).
	SendUndeclared bool
	// LogLevel asks the server for log messages (notifications/message)
	// of this level and above ("debug", "info", … "emergency"), in either
	// era: a stateful session sends logging/setLevel once it is open, if
	// the server declared logging; a stateless one stamps
	// _meta["io.modelcontextprotocol/logLevel"] on every request (a
	// request's own _meta value wins). "" leaves the server's default.
	LogLevel string
}

// ClientSession is a client's conversation with one server: the Caller
// generated Client types make their calls through. It answers the
// server's requests (sampling, elicitation, roots; ping) with the handler
// of the mounted revision it negotiated.
type ClientSession struct {
	opts   ClientOptions
	conn   ClientConn
	mounts []Mount
	mount  *Mount
	log    *slog.Logger

	caps    wire.Raw
	era     clientEra // chosen at Connect
	version string
	result  wire.Raw // InitializeResult or DiscoverResult

	// roles gives the role of every method of the mounted revisions, for
	// the server's messages that may come before negotiation.
	roles map[string]protocol.Role
	// tokens numbers the session's progress tokens.
	tokens atomic.Int64

	mu       sync.Mutex
	progress map[string]func(ProgressUpdate)
	notes    func(ctx context.Context, method string, params wire.Raw)
	// watchers see the server's notifications after the handler (Watch);
	// copied on write, read unlocked.
	watchers []*watcher

	// incoming and outgoing are the middleware chains of what the session
	// receives and sends, nil without middleware; recover reports the
	// recovery from panics built into receive when there is no chain.
	incoming, outgoing MessageHandler
	recover            bool
	transport          string // the transport's name, if it tells
	opened             time.Time
	closed             atomic.Bool
	// undeclared holds the requests the server did not declare the
	// capability of, and that capability (see UndeclaredError).
	undeclared map[protocol.Role]string
}

// ProgressUpdate is one notifications/progress for a call.
type ProgressUpdate struct {
	Progress, Total float64 // Total < 0 when unknown
	Message         string
}

// clientCapabilities derives the client's capabilities from its handler
// (and, with tasks, the requests it takes as tasks).
func clientCapabilities(m *Mount, tasks bool) wire.Raw {
	has := func(r protocol.Role) bool {
		md := m.Protocol.Role(r)
		return md != nil && md.Implemented != nil && md.Implemented(m.Handler)
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	if has(protocol.RoleElicitation) {
		e.FieldRaw(`"elicitation":`)
		e.Raw(emptyObject)
	}
	if has(protocol.RoleRoots) {
		e.FieldRaw(`"roots":`)
		e.ObjectStart()
		e.ObjectEnd()
	}
	if has(protocol.RoleSampling) {
		e.FieldRaw(`"sampling":`)
		e.Raw(emptyObject)
	}
	if tasks && m.Protocol.Role(protocol.RoleTaskGet) == nil && slices.Contains(m.Protocol.ClientCapabilities, "extensions") {
		// The requestor's side of the tasks extension: typed calls wait
		// for task handles (AwaitTask).
		e.FieldRaw(`"extensions":`)
		e.Raw(wire.Raw(`{"` + protocol.TasksExtension + `":{}}`))
	}
	if tasks && slices.Contains(m.Protocol.ClientCapabilities, "tasks") {
		var reqs []string
		if has(protocol.RoleSampling) {
			reqs = append(reqs, `"sampling":{"createMessage":{}}`)
		}
		if has(protocol.RoleElicitation) {
			reqs = append(reqs, `"elicitation":{"create":{}}`)
		}
		e.FieldRaw(`"tasks":`)
		e.Raw(wire.Raw(`{"list":{},"cancel":{},"requests":{` + strings.Join(reqs, ",") + `}}`))
	}
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...)
}

// clientInfo encodes the client's Implementation object.
func (cs *ClientSession) clientInfo(e *wire.Encoder) {
	encodeImplementation(e, cs.opts.Name, cs.opts.Title, cs.opts.Version)
}

// ProtocolVersion is the version the session speaks.
func (cs *ClientSession) ProtocolVersion() string { return cs.version }

// Stateless reports a session of the stateless era.
func (cs *ClientSession) Stateless() bool { return cs.era.kind() == protocol.Stateless }

// ServerResult is the InitializeResult (stateful) or DiscoverResult
// (stateless) the server opened the session with.
func (cs *ClientSession) ServerResult() wire.Raw { return cs.result }

// Protocol is the mounted revision the session speaks (a bridge's when
// it speaks through one), as a client uses it: its ForClient, which is
// not the generated package's Protocol() itself when that keeps its
// client entries apart (compare revisions, not pointers); nil before it
// opens. It implements protocol.Speaker, through which generated Client
// types convert their calls.
func (cs *ClientSession) Protocol() *protocol.Protocol {
	if cs.mount == nil {
		return nil
	}
	return cs.mount.Protocol
}

// ServerCapabilities is the JSON of the capabilities the server declared
// when the session opened, nil if none. A generated Client's
// ServerCapabilities decodes it in its revision's types.
func (cs *ClientSession) ServerCapabilities() wire.Raw {
	v, _ := wire.MemberOf(cs.result, "capabilities")
	return v
}

// ServerInfo is the JSON of the server's Implementation: the
// InitializeResult's serverInfo (stateful), the DiscoverResult's
// _meta["io.modelcontextprotocol/serverInfo"] (stateless); nil if none.
func (cs *ClientSession) ServerInfo() wire.Raw {
	if cs.Stateless() {
		meta, _ := wire.MemberOf(cs.result, "_meta")
		v, _ := wire.MemberOf(meta, MetaServerInfo)
		return v
	}
	v, _ := wire.MemberOf(cs.result, "serverInfo")
	return v
}

// Instructions are the server's instructions for the model, "" if none.
func (cs *ClientSession) Instructions() string {
	v, ok := wire.MemberOf(cs.result, "instructions")
	if !ok || v.Kind() != wire.String {
		return ""
	}
	s, _ := wire.NewDecoder(v).Str()
	return s
}

// AcceptsTasks reports whether the session declared that it takes task
// handles for its requests (ClientOptions.Tasks): generated typed calls
// then wait for a task a server answers with (protocol.AwaitTask).
func (cs *ClientSession) AcceptsTasks() bool { return cs.opts.Tasks != nil }

// Handler implements the Caller extension generated code uses to answer
// input requests.
func (cs *ClientSession) Handler() any { return cs.mount.Handler }

// Close closes the connection; ClientOptions.OnSessionEnd learns of it
// once.
func (cs *ClientSession) Close() error {
	if !cs.closed.Swap(true) && cs.opts.OnSessionEnd != nil && cs.mount != nil {
		cs.opts.OnSessionEnd(SessionEnd{Revision: cs.version, Transport: cs.transport, Duration: time.Since(cs.opened)})
	}
	return cs.conn.Close()
}

// Done is closed when the session's connection ends by itself — a
// server run over stdio exited — or by Close: its pending calls have
// failed with jsonrpc.ErrClosed. It is nil (never closed) when the
// transport cannot tell (over HTTP a call finds out, with
// streamhttp.ErrSessionExpired once the server forgot the session).
func (cs *ClientSession) Done() <-chan struct{} {
	if d, ok := cs.conn.(interface{ Done() <-chan struct{} }); ok {
		return d.Done()
	}
	return nil
}

// OnNotification sets a function to receive the server's notifications
// that the handler does not take (and every notification when it is nil).
func (cs *ClientSession) OnNotification(f func(ctx context.Context, method string, params wire.Raw)) {
	cs.mu.Lock()
	cs.notes = f
	cs.mu.Unlock()
}

// CallCache answers a client's calls of cacheable methods from results it
// kept (ClientOptions.Cache; package runtime/cache has one).
type CallCache interface {
	// Call serves a call of a cacheable method of cs: from what it
	// kept, or by send, whose result it may keep.
	Call(ctx context.Context, cs *ClientSession, method string, params wire.Marshaler, result wire.Into, send func(context.Context, wire.Into) error) error
	// Notified learns each notification of the server's before the
	// handler does: one that makes kept results stale drops them.
	Notified(cs *ClientSession, method string, params wire.Raw)
}

// watcher is one function registered with Watch.
type watcher struct {
	f func(method string, params wire.Raw)
}

// Watch registers f, which sees each of the server's notifications after
// the handler (its typed method, else OnNotification) has: the way
// features follow the server's changes on the client (listen streams,
// package runtime/listen). f runs on the goroutine that reads the
// connection, so it must not block; params are valid only during the
// call. stop unregisters f.
func (cs *ClientSession) Watch(f func(method string, params wire.Raw)) (stop func()) {
	w := &watcher{f}
	cs.mu.Lock()
	cs.watchers = append(slices.Clip(cs.watchers), w)
	cs.mu.Unlock()
	return func() {
		cs.mu.Lock()
		cs.watchers = slices.DeleteFunc(slices.Clone(cs.watchers), func(x *watcher) bool { return x == w })
		cs.mu.Unlock()
	}
}

// Logger is the session's logger (ClientOptions.Logger).
func (cs *ClientSession) Logger() *slog.Logger { return cs.log }

type progressKey struct{}

// WithProgress returns a context whose calls ask for progress, reported to
// f.
func WithProgress(ctx context.Context, f func(ProgressUpdate)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// clientEra is how a client session speaks its era. Connect chooses one,
// once (ClientOptions.Era), and the session asks it what differs between
// the eras: how the session opens, what each call carries, and what the
// server's cancellation means.
type clientEra interface {
	kind() protocol.Era
	// open opens the session with a mounted revision of the era.
	open(ctx context.Context, cs *ClientSession) error
	// params are what a call sends: the caller's params with what the era
	// adds (the stateless era's _meta) and the progress token ("" for
	// none).
	params(cs *ClientSession, params wire.Marshaler, token string) wire.Marshaler
	// cancelled handles the server's notifications/cancelled naming id.
	cancelled(cs *ClientSession, id jsonrpc.ID, reason string)
}

// ClientTasks hosts the tasks a server asks a client to run
// (ClientOptions.Tasks; runtime/tasks.Client).
type ClientTasks interface {
	// Host serves req, a request of the server's that the revision's
	// method md describes: a sampling or elicitation request asking for a
	// task becomes a task running serve (nil when the handler does not
	// implement the method), and the tasks/* requests are answered from
	// the tasks the client hosts. ok is false for the other requests,
	// which the handler serves.
	Host(ctx context.Context, cs *ClientSession, md *protocol.Method, req *jsonrpc.Request, serve func(ctx context.Context, params wire.Raw) (wire.Marshaler, error)) (res wire.Marshaler, err error, ok bool)
}
