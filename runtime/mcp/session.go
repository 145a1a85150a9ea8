package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Session is one stateful (2024-11-05 … 2025-11-25) conversation with a
// client: it begins with initialize, which fixes the revision and the
// capabilities of both sides, and ends when the transport closes (a stdio
// process, an HTTP session).
type Session struct {
	srv    *Server
	peer   Caller
	cancel func(jsonrpc.ID) bool

	// OnNegotiated, when set, learns the revision initialize settled on
	// (a stream connection turns batches on for 2025-03-26 and takes the
	// revision's rule for errors without an id).
	OnNegotiated func(*protocol.Protocol)

	mu          sync.Mutex
	mount       *mounted
	principal   string // who opened it, at initialize
	initialized bool   // initialize answered
	ready       bool   // notifications/initialized received
	clientCaps  wire.Raw
	clientInfo  wire.Raw
	logLevel    string
	subs        map[string]bool
	closed      bool
	// changes counts the changes of what State returns.
	changes uint64
	// id is the transport's name of the session (SetID).
	id string
	// memo holds what Request.Memo computed for the session.
	memo map[any]any
	// transport and opened are the transport initialize came on and when
	// it was answered (SessionEnd).
	transport string
	opened    time.Time
}

// SessionEnd describes a stateful session that ended, as this process saw
// it (ServerOptions.OnSessionEnd, ClientOptions.OnSessionEnd): for
// session metrics.
type SessionEnd struct {
	// ID is the transport's name of the session ("" on stdio).
	ID string
	// Revision is the protocol revision it spoke.
	Revision string
	// Transport is the transport it travelled on (TransportStdio,
	// TransportHTTP; "" when the runtime does not know it).
	Transport string
	// Principal is who opened it ("" for none).
	Principal string
	// Duration is how long it lasted here: from initialize (on a server,
	// or from when this instance took the session over from a shared
	// store) until it ended.
	Duration time.Duration
	// Session is the server's session that ended (nil on a client): what
	// was kept for it can be let go.
	Session *Session
}

// NewSession starts a stateful session whose client is reached through
// peer; cancel cancels one of the client's in-flight requests (false if
// unknown). Close it when the transport ends.
func (s *Server) NewSession(peer Caller, cancel func(jsonrpc.ID) bool) *Session {
	sess := &Session{srv: s, cancel: cancel, logLevel: s.opts.DefaultLogLevel}
	sess.peer = s.wrapPeer(sess, peer)
	s.mu.Lock()
	s.sessions[sess] = struct{}{}
	s.mu.Unlock()
	return sess
}

// SetPeer sets how the session reaches its client, for transports that
// create the session before the connection.
func (sess *Session) SetPeer(peer Caller, cancel func(jsonrpc.ID) bool) {
	sess.mu.Lock()
	sess.peer, sess.cancel = sess.srv.wrapPeer(sess, peer), cancel
	sess.mu.Unlock()
}

// Close ends the session; ServerOptions.OnSessionEnd learns of it once,
// if it was initialized.
func (sess *Session) Close() {
	sess.mu.Lock()
	was := sess.closed
	sess.closed = true
	var end SessionEnd
	report := !was && sess.initialized && sess.srv.opts.OnSessionEnd != nil
	if report {
		end = SessionEnd{ID: sess.id, Revision: sess.mount.Protocol.Revision, Transport: sess.transport, Principal: sess.principal, Duration: time.Since(sess.opened), Session: sess}
	}
	sess.mu.Unlock()
	sess.srv.mu.Lock()
	delete(sess.srv.sessions, sess)
	sess.srv.mu.Unlock()
	if report {
		sess.srv.opts.OnSessionEnd(end)
	}
}

// route returns the route of method name in the session's revision
// (before initialize, in the preferred stateful revision that has it), or
// nil.
func (sess *Session) route(name string) *route {
	sess.mu.Lock()
	mount := sess.mount
	sess.mu.Unlock()
	if mount != nil {
		return mount.routes[name]
	}
	for _, m := range sess.srv.stateful {
		if rt := m.routes[name]; rt != nil {
			return rt
		}
	}
	return nil
}

// Initialized reports whether initialize has been answered.
func (sess *Session) Initialized() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.initialized
}

// Version is the negotiated protocol version ("" before initialize).
func (sess *Session) Version() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.mount == nil {
		return ""
	}
	return sess.mount.Protocol.Revision
}

// Protocol is the negotiated revision (nil before initialize).
func (sess *Session) Protocol() *protocol.Protocol {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.mount == nil {
		return nil
	}
	return sess.mount.Protocol
}

