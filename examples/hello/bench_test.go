package main

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125"
	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20260728"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// BenchmarkCall is one tools/call round trip of a declared tool, from the
// client through the stdio framing over in-process pipes, the generated
// argument decoder and validator, the function and the generated encoder
// of its structured result, in each era.
func BenchmarkCall(b *testing.B) {
	for _, era := range []struct {
		name string
		era  mcp.Era
	}{{"stateful", mcp.Stateful}, {"stateless", mcp.Stateless}} {
		for _, tool := range []struct{ name, args string }{
			{"greet", `{"name":"Ada"}`},
			{"add", `{"A":1,"B":2.5}`},
		} {
			b.Run(era.name+"/"+tool.name, func(b *testing.B) {
				srv, err := newServer()
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				cs, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{Era: era.era}, v20251125.Mount(struct{}{}), v20260728.Mount(struct{}{}))
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				params := wire.Raw(`{"name":"` + tool.name + `","arguments":` + tool.args + `}`)
				b.ReportAllocs()
				for b.Loop() {
					var res wire.Raw
					if err := cs.Call(ctx, "tools/call", params, &res); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDecode is the generated decoder and validator of greet's
// arguments alone.
func BenchmarkDecode(b *testing.B) {
	args := wire.Raw(`{"name":"Ada Lovelace"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mcpgenCallGreet(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}
