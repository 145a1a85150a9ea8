package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A Middleware wraps the handling of the messages a server or a client
// receives and sends: every request and notification, in both directions,
// on every era and transport, whether a handler, a declared item
// (ServerOptions.Catalog) or the runtime answers it. It gets the next step
// and returns its own, which usually calls next and looks at what came
// back; returning an error without calling next refuses the message (a
// refused request is answered with the error, a refused outgoing call
// fails with it, a refused notification is dropped).
//
// Install middleware with ServerOptions.Middleware and
// ClientOptions.Middleware; the first wraps the others. Without any, a
// message costs nothing more.
type Middleware func(next MessageHandler) MessageHandler

// A MessageHandler handles one message: it serves an incoming one, or
// sends an outgoing one, and returns the outcome: the result of a request
// (nil for a notification, and for an outgoing request whose result was
// not kept) or the error it was answered or failed with (a
// *jsonrpc.Error for an error response). A result may be shared with
// other requests — a handler's static list, a bridge's conversion of one
// (protocol.ResultCache) — so middleware that wants another result
// returns a new value rather than modifying the one it got.
type MessageHandler func(ctx context.Context, m *Message) (wire.Marshaler, error)

// chain wraps h in mws, the first outermost; nil without middleware.
func chain(mws []Middleware, h MessageHandler) MessageHandler {
	if len(mws) == 0 {
		return nil
	}
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// Message is a request or notification as middleware sees it. It is valid
// during the call it is passed to, and must not be modified.
type Message struct {
	method       string
	role         protocol.Role
	id           jsonrpc.ID
	notification bool
	outgoing     bool
	params       wire.Raw       // the received params
	send         wire.Marshaler // the params being sent, encoded on demand
	name         string
	principal    string
	session      string
	revision     string
	transport    string
	client       string
	header       Header
	meta         wire.Members // set for an outgoing message's _meta (SetMeta)

	// The step after the middleware.
	x      Exchange                                          // incoming, server: the message
	sess   *Session                                          // its session
	out    Outbound                                          // its related messages, or an outgoing notification's way
	peer   Caller                                            // an outgoing request's way
	result wire.Into                                         // where an outgoing request's result goes
	call   func(ctx context.Context) (wire.Marshaler, error) // a client's: the step
}

// Method is the message's method.
func (m *Message) Method() string { return m.method }

// Role is the role of the message's method (protocol.RoleToolsCall, …),
// as the mounted revisions' tables name it, whatever the method is called
// in the message's revision: middleware asks it rather than matching
// method names. RoleNone for a method no mounted revision has.
func (m *Message) Role() protocol.Role { return m.role }

// ID is a request's JSON-RPC id: zero for a notification, and for an
// outgoing request, whose id the transport gives it as it sends it.
func (m *Message) ID() jsonrpc.ID { return m.id }

// IsNotification reports a notification.
func (m *Message) IsNotification() bool { return m.notification }

// Outgoing reports a message this side sends (a server's notification or
// request to its client, a client's call), as opposed to one it received.
func (m *Message) Outgoing() bool { return m.outgoing }

// Params are the message's params as JSON (nil for none): a view of the
// bytes received, or, for an outgoing message, its params encoded when
// first asked for. Middleware must not modify them.
func (m *Message) Params() wire.Raw {
	if m.params == nil && m.send != nil {
		m.params, _ = wire.Marshal(m.send)
	}
	return m.params
}

// Name is what the request acts on, as the runtime read it from an
// incoming request's params: the tool of tools/call, the prompt of
// prompts/get, the resource of resources/read ("" for none, and for
// outgoing messages).
func (m *Message) Name() string { return m.name }

// Principal is who the message acts for (see WithPrincipal): the
// principal of the request's context, or who opened its session.
func (m *Message) Principal() string { return m.principal }

// SessionID is the transport's name of the stateful session the message
// belongs to (the Mcp-Session-Id of Streamable HTTP), "" for none.
func (m *Message) SessionID() string { return m.session }

// Revision is the protocol revision the message is spoken in: its
// session's, or a stateless request's own ("" while a session is being
// opened).
func (m *Message) Revision() string { return m.revision }

// Transport names the transport the message travels on (TransportStdio,
// TransportHTTP), "" when the runtime does not know it (a client's
// custom transport).
func (m *Message) Transport() string { return m.transport }

// MetaString is the string member key of an incoming message's
// params._meta: how middleware reads context its peer propagates (the W3C
// traceparent and tracestate, say, which the runtime reads as it
// classifies a request; other keys are looked up when asked for). It is
// "" and false when the member is absent or not a string, and for an
// outgoing message.
func (m *Message) MetaString(key string) (string, bool) {
	if m.outgoing {
		return "", false
	}
	if m.x.in.req != nil {
		switch key {
		case "traceparent":
			return m.x.in.meta.traceparent, m.x.in.meta.traceparent != ""
		case "tracestate":
			return m.x.in.meta.tracestate, m.x.in.meta.tracestate != ""
		}
	}
	params := m.Params()
	if len(params) == 0 {
		return "", false
	}
	d := wire.NewDecoder(params)
	kind, v, err := d.PeekMember("_meta", key)
	if err != nil || kind != wire.String {
		return "", false
	}
	return string(v), true
}

// SetMeta sets member key of an outgoing message's params._meta to
// value (one JSON value) when it is sent, over whatever _meta the params
// carry: how middleware carries context to the peer (trace context, say).
// On an incoming message it does nothing.
func (m *Message) SetMeta(key string, value wire.Raw) {
	if m.outgoing {
		m.meta.Set(key, value)
	}
}

// sendParams are the params an outgoing message is sent with: its own,
// with the _meta members middleware set.
func (m *Message) sendParams() wire.Marshaler {
	if len(m.meta) == 0 {
		return m.send
	}
	return &withMeta{inner: m.send, extra: m.meta}
}

// Client is the address of the client an incoming message comes from, as
// its transport sees it (Via.Client): "" off HTTP and for outgoing
// messages. Key unauthenticated clients by it; authenticated ones by
// Principal.
func (m *Message) Client() string { return m.client }

// Header is the transport header of an incoming message (an HTTP
// request's), empty off HTTP and for outgoing messages.
func (m *Message) Header() Header {
	if m.header == nil {
		return noHeader{}
	}
	return m.header
}

// messages recycles the Messages of incoming exchanges: a Message is
// valid only during the call it is passed to.
var messages = sync.Pool{New: func() any { return new(Message) }}

// release returns an incoming exchange's Message to the pool.
func (m *Message) release() {
	*m = Message{}
	messages.Put(m)
}

// message is the middleware's view of an incoming exchange (release it
// when the chain returns).
func (x *Exchange) message(ctx context.Context, sess *Session, out Outbound) *Message {
	m := messages.Get().(*Message)
	*m = Message{x: *x, sess: sess, out: out, transport: x.via.Transport, header: x.via.Header, client: x.via.Client}
	if req := x.in.req; req != nil {
		m.method, m.id, m.notification, m.params = req.Method, req.ID, req.IsNotification, req.Params
		m.role = x.srv.roles[req.Method]
	}
	for i := range maxNamed { // params.name first, then uri, taskId
		if x.in.has&(1<<i) != 0 {
			m.name = x.in.named[i]
			break
		}
	}
	m.principal = PrincipalFrom(ctx)
	m.revision = x.in.meta.protocolVersion
	if sess != nil && m.revision == "" {
		m.revision = sess.Version()
		m.session = sess.ID()
		if p := sess.Principal(); p != "" {
			m.principal = p
		}
	}
	return m
}

// chains are a server's middleware: the chains of what it receives and
// sends (nil without middleware), and whether it recovers from panics
// (built into Exchange.Serve when there is no chain).
type chains struct {
	incoming, outgoing MessageHandler
	recover            bool
	log                *slog.Logger
	// sendRoles are the server's roles (revisions.roles), for the
	// messages it sends.
	sendRoles map[string]protocol.Role
}

// newChains builds the chains of mws, the first outermost, with Recovery
// innermost when recover.
func newChains(mws []Middleware, recover bool, log *slog.Logger, sendRoles map[string]protocol.Role) chains {
	mws = slices.Clone(mws)
	if len(mws) > 0 && recover {
		mws = append(mws, Recovery(log))
	}
	return chains{incoming: chain(mws, serveFinal), outgoing: chain(mws, sendFinal), recover: recover, log: log, sendRoles: sendRoles}
}

// wrapOut returns how a request's related messages reach its client with
// middleware: out behind the outgoing chain, set up in v (the request's
// own, allocated with it).
func (c *chains) wrapOut(ctx context.Context, out Outbound, x *Exchange, v *outView) Outbound {
	*v = outView{c: c, out: out, transport: x.via.Transport, principal: PrincipalFrom(ctx), revision: x.in.meta.protocolVersion}
	return v
}

// wrapPeer returns how a session reaches its client: peer, or with
// middleware, peer behind the outgoing chain.
func (c *chains) wrapPeer(sess *Session, peer Caller) Caller {
	if c.outgoing == nil || peer == nil {
		return peer
	}
	return &outView{c: c, peer: peer, sess: sess}
}

// outView is an Outbound (or a session's Caller) behind the server's
// outgoing middleware. It keeps the abilities of the Outbound it wraps
// that the engine asks for (cancelling a request, ending a listen stream).
type outView struct {
	c         *chains
	out       Outbound
	peer      Caller
	sess      *Session
	transport string
	principal string
	revision  string
}

func (v *outView) view(method string, params wire.Marshaler, notification bool) *Message {
	m := &Message{method: method, role: v.c.sendRoles[method], send: params, notification: notification, outgoing: true, transport: v.transport, principal: v.principal, revision: v.revision}
	if v.sess != nil {
		v.sess.describe(m)
	}
	return m
}

// Notify implements Outbound.
func (v *outView) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	m := v.view(method, params, true)
	m.out = v.out
	if v.out == nil {
		m.peer = v.peer
	}
	_, err := v.c.outgoing(ctx, m)
	return err
}