// ClientCapabilities is what the client declared at initialize.
func (sess *Session) ClientCapabilities() wire.Raw {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.clientCaps
}

// ClientInfo is the client's Implementation from initialize.
func (sess *Session) ClientInfo() wire.Raw {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.clientInfo
}

// LogLevel is the level set with logging/setLevel (or the default).
func (sess *Session) LogLevel() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.logLevel
}

// Peer returns how the session reaches its client. Requests for input
// the client did not declare it can give (sampling, elicitation, roots)
// fail with MissingCapability before they are sent.
func (sess *Session) Peer() Caller { return sessionCaller{sess} }

// Principal is who opened the session: the principal of its initialize
// request's context (see WithPrincipal).
func (sess *Session) Principal() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.principal
}

// describe sets what the session tells middleware of a message it sends.
func (sess *Session) describe(m *Message) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	m.session, m.principal, m.transport = sess.id, sess.principal, sess.transport
	if sess.mount != nil {
		m.revision = sess.mount.Protocol.Revision
	}
}

// The session is the client of its requests.
func (sess *Session) peerVersion() string              { return sess.Version() }
func (sess *Session) peerCaps() wire.Raw               { return sess.ClientCapabilities() }
func (sess *Session) peerInfo() wire.Raw               { return sess.ClientInfo() }
func (sess *Session) peerLogThreshold() (string, bool) { return sess.LogLevel(), true }
func (sess *Session) peerPrincipal() string            { return sess.Principal() }
func (sess *Session) peerCaller() Caller               { return sess.Peer() }

// errOtherPrincipal refuses a request made to a session by someone other
// than who opened it; it says no more than an unknown session would.
var errOtherPrincipal = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found")

// errNotInitialized answers a request that is neither stateless nor part
// of an initialized session.
var errNotInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
	"no session: send initialize first (only ping may precede it), or make the request stateless with _meta "+MetaProtocolVersion)

