package otlphttp

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// TraceExporter exports spans over OTLP/HTTP (POST …/v1/traces).
type TraceExporter struct {
	c        *config
	shutdown atomic.Bool
}

var _ sdktrace.SpanExporter = (*TraceExporter)(nil)

// NewTraceExporter reads the OTLP configuration of traces from the
// environment.
func NewTraceExporter() (*TraceExporter, error) {
	c, err := newConfig("TRACES", "/v1/traces")
	if err != nil {
		return nil, err
	}
	return &TraceExporter{c: c}, nil
}

// ExportSpans implements sdktrace.SpanExporter.
func (x *TraceExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if x.shutdown.Load() || len(spans) == 0 {
		return nil
	}
	body, err := encodeSpans(spans)
	if err != nil {
		return err
	}
	return x.c.post(ctx, body)
}

// Shutdown implements sdktrace.SpanExporter: later exports do nothing.
func (x *TraceExporter) Shutdown(ctx context.Context) error {
	x.shutdown.Store(true)
	x.c.client.CloseIdleConnections()
	return ctx.Err()
}

// encodeSpans is the ExportTraceServiceRequest of spans: repeated
// ResourceSpans resource_spans = 1, one per resource, each with one
// ScopeSpans per instrumentation scope, in the order met.
func encodeSpans(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	type scopeKey struct {
		res   *resource.Resource
		scope instrumentation.Scope
	}
	var resources []*tracepb.ResourceSpans
	byRes := map[*resource.Resource]*tracepb.ResourceSpans{}
	byScope := map[scopeKey]*tracepb.ScopeSpans{}
	for _, s := range spans {
		r := s.Resource()
		rs := byRes[r]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: resourceOf(r)}
			if r != nil {
				rs.SchemaUrl = r.SchemaURL()
			}
			byRes[r] = rs
			resources = append(resources, rs)
		}
		k := scopeKey{r, s.InstrumentationScope()}
		ss := byScope[k]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: scopeOf(k.scope), SchemaUrl: k.scope.SchemaURL}
			byScope[k] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, spanOf(s))
	}
	var b []byte
	for _, rs := range resources {
		m, err := proto.Marshal(rs)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, m)
	}
	return b, nil
}

func spanOf(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Flags:                  uint32(sc.TraceFlags()) | 0x100, // SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
		Name:                   s.Name(),
		Kind:                   kindOf(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime().UnixNano()),
		EndTimeUnixNano:        unixNano(s.EndTime().UnixNano()),
		Attributes:             attributes(s.Attributes()),
		DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount:     uint32(s.DroppedEvents()),
		DroppedLinksCount:      uint32(s.DroppedLinks()),
		Status:                 statusOf(s.Status()),
	}
	if parent := s.Parent(); parent.SpanID().IsValid() {
		pid := parent.SpanID()
		p.ParentSpanId = pid[:]
		if parent.IsRemote() {
			p.Flags |= 0x200 // SPAN_FLAGS_IS_REMOTE_MASK
		}
	}
	for _, e := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{Name: e.Name, TimeUnixNano: unixNano(e.Time.UnixNano()),
			Attributes: attributes(e.Attributes), DroppedAttributesCount: uint32(e.DroppedAttributeCount)})
	}
	for _, l := range s.Links() {
		lt, ls := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		p.Links = append(p.Links, &tracepb.Span_Link{TraceId: lt[:], SpanId: ls[:], TraceState: l.SpanContext.TraceState().String(),
			Attributes: attributes(l.Attributes), DroppedAttributesCount: uint32(l.DroppedAttributeCount),
			Flags: uint32(l.SpanContext.TraceFlags()) | 0x100 | map[bool]uint32{true: 0x200}[l.SpanContext.IsRemote()]})
	}
	return p
}

func unixNano(n int64) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

func kindOf(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

func statusOf(s sdktrace.Status) *tracepb.Status {
	switch s.Code {
	case codes.Ok:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	case codes.Error:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: s.Description}
	}
	return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_UNSET}
}

func resourceOf(r *resource.Resource) *resourcepb.Resource {
	if r == nil {
		return &resourcepb.Resource{}
	}
	return &resourcepb.Resource{Attributes: attributes(r.Attributes())}
}

func scopeOf(s instrumentation.Scope) *commonpb.InstrumentationScope {
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: attributes(s.Attributes.ToSlice())}
}

// attributes are kvs as OTLP key-values.
func attributes(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)})
	}
	return out
}

func anyValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), func(b bool) *commonpb.AnyValue { return anyValue(attribute.BoolValue(b)) })
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), func(n int64) *commonpb.AnyValue { return anyValue(attribute.Int64Value(n)) })
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), func(f float64) *commonpb.AnyValue { return anyValue(attribute.Float64Value(f)) })
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), func(s string) *commonpb.AnyValue { return anyValue(attribute.StringValue(s)) })
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.Emit()}}
}

func array[T any](xs []T, one func(T) *commonpb.AnyValue) *commonpb.AnyValue {
	a := &commonpb.ArrayValue{Values: make([]*commonpb.AnyValue, len(xs))}
	for i, x := range xs {
		a.Values[i] = one(x)
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: a}}
}
