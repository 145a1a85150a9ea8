package mcp

import (
	"context"
	"slices"
	"strings"
	"sync"

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
	// (the stdio transport turns batches on for 2025-03-26).
	OnNegotiated func(*Protocol)

	mu          sync.Mutex
	mount       *Mount
	principal   string // who opened it, at initialize
	initialized bool   // initialize answered
	ready       bool   // notifications/initialized received
	clientCaps  wire.Raw
	clientInfo  wire.Raw
	logLevel    string
	subs        map[string]bool
	closed      bool
}

// NewSession starts a stateful session whose client is reached through
// peer; cancel cancels one of the client's in-flight requests (false if
// unknown). Close it when the transport ends.
func (s *Server) NewSession(peer Caller, cancel func(jsonrpc.ID) bool) *Session {
	sess := &Session{srv: s, peer: peer, cancel: cancel, logLevel: s.opts.DefaultLogLevel}
	s.mu.Lock()
	s.sessions[sess] = struct{}{}
	s.mu.Unlock()
	return sess
}

// SetPeer sets how the session reaches its client, for transports that
// create the session before the connection.
func (sess *Session) SetPeer(peer Caller, cancel func(jsonrpc.ID) bool) {
	sess.mu.Lock()
	sess.peer, sess.cancel = peer, cancel
	sess.mu.Unlock()
}

// Close ends the session.
func (sess *Session) Close() {
	sess.mu.Lock()
	sess.closed = true
	sess.mu.Unlock()
	sess.srv.mu.Lock()
	delete(sess.srv.sessions, sess)
	sess.srv.mu.Unlock()
}

