package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125"
	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20260728"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The runnable examples of the runtime's main tasks, on the hello server
// (main.go): its tools are plain Go functions marked //mcp:tool, which
// mcpgen tools turns into Features(); go generate writes the protocol
// packages v20251125 and v20260728 beside it.

// newHello is the hello server: the declared features, served to clients
// of both eras.
func newHello(opts mcp.ServerOptions) *mcp.Server {
	opts.Name, opts.Version, opts.Features = "hello", "1.0.0", []mcp.Feature{Features()}
	srv, err := mcp.NewServer(opts, v20251125.Mount(nil), v20260728.Mount(nil))
	if err != nil {
		panic(err)
	}
	return srv
}

// A server over stdio: one JSON-RPC message per line on the process's
// standard input and output (here pipes, so that the example can be the
// client). This request is of the stateless era: its _meta names the
// protocol version and the client's capabilities.
func Example_serveStdio() {
	srv := newHello(mcp.ServerOptions{})
	stdin, client := io.Pipe()
	replies, stdout := io.Pipe()
	go stdio.Serve(context.Background(), srv, stdin, stdout, stdio.Options{}) // in main: os.Stdin, os.Stdout

	fmt.Fprintln(client, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	line, _ := bufio.NewReader(replies).ReadString('\n')
	fmt.Print(line)
	client.Close()
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hello","version":"1.0.0"}},"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}]}}
}

// A server over Streamable HTTP, both eras on one endpoint. In main,
// streamhttp.ListenAndServe(ctx, addr, mux) serves it with timeouts set
// and drains it when ctx ends. A stateless request states its version and
// method in headers too, which the server checks against the body.
func Example_serveHTTP() {
	srv := newHello(mcp.ServerOptions{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamhttp.NewHandler(srv, streamhttp.Options{}))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+
		`{"name":"add","arguments":{"A":1,"B":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "add")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	fmt.Println(string(body))
	// Output:
	// 200 OK
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hello","version":"1.0.0"}},"resultType":"complete","content":[{"type":"text","text":"{\"Sum\":3}"}],"structuredContent":{"Sum":3}}}
}

// A typed tool: add (main.go) is a Go function from AddIn to Sum, marked
// //mcp:tool. mcpgen tools derives its input and output schemas from the
// types and writes the code that decodes, checks and encodes them; the
// arguments are validated before the function runs.
func Example_typedTool() {
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: newHello(mcp.ServerOptions{})}, mcp.ClientOptions{Era: mcp.Stateless}, v20260728.Mount(nil))
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	c := v20260728.NewClient(cs)
	tools, _ := c.ListTools(ctx, nil)
	for _, t := range tools.Tools {
		if t.Name == "add" {
			in, _ := wire.Marshal(t.InputSchema)
			out, _ := wire.Marshal(t.OutputSchema)
			fmt.Println(string(in))
			fmt.Println(string(out))
		}
	}
	res, _ := c.CallTool(ctx, &v20260728.CallToolRequestParams{Name: "add", Arguments: v20260728.CallToolRequestParamsArguments(`{"A":2,"B":40}`)})
	fmt.Println(string(res.StructuredContent))
	res, _ = c.CallTool(ctx, &v20260728.CallToolRequestParams{Name: "add", Arguments: v20260728.CallToolRequestParamsArguments(`{"A":"two"}`)})
	fmt.Println(res.IsError.Or(false), res.Content[0].(*v20260728.TextContent).Text)
	// Output:
	// {"type":"object","properties":{"A":{"type":"number"},"B":{"type":"number"}},"required":["A","B"],"additionalProperties":false}
	// {"type":"object","properties":{"Sum":{"type":"number"}},"required":["Sum"],"additionalProperties":false}
	// {"Sum":42}
	// true invalid arguments for tool add: /A: must be a number, not a string; /B: required
}

// A client call: Connect opens a session with the server — Auto tries the
// stateless era first and falls back to initialize — and the generated
// Client of the revision it speaks makes typed calls through it.
func Example_clientCall() {
	ctx := context.Background()
	// &stdio.CommandTransport{Path: "./hello"} starts the server as a
	// process; &streamhttp.ClientTransport{URL: ...} reaches one over HTTP.
	tr := &stdio.InProcessTransport{Server: newHello(mcp.ServerOptions{})}
	for _, era := range []mcp.Era{mcp.Stateful, mcp.Auto} {
		cs, err := mcp.Connect(ctx, tr, mcp.ClientOptions{Name: "example", Version: "1", Era: era},
			v20251125.Mount(nil), v20260728.Mount(nil))
		if err != nil {
			panic(err)
		}
		var text string
		if cs.Stateless() {
			res, err := v20260728.NewClient(cs).CallTool(ctx, &v20260728.CallToolRequestParams{Name: "greet", Arguments: v20260728.CallToolRequestParamsArguments(`{"name":"Ada"}`)})
			if err != nil {
				panic(err)
			}
			text = res.Content[0].(*v20260728.TextContent).Text
		} else {
			res, err := v20251125.NewClient(cs).CallTool(ctx, &v20251125.CallToolRequestParams{Name: "greet", Arguments: v20251125.CallToolRequestParamsArguments(`{"name":"Ada"}`)})
			if err != nil {
				panic(err)
			}
			text = res.Content[0].(*v20251125.TextContent).Text
		}
		fmt.Println(cs.ProtocolVersion(), text)
		cs.Close()
	}
	// Output:
	// 2025-11-25 Hello, Ada!
	// 2026-07-28 Hello, Ada!
}

// A middleware sees every message a server (or a client) receives and
// sends, in both eras and on every transport, and what came of it; it can
// refuse one. This one refuses tools/call of "add" for a principal other
// than "admin" and reports each call; mcp.RequestLog logs them with slog.
func Example_middleware() {
	audit := func(next mcp.MessageHandler) mcp.MessageHandler {
		return func(ctx context.Context, m *mcp.Message) (wire.Marshaler, error) {
			if !m.Outgoing() && m.Method() == "tools/call" && m.Name() == "add" && m.Principal() != "admin" {
				fmt.Println("refused", m.Method(), m.Name())
				return nil, mcp.InvalidParams("/params/name", "add is for admins")
			}
			res, err := next(ctx, m)
			if !m.Outgoing() && m.Method() == "tools/call" {
				fmt.Println(m.Revision(), m.Transport(), m.Method(), m.Name(), "error:", err != nil)
			}
			return res, err
		}
	}
	srv := newHello(mcp.ServerOptions{Middleware: []mcp.Middleware{audit}})
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{Era: mcp.Stateless}, v20260728.Mount(nil))
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	c := v20260728.NewClient(cs)
	_, _ = c.CallTool(ctx, &v20260728.CallToolRequestParams{Name: "greet", Arguments: v20260728.CallToolRequestParamsArguments(`{"name":"Ada"}`)})
	_, err = c.CallTool(ctx, &v20260728.CallToolRequestParams{Name: "add", Arguments: v20260728.CallToolRequestParamsArguments(`{"A":1,"B":2}`)})
	fmt.Println(err)
	// Output:
	// 2026-07-28 stdio tools/call greet error: false
	// refused tools/call add
	// jsonrpc error -32602: invalid params: /params/name: add is for admins
}
