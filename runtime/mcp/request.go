package mcp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Outbound carries the messages related to one request back to its client:
// progress and log notifications (on stdio the connection; on HTTP the
// request's stream).
type Outbound interface {
	Notify(ctx context.Context, method string, params wire.Marshaler) error
}

// Request is what a handler can learn about and do for the request it
// serves. Get it with RequestFrom.
type Request struct {
	// Method is the method being served.
	Method string
	// ID is the request's JSON-RPC id.
	ID jsonrpc.ID
	// Protocol is the revision the request is served with.
	Protocol *protocol.Protocol

	server *Server
	// client is what the request knows of its client: its stateful
	// session, or (stateless) the request's own _meta.
	client client
	mount  *mounted
	route  *route
	out    Outbound
	in     inbound
	// header is the transport's header of the request (HTTP).
	header Header
	// addr is the client's address as the transport sees it (Via.Client).
	addr string
	// ctx is the request's context (tasks outlive the request but keep its
	// values).
	ctx context.Context

	mu           sync.Mutex
	lastProgress float64
	progressAt   int64 // Unix nanoseconds of the last progress; 0 for none
	progressSent bool
	done         bool
	// asksInput reports a result asking for input (InputRequiredResult):
	// the single-use states the request opened are not spent.
	asksInput bool
}

// transportOut is the transport's Outbound (out, before the middleware's
// view): what ends the streams of a connection.
func (r *Request) transportOut() Outbound {
	if v, ok := r.out.(*outView); ok {
		return v.out
	}
	return r.out
}

// client is what a request knows of its client: the stateful session it
// belongs to, or, for a stateless request, the request itself.
type client interface {
	peerVersion() string
	peerCaps() wire.Raw
	peerInfo() wire.Raw
	// logThreshold is the level below which log messages are dropped; ok
	// is false when the client wants none.
	peerLogThreshold() (level string, ok bool)
	peerPrincipal() string
	// caller reaches the client with requests of its own; nil when there
	// is no way (stateless: input is asked for with InputRequiredResult).
	peerCaller() Caller
}

// metaClient is the client of a stateless request: everything comes
// from the request's _meta and context.
type metaClient struct{ r *Request }

func (c metaClient) peerVersion() string { return c.r.in.meta.protocolVersion }
func (c metaClient) peerCaps() wire.Raw  { return c.r.in.meta.clientCaps }
func (c metaClient) peerInfo() wire.Raw  { return c.r.in.clientInfo() }
func (c metaClient) peerLogThreshold() (string, bool) {
	return c.r.in.meta.logLevel, c.r.in.meta.hasLogLevel
}
func (c metaClient) peerPrincipal() string {
	if c.r.ctx == nil {
		return ""
	}
	return PrincipalFrom(c.r.ctx)
}
func (c metaClient) peerCaller() Caller { return nil }

type ctxKey struct{}

// reqCtx carries the Request in one allocation with the context.
type reqCtx struct {
	context.Context
	r Request
}

// reqCtxView is a reqCtx with the request's Outbound behind the server's
// outgoing middleware (wrapOut), in the same allocation: what a request
// is served with when there is middleware.
type reqCtxView struct {
	reqCtx
	view outView
}

func (c *reqCtx) Value(key any) any {
	if key == (ctxKey{}) {
		return &c.r
	}
	return c.Context.Value(key)
}

// RequestFrom returns the Request a handler's context belongs to, or nil.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(ctxKey{}).(*Request)
	return r
}

// Header is the transport header the request came with: the HTTP
// request's headers on Streamable HTTP (of the POST that carried it), empty
// on stdio. It must not be modified.
func (r *Request) Header() Header {
	if r.header == nil {
		return noHeader{}
	}
	return r.header
}

// noHeader is the Header of a message whose transport has none (stdio).
type noHeader struct{}

func (noHeader) Get(string) string      { return "" }
func (noHeader) Values(string) []string { return nil }

// ClientAddress is the address of the client as the transport sees it:
// on HTTP the remote address, or the one a trusted proxy forwards; "" on
// stdio, whose connection is the client. With the principal
// (PrincipalFrom), it names who a bound kept per client is kept for.
func (r *Request) ClientAddress() string { return r.addr }