// method returns the method called name in the session's revision (before
// initialize, in the newest mounted stateful revision that has it), or
// nil.
func (sess *Session) method(name string) *Method {
	sess.mu.Lock()
	mount := sess.mount
	sess.mu.Unlock()
	if mount != nil {
		return mount.Protocol.Methods[name]
	}
	for _, m := range sess.srv.stateful {
		if md := m.Protocol.Methods[name]; md != nil {
			return md
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
func (sess *Session) Protocol() *Protocol {
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

// errOtherPrincipal refuses a request made to a session by someone other
// than who opened it; it says no more than an unknown session would.
var errOtherPrincipal = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found")

// Handle serves one message of the session. out carries the messages
// related to the request (progress, logs).
func (sess *Session) Handle(ctx context.Context, req *jsonrpc.Request, out Outbound) (wire.Marshaler, error) {
	if req.Method == "initialize" {
		return sess.initialize(ctx, req)
	}
	sess.mu.Lock()
	foreign := sess.initialized && PrincipalFrom(ctx) != sess.principal
	sess.mu.Unlock()
	if foreign {
		if req.IsNotification {
			return nil, nil
		}
		return nil, errOtherPrincipal
	}
	if !req.IsNotification {
		if md := sess.method(req.Method); md != nil && md.Notification {
			return nil, notificationWithID(req.Method)
		}
	}
	switch req.Method {
	case "ping":
		if err := NoParams(req.Params); err != nil {
			return nil, err
		}
		return emptyResult, nil
	case "notifications/cancelled":
		sess.cancelled(req)
		return nil, nil
	case "notifications/progress":
		// Progress on a request the server sent; nothing waits on it.
		return nil, nil
	}
	sess.mu.Lock()
	mount, initialized := sess.mount, sess.initialized
	sess.mu.Unlock()
	if !initialized {
		if req.IsNotification {
			return nil, nil
		}
		return nil, errNotInitialized
	}
	p := mount.Protocol
	m := p.Methods[req.Method]
	if m != nil && req.IsNotification && !m.Notification {
		// A request without an id: JSON-RPC forbids answering it, and
		// running it would be work nobody asked to see.
		sess.srv.log.Debug("mcp: a request sent as a notification is ignored", "method", req.Method)
		return nil, nil
	}
	if m != nil && m.FromClient && strings.HasPrefix(req.Method, "tasks/") {
		rc := &reqCtx{Context: ctx}
		rc.r = Request{Method: req.Method, ID: req.ID, Protocol: p, server: sess.srv, session: sess, out: out}
		rc.r.ctx = rc
		if res, err, ok := sess.srv.taskMethod(rc, &rc.r, req.Method, req.Params); ok {
			return res, err
		}
	}
	if m == nil || !m.FromClient {
		if req.IsNotification {
			return nil, nil
		}
		return nil, jsonrpc.MethodNotFound(req.Method)
	}
	switch req.Method {
	case "notifications/initialized":
		sess.mu.Lock()
		sess.ready = true
		sess.mu.Unlock()
		return nil, nil
	case "logging/setLevel":
		return sess.setLevel(m, req)
	case "resources/subscribe", "resources/unsubscribe":
		return sess.subscribe(m, req)
	}
	if m.Serve == nil {
		if req.IsNotification {
			return nil, nil
		}
		return nil, jsonrpc.MethodNotFound(req.Method)
	}
	rc := &reqCtx{Context: ctx}
	rc.r = Request{Method: req.Method, ID: req.ID, Protocol: p, server: sess.srv, session: sess, out: out}
	scan := scanParams(req.Params)
	rc.r.meta, rc.r.task, rc.r.toolName, rc.r.toolArgs = scan.meta, scan.task, scan.name, scan.args
	rc.r.ctx = rc
	defer rc.r.finish()
	return sess.srv.serve(rc, mount, m, req.Params)
}

// serve runs the handler of method m on params, in either era: a tools/call
// has its arguments checked before and its structuredContent after; an
// AnswerWith error is answered with its result.
func (s *Server) serve(rc *reqCtx, mount *Mount, m *Method, params wire.Raw) (res wire.Marshaler, err error) {
	call := rc.r.Method == "tools/call"
	if call {
		if args := rc.r.toolArgs; len(args) > 0 && args.Kind() != wire.Object {
			// The schema's CallToolRequestParams.arguments is an object:
			// anything else breaks the params, before any tool sees them.
			return nil, InvalidParams("/params/arguments", "must be an object")
		}
		if res, err := s.tools.checkCall(rc, mount, params); res != nil || err != nil {
			return res, err
		}
	}
	// The single-use states the handler opened are spent when the round
	// completes: not with an error (a panic included) nor with another
	// round of input.
	asksInput := false
	defer func() { rc.r.settleStates(err == nil && res != nil && !asksInput) }()
	res, err = m.Serve(rc, mount.Handler, params)
	if err != nil {
		if aw := answerWith(err); aw != nil {
			return aw.Result, nil
		}
		return nil, err
	}
	if res == nil {
		return nil, nil
	}
	if call {
		if err := s.tools.checkResult(rc, mount, params, res); err != nil {
			return nil, err
		}
	}
	if p := mount.Protocol; p.Stamp != nil {
		res = p.Stamp(res, s.stamps[m])
	}
	if asksInput, err = s.checkInputRequests(&rc.r, mount.Protocol, res); err != nil {
		return nil, err
	}
	if err := s.validateResult(m.Name, res); err != nil {
		return nil, err
	}
	return res, nil
}

// errNotInitialized answers a request that is neither stateless nor part
// of an initialized session.
var errNotInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
	"no session: send initialize first (only ping may precede it), or make the request stateless with _meta "+MetaProtocolVersion)

// emptyResult is the {} of ping and friends.
var emptyResult = wire.Raw(`{}`)

var emptyObject = wire.Raw(`{}`)

func (sess *Session) initialize(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	if req.IsNotification {
		return nil, nil
	}
	var requested string
	var caps, info wire.Raw
	if len(req.Params) > 0 {
		d := wire.NewDecoder(req.Params)
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
			return nil, decodeError(err)
		}
	}
	srv := sess.srv
	if len(srv.stateful) == 0 {
		// A modern-only server lists what it supports.
		return nil, unsupportedVersion(requested, srv.StatelessVersions())
	}
	mount := &srv.stateful[0]
	if m := srv.byRev[requested]; m != nil && !m.Protocol.Stateless {
		mount = m
	}
	if md := mount.Protocol.Methods["initialize"]; md != nil && md.ValidateParams != nil {
		if err := md.ValidateParams(req.Params); err != nil {
			return nil, err
		}
	}
	sess.mu.Lock()
	if sess.initialized {
		sess.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session is already initialized")
	}
	sess.mount, sess.initialized = mount, true
	sess.principal = PrincipalFrom(ctx)
	sess.clientCaps, sess.clientInfo = caps, info
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
	srv.implementation(e)
	if srv.opts.Instructions != "" {
		e.FieldRaw(`"instructions":`)
		e.Str(srv.opts.Instructions)
	}
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), nil
}

// cancelled handles notifications/cancelled: the request is cancelled
// unless it is initialize (which MUST NOT be cancelled); unknown or
// finished ids are ignored.
func (sess *Session) cancelled(req *jsonrpc.Request) {
	id, ok := cancelledID(req.Params)
	if !ok || sess.cancel == nil {
		return
	}
	sess.cancel(id)
}

func cancelledID(params wire.Raw) (jsonrpc.ID, bool) {
	var id jsonrpc.ID
	found := false
	if len(params) == 0 {
		return id, false
	}
	d := wire.NewDecoder(params)
	err := d.Object(func(key []byte) error {
		if string(key) == "requestId" {
			found = true
			return id.DecodeJSON(d)
		}
		return d.Skip()
	})
	return id, found && err == nil
}

func (sess *Session) setLevel(m *Method, req *jsonrpc.Request) (wire.Marshaler, error) {
	if err := m.ValidateParams(req.Params); err != nil {
		return nil, err
	}
	var level string
	d := wire.NewDecoder(req.Params)
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
	sess.mu.Unlock()
	return emptyResult, nil
}

func (sess *Session) subscribe(m *Method, req *jsonrpc.Request) (wire.Marshaler, error) {
	if err := m.ValidateParams(req.Params); err != nil {
		return nil, err
	}
	var uri string
	d := wire.NewDecoder(req.Params)
	_ = d.Object(func(key []byte) error {
		if string(key) == "uri" {
			var err error
			uri, err = d.Str()
			return err
		}
		return d.Skip()
	})
	sess.mu.Lock()
	if req.Method == "resources/subscribe" {
		if sess.subs == nil {
			sess.subs = map[string]bool{}
		}
		sess.subs[uri] = true
	} else {
		delete(sess.subs, uri)
	}
	sess.mu.Unlock()
	return emptyResult, nil
}

// subscribed reports whether the session subscribed to uri.
func (sess *Session) subscribed(uri string) bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.subs[uri]
}

// notify sends a notification the session's revision knows, if the session
// is initialized.
func (sess *Session) notify(ctx context.Context, method string, params wire.Marshaler) {
	sess.mu.Lock()
	ok := sess.initialized && !sess.closed && sess.mount != nil && sess.mount.Protocol.Methods[method] != nil
	peer := sess.peer
	sess.mu.Unlock()
	if ok && peer != nil {
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

// knownMethod reports whether any mounted revision has method.
func (s *Server) knownMethod(method string) bool {
	_, ok := slices.BinarySearch(s.methods, method)
	return ok
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
