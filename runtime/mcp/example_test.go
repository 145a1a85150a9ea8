package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	demo "github.com/mcpgen/mcpgen/testdata/demo/v1"
)

// The examples serve and call DEMO-1, a small stateless revision of our
// own with two tools methods (testdata/demo): its package is what
// go generate writes for a revision (mcpgen --revision 2026-07-28 --out
// mcp/v20260728 gives v20260728.Mount, v20260728.NewClient and the types
// the same way).

// greeter answers the generated Server interface of the revision: its
// methods are the revision's requests, typed.
type greeter struct{}

func (greeter) ListTools(context.Context, *demo.PaginatedRequestParams) (*demo.ListToolsResult, error) {
	return &demo.ListToolsResult{Tools: []demo.Tool{{
		Name:        "greet",
		Description: wire.Some("Greets someone by name."),
		InputSchema: &demo.ToolInputSchema{Properties: demo.ToolInputSchemaProperties(`{"name":{"type":"string"}}`), Required: []string{"name"}},
	}}}, nil
}

func (greeter) CallTool(ctx context.Context, p *demo.CallToolRequestParams) (*demo.CallToolResult, error) {
	if p.Name != "greet" {
		return nil, mcp.InvalidParams("/params/name", "no tool "+p.Name)
	}
	var in struct{ Name string }
	if err := json.Unmarshal(p.Arguments, &in); err != nil {
		return nil, err
	}
	return &demo.CallToolResult{Content: []demo.ContentBlock{&demo.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil
}

// A server: the handler mounted with its revision. Each revision mounted
// is served to the clients that speak it; the runtime answers the
// protocol's own methods (here server/discover) and checks every request
// against the schema before the handler sees it.
func ExampleNewServer() {
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "greeter", Version: "1.0.0"}, demo.Mount(greeter{}))
	if err != nil {
		panic(err)
	}
	// A client in the same process (stdio.Serve(ctx, srv, os.Stdin,
	// os.Stdout, stdio.Options{}) serves a real one).
	cs, err := mcp.Connect(context.Background(), &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	fmt.Println(cs.ProtocolVersion(), string(cs.ServerInfo()))
	// Output:
	// DEMO-1 {"name":"greeter","version":"1.0.0"}
}

// A client: Connect opens a session — Auto, the default era, tries
// server/discover and falls back to initialize — and the revision's
// generated Client makes typed calls through it.
func ExampleConnect() {
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "greeter", Version: "1.0.0"}, demo.Mount(greeter{}))
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{Name: "example", Version: "1"}, demo.Mount(nil))
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	c := demo.NewClient(cs)
	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	res, err := c.CallTool(ctx, &demo.CallToolRequestParams{Name: tools.Tools[0].Name, Arguments: demo.CallToolRequestParamsArguments(`{"name":"Ada"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(tools.Tools[0].Name, res.Content[0].(*demo.TextContent).Text)
	// Output:
	// greet Hello, Ada!
}

// Bad input is refused before the handler runs, with the code and the
// JSON pointer of what is wrong; a tool's arguments are checked against
// its inputSchema, and a mismatch is a tool error the model can read.
func Example_badInput() {
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "greeter", Version: "1.0.0"}, demo.Mount(greeter{}))
	ctx := context.Background()
	cs, _ := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	defer cs.Close()
	var res wire.Raw
	err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":7}`), &res)
	fmt.Println(err)
	err = cs.Call(ctx, "tools/call", wire.Raw(`{"name":"greet","arguments":{}}`), &res)
	fmt.Println(err, strings.Contains(string(res), `"isError":true`))
	// Output:
	// jsonrpc error -32602: invalid params: /params/name: expected string, found number
	// <nil> true
}

