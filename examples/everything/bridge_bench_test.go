package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	bridge25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// benchTools is the tools/list result both benchmark handlers answer:
// five tools with an input schema of three members each.
func benchTools() string {
	var tools []string
	for i := range 5 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool%d","description":"Tool number %d.","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","minimum":0},"c":{"type":"boolean"}},"required":["a"]},"annotations":{"readOnlyHint":true}}`, i, i))
	}
	return `{"tools":[` + strings.Join(tools, ",") + `]}`
}

// native25 is a handler written for 2025-11-25 and mounted as it is.
type native25 struct{ list *v25.ListToolsResult }

func (h *native25) ListTools(context.Context, *v25.PaginatedRequestParams) (*v25.ListToolsResult, error) {
	return h.list, nil
}

func (h *native25) CallTool(_ context.Context, p *v25.CallToolRequestParams) (v25.CallToolReply, error) {
	text, _ := wire.MemberOf(wire.Raw(p.Arguments), "text")
	return &v25.CallToolResult{Content: []v25.ContentBlock{&v25.TextContent{Text: string(text)}}}, nil
}

// same26 is the same handler written for 2026-07-28, mounted for
// 2025-11-25 through the generated bridge.
type same26 struct{ list *v26.ListToolsResult }

func (h *same26) ListTools(context.Context, *v26.PaginatedRequestParams) (*v26.ListToolsResult, error) {
	return h.list, nil
}

func (h *same26) CallTool(_ context.Context, p *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	text, _ := wire.MemberOf(wire.Raw(p.Arguments), "text")
	return &v26.CallToolResult{Content: []v26.ContentBlock{&v26.TextContent{Text: string(text)}}}, nil
}

// bridgeServers are the two servers of BenchmarkBridge: 2025-11-25 served
// natively, and through the bridge.
func bridgeServers(tb testing.TB) map[string]rt.Mount {
	l25, l26 := new(v25.ListToolsResult), new(v26.ListToolsResult)
	if err := wire.Unmarshal([]byte(benchTools()), l25); err != nil {
		tb.Fatal(err)
	}
	if err := wire.Unmarshal([]byte(benchTools()), l26); err != nil {
		tb.Fatal(err)
	}
	return map[string]rt.Mount{
		"native":  v25.Mount(&native25{l25}),
		"bridged": bridge25.Mount(&same26{l26}),
	}
}

// TestBridgeAgrees: the bridged handler answers a 2025-11-25 client with
// the very bytes of the native one.
func TestBridgeAgrees(t *testing.T) {
	got := map[string]string{}
	for name, m := range bridgeServers(t) {
		cs := connectTo(t, m)
		for _, call := range []struct{ method, params string }{
			{"tools/list", `{}`},
			{"tools/call", `{"name":"echo","arguments":{"text":"hello"}}`},
		} {
			var res wire.Raw
			if err := cs.Call(context.Background(), call.method, wire.Raw(call.params), &res); err != nil {
				t.Fatalf("%s %s: %v", name, call.method, err)
			}
			got[name] += string(res) + "\n"
		}
		cs.Close()
	}
	if got["native"] != got["bridged"] {
		t.Errorf("native:\n%s\nbridged:\n%s", got["native"], got["bridged"])
	}
}

// TestBridgeListChanges: the bridge converts a list once and answers with
// that conversion while the handler's list is unchanged (a static list
// costs no conversion), and a list changed in place, behind the same
// pointer, reaches the client changed.
func TestBridgeListChanges(t *testing.T) {
	l26 := new(v26.ListToolsResult)
	if err := wire.Unmarshal([]byte(benchTools()), l26); err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, bridge25.Mount(&same26{l26}))
	defer cs.Close()
	c := v25.NewClient(cs)
	ctx := context.Background()
	names := func() string {
		res, err := c.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return strings.Join(out, ",")
	}
	if got, want := names(), "tool0,tool1,tool2,tool3,tool4"; got != want {
		t.Fatalf("tools %s, want %s", got, want)
	}
	l26.Tools[1].Name = "renamed"
	l26.Tools = l26.Tools[:3]
	if got, want := names(), "tool0,renamed,tool2"; got != want {
		t.Errorf("after the handler changed its list: tools %s, want %s", got, want)
	}
	if got, want := names(), "tool0,renamed,tool2"; got != want {
		t.Errorf("asked again: tools %s, want %s", got, want)
	}
}

