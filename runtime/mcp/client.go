package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cache"
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
	CallWithID(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler, onID func(jsonrpc.ID)) error
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

// Era chooses how a client opens a conversation.
type Era int

const (
	// Auto probes with server/discover and falls back to initialize: the
	// default, which connects to a server of either era.
	Auto Era = iota
	// Legacy opens with initialize (stateful revisions) only.
	Legacy
	// Modern sends stateless requests, each with _meta (2026-07-28 on),
	// only.
	Modern
)

// ClientOptions configure a client session.
type ClientOptions struct {
	// Name, Title and Version describe the client (clientInfo).
	Name, Title, Version string
	// Era is how to open the conversation (default Auto).
	Era Era
	// ProtocolVersion pins the protocol version; default the preferred
	// mounted revision of the era (Preferred: the newest published one).
	ProtocolVersion string
	// Capabilities is the client's capabilities object; default derived
	// from the handler (sampling, elicitation, roots).
	Capabilities wire.Raw
	// Logger (default: discard).
	Logger *slog.Logger
	// Tasks, when set, turns on tasks in both roles. As a receiver
	// (2025-11-25) the client hosts tasks: a server may ask for
	// sampling/createMessage and elicitation/create as tasks, which run the
	// handler in the background while the server polls (capabilities.tasks
	// names the methods the handler implements). As a requestor (2026) the
	// client declares the io.modelcontextprotocol/tasks extension, and
	// typed calls wait for the task handles servers answer with
	// (AwaitTask); in 2025-11-25 that happens when a call sets params.task.
	Tasks *TaskOptions
	// Cache, when set, keeps the results of cacheable requests for their
	// ttlMs and answers repeated requests from it (see cache.Store). One
	// cache may serve many sessions.
	Cache cache.Store
	// Middleware wraps every message the session sends and receives (see
	// Middleware); the first wraps the others.
	Middleware []Middleware
	// NoRecovery turns off the recovery from panics of the handlers that
	// answer the server's requests (see Recovery).
	NoRecovery bool
	// CachePartition names the authorization context of a call (for
	// example a digest of the access token it is sent with): "private"
	// results are reused only by calls of the same context, "public" ones
	// by all. Without it, private results are not cached.
	CachePartition func(ctx context.Context) string
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
	listens  map[string]*listenQueue // open Listen streams, by subscription id
	// statefulListens are the Listen loops of a stateful session.
	statefulListens []*statefulListen

	tasks *taskHost // with ClientOptions.Tasks

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

// Connect dials t and opens a session with one of the mounted revisions
// (their handlers answer the server's requests).
func Connect(ctx context.Context, t ClientTransport, opts ClientOptions, mounts ...Mount) (*ClientSession, error) {
	if len(mounts) == 0 {
		return nil, errors.New("mcp: Connect needs a mounted revision")
	}
	if opts.Name == "" {
		opts.Name = "mcpgen-client"
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	for _, m := range mounts {
		if m.Protocol == nil {
			return nil, errors.New("mcp: Connect: a mount has no protocol")
		}
		if !m.Protocol.Serves(false) {
			return nil, fmt.Errorf("mcp: Connect: revision %s was generated for servers only (mcpgen --side server): generate it with --side client or both to mount it on a client", m.Protocol.Revision)
		}
		if err := protocol.CheckHandler(m.Protocol, m.Handler, func(md *protocol.Method) bool { return md.FromServer }); err != nil {
			return nil, err
		}
		if b, ok := m.Handler.(interface{ CheckClientHandlers() error }); ok {
			if err := b.CheckClientHandlers(); err != nil {
				return nil, err
			}
		}
	}
	cs := &ClientSession{opts: opts, mounts: mounts, log: opts.Logger, progress: map[string]func(ProgressUpdate){}, roles: map[string]protocol.Role{}}
	for _, m := range mounts {
		for name, md := range m.Protocol.Methods {
			if cs.roles[name] == protocol.RoleNone {
				cs.roles[name] = md.Role
			}
		}
	}
	if opts.Tasks != nil {
		cs.tasks = newTaskHost(*opts.Tasks, time.Now, opts.Logger)
	}
	cs.recover = !opts.NoRecovery
	mws := slices.Clone(opts.Middleware)
	if len(mws) > 0 && cs.recover {
		mws = append(mws, Recovery(opts.Logger))
	}
	cs.incoming, cs.outgoing = chain(mws, callFinal), chain(mws, callFinal)
	if tn, ok := t.(interface{ TransportName() string }); ok {
		cs.transport = tn.TransportName()
	}
	conn, err := t.Dial(ctx, jsonrpc.HandlerFunc(cs.receive))
	if err != nil {
		return nil, err
	}
	cs.conn = conn
	// The era is chosen here, once: the first that opens the session.
	eras := []clientEra{modernClient{}, legacyClient{}}
	switch opts.Era {
	case Legacy:
		eras = eras[1:]
	case Modern:
		eras = eras[:1]
	}
	for i, e := range eras {
		if err = e.open(ctx, cs); err == nil {
			cs.undeclared = cs.undeclaredRoles()
			if err := cs.setLogLevel(ctx); err != nil {
				conn.Close()
				return nil, err
			}
			return cs, nil
		}
		if i < len(eras)-1 {
			cs.log.Debug("mcp: opening a session failed; trying the next era", "era", e.kind(), "err", err)
		}
	}
	conn.Close()
	return nil, forcedEraHint(opts.Era, err)
}

// forcedEraHint adds to the error of a session a forced era could not
// open, when the server refused it, what would connect.
func forcedEraHint(era Era, err error) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return err // the transport failed: no era would do better
	}
	switch era {
	case Modern:
		return fmt.Errorf("%w (ClientOptions.Era is mcp.Modern, and the server may speak only the stateful revisions: mcp.Auto, the default, falls back to initialize)", err)
	case Legacy:
		return fmt.Errorf("%w (ClientOptions.Era is mcp.Legacy, and the server may speak only the stateless revisions: mcp.Auto, the default, tries server/discover first)", err)
	}
	return err
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
// it speaks through one); nil before it opens. It implements
// protocol.Speaker, through which generated Client types convert their
// calls.
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

// OnNotification sets a function to receive the server's notifications
// that the handler does not take (and every notification when it is nil).
func (cs *ClientSession) OnNotification(f func(ctx context.Context, method string, params wire.Raw)) {
	cs.mu.Lock()
	cs.notes = f
	cs.mu.Unlock()
}

type progressKey struct{}

// WithProgress returns a context whose calls ask for progress, reported to
// f.
func WithProgress(ctx context.Context, f func(ProgressUpdate)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// Call implements Caller. Stateless sessions add the _meta every request
// carries; calls with a progress callback (WithProgress) add a progress
// token; a cancelled ctx tells the server (notifications/cancelled, or,
// on stateless HTTP, the transport closes the request's stream).
//
// With ClientOptions.Cache, a fresh cached result of a cacheable method
// answers the call without a request.
func (cs *ClientSession) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	if cs.cacheable(method) {
		return cs.cachedCall(ctx, method, params, result)
	}
	return cs.call(ctx, method, params, result)
}

// call sends a request and decodes its result.
func (cs *ClientSession) call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return cs.callID(ctx, method, params, result, nil)
}