// A middleware sees every message a server (or a client) receives and
// sends, in both eras and on every transport, and what came of it; it can
// answer in the handler's place. Roles name methods the same way in every
// revision.
func ExampleMiddleware() {
	audit := func(next mcp.MessageHandler) mcp.MessageHandler {
		return func(ctx context.Context, m *mcp.Message) (wire.Marshaler, error) {
			res, err := next(ctx, m)
			if !m.Outgoing() && !m.IsNotification() {
				fmt.Println(m.Method(), m.Name(), "error:", err != nil)
			}
			return res, err
		}
	}
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "greeter", Version: "1.0.0", Middleware: []mcp.Middleware{audit}}, demo.Mount(greeter{}))
	ctx := context.Background()
	cs, _ := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	defer cs.Close()
	c := demo.NewClient(cs)
	_, _ = c.CallTool(ctx, &demo.CallToolRequestParams{Name: "greet", Arguments: demo.CallToolRequestParamsArguments(`{"name":"Ada"}`)})
	_, _ = c.CallTool(ctx, &demo.CallToolRequestParams{Name: "nope"})
	// Output:
	// server/discover  error: false
	// tools/call greet error: false
	// tools/call nope error: true
}

// A handler reaches its request through its context: the client's
// revision and capabilities, who it acts for, progress and logging.
func ExampleRequestFrom() {
	h := handlerFunc(func(ctx context.Context, p *demo.CallToolRequestParams) (*demo.CallToolResult, error) {
		r := mcp.RequestFrom(ctx)
		text := fmt.Sprintf("%s %s for %q", r.ProtocolVersion(), r.Method, r.Principal())
		return &demo.CallToolResult{Content: []demo.ContentBlock{&demo.TextContent{Text: text}}}, nil
	})
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1"}, demo.Mount(h))
	ctx := context.Background()
	cs, _ := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	defer cs.Close()
	res, _ := demo.NewClient(cs).CallTool(ctx, &demo.CallToolRequestParams{Name: "who"})
	fmt.Println(res.Content[0].(*demo.TextContent).Text)
	// Output:
	// DEMO-1 tools/call for ""
}

// handlerFunc serves tools/call with a function (and no tools/list).
type handlerFunc func(context.Context, *demo.CallToolRequestParams) (*demo.CallToolResult, error)

func (f handlerFunc) CallTool(ctx context.Context, p *demo.CallToolRequestParams) (*demo.CallToolResult, error) {
	return f(ctx, p)
}

// A feature plugs in above the engine: a step in front of a method's
// handler, for every revision that has the method. This one answers
// tools/call of "ping" itself and leaves the others to the handler.
func ExampleFeatureFunc() {
	pinger := mcp.FeatureFunc(func(reg *mcp.Registry) error {
		reg.Route(mcp.Route{Role: protocol.RoleToolsCall, Step: func(ctx context.Context, r *mcp.Request, next mcp.Next) (wire.Marshaler, error) {
			if r.Name() != "ping" {
				return next.Serve()
			}
			return wire.Raw(`{"content":[{"type":"text","text":"pong"}]}`), nil
		}})
		return nil
	})
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{pinger}}, demo.Mount(greeter{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	cs, _ := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	defer cs.Close()
	c := demo.NewClient(cs)
	for _, name := range []string{"ping", "greet"} {
		res, err := c.CallTool(ctx, &demo.CallToolRequestParams{Name: name, Arguments: demo.CallToolRequestParamsArguments(`{"name":"Ada"}`)})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.Content[0].(*demo.TextContent).Text)
	}
	// Output:
	// pong
	// Hello, Ada!
}

// A handler's error that is a *jsonrpc.Error reaches the client as it is;
// any other is an internal error, logged, its text not sent.
func ExampleInvalidParams() {
	h := handlerFunc(func(context.Context, *demo.CallToolRequestParams) (*demo.CallToolResult, error) {
		return nil, mcp.InvalidParams("/params/arguments/city", "unknown city")
	})
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1"}, demo.Mount(h))
	ctx := context.Background()
	cs, _ := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	defer cs.Close()
	_, err := demo.NewClient(cs).CallTool(ctx, &demo.CallToolRequestParams{Name: "weather"})
	fmt.Println(err)
	// Output:
	// jsonrpc error -32602: invalid params: /params/arguments/city: unknown city
}
