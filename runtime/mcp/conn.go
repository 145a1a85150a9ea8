package mcp

import (
	"context"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ServeConn serves one connection over a message stream (stdio, a pipe):
// both eras on one channel, as the stdio transport asks. Each message is
// accepted by the engine (Accept), which picks its era: a request whose
// _meta names a protocol version is served statelessly; initialize opens
// the connection's stateful session, which then serves the messages
// without such _meta. It returns when the stream
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
		if r == protocol.RoleInitialize || r == protocol.RolePing {
			h.inline = append(h.inline, name)
		}
	}
	if len(s.stateful) == 0 {
		h.inline = append(h.inline, statefulInitialize)
	}
	// A drain (end of input, end of ctx) ends this connection's listen
	// streams, which would otherwise hold it to its timeout.
	onDrain := o.OnDrain
	o.OnDrain = func() {
		s.ann.endStreams(connOut{h.conn})
		if onDrain != nil {
			onDrain()
		}
	}
	conn := jsonrpc.NewConn(st, h, o)
	h.conn = conn
	h.sess = s.NewSession(conn, conn.Cancel)
	h.sess.OnNegotiated = func(p *protocol.Protocol) {
		conn.SetBatch(p.Batches)
		conn.SetNoID(p.NoID)
	}
	defer h.sess.Close()
	return conn.Serve(ctx)
}

// connHandler serves the messages of a stream connection: each is
// accepted by the engine, which picks its era, and served with the
// connection's session.
type connHandler struct {
	srv  *Server
	conn *jsonrpc.Conn
	sess *Session
	// The names, over the mounted revisions, of the requests served before
	// the next message is read.
	inline []string
}

// Methods lets the connection intern method names.
func (h *connHandler) Methods() []string { return h.srv.methods }

// Inline answers initialize before reading on (the session must be
// settled before the requests that follow it are dispatched) and ping
// (cheap, and never stuck behind queued requests).
func (h *connHandler) Inline(method string) bool { return slices.Contains(h.inline, method) }

// Handle serves a message of the connection.
func (h *connHandler) Handle(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	x := h.srv.Accept(req, Via{Transport: TransportStdio, Session: h.sess.Initialized()})
	return x.Serve(ctx, h.sess, connOut{h.conn})
}

// connOut sends a request's related messages on the connection, cancels
// the client's requests by id, and ends listen streams with the
// cancellation notification, as stdio asks.
type connOut struct{ conn *jsonrpc.Conn }

func (o connOut) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	return o.conn.Notify(ctx, method, params)
}

// Cancel cancels the client's request id.
func (o connOut) Cancel(id jsonrpc.ID) bool { return o.conn.Cancel(id) }

// endsStreamsByCancel reports that a listen stream ends with the
// revision's cancellation notification rather than a result.
func (connOut) endsStreamsByCancel() bool { return true }