func (sess *Session) initialize(ctx context.Context, in *inbound, transport string) (wire.Marshaler, error) {
	if in.req.IsNotification {
		return nil, nil
	}
	params := in.req.Params
	var requested string
	var caps, info wire.Raw
	if len(params) > 0 {
		d := wire.NewDecoder(params)
		err := d.Object(func(key []byte) error {
			var err error
			switch string(key) {
			case "protocolVersion":
				requested, err = d.Str()
			case "capabilities":
				caps, err = d.Raw()
			case "clientInfo":
				info, err = d.Raw()
			default:
				err = d.Skip()
			}
			return err
		})
		if err != nil {
			return nil, protocol.DecodeError(err)
		}
	}
	srv := sess.srv
	if len(srv.stateful) == 0 {
		// A stateless-only server lists what it supports.
		return nil, unsupportedVersion(requested, srv.supportedVersions())
	}
	mount := srv.stateful[0]
	if m := srv.byRev[requested]; m != nil && !m.Protocol.Stateless() {
		mount = m
	}
	if md := mount.Protocol.Role(protocol.RoleInitialize); md != nil && md.ValidateParams != nil {
		if err := md.ValidateParams(params); err != nil {
			return nil, err
		}
	}
	sess.mu.Lock()
	if sess.initialized {
		sess.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session is already initialized")
	}
	sess.mount, sess.initialized = mount, true
	sess.transport, sess.opened = transport, time.Now()
	sess.principal = PrincipalFrom(ctx)
	sess.clientCaps, sess.clientInfo = caps, info
	sess.changes++
	sess.mu.Unlock()
	if sess.OnNegotiated != nil {
		sess.OnNegotiated(mount.Protocol)
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"protocolVersion":`)
	e.Str(mount.Protocol.Revision)
	e.FieldRaw(`"capabilities":`)
	e.Raw(srv.capabilities(mount))
	e.FieldRaw(`"serverInfo":`)
	srv.opts.implementationFor(e, mount.Protocol)
	if srv.opts.Instructions != "" {
		e.FieldRaw(`"instructions":`)
		e.Str(srv.opts.Instructions)
	}
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), nil
}

// The runtime's routes of the stateful lifecycle and utilities.

func serveInitialize(rc *reqCtx) (wire.Marshaler, error) {
	return rc.r.session().initialize(rc, &rc.r.in, "") // the route does not know the transport
}

func serveInitialized(rc *reqCtx) (wire.Marshaler, error) {
	sess := rc.r.session()
	sess.mu.Lock()
	sess.ready = true
	sess.changes++
	sess.mu.Unlock()
	return nil, nil
}

func servePing(rc *reqCtx) (wire.Marshaler, error) {
	if err := protocol.NoParams(rc.r.in.req.Params); err != nil {
		return nil, err
	}
	return emptyObject, nil
}

func serveCancelled(rc *reqCtx) (wire.Marshaler, error) {
	rc.r.session().cancelled(rc.r.in.req.Params)
	return nil, nil
}

func serveSetLevel(rc *reqCtx) (wire.Marshaler, error) {
	return rc.r.session().setLevel(rc.r.route.method, rc.r.in.req.Params)
}

func serveSubscribe(rc *reqCtx) (wire.Marshaler, error) {
	return rc.r.session().subscribe(rc.r.route.method, rc.r.in.req.Params)
}

// cancelled handles notifications/cancelled: the request is cancelled
// unless it is initialize (which MUST NOT be cancelled); unknown or
// finished ids are ignored.
func (sess *Session) cancelled(params wire.Raw) {
	id, ok := cancelledID(params)
	if !ok || sess.cancel == nil {
		return
	}
	sess.cancel(id)
}

func (sess *Session) setLevel(m *protocol.Method, params wire.Raw) (wire.Marshaler, error) {
	if err := m.ValidateParams(params); err != nil {
		return nil, err
	}
	var level string
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		if string(key) == "level" {
			var err error
			level, err = d.Str()
			return err
		}
		return d.Skip()
	})
	sess.mu.Lock()
	sess.logLevel = level
	sess.changes++
	sess.mu.Unlock()
	return emptyObject, nil
}

func (sess *Session) subscribe(m *protocol.Method, params wire.Raw) (wire.Marshaler, error) {
	if err := m.ValidateParams(params); err != nil {
		return nil, err
	}
	var uri string
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		if string(key) == "uri" {
			var err error
			uri, err = d.Str()
			return err
		}
		return d.Skip()
	})
	sess.mu.Lock()
	if m.Role == protocol.RoleSubscribe {
		if sess.subs == nil {
			sess.subs = map[string]bool{}
		}
		sess.subs[uri] = true
	} else {
		delete(sess.subs, uri)
	}
	sess.changes++
	sess.mu.Unlock()
	return emptyObject, nil
}

// subscribed reports whether the session subscribed to uri.
func (sess *Session) subscribed(uri string) bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.subs[uri]
}

// notify sends the notification in role r, if the session is initialized
// and its revision has one.
func (sess *Session) notify(ctx context.Context, r protocol.Role, params wire.Marshaler) {
	sess.mu.Lock()
	ok := sess.initialized && !sess.closed && sess.mount != nil
	method := ""
	if ok {
		method = sess.mount.Protocol.RoleName(r)
	}
	peer := sess.peer
	sess.mu.Unlock()
	if method != "" && peer != nil {
		if err := peer.Notify(ctx, method, params); err != nil {
			sess.srv.log.Debug("mcp: notification not delivered", "method", method, "err", err)
		}
	}
}

// unsupportedVersion is -32022 with the supported versions.
func unsupportedVersion(requested string, supported []string) *jsonrpc.Error {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"supported":`)
	e.ArrayStart()
	for _, v := range supported {
		e.Str(v)
	}
	e.ArrayEnd()
	e.FieldRaw(`"requested":`)
	e.Str(requested)
	e.ObjectEnd()
	return &jsonrpc.Error{Code: CodeUnsupportedProtocolVersion, Message: "unsupported protocol version " + requested, Data: append(wire.Raw(nil), e.Bytes()...)}
}

// hasMember reports whether params has the top-level member name.
func hasMember(params wire.Raw, name string) bool {
	if len(params) == 0 {
		return false
	}
	d := wire.NewDecoder(params)
	k, _, err := d.PeekMember(name)
	return err == nil && k != wire.Invalid
}

// Memo returns the value compute gives for key, computed once per stateful
// session and reused by its later requests (each request of the stateless
// era, which has no session, computes its own). It is for values derived
// from what a session fixes at initialize — the client's capabilities and
// info, the protocol version — such as a bridge's view of them in another
// revision's types. The value is shared between requests: it must not be
// changed.
func (r *Request) Memo(key any, compute func() any) any {
	s := r.session()
	if s == nil {
		return compute()
	}
	s.mu.Lock()
	v, ok := s.memo[key]
	s.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.memo[key]; ok {
		return prev
	}
	if s.memo == nil {
		s.memo = map[any]any{}
	}
	s.memo[key] = v
	return v
}
