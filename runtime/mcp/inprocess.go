package mcp

import (
	"context"
	"io"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/stdio"
)

// InProcessTransport connects a client to a Server in the same process over
// a pair of pipes carrying the stdio framing: what tests and benchmarks
// use, and a way to embed a server.
type InProcessTransport struct {
	Server *Server
	// Options configure the server side.
	Options StreamOptions
	// Conn configures the client side.
	Conn jsonrpc.Options
}

// Dial starts serving one connection and returns the client's end.
func (t *InProcessTransport) Dial(ctx context.Context, h jsonrpc.Handler) (ClientConn, error) {
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	serverStream := stdio.NewStream(sr, sw, stdio.Options{MaxMessageSize: t.Options.MaxMessageSize})
	served := make(chan error, 1)
	go func() {
		served <- t.Server.ServeStream(context.Background(), serverStream, t.Options)
		_ = sw.Close()
	}()
	conn := jsonrpc.NewConn(stdio.NewStream(cr, cw, stdio.Options{}), h, t.Conn)
	done := make(chan error, 1)
	go func() { done <- conn.Serve(context.Background()) }()
	return &inProcessConn{Conn: conn, w: cw, served: served, done: done}, nil
}

type inProcessConn struct {
	*jsonrpc.Conn
	w      io.Closer
	served chan error
	done   chan error
}

// Close ends the connection as a stdio client does: the server sees EOF.
func (c *inProcessConn) Close() error {
	_ = c.w.Close()
	err := <-c.served
	_ = c.Conn.Close()
	<-c.done
	return err
}
