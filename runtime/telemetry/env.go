package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpgen/mcpgen/runtime/telemetry/internal/otlphttp"
)

// Export is the instrumentation FromEnv set up, with the providers that
// export what it records; Shutdown flushes them.
type Export struct {
	*Telemetry
	// TracerProvider and MeterProvider export over OTLP (a no-op one for
	// a signal whose exporter is "none").
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider

	shutdown []func(context.Context) error
}

// Shutdown flushes and stops the exporters: call it before the program
// exits (after the server or client has drained), or spans are lost.
func (x *Export) Shutdown(ctx context.Context) error {
	if x == nil {
		return nil
	}
	var errs []error
	for _, f := range x.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// FromEnv sets up tracing and metrics the way OpenTelemetry SDKs are
// configured, from the standard environment, and returns nil (and no
// error) when it asks for nothing: no OTLP endpoint is set, or
// OTEL_SDK_DISABLED is true. It honours
//
//   - OTEL_EXPORTER_OTLP_ENDPOINT (and the _TRACES_ and _METRICS_
//     variants), _HEADERS, _TIMEOUT, _COMPRESSION, _CERTIFICATE,
//     _CLIENT_CERTIFICATE, _CLIENT_KEY and
//     OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE, as the OTLP
//     exporters read them (over http/protobuf, the exporters are
//     mcpgen's own, which link no gRPC; over grpc, o.GRPC's);
//   - OTEL_EXPORTER_OTLP_PROTOCOL (and per signal): http/protobuf (the
//     default) or grpc, which needs o.GRPC (package otlpgrpc: gRPC is
//     linked only into programs that ask for it) and is an error without;
//   - OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER: otlp (the default)
//     or none;
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (service defaults to
//     service.name);
//   - OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (default
//     parentbased_always_on), OTEL_BSP_*, OTEL_METRIC_EXPORT_INTERVAL, as
//     the SDK reads them; always_off makes no tracer at all (no span is
//     started; an incoming trace context is passed on to what a request
//     sends);
//
// and uses the W3C trace context in params._meta. o's providers and
// propagator are replaced; its other fields are kept.
func FromEnv(ctx context.Context, service string, o Options) (*Export, error) {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return nil, nil
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" &&
		os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") == "" {
		return nil, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("telemetry: the resource: %w", err)
	}
	x := &Export{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}
	// always_off records no span: no tracer at all, which costs nothing
	// (an incoming trace context is still passed on).
	if exporterOn("OTEL_TRACES_EXPORTER") && strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER")) != "always_off" {
		exp, err := traceExporter(ctx, o.GRPC)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		x.TracerProvider = tp
		x.shutdown = append(x.shutdown, tp.Shutdown)
	}
	if exporterOn("OTEL_METRICS_EXPORTER") {
		exp, err := metricExporter(ctx, o.GRPC)
		if err != nil {
			_ = x.Shutdown(ctx)
			return nil, err
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		x.MeterProvider = mp
		x.shutdown = append(x.shutdown, mp.Shutdown)
	}
	o.TracerProvider, o.MeterProvider, o.Propagator = x.TracerProvider, x.MeterProvider, propagation.TraceContext{}
	x.Telemetry = New(o)
	return x, nil
}

// exporterOn reports a signal whose exporter (env) is otlp, or unset.
func exporterOn(env string) bool {
	v := strings.TrimSpace(os.Getenv(env))
	return v == "" || v == "otlp"
}

// protocolVar is the part of the variable that set signal's protocol
// ("TRACES_" for OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else "").
func protocolVar(signal string) string {
	if os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_PROTOCOL") != "" {
		return signal + "_"
	}
	return ""
}

// otlpProtocol is the OTLP protocol of signal ("TRACES", "METRICS").
func otlpProtocol(signal string) (string, error) {
	p := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	if p == "" {
		p = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch p {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return p, nil
	}
	return "", fmt.Errorf("telemetry: OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported (use http/protobuf or grpc)", p)
}

// GRPCExporters makes the OTLP exporters over gRPC (Options.GRPC): package
// otlpgrpc's Exporters.
type GRPCExporters interface {
	Trace(ctx context.Context) (sdktrace.SpanExporter, error)
	Metric(ctx context.Context) (sdkmetric.Exporter, error)
}

// errNoGRPC is FromEnv's error for OTLP over gRPC in a program without it.
func errNoGRPC(signal string) error {
	return fmt.Errorf("telemetry: OTEL_EXPORTER_OTLP_%sPROTOCOL is grpc, but this program links no gRPC exporter: pass telemetry.Options{GRPC: otlpgrpc.Exporters{}} (package github.com/mcpgen/mcpgen/runtime/telemetry/otlpgrpc), or use http/protobuf", signal)
}

func traceExporter(ctx context.Context, g GRPCExporters) (sdktrace.SpanExporter, error) {
	p, err := otlpProtocol("TRACES")
	if err != nil {
		return nil, err
	}
	var exp sdktrace.SpanExporter
	if p == "grpc" {
		if g == nil {
			return nil, errNoGRPC(protocolVar("TRACES"))
		}
		exp, err = g.Trace(ctx)
	} else {
		exp, err = otlphttp.NewTraceExporter()
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP trace exporter (%s): %w", p, err)
	}
	return exp, nil
}

func metricExporter(ctx context.Context, g GRPCExporters) (sdkmetric.Exporter, error) {
	p, err := otlpProtocol("METRICS")
	if err != nil {
		return nil, err
	}
	var exp sdkmetric.Exporter
	if p == "grpc" {
		if g == nil {
			return nil, errNoGRPC(protocolVar("METRICS"))
		}
		exp, err = g.Metric(ctx)
	} else {
		exp, err = otlphttp.NewMetricExporter()
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP metric exporter (%s): %w", p, err)
	}
	return exp, nil
}
