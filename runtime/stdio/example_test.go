package stdio_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	demo "github.com/mcpgen/mcpgen/testdata/demo/v1"
)

// echo answers tools/call with its arguments. (demo is a small revision of
// mcpgen's tests, standing in for a generated package such as v20260728.)
type echo struct{}

func (echo) CallTool(_ context.Context, p *demo.CallToolRequestParams) (*demo.CallToolResult, error) {
	return &demo.CallToolResult{Content: []demo.ContentBlock{&demo.TextContent{Text: string(p.Arguments)}}}, nil
}

// A server over stdio: one JSON-RPC message per line on the process's
// standard input and output. Here the pipes stand in for them, so that
// the example can be the client; in main, stdio.Serve(ctx, srv, os.Stdin,
// os.Stdout, stdio.Options{}) serves until stdin ends or ctx is done, and
// then drains what is in progress.
func ExampleServe() {
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "echo", Version: "1"}, demo.Mount(echo{}))
	stdin, client := io.Pipe()
	replies, stdout := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), srv, stdin, stdout, stdio.Options{}) }()

	fmt.Fprintln(client, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"say":"hi"},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"DEMO-1","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	line, _ := bufio.NewReader(replies).ReadString('\n')
	fmt.Print(line)
	client.Close() // the end of stdin: the server drains and returns
	fmt.Println(<-done)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"echo","version":"1"}},"content":[{"text":"{\"say\":\"hi\"}","type":"text"}],"resultType":"complete"}}
	// <nil>
}

// A client and a server in one process, for tests and embedding:
// InProcessTransport runs the server over an in-memory stdio pipe.
// CommandTransport starts the server as a process instead
// (&stdio.CommandTransport{Path: "./server"}).
func ExampleInProcessTransport() {
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "echo", Version: "1"}, demo.Mount(echo{}))
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	args, _ := json.Marshal(map[string]int{"n": 1})
	res, err := demo.NewClient(cs).CallTool(ctx, &demo.CallToolRequestParams{Name: "echo", Arguments: demo.CallToolRequestParamsArguments(args)})
	if err != nil {
		panic(err)
	}
	out, _ := wire.Marshal(res)
	fmt.Println(string(out))
	// Output:
	// {"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"echo","version":"1"}},"content":[{"text":"{\"n\":1}","type":"text"}],"resultType":"complete"}
}
