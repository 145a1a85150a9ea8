package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpgen/mcpgen/runtime/features"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// The trace context a client sends in these tests.
const (
	peerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	peerSpan  = "00f067aa0ba902b7"
)

// tracedServer is an in-process server instrumented with tel's options
// over rec, its log records (written by a handler with the request's
// context, and by mcp.RequestLog after the instrumentation) going to log.
func tracedServer(t *testing.T, o telemetry.Options, log *slog.Logger) *rt.ClientSession {
	t.Helper()
	set := features.NewSet().AddTools(features.Tool{Name: "logged", InputSchema: wire.Raw(noArgsSchema()),
		Call: func(ctx context.Context, _ wire.Raw) (*features.Result, error) {
			log.InfoContext(ctx, "the handler logs")
			return features.TextResult("ok"), nil
		}})
	opts := rt.ServerOptions{Name: "traced", Version: "1", Features: []rt.Feature{set}, Middleware: []rt.Middleware{rt.RequestLog(log, slog.LevelInfo)}}
	telemetry.New(o).InstrumentServer(&opts)
	srv, err := rt.NewServer(opts, v26.Mount(mwHandler26{}))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := rt.Connect(context.Background(), &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: rt.Stateless}, v26.Mount(modernHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTraced calls the tool logged with the peer's trace context in _meta.
func callTraced(t *testing.T, cs *rt.ClientSession) {
	t.Helper()
	var res wire.Raw
	params := `{"name":"logged","_meta":{"traceparent":"00-` + peerTrace + `-` + peerSpan + `-01","tracestate":"peer=1"}}`
	if err := cs.Call(context.Background(), "tools/call", wire.Raw(params), &res); err != nil {
		t.Fatal(err)
	}
}

// serverSpan is the one tools/call span rec ended.
func serverSpan(t *testing.T, rec *tracetest.SpanRecorder) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range rec.Ended() {
		if s.Name() == "tools/call logged" {
			return s
		}
	}
	t.Fatalf("no span tools/call logged among %d", len(rec.Ended()))
	return nil
}

// TestTraceParentPolicy: the trace context in an incoming request's
// _meta is its span's parent by default (its tracestate kept), a link of
// a new trace with telemetry.Link, and nothing with telemetry.Ignore.
func TestTraceParentPolicy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy telemetry.ParentPolicy
	}{{"parent", telemetry.Parent}, {"link", telemetry.Link}, {"ignore", telemetry.Ignore}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			cs := tracedServer(t, telemetry.Options{TracerProvider: tp, Parent: tc.policy}, slog.New(slog.DiscardHandler))
			callTraced(t, cs)
			s := serverSpan(t, rec)
			if s.SpanKind() != trace.SpanKindServer {
				t.Errorf("kind %v", s.SpanKind())
			}
			inPeer := s.SpanContext().TraceID().String() == peerTrace
			parent := s.Parent()
			switch tc.policy {
			case telemetry.Parent:
				if !inPeer || parent.SpanID().String() != peerSpan || !parent.IsRemote() || s.SpanContext().TraceState().Get("peer") != "1" {
					t.Errorf("span %v, parent %v (remote %v), tracestate %q: want the peer's span as its remote parent",
						s.SpanContext().TraceID(), parent.SpanID(), parent.IsRemote(), s.SpanContext().TraceState())
				}
			case telemetry.Link:
				links := s.Links()
				if inPeer || parent.IsValid() || len(links) != 1 || links[0].SpanContext.SpanID().String() != peerSpan {
					t.Errorf("trace %v, parent %v, links %v: want a new root linking to the peer's span", s.SpanContext().TraceID(), parent, links)
				}
			case telemetry.Ignore:
				if inPeer || parent.IsValid() || len(s.Links()) != 0 {
					t.Errorf("trace %v, parent %v, links %v: want a new root, nothing of the peer's", s.SpanContext().TraceID(), parent, s.Links())
				}
			}
		})
	}
}

// TestTraceLogs: with telemetry.LogHandler, the log records of a request
// (the handler's, written with its context, and mcp.RequestLog's) carry
// the trace and span of the request's span.
func TestTraceLogs(t *testing.T) {
	var logs capturedLog
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(&logs, nil)))
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cs := tracedServer(t, telemetry.Options{TracerProvider: tp}, log)
	callTraced(t, cs)
	s := serverSpan(t, rec)
	found := 0
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if r["msg"] == "the handler logs" || (r["msg"] == "mcp: message" && r["name"] == "logged") {
			found++
			if r["trace_id"] != s.SpanContext().TraceID().String() || r["span_id"] != s.SpanContext().SpanID().String() {
				t.Errorf("record %s: want trace_id %s span_id %s", line, s.SpanContext().TraceID(), s.SpanContext().SpanID())
			}
		}
	}
	if found != 2 {
		t.Errorf("%d of the request's records found, want 2:\n%s", found, logs.String())
	}
}

// TestTracesOff: with no tracer (OTEL_TRACES_SAMPLER=always_off, a no-op
// TracerProvider) no span is made, and the trace context a request came
// with still reaches what it sends: the server's sampling request carries
// the client's traceparent.
func TestTracesOff(t *testing.T) {
	tel := telemetry.New(telemetry.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})
	srv, err := newEverything(slog.New(slog.DiscardHandler), rt.ValidateResultsAuto, nil, sharedState{telemetry: tel}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	seen := func(next rt.MessageHandler) rt.MessageHandler {
		return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) {
			if !m.Outgoing() && m.Method() == "sampling/createMessage" {
				got, _ = m.MetaString("traceparent")
			}
			return next(ctx, m)
		}
	}
	ctx := testContext(t)
	cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: rt.Stateful, Middleware: []rt.Middleware{seen}},
		v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tp := "00-" + peerTrace + "-" + peerSpan + "-01"
	var res wire.Raw
	if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"test_sampling","arguments":{"prompt":"hi"},"_meta":{"traceparent":"`+tp+`"}}`), &res); err != nil {
		t.Fatal(err)
	}
	if got != tp {
		t.Errorf("the server's sampling request carried traceparent %q, want the client's %q", got, tp)
	}
}
