package telemetry_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/telemetry/otlpgrpc"
	"github.com/mcpgen/mcpgen/runtime/telemetry/otlptest"
)

// TestFromEnv: nothing is set up without an endpoint or with the SDK
// disabled; an unsupported protocol is an error naming the supported
// ones; http/protobuf makes exporters, and grpc with Options.GRPC
// (package otlpgrpc), an error naming it without.
func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr string
		grpc    bool
	}{
		{"no endpoint", map[string]string{}, false, "", false},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}, false, "", false},
		{"http/protobuf", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true, "", false},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, "", true},
		{"grpc without otlpgrpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false,
			"OTEL_EXPORTER_OTLP_PROTOCOL is grpc, but this program links no gRPC exporter: pass telemetry.Options{GRPC: otlpgrpc.Exporters{}}", false},
		{"always_off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_SAMPLER": "always_off"}, true, "", false},
		{"traces only", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces", "OTEL_METRICS_EXPORTER": "none"}, true, "", false},
		{"http/json", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, false, "use http/protobuf or grpc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
				"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_METRICS_EXPORTER", "OTEL_TRACES_EXPORTER", "OTEL_TRACES_SAMPLER"} {
				t.Setenv(k, tc.env[k])
			}
			var o telemetry.Options
			if tc.grpc {
				o.GRPC = otlpgrpc.Exporters{}
			}
			x, err := telemetry.FromEnv(context.Background(), "test", o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (x != nil) != tc.want {
				t.Fatalf("FromEnv: %v, want set up: %v", x, tc.want)
			}
			if x != nil {
				if _, noop := x.TracerProvider.(tracenoop.TracerProvider); noop != (tc.name == "always_off") {
					t.Errorf("tracer provider %T", x.TracerProvider)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = x.Shutdown(ctx) // nothing listens on the endpoint
		})
	}
}

// TestLogHandler: records written with a span's context carry its ids;
// others are unchanged.
func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(&buf, nil))).With("k", "v")
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(context.Background(), "s")
	log.InfoContext(ctx, "in a span")
	log.Info("outside")
	span.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := "trace_id=" + span.SpanContext().TraceID().String() + " span_id=" + span.SpanContext().SpanID().String()
	if len(lines) != 2 || !strings.Contains(lines[0], want) || !strings.Contains(lines[0], "k=v") || strings.Contains(lines[1], "trace_id") {
		t.Errorf("records:\n%s\nwant the first with %s", buf.String(), want)
	}
}

// TestReceiver: spans exported by the SDK's OTLP/HTTP exporter arrive
// decoded, and Tree nests them.
func TestReceiver(t *testing.T) {
	recv, err := otlptest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(recv.Endpoint()+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tr := tp.Tracer("t")
	ctx, parent := tr.Start(context.Background(), "parent", trace.WithSpanKind(trace.SpanKindClient))
	_, child := tr.Start(ctx, "child", trace.WithSpanKind(trace.SpanKindServer))
	child.End()
	parent.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := recv.Spans()
	id := parent.SpanContext().TraceID().String()
	tree := otlptest.Tree(spans, id)
	lines := strings.Split(strings.TrimRight(tree, "\n"), "\n")
	if len(spans) != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], "parent ") || !strings.Contains(lines[0], "CLIENT") ||
		!strings.HasPrefix(lines[1], "  child ") || !strings.Contains(lines[1], "SERVER") {
		t.Errorf("%d spans; tree:\n%s", len(spans), tree)
	}
}