// Call implements Caller.
func (v *outView) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return v.CallInto(ctx, method, params, wire.To(result))
}

// CallInto implements Caller.
func (v *outView) CallInto(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	m := v.view(method, params, false)
	m.peer, m.result = v.peer, result
	_, err := v.c.outgoing(ctx, m)
	return err
}

// Cancel cancels a request of the client's, where the Outbound can.
func (v *outView) Cancel(id jsonrpc.ID) bool {
	if c, ok := v.out.(canceller); ok {
		return c.Cancel(id)
	}
	return false
}

// endsStreamsByCancel reports what the wrapped Outbound does.
func (v *outView) endsStreamsByCancel() bool {
	se, ok := v.out.(streamEnder)
	return ok && se.endsStreamsByCancel()
}

// sendFinal is the innermost step of an outgoing middleware chain: the
// message goes to the transport.
func sendFinal(ctx context.Context, m *Message) (wire.Marshaler, error) {
	params := m.sendParams()
	if m.notification {
		if m.out != nil {
			return nil, m.out.Notify(ctx, m.method, params)
		}
		return nil, m.peer.Notify(ctx, m.method, params)
	}
	if err := m.peer.CallInto(ctx, m.method, params, m.result); err != nil {
		return nil, err
	}
	res, _ := m.result.Value.(wire.Marshaler)
	return res, nil
}

