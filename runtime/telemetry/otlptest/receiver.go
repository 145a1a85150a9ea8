// Package otlptest is an OTLP/HTTP receiver for tests and demos: it
// decodes the protobuf messages exporters send (the
// go.opentelemetry.io/proto/otlp types) and keeps their spans and metric
// points, and prints a trace as an indented tree.
package otlptest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one span received.
type Span struct {
	Service         string            // the resource's service.name
	Resource        map[string]string // the resource's attributes
	Scope           string
	TraceID, SpanID string // hex
	ParentID        string // hex, "" for a root
	Name            string
	Kind            string // SERVER, CLIENT, INTERNAL, …
	Start, End      time.Time
	Attrs           map[string]string // values as text
	StatusCode      string            // UNSET, OK, ERROR
	StatusMessage   string
	Links           []string // the span ids linked to
	LinkedTraces    []string // and their trace ids
}

// Duration is how long the span lasted.
func (s Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// Point is one data point of a histogram metric received.
type Point struct {
	Service string
	Metric  string
	Unit    string
	Attrs   map[string]string
	Count   uint64
	Sum     float64
	Bounds  []float64
}

// Receiver is an OTLP/HTTP receiver (POST /v1/traces, /v1/metrics).
type Receiver struct {
	srv *http.Server
	ln  net.Listener

	mu     sync.Mutex
	spans  []Span
	points []Point
	notify chan struct{}
}

// Start listens on 127.0.0.1 (a free port) and serves until Close.
func Start() (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("otlptest: %w", err)
	}
	r := &Receiver{ln: ln, notify: make(chan struct{}, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.traces)
	mux.HandleFunc("POST /v1/metrics", r.metrics)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Endpoint is the receiver's base URL, for OTEL_EXPORTER_OTLP_ENDPOINT.
func (r *Receiver) Endpoint() string { return "http://" + r.ln.Addr().String() }

// Close stops the receiver.
func (r *Receiver) Close() error { return r.srv.Close() }

func body(req *http.Request) ([]byte, error) {
	var rd io.Reader = http.MaxBytesReader(nil, req.Body, 64<<20)
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(rd)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		rd = z
	}
	return io.ReadAll(rd)
}

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	b, err := body(req)
	var msg collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &msg)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range msg.ResourceSpans {
		res := attrs(rs.GetResource().GetAttributes())
		service := res["service.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{
					Service: service, Resource: res, Scope: ss.GetScope().GetName(),
					TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId), ParentID: hex.EncodeToString(s.ParentSpanId),
					Name: s.Name, Kind: strings.TrimPrefix(s.Kind.String(), "SPAN_KIND_"),
					Start: time.Unix(0, int64(s.StartTimeUnixNano)), End: time.Unix(0, int64(s.EndTimeUnixNano)),
					Attrs:      attrs(s.Attributes),
					StatusCode: strings.TrimPrefix(s.GetStatus().GetCode().String(), "STATUS_CODE_"), StatusMessage: s.GetStatus().GetMessage(),
				}
				for _, l := range s.Links {
					sp.Links = append(sp.Links, hex.EncodeToString(l.SpanId))
					sp.LinkedTraces = append(sp.LinkedTraces, hex.EncodeToString(l.TraceId))
				}
				got = append(got, sp)
			}
		}
	}
	r.add(got, nil)
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

func (r *Receiver) metrics(w http.ResponseWriter, req *http.Request) {
	b, err := body(req)
	var msg collectormetrics.ExportMetricsServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &msg)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Point
	for _, rm := range msg.ResourceMetrics {
		service := attrs(rm.GetResource().GetAttributes())["service.name"]
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				h, ok := m.Data.(*metricspb.Metric_Histogram)
				if !ok {
					continue
				}
				for _, dp := range h.Histogram.DataPoints {
					got = append(got, Point{Service: service, Metric: m.Name, Unit: m.Unit, Attrs: attrs(dp.Attributes),
						Count: dp.Count, Sum: dp.GetSum(), Bounds: dp.ExplicitBounds})
				}
			}
		}
	}
	r.add(nil, got)
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectormetrics.ExportMetricsServiceResponse{})
	_, _ = w.Write(out)
}

func (r *Receiver) add(spans []Span, points []Point) {
	r.mu.Lock()
	r.spans = append(r.spans, spans...)
	r.points = append(r.points, points...)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// Spans are the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Points are the histogram points received so far (each export sends
// the cumulative points again: the last of a series is its total).
func (r *Receiver) Points() []Point {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.points)
}

// WaitSpans waits until ok holds for the spans received, or ctx ends.
func (r *Receiver) WaitSpans(ctx context.Context, ok func([]Span) bool) ([]Span, error) {
	for {
		s := r.Spans()
		if ok(s) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("otlptest: %d spans received: %w", len(s), ctx.Err())
		case <-r.notify:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Tree prints the spans of trace as a tree, each line a span: its name,
// kind, service and duration, children indented under their parent in
// the order they started (the service is followed by its
// service.instance.id, if any). Spans whose parent was not received are
// printed as roots.
func Tree(spans []Span, trace string) string {
	var in []Span
	ids := map[string]bool{}
	for _, s := range spans {
		if s.TraceID == trace {
			in = append(in, s)
			ids[s.SpanID] = true
		}
	}
	slices.SortStableFunc(in, func(a, b Span) int { return a.Start.Compare(b.Start) })
	type line struct {
		text string
		s    Span
	}
	var lines []line
	width := 0
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		for _, s := range in {
			p := s.ParentID
			if !ids[p] {
				p = ""
			}
			if p != parent {
				continue
			}
			t := strings.Repeat("  ", depth) + s.Name
			width = max(width, len(t))
			lines = append(lines, line{t, s})
			walk(s.SpanID, depth+1)
		}
	}
	walk("", 0)
	var sb strings.Builder
	for _, l := range lines {
		service := l.s.Service
		if id := l.s.Resource["service.instance.id"]; id != "" {
			service += "/" + id
		}
		fmt.Fprintf(&sb, "%-*s  %-8s %-18s %9s\n", width, l.text, l.s.Kind, service, l.s.Duration().Round(10*time.Microsecond))
	}
	return sb.String()
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = value(kv.Value)
	}
	return m
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	}
	return fmt.Sprint(v.GetValue())
}