// callID is call, with onID (if not nil) learning the request's id before
// it is sent; the session's middleware sees it first.
func (cs *ClientSession) callID(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler, onID func(jsonrpc.ID)) error {
	if cs.outgoing == nil {
		return cs.send(ctx, method, params, result, onID)
	}
	m := cs.view(method, params, false)
	m.call = func(ctx context.Context) (wire.Marshaler, error) {
		if err := cs.send(ctx, method, m.sendParams(), result, onID); err != nil {
			return nil, err
		}
		res, _ := result.(wire.Marshaler)
		return res, nil
	}
	_, err := cs.outgoing(ctx, m)
	return err
}

// send sends a request and waits for its result; a request whose
// capability the server did not declare fails here, after the session's
// middleware (which sees the refusal).
func (cs *ClientSession) send(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler, onID func(jsonrpc.ID)) error {
	if err := cs.declared(method); err != nil {
		return err
	}
	onProgress, _ := ctx.Value(progressKey{}).(func(ProgressUpdate))
	var token string
	if onProgress != nil {
		token = "mcpgen-progress-" + strconv.FormatInt(cs.tokens.Add(1), 10)
		cs.mu.Lock()
		cs.progress[token] = onProgress
		cs.mu.Unlock()
		defer func() {
			cs.mu.Lock()
			delete(cs.progress, token)
			cs.mu.Unlock()
		}()
	}
	send := cs.era.params(cs, params, token)
	if ctx.Done() == nil || cs.roles[method] == protocol.RoleInitialize || cs.transportCancels() {
		// Nothing can cancel the call, a client never cancels initialize,
		// or the transport cancels by aborting the request (stateless
		// HTTP).
		return cs.conn.CallWithID(ctx, method, send, result, onID)
	}
	var id jsonrpc.ID
	var haveID bool
	err := cs.conn.CallWithID(ctx, method, send, result, func(i jsonrpc.ID) {
		id, haveID = i, true
		if onID != nil {
			onID(i)
		}
	})
	if err != nil && ctx.Err() != nil && haveID {
		// Tell the server to stop; it must not answer anymore.
		if name := cs.mount.Protocol.RoleName(protocol.RoleCancelled); name != "" {
			_ = cs.Notify(context.WithoutCancel(ctx), name, cancelParams{id, ctx.Err().Error()})
		}
	}
	return err
}

