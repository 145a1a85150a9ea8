package main

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	bridge25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// newServer is the everything server, in process, validating its results
// or not (a test binary would by default).
func newServer(tb testing.TB, validate rt.ResultValidation) *rt.Server {
	f := newFixtures(nil)
	srv, err := rt.NewServer(rt.ServerOptions{Name: "everything", Version: "bench", ListChanged: true, ValidateResults: validate, Logger: slog.New(slog.DiscardHandler), Features: []rt.Feature{f.set}},
		bridge25.Mount(&handlers{f}), v26.Mount(&handlers{f}))
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// BenchmarkToolsCallRoundTrip is one tools/call of echo, from the generated
// client through the runtime, the stdio framing over in-process pipes, the
// server's dispatch, validation and inputSchema check, the handler, and
// back: as in production (results not validated), and with
// ServerOptions.ValidateResults on ("-validated"), whose cost the
// difference is.
func BenchmarkToolsCallRoundTrip(b *testing.B) {
	for _, era := range []struct {
		name     string
		era      protocol.Era
		validate rt.ResultValidation
	}{
		{"stateful", rt.Stateful, rt.ValidateResultsOff},
		{"stateless", rt.Stateless, rt.ValidateResultsOff},
		{"stateful-validated", rt.Stateful, rt.ValidateResultsOn},
		{"stateless-validated", rt.Stateless, rt.ValidateResultsOn},
	} {
		b.Run(era.name, func(b *testing.B) {
			ctx := context.Background()
			cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: newServer(b, era.validate)}, rt.ClientOptions{Era: era.era},
				v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			loopEcho(b, cs)
		})
	}
}

// loopEcho calls echo on cs, in the era it speaks, for each benchmark
// iteration.
func loopEcho(b *testing.B, cs *rt.ClientSession) {
	ctx := context.Background()
	b.ReportAllocs()
	if cs.Stateless() {
		c := v26.NewClient(cs)
		p := &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"hello"}`)}
		for b.Loop() {
			if _, err := c.CallTool(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	c := v25.NewClient(cs)
	p := &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"hello"}`)}
	for b.Loop() {
		if _, err := c.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSession is a session of era with the everything server in
// process over stdio pipes, served with opts (and its catalog, without
// result validation or logs); it closes when b ends.
func benchSession(b *testing.B, opts rt.ServerOptions, era protocol.Era) *rt.ClientSession {
	f := newFixtures(nil)
	opts.Name, opts.Version, opts.Features = "everything", "bench", []rt.Feature{f.set}
	opts.ValidateResults, opts.Logger = rt.ValidateResultsOff, slog.New(slog.DiscardHandler)
	srv, err := rt.NewServer(opts, bridge25.Mount(&handlers{f}), v26.Mount(&handlers{f}))
	if err != nil {
		b.Fatal(err)
	}
	cs, err := rt.Connect(context.Background(), &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: era},
		v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkResultValidation is what ServerOptions.ValidateResults adds to
// each result: its generated Validate, for the echo result and for the
// fixture's tools/list result (every tool, schemas included).
func BenchmarkResultValidation(b *testing.B) {
	list, err := (&handlers{newFixtures(nil)}).ListTools(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	// As sent: stamped with what the revision adds to every result.
	stamp := func(res wire.Marshaler, method string) interface{ Validate() error } {
		return v26.Protocol().Stamp(res, &protocol.Stamp{Method: method, ServerName: "everything", ServerVersion: "bench", CacheScope: "private"}).(interface{ Validate() error })
	}
	for _, tc := range []struct {
		name string
		v    interface{ Validate() error }
	}{
		{"CallToolResult", stamp(&v26.CallToolResult{Content: []v26.ContentBlock{&v26.TextContent{Text: "hello"}}}, "tools/call")},
		{fmt.Sprintf("ListToolsResult-%d-tools", len(list.Tools)), stamp(list, "tools/list")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.v.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMiddleware is what the middleware costs on the echo round trip
// of BenchmarkToolsCallRoundTrip: none at all (ServerOptions.NoRecovery),
// the default (the recovery from panics, built in without a Message), and
// one middleware that only calls the next step (which builds the Message
// of every message the server receives and sends).
func BenchmarkMiddleware(b *testing.B) {
	noop := func(next rt.MessageHandler) rt.MessageHandler {
		return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) { return next(ctx, m) }
	}
	for _, era := range []struct {
		name string
		era  protocol.Era
	}{{"stateful", rt.Stateful}, {"stateless", rt.Stateless}} {
		for _, mw := range []struct {
			name string
			opts rt.ServerOptions
		}{
			{"none", rt.ServerOptions{NoRecovery: true}},
			{"default", rt.ServerOptions{}},
			{"one", rt.ServerOptions{Middleware: []rt.Middleware{noop}}},
			// A limit never reached: what checking it costs.
			{"ratelimit", rt.ServerOptions{Middleware: []rt.Middleware{ratelimit.Middleware(ratelimit.Options{Limit: ratelimit.Limit{Rate: 1e9, Burst: 1e9}})}}},
		} {
			b.Run(era.name+"/"+mw.name, func(b *testing.B) {
				loopEcho(b, benchSession(b, mw.opts, era.era))
			})
		}
	}
}
