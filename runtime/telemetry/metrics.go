package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// buckets are the histogram bucket boundaries (seconds) the conventions
// give the four MCP duration metrics.
var buckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// instruments are the four metrics of the conventions, and the attribute
// sets of the operations recorded so far.
type instruments struct {
	serverOp, clientOp           metric.Float64Histogram
	serverSession, clientSession metric.Float64Histogram

	sets  sync.Map // opKey → []metric.RecordOption: the attribute set, as an option made once
	nsets atomic.Int64
}

// maxSets bounds the attribute sets kept; past it a set is made for each
// recording (a server whose clients name endless tools, say).
const maxSets = 4096

// opKey is what an operation's attributes depend on.
type opKey struct {
	outgoing                                         bool
	target                                           targetKind
	method, name, revision, transport, errType, code string
}

func newInstruments(m metric.Meter) *instruments {
	b := metric.WithExplicitBucketBoundaries(buckets...)
	// The constructors fall back to a no-op instrument on error: a
	// metric that cannot be made must not stop the instrumented program.
	so, _ := mcpconv.NewServerOperationDuration(m, b)
	co, _ := mcpconv.NewClientOperationDuration(m, b)
	ss, _ := mcpconv.NewServerSessionDuration(m, b)
	cs, _ := mcpconv.NewClientSessionDuration(m, b)
	return &instruments{
		serverOp: so.Inst(), clientOp: co.Inst(), serverSession: ss.Inst(), clientSession: cs.Inst(),
	}
}

// start is when an operation began, or zero when its metric is not
// recorded (a no-op meter): then nothing is measured.
func (in *instruments) start(ctx context.Context, m *mcp.Message) time.Time {
	h := in.serverOp
	if m.Outgoing() {
		h = in.clientOp
	}
	if !h.Enabled(ctx) {
		return time.Time{}
	}
	return time.Now()
}

// operation records a message's duration in mcp.server.operation.duration
// (received) or mcp.client.operation.duration (sent).
func (in *instruments) operation(ctx context.Context, m *mcp.Message, name string, o outcome, d time.Duration) {
	h := in.serverOp
	if m.Outgoing() {
		h = in.clientOp
	}
	if !namesTarget(m) {
		name = ""
	}
	k := opKey{outgoing: m.Outgoing(), target: targetOf(m), method: m.Method(), name: name, revision: m.Revision(), transport: m.Transport(), errType: o.errorType, code: o.statusCode}
	h.Record(ctx, d.Seconds(), in.set(k)...)
}

// set returns the attribute set of k as a record option, made once.
func (in *instruments) set(k opKey) []metric.RecordOption {
	if s, ok := in.sets.Load(k); ok {
		return s.([]metric.RecordOption)
	}
	as := make([]attribute.KeyValue, 0, 8)
	as = append(as, keyMethod.String(k.method))
	if k.revision != "" {
		as = append(as, keyProtocol.String(k.revision))
	}
	switch k.target {
	case targetTool:
		as = append(as, keyOperation.String("execute_tool"))
		if k.name != "" {
			as = append(as, keyToolName.String(k.name))
		}
	case targetPrompt:
		if k.name != "" {
			as = append(as, keyPromptName.String(k.name))
		}
	}
	as = appendTransport(as, k.transport)
	if k.errType != "" {
		as = append(as, keyErrorType.String(k.errType))
	}
	if k.code != "" {
		as = append(as, keyStatusCode.String(k.code))
	}
	s := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(as...))}
	if in.nsets.Load() < maxSets {
		if _, loaded := in.sets.LoadOrStore(k, s); !loaded {
			in.nsets.Add(1)
		}
	}
	return s
}

// session records a session's duration in h.
func (in *instruments) session(h metric.Float64Histogram, e mcp.SessionEnd) {
	as := make([]attribute.KeyValue, 0, 3)
	if e.Revision != "" {
		as = append(as, keyProtocol.String(e.Revision))
	}
	as = appendTransport(as, e.Transport)
	h.Record(context.Background(), e.Duration.Seconds(), metric.WithAttributes(as...))
}
