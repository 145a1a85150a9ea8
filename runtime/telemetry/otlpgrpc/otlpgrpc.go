// Package otlpgrpc gives telemetry.FromEnv the OTLP exporters over gRPC,
// for a program that wants OTEL_EXPORTER_OTLP_PROTOCOL=grpc honoured:
//
//	x, err := telemetry.FromEnv(ctx, "weather", telemetry.Options{GRPC: otlpgrpc.Exporters{}})
//
// It is a package of its own so that gRPC (about 10 MB of binary) is
// linked only into programs that import it: FromEnv exports over
// http/protobuf, the OTLP default, without it.
package otlpgrpc

import (
	"context"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpgen/mcpgen/runtime/telemetry"
)

// Exporters makes the OTLP/gRPC exporters, configured from the standard
// environment (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _TIMEOUT, _INSECURE,
// and the per-signal variants), as the OpenTelemetry exporters read it.
type Exporters struct{}

var _ telemetry.GRPCExporters = Exporters{}

// Trace returns the span exporter.
func (Exporters) Trace(ctx context.Context) (sdktrace.SpanExporter, error) {
	return otlptracegrpc.New(ctx)
}

// Metric returns the metric exporter.
func (Exporters) Metric(ctx context.Context) (sdkmetric.Exporter, error) {
	return otlpmetricgrpc.New(ctx)
}
