package gateway_test

import (
	"context"
	"os"
	"testing"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/telemetry/otlptest"

	"github.com/mcpgen/mcpgen/gateway"
	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// TestTraceThroughGateway: one trace from the front client to the
// backend. The front client, the gateway (its front server and its
// backend client instrumented, as mcpgateway does with an OTLP endpoint
// set) and bin/everything behind it export to one OTLP receiver, which
// decodes what they send; the backend's span of a tools/call is the
// child of the gateway's call to it, which is the child of the gateway's
// span of the front request, the child of the front client's — for a
// backend reached through the bridges and one of the gateway's own
// revision.
func TestTraceThroughGateway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, backendRev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("backend="+backendRev, func(t *testing.T) {
			recv, err := otlptest.Start()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { recv.Close() }) // after the exports' Shutdown
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint())
			t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // the backend's spans, soon
			t.Setenv("OTEL_METRICS_EXPORTER", "none")
			export := func(service string) *telemetry.Export {
				x, err := telemetry.FromEnv(ctx, service, telemetry.Options{})
				if err != nil || x == nil {
					t.Fatalf("FromEnv: %v %v", x, err)
				}
				t.Cleanup(func() { x.Shutdown(context.Background()) })
				return x
			}
			gw, front := export("mcpgateway"), export("front-client")
			g, err := gateway.New(ctx, gateway.Options{
				Backend: &stdio.CommandTransport{Path: everything(t), Args: []string{"--revisions", backendRev}, Env: os.Environ(), Stderr: os.Stderr},
				Logger:  testLogger(t), Server: gw.InstrumentServer, Client: gw.InstrumentClient})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			co := rt.ClientOptions{Name: "front", Version: "1", Era: rt.Stateless, ProtocolVersion: "2026-07-28"}
			front.InstrumentClient(&co)
			cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: g.Server()}, co, v26.Mount(&clientHandler{}))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if _, err := v26.NewClient(cs).CallTool(ctx, &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"traced"}`)}); err != nil {
				t.Fatal(err)
			}
			if err := front.TracerProvider.(interface{ ForceFlush(context.Context) error }).ForceFlush(ctx); err != nil {
				t.Fatal(err)
			}
			if err := gw.TracerProvider.(interface{ ForceFlush(context.Context) error }).ForceFlush(ctx); err != nil {
				t.Fatal(err)
			}
			// The chain, leaf first: the backend's server span of the call.
			want := []struct{ service, kind string }{{"everything", "SERVER"}, {"mcpgateway", "CLIENT"}, {"mcpgateway", "SERVER"}, {"front-client", "CLIENT"}}
			var chain []otlptest.Span
			spans, err := recv.WaitSpans(ctx, func(spans []otlptest.Span) bool {
				chain = chain[:0]
				byID := map[string]otlptest.Span{}
				for _, s := range spans {
					byID[s.SpanID] = s
				}
				for _, s := range spans {
					if s.Service == "everything" && s.Kind == "SERVER" && s.Name == "tools/call echo" && s.ParentID != "" {
						for cur, ok := s, true; ok && len(chain) < len(want); cur, ok = byID[cur.ParentID] {
							chain = append(chain, cur)
						}
						if len(chain) == len(want) {
							return true
						}
						chain = chain[:0]
					}
				}
				return false
			})
			if err != nil {
				t.Fatalf("no trace from the front client to the backend: %v; spans:\n%s", err, dump(spans))
			}
			for i, w := range want {
				if s := chain[i]; s.Service != w.service || s.Kind != w.kind || s.Name != "tools/call echo" || s.TraceID != chain[0].TraceID {
					t.Errorf("span %d of the chain: %s %s %q (trace %s); want %s %s tools/call echo", i, s.Service, s.Kind, s.Name, s.TraceID, w.service, w.kind)
				}
			}
			t.Logf("the trace:\n%s", otlptest.Tree(spans, chain[0].TraceID))
		})
	}
}

// dump lists spans, one a line.
func dump(spans []otlptest.Span) string {
	var s string
	for _, x := range spans {
		s += x.Service + " " + x.Kind + " " + x.Name + " trace=" + x.TraceID + " span=" + x.SpanID + " parent=" + x.ParentID + "\n"
	}
	return s
}
