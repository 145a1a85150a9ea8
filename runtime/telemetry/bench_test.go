package telemetry_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// discard drops the spans it is given.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkSDKSpan is the OpenTelemetry SDK's own cost of one server span,
// without MCP: the floor under BenchmarkOperations in examples/everything.
// "off" is a span its sampler drops (still given ids and put in the
// context, to propagate); "always" a recorded span with the attributes a
// tools/call span has, batched to an exporter that drops it.
func BenchmarkSDKSpan(b *testing.B) {
	kind := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}
	for _, tc := range []struct {
		name    string
		sampler sdktrace.Sampler
	}{{"off", sdktrace.NeverSample()}, {"always", sdktrace.AlwaysSample()}} {
		b.Run(tc.name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tc.sampler), sdktrace.WithBatcher(discard{}))
			defer tp.Shutdown(context.Background())
			tr := tp.Tracer("bench")
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					_, s := tr.Start(ctx, "tools/call", kind...)
					if s.IsRecording() {
						s.SetName("tools/call echo")
						s.SetAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("mcp.protocol.version", "2025-11-25"),
							attribute.String("jsonrpc.request.id", "12"), attribute.String("gen_ai.operation.name", "execute_tool"),
							attribute.String("gen_ai.tool.name", "echo"), attribute.String("network.transport", "pipe"))
					}
					s.End()
				}
			})
		})
	}
}
