package ratelimit_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	demo "github.com/mcpgen/mcpgen/testdata/demo/v1"
)

// ok answers every tools/call. (demo is a small revision of mcpgen's
// tests, standing in for a generated package such as v20260728.)
type ok struct{}

func (ok) CallTool(context.Context, *demo.CallToolRequestParams) (*demo.CallToolResult, error) {
	return &demo.CallToolResult{Content: []demo.ContentBlock{&demo.TextContent{Text: "ok"}}}, nil
}

// A rate limit: a token bucket per client (its principal, else its
// address, else the stdio connection), as one middleware. A request over
// it is refused with -32010 and when to retry (over HTTP: 429 with
// Retry-After). With redis.NewRateLimiter as Options.Limiter, instances
// share each client's bucket.
func ExampleMiddleware() {
	limit := ratelimit.Middleware(ratelimit.Options{Limit: ratelimit.Limit{Rate: 0.001, Burst: 2}})
	srv, _ := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Middleware: []mcp.Middleware{limit}}, demo.Mount(ok{}))
	ctx := context.Background()
	// server/discover, which Connect sends, spends the first token.
	cs, _ := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	defer cs.Close()
	c := demo.NewClient(cs)
	for range 2 {
		_, err := c.CallTool(ctx, &demo.CallToolRequestParams{Name: "t"})
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			_, retry := ratelimit.RetryAfter(err)
			fmt.Println(je.Code, retry)
			continue
		}
		fmt.Println(err)
	}
	// Output:
	// <nil>
	// -32010 true
}
