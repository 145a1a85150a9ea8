package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/runtime/features"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/bench/echo"
	"github.com/mcpgen/mcpgen/bench/echo/gosdkecho"
	v25 "github.com/mcpgen/mcpgen/bench/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/bench/mcp/v20260728"
)

// listSizes are the numbers of tools BenchmarkToolsList lists.
var listSizes = []int{1, 100, 10000}

// toolName is the name of the i-th tool.
func toolName(i int) string { return fmt.Sprintf("tool_%05d", i) }

// lister lists every tool of a server, following nextCursor, and returns
// how many there were.
type lister func(ctx context.Context) (int, error)

// BenchmarkToolsList is one client listing every tool of a server of n
// tools (each with echo's description and inputSchema), all pages, over
// the same stdio pipes as BenchmarkToolsCall, on each stack: how the cost
// grows with the list. Each stack declares its tools the way its users
// do (mcpgen: a features.Set; go-sdk: mcp.AddTool; mcp-go:
// MCPServer.AddTool), 2025-11-25.
func BenchmarkToolsList(b *testing.B) {
	for _, n := range listSizes {
		for _, s := range []struct {
			name string
			open func(testing.TB, int) lister
		}{{"mcpgen", listMCPGen}, {"go-sdk", listGoSDK}, {"mcp-go", listMCPGo}} {
			b.Run(fmt.Sprintf("%d/%s", n, s.name), func(b *testing.B) {
				list := s.open(b, n)
				ctx := context.Background()
				got, err := list(ctx)
				if err != nil || got != n {
					b.Fatalf("listed %d tools (%v), want %d", got, err, n)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := list(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func listMCPGen(tb testing.TB, n int) lister {
	tb.Helper()
	set := features.NewSet()
	tools := make([]features.Tool, n)
	for i := range tools {
		tools[i] = features.Tool{Name: toolName(i), Description: echo.Description, InputSchema: wire.Raw(echo.InputSchema),
			Call: func(context.Context, wire.Raw) (*features.Result, error) { return features.TextResult("ok"), nil }}
	}
	set.AddTools(tools...)
	srv, err := rt.NewServer(rt.ServerOptions{Name: "list", Version: "bench", Features: []rt.Feature{set}, Logger: slog.New(slog.DiscardHandler)},
		v25.Mount(nil), v26.Mount(nil))
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := rt.Connect(tb.Context(), pipeTransport{srv}, rt.ClientOptions{Name: "mcpgen-bench", Version: "bench", Era: rt.Stateful},
		v25.Mount(clientHandler{}), v26.Mount(clientHandler{}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	c := v25.NewClient(cs)
	return func(ctx context.Context) (int, error) {
		total := 0
		p := &v25.PaginatedRequestParams{}
		for {
			res, err := c.ListTools(ctx, p)
			if err != nil {
				return total, err
			}
			total += len(res.Tools)
			if !res.NextCursor.Set {
				return total, nil
			}
			p = &v25.PaginatedRequestParams{Cursor: res.NextCursor}
		}
	}
}

func listGoSDK(tb testing.TB, n int) lister {
	tb.Helper()
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "list", Version: "bench"}, &gosdk.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	for i := range n {
		gosdk.AddTool(srv, &gosdk.Tool{Name: toolName(i), Description: echo.Description},
			func(_ context.Context, _ *gosdk.CallToolRequest, in gosdkecho.In) (*gosdk.CallToolResult, any, error) {
				return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
			})
	}
	s := serveGoSDK(tb, srv)
	tb.Cleanup(func() { _ = s.close() })
	return func(ctx context.Context) (int, error) {
		total := 0
		p := &gosdk.ListToolsParams{}
		for {
			res, err := s.cs.ListTools(ctx, p)
			if err != nil {
				return total, err
			}
			total += len(res.Tools)
			if res.NextCursor == "" {
				return total, nil
			}
			p = &gosdk.ListToolsParams{Cursor: res.NextCursor}
		}
	}
}

func listMCPGo(tb testing.TB, n int) lister {
	tb.Helper()
	srv := mcpgoserver.NewMCPServer("list", "bench", mcpgoserver.WithToolCapabilities(false))
	var schema json.RawMessage = json.RawMessage(echo.InputSchema)
	for i := range n {
		srv.AddTool(mcpgo.NewToolWithRawSchema(toolName(i), echo.Description, schema),
			func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("ok"), nil
			})
	}
	s := serveMCPGo(tb, srv)
	tb.Cleanup(func() { _ = s.close() })
	return func(ctx context.Context) (int, error) {
		total := 0
		req := mcpgo.ListToolsRequest{}
		for {
			res, err := s.c.ListTools(ctx, req)
			if err != nil {
				return total, err
			}
			total += len(res.Tools)
			if res.NextCursor == "" {
				return total, nil
			}
			req = mcpgo.ListToolsRequest{}
			req.Params.Cursor = res.NextCursor
		}
	}
}