// UndeclaredError refuses a request, before it is sent, whose capability
// the server did not declare when it opened a stateful session (see
// ClientOptions.SendUndeclared).
type UndeclaredError struct {
	Method string
	// Capability is the member of the server's capabilities the request
	// needs ("tools", "resources.subscribe", …).
	Capability string
}

func (e *UndeclaredError) Error() string {
	return "mcp: " + e.Method + " needs the server capability " + e.Capability +
		", which the server did not declare (ClientOptions.SendUndeclared sends it anyway)"
}

// capabilityOf is the server capability each request needs, as a path in the
// server's capabilities, by role.
var capabilityOf = map[protocol.Role][]string{
	protocol.RoleToolsList:             {"tools"},
	protocol.RoleToolsCall:             {"tools"},
	protocol.RolePromptsList:           {"prompts"},
	protocol.RolePromptsGet:            {"prompts"},
	protocol.RoleResourcesList:         {"resources"},
	protocol.RoleResourceTemplatesList: {"resources"},
	protocol.RoleResourcesRead:         {"resources"},
	protocol.RoleSubscribe:             {"resources", "subscribe"},
	protocol.RoleUnsubscribe:           {"resources", "subscribe"},
	protocol.RoleSetLevel:              {"logging"},
	protocol.RoleComplete:              {"completions"},
}

// declared returns the error refusing a request whose capability the
// server did not declare, or nil.
func (cs *ClientSession) declared(method string) error {
	if len(cs.undeclared) == 0 {
		return nil
	}
	if c, ok := cs.undeclared[cs.roles[method]]; ok {
		return &UndeclaredError{Method: method, Capability: c}
	}
	return nil
}

// undeclaredRoles finds, once a stateful session is open, the requests
// whose capability the server did not declare at initialize (none with
// ClientOptions.SendUndeclared). A stateless server's capabilities may
// change from one request to the next, so its requests are not refused;
// nor are those a revision's capabilities have no member for (2024-11-05
// has no completions).
func (cs *ClientSession) undeclaredRoles() map[protocol.Role]string {
	if cs.opts.SendUndeclared || cs.Stateless() {
		return nil
	}
	caps, _ := wire.MemberOf(cs.result, "capabilities")
	out := map[protocol.Role]string{}
	for role, path := range capabilityOf {
		if !cs.mount.Protocol.Knows(path[0]) {
			continue
		}
		// A capability is an object ("tools": {}), or a flag inside one
		// ("resources": {"subscribe": true}).
		v := caps
		for _, p := range path {
			v, _ = wire.MemberOf(v, p)
		}
		if !(len(path) == 1 && v.Kind() == wire.Object || string(v) == "true") {
			out[role] = strings.Join(path, ".")
		}
	}
	return out
}

// AbortCanceller is implemented by client connections that cancel a
// request by aborting it (stateless Streamable HTTP closes its stream), so
// the session sends no notifications/cancelled.
type AbortCanceller interface {
	AbortCancels() bool
}

func (cs *ClientSession) transportCancels() bool {
	ac, ok := cs.conn.(AbortCanceller)
	return ok && ac.AbortCancels()
}