// Server is the server serving the request (to announce changes from a
// handler: Server.NotifyResourceUpdated, NotifyListChanged).
func (r *Request) Server() *Server { return r.server }

// Session returns the stateful session of the request, nil when stateless.
func (r *Request) Session() *Session { return r.session() }

// session is the request's stateful session, nil in a stateless exchange.
func (r *Request) session() *Session {
	s, _ := r.client.(*Session)
	return s
}

// ProtocolVersion is the negotiated (stateful) or declared (stateless)
// protocol version.
func (r *Request) ProtocolVersion() string { return r.client.peerVersion() }

// ClientCapabilities is the client's capabilities object: declared on the
// request (stateless) or at initialize (stateful).
func (r *Request) ClientCapabilities() wire.Raw { return r.client.peerCaps() }

// ClientInfo is the client's Implementation object, if it sent one.
func (r *Request) ClientInfo() wire.Raw { return r.client.peerInfo() }

// HasClientCapability reports whether the client declared the capability
// at path ("sampling"; "elicitation", "form"; "roots").
func (r *Request) HasClientCapability(path ...string) bool {
	caps := r.ClientCapabilities()
	if len(caps) == 0 {
		return false
	}
	d := wire.NewDecoder(caps)
	k, _, err := d.PeekMember(path...)
	return err == nil && k != wire.Invalid && k != wire.Null
}

// RequireClientCapability returns nil when the client declared the
// capability at path, else the -32021 error MissingRequiredClientCapability
// whose data names it (2026), or -32602 in stateful revisions, which lack
// that code.
func (r *Request) RequireClientCapability(path ...string) error {
	if r.HasClientCapability(path...) {
		return nil
	}
	return MissingCapability(r.Protocol, path...)
}

// MissingCapability is the error for a client capability a request needs
// and did not declare: the revision's MISSING_REQUIRED_CLIENT_CAPABILITY
// (-32021), or -32602 in revisions without that code.
func MissingCapability(p *protocol.Protocol, path ...string) error {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"requiredCapabilities":`)
	for _, name := range path {
		e.ObjectStart()
		e.Field(name)
	}
	e.ObjectStart()
	e.ObjectEnd()
	for range path {
		e.ObjectEnd()
	}
	e.ObjectEnd()
	code := int64(jsonrpc.CodeInvalidParams)
	if p != nil && p.MissingCapabilityCode != 0 {
		code = p.MissingCapabilityCode
	}
	return &jsonrpc.Error{Code: code, Message: "missing required client capability: " + joinPath(path), Data: append(wire.Raw(nil), e.Bytes()...)}
}

func joinPath(p []string) string {
	out := ""
	for i, s := range p {
		if i > 0 {
			out += "."
		}
		out += s
	}
	return out
}

// Error codes MCP defines beyond JSON-RPC's.
const (
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
	CodeResourceNotFound                = -32002 // stateful revisions
	CodeURLElicitationRequired          = -32042
)

// ProgressToken returns the request's progress token, if the client asked
// for progress.
func (r *Request) ProgressToken() (wire.StringOrInt, bool) {
	return r.in.meta.progressToken, r.in.meta.hasProgress
}

// ErrProgress reports a progress value that does not increase, or progress
// after the request finished.
var ErrProgress = errors.New("mcp: progress must increase and stop when the request finishes")

// Progress sends notifications/progress for the request when the client
// asked for it (a no-op otherwise). Values must increase strictly; total
// < 0 and message "" are left out.
func (r *Request) Progress(ctx context.Context, progress, total float64, message string) error {
	method := r.Protocol.RoleName(protocol.RoleProgress)
	if !r.in.meta.hasProgress || method == "" {
		return nil
	}
	r.mu.Lock()
	if r.done || (r.progressSent && progress <= r.lastProgress) {
		r.mu.Unlock()
		return ErrProgress
	}
	r.lastProgress, r.progressSent = progress, true
	r.progressAt = time.Now().UnixNano()
	r.mu.Unlock()
	return r.out.Notify(ctx, method, progressParams{r.in.meta.progressToken, progress, total, message})
}

// ProgressParams are the params of notifications/progress under token:
// progress, total (left out when < 0) and message (left out when "").
func ProgressParams(token wire.StringOrInt, progress, total float64, message string) wire.Marshaler {
	return progressParams{token, progress, total, message}
}

type progressParams struct {
	token    wire.StringOrInt
	progress float64
	total    float64
	message  string
}

func (p progressParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"progressToken":`)
	p.token.EncodeJSON(e)
	e.FieldRaw(`"progress":`)
	e.Float64(p.progress)
	if p.total >= 0 {
		e.FieldRaw(`"total":`)
		e.Float64(p.total)
	}
	if p.message != "" {
		e.FieldRaw(`"message":`)
		e.Str(p.message)
	}
	e.ObjectEnd()
}

