package mcp

import (
	"context"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ServeConn serves one connection over a message stream (stdio, a pipe):
// both eras on one channel, as the stdio transport asks. A request whose
// _meta names a protocol version the server serves statelessly is served
// statelessly; initialize opens the connection's stateful session, which
// then serves the messages without such _meta. It returns when the stream
// ends or ctx is done, after draining (see jsonrpc.Options.DrainTimeout):
// nil at the end of the stream, ctx.Err() when ctx ended it.
//
// Transports call it (package stdio serves standard input and output with
// it); o configures the JSON-RPC connection, its Logger defaulting to the
// server's.
func (s *Server) ServeConn(ctx context.Context, st jsonrpc.Stream, o jsonrpc.Options) error {
	if o.Logger == nil {
		o.Logger = s.log
	}
	// Until a session settles on a revision, errors without an id follow
	// the preferred one.
	o.NoID = s.preferred().Protocol.NoID
	h := &connHandler{srv: s}
	for name, r := range s.roles {
		switch r {
		case RoleCancelled:
			h.cancelled = append(h.cancelled, name)
		case RoleInitialize, RolePing:
			h.inline = append(h.inline, name)
		}
	}
	if len(s.stateful) == 0 {
		h.inline = append(h.inline, legacyInitialize)
	}
	// A drain (end of input, end of ctx) ends this connection's listen
	// streams, which would otherwise hold it to its timeout.
	onDrain := o.OnDrain
	o.OnDrain = func() {
		s.endStreamsOf(connOut{h.conn})
		if onDrain != nil {
			onDrain()
		}
	}
	conn := jsonrpc.NewConn(st, h, o)
	h.conn = conn
	h.sess = s.NewSession(conn, conn.Cancel)
	h.sess.OnNegotiated = func(p *Protocol) {
		conn.SetBatch(p.Batches)
		conn.SetNoID(p.NoID)
	}
	defer h.sess.Close()
	return conn.Serve(ctx)
}

// connHandler decides the era of each message of a stream connection.
type connHandler struct {
	srv  *Server
	conn *jsonrpc.Conn
	sess *Session
	// The names, over the mounted revisions, of the cancellation
	// notification and of the requests served before the next message is
	// read.
	cancelled, inline []string
}

// Methods lets the connection intern method names.
func (h *connHandler) Methods() []string { return h.srv.methods }

// Inline answers initialize before reading on (the session must be
// settled before the requests that follow it are dispatched) and ping
// (cheap, and never stuck behind queued requests).
func (h *connHandler) Inline(method string) bool { return slices.Contains(h.inline, method) }

// Handle classifies a message and hands it to its era.
func (h *connHandler) Handle(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	out := connOut{h.conn}
	in := h.srv.Classify(req)
	if req.IsNotification && slices.Contains(h.cancelled, req.Method) {
		// Either era: cancel the client's request (not initialize).
		h.sess.cancelled(req.Params)
		return nil, nil
	}
	if v := in.meta.protocolVersion; v != "" && h.srv.IsModernVersion(v) {
		return h.srv.ServeStateless(ctx, &in, out)
	}
	if h.sess.Initialized() || h.srv.OpensSession(&in) || h.srv.roles[req.Method] == RolePing {
		return h.sess.Serve(ctx, &in, out)
	}
	if len(h.srv.stateful) == 0 || !h.srv.statefulMethod(req.Method) {
		// A modern client that forgot _meta: say what is missing.
		return h.srv.ServeStateless(ctx, &in, out)
	}
	return h.sess.Serve(ctx, &in, out)
}

// statefulMethod reports whether a mounted stateful revision has method.
func (s *Server) statefulMethod(method string) bool {
	for _, m := range s.stateful {
		if m.routes[method] != nil {
			return true
		}
	}
	return false
}

// connOut sends a request's related messages on the connection, and ends
// listen streams with the cancellation notification, as stdio asks.
type connOut struct{ conn *jsonrpc.Conn }

func (o connOut) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	return o.conn.Notify(ctx, method, params)
}

func (o connOut) EndStream(ctx context.Context, p *Protocol, id jsonrpc.ID) bool {
	if name := p.RoleName(RoleCancelled); name != "" {
		_ = o.conn.Notify(ctx, name, cancelParams{id, "the server ended the subscription stream"})
	}
	return o.conn.Cancel(id)
}