// Notify implements Caller; the session's middleware sees it first.
func (cs *ClientSession) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	if cs.outgoing == nil {
		return cs.conn.Notify(ctx, method, params)
	}
	m := cs.view(method, params, true)
	m.call = func(ctx context.Context) (wire.Marshaler, error) {
		return nil, cs.conn.Notify(ctx, method, m.sendParams())
	}
	_, err := cs.outgoing(ctx, m)
	return err
}

// view is the middleware's view of a message the session sends.
func (cs *ClientSession) view(method string, params wire.Marshaler, notification bool) *Message {
	return &Message{method: method, send: params, notification: notification, outgoing: true, revision: cs.version, transport: cs.transport}
}

// receive serves a message from the server (handle), with the session's
// middleware around it and, by default, the recovery from panics.
func (cs *ClientSession) receive(ctx context.Context, req *jsonrpc.Request) (res wire.Marshaler, err error) {
	if cs.incoming == nil {
		if cs.recover {
			defer func() {
				if p := recover(); p != nil {
					cs.log.ErrorContext(ctx, "mcp: panic serving a message", "method", req.Method, "id", req.ID.String(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					res, err = nil, errPanicked
				}
			}()
		}
		return cs.handle(ctx, req)
	}
	m := &Message{method: req.Method, id: req.ID, notification: req.IsNotification, params: req.Params, revision: cs.version, transport: cs.transport}
	m.call = func(ctx context.Context) (wire.Marshaler, error) { return cs.handle(ctx, req) }
	return cs.incoming(ctx, m)
}

// ServeInput implements protocol.InputServer: an input request the
// session's handler answers (a round of a multi round-trip request) is an
// incoming message to the session's middleware.
func (cs *ClientSession) ServeInput(ctx context.Context, method string, params wire.Marshaler, serve func(context.Context) (wire.Marshaler, error)) (wire.Marshaler, error) {
	if cs.incoming == nil {
		return serve(ctx)
	}
	m := &Message{method: method, send: params, revision: cs.version, transport: cs.transport, call: serve}
	return cs.incoming(ctx, m)
}

// withMeta encodes params with the runtime's _meta keys merged into
// whatever _meta the params carry: a client's progress token, a stateless
// request's protocol version, capabilities and info, and the members
// middleware set (Message.SetMeta), which win over the params' own.
type withMeta struct {
	inner   wire.Marshaler
	version string
	caps    wire.Raw
	cs      *ClientSession // writes clientInfo, when version is set
	token   string
	extra   wire.Members
}

func (w *withMeta) EncodeJSON(e *wire.Encoder) {
	scratch := wire.GetEncoder()
	defer wire.PutEncoder(scratch)
	if w.inner == nil {
		scratch.ObjectStart()
		scratch.ObjectEnd()
	} else {
		w.inner.EncodeJSON(scratch)
	}
	inner := scratch.Bytes()
	d := wire.NewDecoder(inner)
	if k, _, err := d.PeekMember("_meta"); err == nil && k == wire.Invalid {
		// The common case: params without _meta of their own. Copy them
		// and add ours as their last member.
		e.Raw(inner)
		if e.ReopenObject() {
			e.FieldRaw(`"_meta":`)
			e.ObjectStart()
			w.own(e, 0)
			e.ObjectEnd()
			e.ObjectEnd()
			return
		}
	}
	w.merge(e, inner)
}

// merge writes params that carry a _meta of their own: the caller's keys
// are kept, and its clientCapabilities or clientInfo for this request win
// over the session's (a per-request opt-in to an extension).
func (w *withMeta) merge(e *wire.Encoder, inner wire.Raw) {
	e.ObjectStart()
	meta, _ := wire.CopyMembers(e, inner, "_meta")
	e.FieldRaw(`"_meta":`)
	e.ObjectStart()
	var theirs callerMeta
	if len(meta) > 0 {
		md := wire.NewDecoder(meta)
		_ = md.Object(func(key []byte) error {
			switch string(key) {
			case MetaProtocolVersion:
				return md.Skip()
			case MetaClientCapabilities:
				theirs |= callerCaps
			case MetaClientInfo:
				theirs |= callerInfo
			case MetaLogLevel:
				theirs |= callerLogLevel
			case "progressToken":
				if w.token != "" {
					return md.Skip()
				}
			}
			if _, ok := w.extra.Get(string(key)); ok {
				return md.Skip()
			}
			r, err := md.Raw()
			if err != nil {
				return err
			}
			e.Field(string(key))
			e.Raw(r)
			return nil
		})
	}
	w.own(e, theirs)
	e.ObjectEnd()
	e.ObjectEnd()
}

// callerMeta marks the stateless _meta keys a caller's params set
// themselves, which win over the runtime's.
type callerMeta uint8

const (
	callerCaps callerMeta = 1 << iota
	callerInfo
	callerLogLevel
)

// own writes the runtime's _meta members but those the caller set.
func (w *withMeta) own(e *wire.Encoder, theirs callerMeta) {
	e.Members(w.extra)
	if w.token != "" {
		e.FieldRaw(`"progressToken":`)
		e.Str(w.token)
	}
	if w.version == "" {
		return
	}
	e.Field(MetaProtocolVersion)
	e.Str(w.version)
	if theirs&callerCaps == 0 {
		e.Field(MetaClientCapabilities)
		e.Raw(w.caps)
	}
	if theirs&callerInfo == 0 {
		e.Field(MetaClientInfo)
		w.cs.clientInfo(e)
	}
	if level := w.cs.opts.LogLevel; level != "" && theirs&callerLogLevel == 0 {
		e.Field(MetaLogLevel)
		e.Str(level)
	}
}

// handle serves the server's requests and notifications. A notification
// reaches the handler (its typed method, else OnNotification) before any
// Listen stream yields it: who sees it on a stream finds the handler's
// record of it already made.
func (cs *ClientSession) handle(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	switch cs.roles[req.Method] {
	case protocol.RolePing:
		return emptyResult, nil
	case protocol.RoleProgress:
		cs.onProgress(req.Params)
		return nil, nil
	case protocol.RoleCancelled:
		cs.onCancelled(req.Params)
		return nil, nil
	}
	if req.IsNotification {
		cs.invalidate(req.Method, req.Params)
		res, err := cs.serve(ctx, req)
		if !cs.deliverListen(req.Method, req.Params) && cs.era != nil && !cs.Stateless() {
			cs.deliverStateful(req.Method, req.Params)
		}
		return res, err
	}
	return cs.serve(ctx, req)
}

// serve hands a request or notification of the server to the handler.
func (cs *ClientSession) serve(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	m := cs.mount
	if m == nil {
		return nil, jsonrpc.MethodNotFound(req.Method)
	}
	md := m.Protocol.Methods[req.Method]
	if cs.tasks != nil && md != nil && md.FromServer {
		if res, err, ok := cs.hostTask(ctx, m, md, req); ok {
			return res, err
		}
	}
	if md != nil && md.FromServer && md.Serve != nil && md.Implemented(m.Handler) {
		return md.Serve(ctx, m.Handler, req.Params)
	}
	if req.IsNotification {
		cs.mu.Lock()
		f := cs.notes
		cs.mu.Unlock()
		if f != nil {
			f(ctx, req.Method, req.Params)
		}
		return nil, nil
	}
	return nil, jsonrpc.MethodNotFound(req.Method)
}

// ErrCancelledByServer ends a call the server cancelled: on the stateless
// era's stdio, a subscriptions/listen stream the server tore down.
var ErrCancelledByServer = errors.New("mcp: the server ended the request")

// onCancelled handles the server's notifications/cancelled, as the era
// says (clientEra.cancelled); invalid cancellations are ignored.
func (cs *ClientSession) onCancelled(params wire.Raw) {
	id, ok := cancelledID(params)
	if !ok {
		return
	}
	var reason wireString
	if r, found := wire.MemberOf(params, "reason"); found {
		_ = wire.Unmarshal(r, &reason)
	}
	cs.era.cancelled(cs, id, string(reason))
}

func (cs *ClientSession) onProgress(params wire.Raw) {
	var token wire.StringOrInt
	u := ProgressUpdate{Total: -1}
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "progressToken":
			err = token.DecodeJSON(d)
		case "progress":
			u.Progress, err = d.Float64()
		case "total":
			u.Total, err = d.Float64()
		case "message":
			u.Message, err = d.Str()
		default:
			err = d.Skip()
		}
		return err
	})
	if token.IsInt() {
		return
	}
	cs.mu.Lock()
	f := cs.progress[token.Str()]
	cs.mu.Unlock()
	if f != nil {
		f(u)
	}
}