// finish marks the request answered: no progress after that.
//
// A response written right behind a progress notification can reach the
// client in the same read; clients that dispatch notifications
// asynchronously (the TypeScript SDK runs them in a microtask, after the
// response has retired the progress handler) then drop the last progress.
// So a response that follows progress closely waits progressGap first.
func (r *Request) finish() {
	r.mu.Lock()
	r.done = true
	at := r.progressAt
	r.mu.Unlock()
	if at != 0 {
		if wait := progressGap - time.Duration(time.Now().UnixNano()-at); wait > 0 {
			time.Sleep(wait)
		}
	}
}

// progressGap separates the last progress notification from the response.
const progressGap = 5 * time.Millisecond

// Log sends notifications/message for the request at level, when the
// client wants messages of that level: at or above the session's level
// (stateful), or the request's logLevel (stateless; none without it). data
// is any JSON value.
func (r *Request) Log(ctx context.Context, level, logger string, data wire.Raw) error {
	threshold, ok := r.client.peerLogThreshold()
	method := r.Protocol.RoleName(protocol.RoleLog)
	if !ok || method == "" || severity(level) < severity(threshold) {
		return nil
	}
	return r.out.Notify(ctx, method, logParams{level, logger, data})
}

type logParams struct {
	level, logger string
	data          wire.Raw
}

func (p logParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"level":`)
	e.Str(p.level)
	if p.logger != "" {
		e.FieldRaw(`"logger":`)
		e.Str(p.logger)
	}
	e.FieldRaw(`"data":`)
	if len(p.data) == 0 {
		e.Null()
	} else {
		e.Raw(p.data)
	}
	e.ObjectEnd()
}

// levels are the syslog severities MCP uses, least severe first.
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func severity(level string) int {
	for i, l := range levels {
		if l == level {
			return i
		}
	}
	return -1
}

// ClientOf returns a Caller to the client of the request in ctx: the
// session's peer in a stateful exchange. In a stateless one (and outside a
// request) every call fails: servers ask stateless clients for input with
// InputRequiredResult.
func ClientOf(ctx context.Context) Caller {
	if r := RequestFrom(ctx); r != nil {
		if c := r.client.peerCaller(); c != nil {
			return c
		}
	}
	return noPeer{}
}

type noPeer struct{}

// ErrNoPeer is returned by calls to the client outside a stateful session.
var ErrNoPeer = errors.New("mcp: no client to call: stateless requests ask for input with InputRequiredResult")

func (noPeer) Call(context.Context, string, wire.Marshaler, wire.Unmarshaler) error { return ErrNoPeer }
func (noPeer) CallInto(context.Context, string, wire.Marshaler, wire.Into) error    { return ErrNoPeer }
func (noPeer) Notify(context.Context, string, wire.Marshaler) error                 { return ErrNoPeer }

// Principal is who the request acts for: the principal its session was
// opened by (stateful), or the one its context carries (stateless).
func (r *Request) Principal() string { return r.client.peerPrincipal() }

// canceller is implemented by an Outbound whose transport cancels a
// request of the client's by id (a stream connection).
type canceller interface {
	Cancel(id jsonrpc.ID) bool
}

// Header is the transport header of a message: an HTTP request's
// (http.Header is one), nil off HTTP. The engine knows no transport: it
// reads headers through this, as the header rules do (mcpheader.Values).
type Header interface {
	// Get returns the first value of key ("" for none).
	Get(key string) string
	// Values returns every value of key.
	Values(key string) []string
}
