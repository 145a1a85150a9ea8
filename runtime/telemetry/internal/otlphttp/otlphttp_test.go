package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"
)

// sink is an OTLP/HTTP receiver keeping the bodies it gets, by path.
type sink struct {
	mu     sync.Mutex
	bodies map[string][][]byte
	srv    *httptest.Server
}

func newSink(t *testing.T) *sink {
	s := &sink{bodies: map[string][][]byte{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		s.mu.Lock()
		s.bodies[r.URL.Path] = append(s.bodies[r.URL.Path], b)
		s.mu.Unlock()
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sink) last(t *testing.T, path string) []byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	bs := s.bodies[path]
	if len(bs) == 0 {
		t.Fatalf("nothing received on %s", path)
	}
	return bs[len(bs)-1]
}

func spans() []sdktrace.ReadOnlySpan {
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "weather"), attribute.Int("n", 3))
	tid := trace.TraceID{1, 2, 3}
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{9}, Remote: true, TraceFlags: trace.FlagsSampled})
	start := time.Unix(1_700_000_000, 5)
	return tracetest.SpanStubs{
		{Name: "tools/call get_forecast", SpanKind: trace.SpanKindServer, Parent: parent, Resource: res,
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled}),
			StartTime:   start, EndTime: start.Add(time.Millisecond),
			Attributes:           []attribute.KeyValue{attribute.String("mcp.method.name", "tools/call"), attribute.Bool("b", true), attribute.Float64("f", 1.5), attribute.StringSlice("ss", []string{"a", "b"}), attribute.Int64Slice("is", []int64{1, 2})},
			Events:               []sdktrace.Event{{Name: "e", Time: start, Attributes: []attribute.KeyValue{attribute.Int("k", 1)}}},
			Links:                []sdktrace.Link{{SpanContext: parent, Attributes: []attribute.KeyValue{attribute.String("l", "x")}}},
			Status:               sdktrace.Status{Code: codes.Error, Description: "boom"},
			InstrumentationScope: instrumentation.Scope{Name: "mcpgen", Version: "1"}},
		{Name: "root", SpanKind: trace.SpanKindClient, Resource: res,
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{2}}),
			StartTime:   start, EndTime: start.Add(2 * time.Millisecond), Status: sdktrace.Status{Code: codes.Ok},
			InstrumentationScope: instrumentation.Scope{Name: "other"}},
	}.Snapshots()
}

func metrics() *metricdata.ResourceMetrics {
	res := resource.NewWithAttributes("", attribute.String("service.name", "weather"))
	t0, t1 := time.Unix(1_700_000_000, 0), time.Unix(1_700_000_010, 0)
	attrs := attribute.NewSet(attribute.String("mcp.method.name", "tools/call"))
	return &metricdata.ResourceMetrics{Resource: res, ScopeMetrics: []metricdata.ScopeMetrics{{
		Scope: instrumentation.Scope{Name: "mcpgen", Version: "1"},
		Metrics: []metricdata.Metrics{
			{Name: "mcp.server.operation.duration", Unit: "s", Description: "d", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
				DataPoints: []metricdata.HistogramDataPoint[float64]{{Attributes: attrs, StartTime: t0, Time: t1, Count: 3, Sum: 0.5, Bounds: []float64{0.1, 1}, BucketCounts: []uint64{1, 2, 0},
					Min: metricdata.NewExtrema(0.01), Max: metricdata.NewExtrema(0.4)}}}},
			{Name: "calls", Data: metricdata.Sum[int64]{Temporality: metricdata.DeltaTemporality, IsMonotonic: true,
				DataPoints: []metricdata.DataPoint[int64]{{Attributes: attrs, StartTime: t0, Time: t1, Value: 7}}}},
			{Name: "load", Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Time: t1, Value: 0.7}}}},
			{Name: "sizes", Data: metricdata.ExponentialHistogram[int64]{Temporality: metricdata.CumulativeTemporality,
				DataPoints: []metricdata.ExponentialHistogramDataPoint[int64]{{StartTime: t0, Time: t1, Count: 2, Sum: 9, Scale: 2, ZeroCount: 1,
					PositiveBucket: metricdata.ExponentialBucket{Offset: 1, Counts: []uint64{1}}, Min: metricdata.NewExtrema[int64](1), Max: metricdata.NewExtrema[int64](8)}}}},
		},
	}}}
}

