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
	"github.com/mcpgen/mcpgen/runtime/wire"

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

// echoToolList is the tools/list result of the echo servers: the server
// learns the tool's inputSchema from it and checks every call against it.
const echoToolList = `{"tools":[{"name":"echo","description":"Echoes its text argument back as one text block.","inputSchema":` + echoInputSchema + `}]}`

// echo25 serves echo for revision 2025-11-25 (the stateful era).
type echo25 struct{ tools *v25.ListToolsResult }

// ListTools answers the echo tool; the runtime calls it once to learn
// the tool's inputSchema.
func (h *echo25) ListTools(context.Context, *v25.PaginatedRequestParams) (*v25.ListToolsResult, error) {
	return h.tools, nil
}

// CallTool answers echo with its text argument as one text block.
func (h *echo25) CallTool(_ context.Context, p *v25.CallToolRequestParams) (v25.CallToolReply, error) {
	s, err := echoText(p.Name, wire.Raw(p.Arguments))
	if err != nil {
		return nil, err
	}
	return &v25.CallToolResult{Content: []v25.ContentBlock{&v25.TextContent{Text: s}}}, nil
}

// echo26 serves echo for revision 2026-07-28 (the stateless era).
type echo26 struct{ tools *v26.ListToolsResult }

// ListTools answers the echo tool.
func (h *echo26) ListTools(context.Context, *v26.PaginatedRequestParams) (*v26.ListToolsResult, error) {
	return h.tools, nil
}

// CallTool answers echo with its text argument as one text block.
func (h *echo26) CallTool(_ context.Context, p *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	s, err := echoText(p.Name, wire.Raw(p.Arguments))
	if err != nil {
		return nil, err
	}
	return &v26.CallToolResult{Content: []v26.ContentBlock{&v26.TextContent{Text: s}}}, nil
}

// echoText returns the text argument of an echo call, reading the raw
// arguments in place as examples/everything's echoText does (the runtime
// has already checked them against the inputSchema).
func echoText(tool string, args wire.Raw) (string, error) {
	if tool != "echo" {
		return "", rt.InvalidParams("/params/name", "unknown tool "+tool)
	}
	d := wire.NewDecoder(args)
	k, s, err := d.PeekMember("text")
	if err != nil || k != wire.String {
		return "", rt.InvalidParams("/params/arguments/text", "want a string")
	}
	return string(s), nil
}

// newMCPGenServer returns a server with echo in both eras, logging
// nowhere.
func newMCPGenServer(tb testing.TB) *rt.Server {
	tb.Helper()
	h25 := &echo25{tools: new(v25.ListToolsResult)}
	h26 := &echo26{tools: new(v26.ListToolsResult)}
	if err := errors.Join(wire.Unmarshal([]byte(echoToolList), h25.tools), wire.Unmarshal([]byte(echoToolList), h26.tools)); err != nil {
		tb.Fatal(err)
	}
	srv, err := rt.NewServer(rt.ServerOptions{Name: "mcpgen-echo", Version: "bench", Logger: slog.New(slog.DiscardHandler)},
		v25.Mount(h25), v26.Mount(h26))
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
	return openMCPGenEra(tb, rt.Legacy, args)
}

// openMCPGenStateless opens a stateless (2026-07-28) session: every
// request carries the protocol version, client capabilities and client
// info in _meta, and the server serves each request on its own.
func openMCPGenStateless(tb testing.TB, args json.RawMessage) session {
	return openMCPGenEra(tb, rt.Modern, args)
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
