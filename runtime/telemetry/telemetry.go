// Package telemetry instruments MCP servers and clients with
// OpenTelemetry, following the semantic conventions for MCP
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/): a span per
// request and notification, on both sides and in both directions, named
// "{mcp.method.name} {target}"; trace context carried in params._meta
// (traceparent, tracestate, as the conventions and SEP-414 say) on every
// revision and transport; the operation and session duration metrics; and
// log records that carry the trace and span of the request they are
// written for (LogHandler).
//
// A span starts named by its method, which is what a sampler sees, and is
// renamed "{method} {target}" once it is recorded: a span that is not
// recorded costs no name. An incoming context is the span's parent, a
// link, or nothing (Options.Parent).
//
// It is installed as one middleware:
//
//	tel := telemetry.New(telemetry.Options{})   // the global providers
//	tel.InstrumentServer(&serverOptions)        // or InstrumentClient
//
// and FromEnv configures the providers from the standard OTEL_* environment
// (OTLP export over http/protobuf or gRPC) for programs that want nothing
// more. The package is a module of its own, so that the OpenTelemetry
// dependencies stay out of programs that do not use it.
package telemetry

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpgen/mcpgen/runtime/telemetry"

// ParentPolicy says what an incoming message's trace context (its
// params._meta traceparent) becomes to the span that serves it.
type ParentPolicy int

const (
	// Parent makes the peer's span the parent (the conventions'
	// recommendation, and the default): one trace spans client and
	// server.
	Parent ParentPolicy = iota
	// Link starts a new trace whose root links to the peer's span: for a
	// server that does not trust its clients' sampling decisions or trace
	// ids.
	Link
	// Ignore starts a new trace and keeps nothing of the peer's.
	Ignore
)

// Options configure the instrumentation. The zero value uses the global
// providers and the W3C trace context.
type Options struct {
	// TracerProvider makes the tracer (default: otel.GetTracerProvider()).
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter (default: otel.GetMeterProvider()).
	MeterProvider metric.MeterProvider
	// Propagator reads and writes trace context in params._meta (default:
	// the W3C trace context: traceparent and tracestate).
	Propagator propagation.TextMapPropagator
	// Parent is what an incoming trace context becomes (default Parent).
	Parent ParentPolicy
	// ResourceURIInName puts a resource's URI in its span's name
	// ("resources/read file:///a"); off by default, as the conventions
	// advise (URIs are of high cardinality). The URI is an attribute
	// either way.
	ResourceURIInName bool
	// GRPC makes FromEnv's exporters when the environment asks for OTLP
	// over gRPC (otlpgrpc.Exporters{}); nil, that is an error, and gRPC
	// is not linked.
	GRPC GRPCExporters
}

// Telemetry is the instrumentation of one server or client (or several:
// it keeps no per-session state).
type Telemetry struct {
	opts    Options
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
	metrics *instruments
	fields  isErrorFields
	// The start options of the two kinds of span, made once.
	serverKind, clientKind []trace.SpanStartOption
	// tracing is false with a no-op TracerProvider (FromEnv's with
	// OTEL_TRACES_SAMPLER=always_off): no span is started, and an
	// incoming trace context is only passed on.
	tracing bool
}

// New returns the instrumentation o describes.
func New(o Options) *Telemetry {
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = propagation.TraceContext{}
	}
	return &Telemetry{
		opts:    o,
		tracer:  o.TracerProvider.Tracer(ScopeName),
		prop:    o.Propagator,
		metrics: newInstruments(o.MeterProvider.Meter(ScopeName)),

		serverKind: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)},
		clientKind: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)},
		tracing:    !isNoop(o.TracerProvider),
	}
}

// InstrumentServer installs the instrumentation in o: its middleware
// first (outermost, so that the other middleware and the handlers run
// inside the request's span, and their log records carry it), and the
// session metric (after whatever OnSessionEnd o already has).
func (t *Telemetry) InstrumentServer(o *mcp.ServerOptions) {
	o.Middleware = append([]mcp.Middleware{t.Middleware()}, o.Middleware...)
	o.OnSessionEnd = t.sessionEnd(o.OnSessionEnd, t.metrics.serverSession)
}

// InstrumentClient installs the instrumentation in o, as InstrumentServer
// does for a server.
func (t *Telemetry) InstrumentClient(o *mcp.ClientOptions) {
	o.Middleware = append([]mcp.Middleware{t.Middleware()}, o.Middleware...)
	o.OnSessionEnd = t.sessionEnd(o.OnSessionEnd, t.metrics.clientSession)
}

// Middleware is the instrumentation of messages alone, for programs that
// order their middleware themselves (put it first: the spans then cover
// the others). It serves servers and clients alike: a message received is
// a SERVER span and counts in mcp.server.operation.duration, a message
// sent a CLIENT span in mcp.client.operation.duration, as the conventions
// have it for either side.
func (t *Telemetry) Middleware() mcp.Middleware {
	return func(next mcp.MessageHandler) mcp.MessageHandler {
		return func(ctx context.Context, m *mcp.Message) (wire.Marshaler, error) {
			if m.Outgoing() {
				return t.send(ctx, m, next)
			}
			return t.receive(ctx, m, next)
		}
	}
}

