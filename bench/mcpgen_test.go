package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"

	"github.com/mcpgen/mcpgen/bench/echo/mcpgenecho"
	v25 "github.com/mcpgen/mcpgen/bench/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/bench/mcp/v20260728"
)

// The mcpgen stack: a server built like examples/everything (both eras
// mounted on one rt.Server, the echo handler reading its argument in
// place as the example's fast path does), served with stdio.Serve on
// the server's pipe end, and a client made of the runtime's public pieces
// — stdio.NewStream and jsonrpc.NewConn on the client's pipe end, as
// stdio.CommandTransport does with a child's pipes — under rt.Connect and the
// generated Client. stdio.InProcessTransport is the same wiring with its own
// io.Pipes; pipeTransport exists only so that every stack gets the pipes
// of newPipes.

// newMCPGenServer returns mcpgenecho.New's server, logging nowhere.
func newMCPGenServer(tb testing.TB) *rt.Server {
	tb.Helper()
	srv, err := mcpgenecho.New(slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// pipeTransport is an rt.ClientTransport that serves srv on the server's
// end of newPipes with stdio.Serve (what a stdio server's main does with
// os.Stdin and os.Stdout) and speaks the stdio framing on the client's end.
type pipeTransport struct{ srv *rt.Server }

// Dial starts the server and returns the client's connection.
func (t pipeTransport) Dial(_ context.Context, h jsonrpc.Handler) (rt.ClientConn, error) {
	client, server := newPipes()
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), t.srv, server.R, server.W, stdio.Options{})
		served <- errors.Join(err, server.Close())
	}()
	conn := jsonrpc.NewConn(stdio.NewStream(client.R, client.W, stdio.Options{}), h, jsonrpc.Options{})
	read := make(chan error, 1)
	go func() { read <- conn.Serve(context.Background()) }()
	return &pipeConn{Conn: conn, end: client, served: served, read: read}, nil
}

// pipeConn is the client's connection of pipeTransport.
type pipeConn struct {
	*jsonrpc.Conn
	end          pipeEnd
	served, read chan error
}

// Close ends the conversation as a stdio client does: it closes the
// server's input, waits for the server to return, then stops reading.
func (c *pipeConn) Close() error {
	_ = c.end.W.Close()
	err := <-c.served
	_ = c.Conn.Close()
	<-c.read
	return errors.Join(err, c.end.Close())
}

// clientHandler answers no server requests: the client declares no
// capabilities (neither do the other stacks' clients here).
type clientHandler struct{}

// mcpgenSession is a generated Client of one era over an rt.ClientSession.
type mcpgenSession struct {
	cs   *rt.ClientSession
	call func(ctx context.Context) (string, error)
}

// echo calls echo through the generated Client.CallTool.
func (s *mcpgenSession) echo(ctx context.Context) (string, error) { return s.call(ctx) }

// protocolVersion is the negotiated revision.
func (s *mcpgenSession) protocolVersion() string { return s.cs.ProtocolVersion() }

// close closes the client's connection: the server sees EOF and returns.
func (s *mcpgenSession) close() error { return s.cs.Close() }

// openMCPGen opens a stateful (2025-11-25, initialize) session.
func openMCPGen(tb testing.TB, args json.RawMessage) session {
	return openMCPGenEra(tb, rt.Stateful, args)
}

// openMCPGenStateless opens a stateless (2026-07-28) session: every
// request carries the protocol version, client capabilities and client
// info in _meta, and the server serves each request on its own.
func openMCPGenStateless(tb testing.TB, args json.RawMessage) session {
	return openMCPGenEra(tb, rt.Stateless, args)
}

// openMCPGenEra connects a client of era to a new server.
func openMCPGenEra(tb testing.TB, era rt.Era, args json.RawMessage) session {
	tb.Helper()
	cs, err := rt.Connect(tb.Context(), pipeTransport{newMCPGenServer(tb)}, rt.ClientOptions{Name: "mcpgen-bench", Version: "bench", Era: era},
		v25.Mount(clientHandler{}), v26.Mount(clientHandler{}))
	if err != nil {
		tb.Fatal(err)
	}
	s := &mcpgenSession{cs: cs}
	if cs.Stateless() {
		c := v26.NewClient(cs)
		p := &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(args)}
		s.call = func(ctx context.Context) (string, error) {
			res, err := c.CallTool(ctx, p)
			if err != nil {
				return "", err
			}
			if len(res.Content) != 1 {
				return "", fmt.Errorf("mcpgen: %d content blocks", len(res.Content))
			}
			t, ok := res.Content[0].(*v26.TextContent)
			if ok && res.IsError.Or(false) {
				return "", fmt.Errorf("mcpgen: tool error: %s", t.Text)
			}
			if !ok {
				return "", fmt.Errorf("mcpgen: content is %T", res.Content[0])
			}
			return t.Text, nil
		}
		return s
	}
	c := v25.NewClient(cs)
	p := &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(args)}
	s.call = func(ctx context.Context) (string, error) {
		res, err := c.CallTool(ctx, p)
		if err != nil {
			return "", err
		}
		if len(res.Content) != 1 {
			return "", fmt.Errorf("mcpgen: %d content blocks", len(res.Content))
		}
		t, ok := res.Content[0].(*v25.TextContent)
		if ok && res.IsError.Or(false) {
			return "", fmt.Errorf("mcpgen: tool error: %s", t.Text)
		}
		if !ok {
			return "", fmt.Errorf("mcpgen: content is %T", res.Content[0])
		}
		return t.Text, nil
	}
	return s
}
