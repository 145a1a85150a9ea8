package main

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/telemetry"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// discard is a span exporter that drops what it gets: the cost of
// recording and batching spans without that of a network.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkOperations is the cost of the operational middleware on the
// server, in process over stdio pipes with 16 calls in flight (echo, both
// eras): none; the rate limiter with a limit never reached; tracing with
// OTEL_TRACES_SAMPLER=always_off (no tracer); an SDK tracer whose sampler
// drops every span (and no meter); the same with the SDK's meter
// recording the operation metric; and every call sampled, its spans
// batched to an exporter that drops them, with metrics.
func BenchmarkOperations(b *testing.B) {
	meter := func() *sdkmetric.MeterProvider {
		return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	}
	for _, era := range []struct {
		name string
		era  rt.Era
	}{{"stateful", rt.Stateful}, {"stateless", rt.Stateless}} {
		for _, row := range []struct {
			name  string
			setup func(*rt.ServerOptions) func()
		}{
			{"none", func(*rt.ServerOptions) func() { return func() {} }},
			{"ratelimit", func(o *rt.ServerOptions) func() {
				o.Middleware = append(o.Middleware, ratelimit.Middleware(ratelimit.Options{Limit: ratelimit.Limit{Rate: 1e9, Burst: 1e9}}))
				return func() {}
			}},
			{"trace-always_off", func(o *rt.ServerOptions) func() {
				// What FromEnv makes of OTEL_TRACES_SAMPLER=always_off
				// (and no metrics): no tracer.
				telemetry.New(telemetry.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}).InstrumentServer(o)
				return func() {}
			}},
			{"trace-off", func(o *rt.ServerOptions) func() {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
				telemetry.New(telemetry.Options{TracerProvider: tp, MeterProvider: metricnoop.NewMeterProvider()}).InstrumentServer(o)
				return func() { _ = tp.Shutdown(context.Background()) }
			}},
			{"trace-off+metrics", func(o *rt.ServerOptions) func() {
				tp, mp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample())), meter()
				telemetry.New(telemetry.Options{TracerProvider: tp, MeterProvider: mp}).InstrumentServer(o)
				return func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }
			}},
			{"trace-always+metrics", func(o *rt.ServerOptions) func() {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(discard{}))
				mp := meter()
				telemetry.New(telemetry.Options{TracerProvider: tp, MeterProvider: mp}).InstrumentServer(o)
				return func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }
			}},
		} {
			b.Run(era.name+"/"+row.name, func(b *testing.B) {
				opts := rt.ServerOptions{NoRecovery: true}
				b.Cleanup(row.setup(&opts))
				inFlight(b, 16, echoCall(benchSession(b, opts, era.era)))
			})
		}
	}
}

// echoCall returns a call of echo in the session's era.
func echoCall(cs *rt.ClientSession) func(context.Context) error {
	if cs.Stateless() {
		c := v26.NewClient(cs)
		p := &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"hello"}`)}
		return func(ctx context.Context) error { _, err := c.CallTool(ctx, p); return err }
	}
	c := v25.NewClient(cs)
	p := &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"hello"}`)}
	return func(ctx context.Context) error { _, err := c.CallTool(ctx, p); return err }
}

// inFlight makes b.N calls, n at a time.
func inFlight(b *testing.B, n int, call func(context.Context) error) {
	b.ReportAllocs()
	ctx := context.Background()
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	b.ResetTimer()
	for range n {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := call(ctx); err != nil {
					failed.Store(&err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
}
