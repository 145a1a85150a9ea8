package mcp

import (
	"context"
	"io"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// StreamOptions configure serving over a message stream.
type StreamOptions struct {
	// Conn configures the JSON-RPC connection (concurrency, limits,
	// timeouts); its Logger defaults to the server's.
	Conn jsonrpc.Options
	// MaxMessageSize bounds one stdio message (default 16 MiB).
	MaxMessageSize int
}

// ServeStdio serves the server on r and w (a process's stdin and stdout)
// until r ends or ctx is done; either drains the connection first (see
// jsonrpc.Options.DrainTimeout): the requests already read are answered.
// It returns nil at the end of r and ctx.Err() when ctx ended it.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer, o StreamOptions) error {
	st := stdio.NewStream(r, w, stdio.Options{MaxMessageSize: o.MaxMessageSize})
	defer st.Close()
	return s.ServeStream(ctx, st, o)
}

// ServeStream serves one connection: both eras on one channel, as the
// stdio transport asks. A request whose _meta names a protocol version is
// served statelessly; initialize opens the connection's stateful session,
// which then serves the messages without such _meta.
func (s *Server) ServeStream(ctx context.Context, st jsonrpc.Stream, o StreamOptions) error {
	if o.Conn.Logger == nil {
		o.Conn.Logger = s.log
	}
	h := &streamHandler{srv: s}
	// A drain (end of input, end of ctx) ends this connection's listen
	// streams, which would otherwise hold it to its timeout.
	onDrain := o.Conn.OnDrain
	o.Conn.OnDrain = func() {
		s.endStreamsOf(streamOut{h.conn})
		if onDrain != nil {
			onDrain()
		}
	}
	conn := jsonrpc.NewConn(st, h, o.Conn)
	h.conn = conn
	h.sess = s.NewSession(conn, conn.Cancel)
	h.sess.OnNegotiated = func(p *Protocol) { conn.SetBatch(p.Batches) }
	defer h.sess.Close()
	return conn.Serve(ctx)
}

// streamHandler decides the era of each message of a stream connection.
type streamHandler struct {
	srv  *Server
	conn *jsonrpc.Conn
	sess *Session
}

// Methods lets the connection intern method names.
func (h *streamHandler) Methods() []string { return h.srv.methods }

// Inline answers initialize before reading on (the session must be
// settled before the requests that follow it are dispatched) and ping
// (cheap, and never stuck behind queued requests).
func (h *streamHandler) Inline(method string) bool { return method == "initialize" || method == "ping" }

func (h *streamHandler) Handle(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	out := streamOut{h.conn}
	if req.Method == "notifications/cancelled" && req.IsNotification {
		// Either era: cancel the client's request (not initialize).
		h.sess.cancelled(req)
		return nil, nil
	}
	if v := MetaVersion(req.Params); v != "" && h.srv.IsModernVersion(v) {
		return h.srv.HandleStateless(ctx, req, out)
	}
	if req.Method == "initialize" || h.sess.Initialized() || req.Method == "ping" {
		return h.sess.Handle(ctx, req, out)
	}
	if len(h.srv.stateful) == 0 || !h.srv.statefulMethod(req.Method) {
		// A modern client that forgot _meta: say what is missing.
		return h.srv.HandleStateless(ctx, req, out)
	}
	return h.sess.Handle(ctx, req, out)
}

// statefulMethod reports whether a mounted stateful revision has method.
func (s *Server) statefulMethod(method string) bool {
	for _, m := range s.stateful {
		if m.Protocol.Methods[method] != nil {
			return true
		}
	}
	return false
}

// streamOut sends a request's related messages on the connection, and ends
// listen streams with notifications/cancelled, as stdio asks.
type streamOut struct{ conn *jsonrpc.Conn }

func (o streamOut) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	return o.conn.Notify(ctx, method, params)
}

func (o streamOut) EndStream(ctx context.Context, id jsonrpc.ID) bool {
	_ = o.conn.Notify(ctx, "notifications/cancelled", cancelParams{id, "the server ended the subscription stream"})
	return o.conn.Cancel(id)
}