// callFinal is the innermost step of a client session's middleware
// chains.
func callFinal(ctx context.Context, m *Message) (wire.Marshaler, error) { return m.call(ctx) }

// Recovery returns the middleware that turns a panic of the steps it wraps
// into an internal error (-32603) answering the message, logged to log
// (nil: slog.Default) at error level with the stack; the process and its
// other calls carry on. Servers and clients install it innermost by
// default (ServerOptions.NoRecovery, ClientOptions.NoRecovery), so that
// the other middleware sees the error; install it first as well to cover
// middleware too.
func Recovery(log *slog.Logger) Middleware {
	if log == nil {
		log = slog.Default()
	}
	return func(next MessageHandler) MessageHandler {
		return func(ctx context.Context, m *Message) (res wire.Marshaler, err error) {
			defer func() {
				if p := recover(); p != nil {
					log.ErrorContext(ctx, "mcp: panic serving a message", "method", m.method, "id", m.id.String(), "outgoing", m.outgoing,
						"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					res, err = nil, errPanicked
				}
			}()
			return next(ctx, m)
		}
	}
}

// recoverPanic is Recovery for a server without other middleware, deferred
// by Exchange.Serve.
func (c *chains) recoverPanic(ctx context.Context, req *jsonrpc.Request, res *wire.Marshaler, err *error) {
	if p := recover(); p != nil {
		c.log.ErrorContext(ctx, "mcp: panic serving a message", "method", req.Method, "id", req.ID.String(), "outgoing", false,
			"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		*res, *err = nil, errPanicked
	}
}

// errPanicked answers a message whose handling panicked.
var errPanicked = jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error")

// RequestLog returns the middleware that logs every message to log (nil:
// slog.Default) once it is handled, at level (errors at least at warning
// level): its direction, method, id, name, transport, revision, session,
// principal, how long it took, and its error and error code if it failed.
func RequestLog(log *slog.Logger, level slog.Level) Middleware {
	if log == nil {
		log = slog.Default()
	}
	return func(next MessageHandler) MessageHandler {
		return func(ctx context.Context, m *Message) (wire.Marshaler, error) {
			start := time.Now()
			res, err := next(ctx, m)
			lvl := level
			attrs := make([]slog.Attr, 0, 12)
			dir := "in"
			if m.outgoing {
				dir = "out"
			}
			attrs = append(attrs, slog.String("dir", dir), slog.String("method", m.method))
			if !m.notification && !m.outgoing {
				attrs = append(attrs, slog.String("id", m.id.String()))
			}
			for _, a := range []struct{ k, v string }{{"name", m.name}, {"transport", m.transport}, {"revision", m.revision}, {"session", m.session}, {"principal", m.principal}} {
				if a.v != "" {
					attrs = append(attrs, slog.String(a.k, a.v))
				}
			}
			attrs = append(attrs, slog.Duration("duration", time.Since(start)))
			if err != nil {
				if je, ok := err.(*jsonrpc.Error); ok {
					attrs = append(attrs, slog.Int64("code", je.Code))
				}
				attrs = append(attrs, slog.String("error", err.Error()))
				lvl = max(lvl, slog.LevelWarn)
			}
			log.LogAttrs(ctx, lvl, "mcp: message", attrs...)
			return res, err
		}
	}
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