// connectTo serves m alone and connects a 2025-11-25 client to it.
func connectTo(tb testing.TB, m rt.Mount) *rt.ClientSession {
	srv, err := rt.NewServer(rt.ServerOptions{Name: "bench", Version: "1", Logger: slog.New(slog.DiscardHandler), ValidateResults: rt.ValidateResultsOff}, m)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := rt.Connect(context.Background(), &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: rt.Stateful, ProtocolVersion: "2025-11-25"}, v25.Mount(clientHandler{}))
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// BenchmarkBridge is the round trip of tools/call (echo) and tools/list
// (five tools) from a 2025-11-25 client, in process over the stdio
// framing, to a handler written for 2025-11-25 ("native") and to the same
// handler written for 2026-07-28 behind the generated bridge ("bridged"):
// their difference is what the conversions cost.
func BenchmarkBridge(b *testing.B) {
	servers := bridgeServers(b)
	for _, call := range []struct{ name, method, params string }{
		{"tools-call", "tools/call", `{"name":"echo","arguments":{"text":"hello"}}`},
		{"tools-list", "tools/list", `{}`},
	} {
		for _, name := range []string{"native", "bridged"} {
			b.Run(call.name+"/"+name, func(b *testing.B) {
				cs := connectTo(b, servers[name])
				defer cs.Close()
				ctx := context.Background()
				params := wire.Raw(call.params)
				b.ReportAllocs()
				for b.Loop() {
					var res wire.Raw
					if err := cs.Call(ctx, call.method, params, &res); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

var (
	sinkList   *v25.ListToolsResult
	sinkParams *v26.CallToolRequestParams
)

// BenchmarkConvert is the conversions alone: a 2026-07-28 result to
// 2025-11-25 and params the other way.
func BenchmarkConvert(b *testing.B) {
	l26 := new(v26.ListToolsResult)
	if err := wire.Unmarshal([]byte(benchTools()), l26); err != nil {
		b.Fatal(err)
	}
	b.Run("ListToolsResult-5-tools", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkList = bridge25.ListToolsResultFrom(l26)
		}
	})
	p := &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"hello"}`)}
	b.Run("CallToolRequestParams", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkParams = bridge25.CallToolRequestParamsTo(p)
		}
	})
}

// BenchmarkClientBridge is the client side of the bridge: tools/call
// (echo) and tools/list (five tools) to a server of 2025-11-25 ("native"
// handler), made with the client of 2025-11-25 ("native") and with the
// client of 2026-07-28 through the bridge mounted on the client
// ("bridged"): params converted down, the result converted up.
func BenchmarkClientBridge(b *testing.B) {
	servers := bridgeServers(b)
	srv, err := rt.NewServer(rt.ServerOptions{Name: "bench", Version: "1", Logger: slog.New(slog.DiscardHandler), ValidateResults: rt.ValidateResultsOff}, servers["native"])
	if err != nil {
		b.Fatal(err)
	}
	connect := func(b *testing.B) *rt.ClientSession {
		cs, err := rt.Connect(context.Background(), &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: rt.Stateful, ProtocolVersion: "2025-11-25"},
			v26.Mount(modernHandler{}), bridge25.Mount(modernHandler{}))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		return cs
	}
	ctx := context.Background()
	b.Run("tools-call/native", func(b *testing.B) {
		c := v25.NewClient(connect(b))
		p := &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"hello"}`)}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.CallTool(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tools-call/bridged", func(b *testing.B) {
		c := v26.NewClient(connect(b))
		p := &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"hello"}`)}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.CallTool(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tools-list/native", func(b *testing.B) {
		c := v25.NewClient(connect(b))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.ListTools(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tools-list/bridged", func(b *testing.B) {
		c := v26.NewClient(connect(b))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.ListTools(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestBridgeKeepsPropertyOrder: a tool's parameters reach a client of
// 2025-11-25, whose revision types them (properties by name), in the order
// the handler of 2026-07-28 wrote them (a map sorted them by name).
func TestBridgeKeepsPropertyOrder(t *testing.T) {
	l26 := new(v26.ListToolsResult)
	if err := wire.Unmarshal([]byte(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"zone":{"type":"string"},"at":{"type":"string"},"mode":{"type":"integer"}}}}]}`), l26); err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, bridge25.Mount(&same26{l26}))
	defer cs.Close()
	res, err := v25.NewClient(cs).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Tools[0].InputSchema.Properties {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "zone,at,mode" {
		t.Errorf("properties %s, want zone,at,mode (the handler's order)", got)
	}
	out, _ := wire.Marshal(res.Tools[0].InputSchema)
	if !strings.Contains(string(out), `"properties":{"zone":{"type":"string"},"at":{"type":"string"},"mode":{"type":"integer"}}`) {
		t.Errorf("re-encoded: %s", out)
	}
}
