package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// BenchmarkToolsCallHTTP is one tools/call of echo over Streamable HTTP on
// loopback, from the generated client through the client transport, the
// HTTP handler (its header checks included on the stateless era), the
// server's dispatch, validation and inputSchema check, the handler, and
// back; results not validated, as in production.
func BenchmarkToolsCallHTTP(b *testing.B) {
	for _, era := range []struct {
		name string
		era  rt.Era
	}{
		{"stateful", rt.Stateful},
		{"stateless", rt.Stateless},
	} {
		b.Run(era.name, func(b *testing.B) {
			ctx := context.Background()
			h := streamhttp.NewHandler(newServer(b, rt.ValidateResultsOff), streamhttp.Options{})
			mux := http.NewServeMux()
			mux.Handle("/mcp", h)
			hs := httptest.NewServer(mux)
			defer hs.Close()
			defer h.Close()
			cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: hs.URL + "/mcp", HTTPClient: hs.Client()}, rt.ClientOptions{Era: era.era},
				v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			loopEcho(b, cs)
		})
	}
}