// receive serves an incoming message in a SERVER span whose parent is the
// trace context the peer sent, as Options.Parent says.
func (t *Telemetry) receive(ctx context.Context, m *mcp.Message, next mcp.MessageHandler) (wire.Marshaler, error) {
	start := t.metrics.start(ctx, m)
	if !t.tracing {
		// No spans: pass the peer's context on to what the request sends.
		if _, ok := m.MetaString("traceparent"); ok && t.opts.Parent == Parent {
			ctx = t.prop.Extract(ctx, metaCarrier{m})
		}
		res, err := next(ctx, m)
		t.measure(ctx, m, m.Name(), res, err, start)
		return res, err
	}
	opts := t.serverKind
	if _, ok := m.MetaString("traceparent"); ok && t.opts.Parent != Ignore {
		remote := t.prop.Extract(ctx, metaCarrier{m})
		if t.opts.Parent == Parent {
			ctx = remote
		} else if sc := trace.SpanContextFromContext(remote); sc.IsValid() {
			opts = append(slices.Clip(opts), trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	// The span starts named by its method (the name the sampler sees,
	// without an allocation for spans that are not recorded) and gets its
	// target when it is recorded.
	ctx, span := t.tracer.Start(ctx, m.Method(), opts...)
	if span.IsRecording() {
		if target := t.target(m, m.Name()); target != "" {
			span.SetName(spanName(m.Method(), target))
		}
		span.SetAttributes(t.attributes(m, m.Name())...)
	}
	res, err := next(ctx, m)
	t.end(ctx, span, m, m.Name(), res, err, start)
	return res, err
}

// send sends an outgoing message in a CLIENT span, with the span's trace
// context in its params._meta.
func (t *Telemetry) send(ctx context.Context, m *mcp.Message, next mcp.MessageHandler) (wire.Marshaler, error) {
	start := t.metrics.start(ctx, m)
	if !t.tracing {
		if trace.SpanContextFromContext(ctx).IsValid() {
			t.prop.Inject(ctx, metaCarrier{m})
		}
		name := ""
		if !start.IsZero() && namesTarget(m) {
			name = outgoingName(m)
		}
		res, err := next(ctx, m)
		t.measure(ctx, m, name, res, err, start)
		return res, err
	}
	ctx, span := t.tracer.Start(ctx, m.Method(), t.clientKind...)
	// What an outgoing message acts on is in params the runtime has not
	// encoded yet: read it only for a span that is recorded, or a metric
	// that names it.
	name := ""
	if span.IsRecording() || (!start.IsZero() && namesTarget(m)) {
		name = outgoingName(m)
	}
	if span.IsRecording() {
		span.SetName(spanName(m.Method(), t.target(m, name)))
		span.SetAttributes(t.attributes(m, name)...)
	}
	if span.SpanContext().IsValid() {
		t.prop.Inject(ctx, metaCarrier{m})
	}
	res, err := next(ctx, m)
	t.end(ctx, span, m, name, res, err, start)
	return res, err
}

// end records the outcome of a message in its span and its operation
// metric (when start is not zero), and ends the span.
func (t *Telemetry) end(ctx context.Context, span trace.Span, m *mcp.Message, name string, res wire.Marshaler, err error, start time.Time) {
	recording := span.IsRecording()
	if !recording && start.IsZero() {
		span.End()
		return
	}
	o := t.classify(m, res, err)
	if recording {
		o.record(span)
	}
	span.End()
	if !start.IsZero() {
		t.metrics.operation(ctx, m, name, o, time.Since(start))
	}
}

// measure records the operation metric of a message that has no span
// (when start is not zero).
func (t *Telemetry) measure(ctx context.Context, m *mcp.Message, name string, res wire.Marshaler, err error, start time.Time) {
	if !start.IsZero() {
		t.metrics.operation(ctx, m, name, t.classify(m, res, err), time.Since(start))
	}
}

// isNoop reports a TracerProvider that makes no spans.
func isNoop(tp trace.TracerProvider) bool {
	switch tp.(type) {
	case noop.TracerProvider, *noop.TracerProvider:
		return true
	}
	return false
}

// sessionEnd returns an OnSessionEnd recording the session metric h, then
// calling prev.
func (t *Telemetry) sessionEnd(prev func(mcp.SessionEnd), h metric.Float64Histogram) func(mcp.SessionEnd) {
	return func(e mcp.SessionEnd) {
		t.metrics.session(h, e)
		if prev != nil {
			prev(e)
		}
	}
}

// LogHandler returns h with the trace and span of the context a record is
// written with (its trace_id and span_id): the records a handler writes
// with the request's context (slog.InfoContext(ctx, …)) name the span of
// the request, and so do the runtime's (mcp.RequestLog, installed after
// the instrumentation).
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(as)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.Handler.WithGroup(name)}
}