// TestAgreesWithUpstream: the requests these exporters send decode equal
// to those of the upstream OTLP/HTTP exporters (the reference) for the
// same spans and metrics, gzip included.
func TestAgreesWithUpstream(t *testing.T) {
	for _, compression := range []string{"none", "gzip"} {
		t.Run(compression, func(t *testing.T) {
			ours, theirs := newSink(t), newSink(t)
			ctx := context.Background()
			t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", compression)
			t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20x")

			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", theirs.srv.URL)
			ut, err := otlptracehttp.New(ctx)
			if err != nil {
				t.Fatal(err)
			}
			um, err := otlpmetrichttp.New(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", ours.srv.URL)
			ot, err := NewTraceExporter()
			if err != nil {
				t.Fatal(err)
			}
			om, err := NewMetricExporter()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range []sdktrace.SpanExporter{ut, ot} {
				if err := e.ExportSpans(ctx, spans()); err != nil {
					t.Fatal(err)
				}
			}
			if err := um.Export(ctx, metrics()); err != nil {
				t.Fatal(err)
			}
			if err := om.Export(ctx, metrics()); err != nil {
				t.Fatal(err)
			}

			var wantT, gotT collectortrace.ExportTraceServiceRequest
			must(t, proto.Unmarshal(theirs.last(t, "/v1/traces"), &wantT))
			must(t, proto.Unmarshal(ours.last(t, "/v1/traces"), &gotT))
			if d := cmp.Diff(&wantT, &gotT, protocmp.Transform()); d != "" {
				t.Errorf("traces differ from the upstream exporter's (-upstream +ours):\n%s", d)
			}
			var wantM, gotM collectormetrics.ExportMetricsServiceRequest
			must(t, proto.Unmarshal(theirs.last(t, "/v1/metrics"), &wantM))
			must(t, proto.Unmarshal(ours.last(t, "/v1/metrics"), &gotM))
			if d := cmp.Diff(&wantM, &gotM, protocmp.Transform()); d != "" {
				t.Errorf("metrics differ from the upstream exporter's (-upstream +ours):\n%s", d)
			}
		})
	}
}

// TestRetries: 503 with Retry-After is retried; 400 is not, and the error
// names the status and the receiver's message.
func TestRetries(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch {
		case r.URL.Path == "/v1/metrics":
			http.Error(w, "bad request: no", http.StatusBadRequest)
		case n == 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	ot, err := NewTraceExporter()
	must(t, err)
	if err := ot.ExportSpans(context.Background(), spans()); err != nil || calls != 2 {
		t.Errorf("after a 503: %v, %d calls; want success on the second", err, calls)
	}
	om, err := NewMetricExporter()
	must(t, err)
	if err := om.Export(context.Background(), metrics()); err == nil || !bytes.Contains([]byte(err.Error()), []byte("400 Bad Request: bad request: no")) || calls != 3 {
		t.Errorf("a 400: %v, %d calls; want one call and the status in the error", err, calls)
	}
}

// TestConfigErrors: a bad variable is an error naming it.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ k, v, want string }{
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "localhost:4318", "want an http:// or https:// URL"},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "soon", "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "zstd", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "novalue", "OTEL_EXPORTER_OTLP_HEADERS"},
		{"OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent.pem", "OTEL_EXPORTER_OTLP_CERTIFICATE"},
	} {
		t.Run(tc.k, func(t *testing.T) {
			t.Setenv(tc.k, tc.v)
			if _, err := NewTraceExporter(); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Errorf("%s=%s: %v; want an error with %q", tc.k, tc.v, err, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
