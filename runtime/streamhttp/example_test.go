package streamhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	demo "github.com/mcpgen/mcpgen/testdata/demo/v1"
)

// hello answers tools/call. (demo is a small revision of mcpgen's tests,
// standing in for a generated package such as v20260728.)
type hello struct{}

func (hello) CallTool(_ context.Context, p *demo.CallToolRequestParams) (*demo.CallToolResult, error) {
	return &demo.CallToolResult{Content: []demo.ContentBlock{&demo.TextContent{Text: "hello from " + p.Name}}}, nil
}

// A server over Streamable HTTP: both eras on one endpoint. In main,
// streamhttp.ListenAndServe(ctx, ":8080", handler) serves it with
// timeouts set and drains it when ctx ends. A stateless request names its
// version and method in headers too, which the server checks against the
// body.
func ExampleNewHandler() {
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "hello", Version: "1"}, demo.Mount(hello{}))
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamhttp.NewHandler(srv, streamhttp.Options{}))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"DEMO-1","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "DEMO-1")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	fmt.Println(string(out))
	// Output:
	// 200 OK
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hello","version":"1"}},"content":[{"text":"hello from greet","type":"text"}],"resultType":"complete"}}
}

// A client over Streamable HTTP: ClientTransport speaks either era (and
// falls back to the HTTP+SSE transport of 2024-11-05 for servers that
// have only that), so the same Connect reaches any server.
func ExampleClientTransport() {
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "hello", Version: "1"}, demo.Mount(hello{}))
	ts := httptest.NewServer(streamhttp.NewHandler(srv, streamhttp.Options{}))
	defer ts.Close()

	ctx := context.Background()
	cs, err := mcp.Connect(ctx, &streamhttp.ClientTransport{URL: ts.URL}, mcp.ClientOptions{}, demo.Mount(nil))
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := demo.NewClient(cs).CallTool(ctx, &demo.CallToolRequestParams{Name: "remote"})
	if err != nil {
		panic(err)
	}
	fmt.Println(cs.ProtocolVersion(), res.Content[0].(*demo.TextContent).Text)
	// Output:
	// DEMO-1 hello from remote
}
