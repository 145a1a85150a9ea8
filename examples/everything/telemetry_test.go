package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/telemetry/otlptest"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/examples/everything/internal/rrproxy"
	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// otlpEnv points this process (the client's FromEnv) and the servers it
// starts (which inherit the environment) at a receiver the test runs:
// OTLP over HTTP, protobuf, exported often.
func otlpEnv(t *testing.T) *otlptest.Receiver {
	t.Helper()
	recv, err := otlptest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { recv.Close() })
	for k, v := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": recv.Endpoint(), "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
		"OTEL_BSP_SCHEDULE_DELAY": "50", "OTEL_METRIC_EXPORT_INTERVAL": "200",
		"OTEL_SERVICE_NAME": "", "OTEL_RESOURCE_ATTRIBUTES": "", "OTEL_TRACES_SAMPLER": "",
	} {
		t.Setenv(k, v)
	}
	return recv
}

// clientExport is the test client's instrumentation, exporting to the
// receiver as service "everything-test".
func clientExport(t *testing.T) *telemetry.Export {
	t.Helper()
	x, err := telemetry.FromEnv(context.Background(), "everything-test", telemetry.Options{})
	if err != nil || x == nil {
		t.Fatalf("FromEnv: %v, %v", x, err)
	}
	return x
}

// spanIndex finds spans of one trace.
type spanIndex []otlptest.Span

func (s spanIndex) find(service, kind, name, parent string) []otlptest.Span {
	var out []otlptest.Span
	for _, sp := range s {
		if sp.Service == service && sp.Kind == kind && sp.Name == name && (parent == "*" || sp.ParentID == parent) {
			out = append(out, sp)
		}
	}
	return out
}

func (s spanIndex) trace(id string) spanIndex {
	return slices.DeleteFunc(slices.Clone(s), func(sp otlptest.Span) bool { return sp.TraceID != id })
}

// wantAttrs checks attributes of a span.
func wantAttrs(t *testing.T, sp otlptest.Span, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := sp.Attrs[k]
		switch {
		case v == "*" && (!ok || got == ""):
			t.Errorf("%s (%s, %s): attribute %s missing", sp.Name, sp.Kind, sp.Service, k)
		case v == "-" && ok:
			t.Errorf("%s (%s, %s): attribute %s = %q, want none", sp.Name, sp.Kind, sp.Service, k, got)
		case v != "*" && v != "-" && got != v:
			t.Errorf("%s (%s, %s): attribute %s = %q, want %q", sp.Name, sp.Kind, sp.Service, k, got, v)
		}
	}
}

// one returns the only span of spans, failing the test otherwise.
func one(t *testing.T, what string, spans []otlptest.Span, all spanIndex, trace string) otlptest.Span {
	t.Helper()
	if len(spans) != 1 {
		t.Fatalf("%s: %d spans, want 1; the trace:\n%s", what, len(spans), otlptest.Tree(all, trace))
	}
	return spans[0]
}

// tracedSession connects through tr in era with x's instrumentation, runs
// body in a root span named name (plus the session's revision when name
// ends with a space), closes the session and returns the root's trace id
// and the session's revision and era.
func tracedSession(t *testing.T, x *telemetry.Export, tr rt.ClientTransport, era rt.Era, name string,
	body func(ctx context.Context, cs *rt.ClientSession)) (traceID, version string, stateless bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := rt.ClientOptions{Name: "everything-test", Version: "1", Era: era}
	x.InstrumentClient(&opts)
	cs, err := rt.Connect(ctx, tr, opts, v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer cs.Close()
	if strings.HasSuffix(name, " ") {
		name += cs.ProtocolVersion()
	}
	ctx, root := x.TracerProvider.Tracer("test").Start(ctx, name)
	body(ctx, cs)
	root.End()
	return root.SpanContext().TraceID().String(), cs.ProtocolVersion(), cs.Stateless()
}

// samplingTool is the tool whose handler asks the client for a
// completion: with a request in the stateful era, an input round in the
// stateless one.
func samplingTool(cs *rt.ClientSession) string {
	if cs.Stateless() {
		return "test_input_required_result_sampling"
	}
	return "test_sampling"
}

// flushAndWait flushes the client's telemetry and waits until the spans
// received satisfy ok.
func flushAndWait(t *testing.T, x *telemetry.Export, recv *otlptest.Receiver, ok func([]otlptest.Span) bool) ([]otlptest.Span, error) {
	t.Helper()
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return recv.WaitSpans(ctx, ok)
}

// TestTelemetry: bin/everything with OTEL_EXPORTER_OTLP_ENDPOINT set
// exports over OTLP/HTTP (protobuf) to a receiver the test runs, and so
// does the client; over stdio and Streamable HTTP, in both eras, one
// trace spans the client's call, the server's span, the server's request
// to the client (stateful: sampling/createMessage) or the input rounds
// (stateless), and the client's span serving it, with the conventions'
// names and attributes; a JSON-RPC error and a tool's isError mark their
// spans; the four duration metrics arrive with the conventions' buckets.
func TestTelemetry(t *testing.T) {
	recv := otlpEnv(t)
	x := clientExport(t)
	type result struct {
		name, trace, version string
		http, stateless      bool
	}
	var results []result
	for _, tc := range []struct {
		name string
		http bool
		era  rt.Era
	}{{"stdio/stateful", false, rt.Stateful}, {"stdio/stateless", false, rt.Stateless}, {"http/stateful", true, rt.Stateful}, {"http/stateless", true, rt.Stateless}} {
		var tr rt.ClientTransport = &stdio.CommandTransport{Path: binary}
		if tc.http {
			tr = &streamhttp.ClientTransport{URL: startHTTP(t)}
		}
		id, version, stateless := tracedSession(t, x, tr, tc.era, tc.name, func(ctx context.Context, cs *rt.ClientSession) {
			for _, tool := range []string{samplingTool(cs), "test_error_handling"} {
				if err := callTool(ctx, cs, tool, `{"prompt":"hi"}`); err != nil {
					t.Fatalf("%s: %s: %v", tc.name, tool, err)
				}
			}
			var je *jsonrpc.Error
			if err := callTool(ctx, cs, "no_such_tool", `{}`); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("%s: an unknown tool: %v", tc.name, err)
			}
		})
		results = append(results, result{tc.name, id, version, tc.http, stateless})
	}
	all, err := flushAndWait(t, x, recv, func(s []otlptest.Span) bool {
		n := 0
		for _, sp := range s {
			if sp.Service == "everything" && sp.Kind == "SERVER" && strings.HasPrefix(sp.Name, "tools/call") {
				n++
			}
		}
		return n >= 14
	})
	if err != nil {
		for _, sp := range all {
			t.Logf("%s %s %s %s parent %s", sp.Service, sp.Kind, sp.Name, sp.TraceID, sp.ParentID)
		}
		t.Fatal(err)
	}
	for _, r := range results {
		t.Run(r.name, func(t *testing.T) {
			spans := spanIndex(all).trace(r.trace)
			tree := otlptest.Tree(spans, r.trace)
			t.Logf("trace %s:\n%s", r.trace, tree)
			root := one(t, "the test's root span", spans.find("everything-test", "INTERNAL", r.name, ""), spans, r.trace)
			transport := map[bool]string{false: "pipe", true: "tcp"}[r.http]
			name := "tools/call test_sampling"
			if r.stateless {
				name = "tools/call test_input_required_result_sampling"
			}
			calls := spans.find("everything-test", "CLIENT", name, root.SpanID)
			if want := map[bool]int{false: 1, true: 2}[r.stateless]; len(calls) != want {
				t.Fatalf("%d client spans %q (one per round), want %d:\n%s", len(calls), name, want, tree)
			}
			for _, c := range calls {
				wantAttrs(t, c, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": strings.TrimPrefix(name, "tools/call "),
					"gen_ai.operation.name": "execute_tool", "mcp.protocol.version": r.version, "network.transport": transport, "error.type": "-"})
				srv := one(t, "the server's span of "+name, spans.find("everything", "SERVER", name, c.SpanID), spans, r.trace)
				wantAttrs(t, srv, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": strings.TrimPrefix(name, "tools/call "),
					"gen_ai.operation.name": "execute_tool", "mcp.protocol.version": r.version, "jsonrpc.request.id": "*",
					"network.transport": transport, "error.type": "-"})
				if r.http {
					wantAttrs(t, srv, map[string]string{"network.protocol.name": "http", "client.address": "127.0.0.1"})
					if !r.stateless {
						wantAttrs(t, srv, map[string]string{"mcp.session.id": "*"})
					}
				}
				if !r.stateless {
					out := one(t, "the server's sampling request", spans.find("everything", "CLIENT", "sampling/createMessage", srv.SpanID), spans, r.trace)
					wantAttrs(t, out, map[string]string{"mcp.method.name": "sampling/createMessage", "mcp.protocol.version": r.version})
					in := one(t, "the client serving it", spans.find("everything-test", "SERVER", "sampling/createMessage", out.SpanID), spans, r.trace)
					wantAttrs(t, in, map[string]string{"mcp.method.name": "sampling/createMessage", "jsonrpc.request.id": "*", "network.transport": transport})
				}
			}
			if r.stateless {
				// The input round the client answered: a span of its own
				// between the two rounds.
				in := one(t, "the client's answer to the input request", spans.find("everything-test", "SERVER", "sampling/createMessage", root.SpanID), spans, r.trace)
				wantAttrs(t, in, map[string]string{"mcp.method.name": "sampling/createMessage", "mcp.protocol.version": r.version})
				if !in.Start.After(calls[0].Start) || !in.End.Before(calls[1].End) {
					t.Errorf("the input round's span is not between the rounds:\n%s", tree)
				}
			}
			failing := one(t, "test_error_handling", spans.find("everything", "SERVER", "tools/call test_error_handling", "*"), spans, r.trace)
			wantAttrs(t, failing, map[string]string{"error.type": telemetry.ErrorTypeToolError, "rpc.response.status_code": "-"})
			if failing.StatusCode != "ERROR" {
				t.Errorf("a tool's isError: span status %s, want ERROR", failing.StatusCode)
			}
			unknown := one(t, "no_such_tool", spans.find("everything", "SERVER", "tools/call no_such_tool", "*"), spans, r.trace)
			wantAttrs(t, unknown, map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602"})
			if unknown.StatusCode != "ERROR" || !strings.Contains(unknown.StatusMessage, "no_such_tool") {
				t.Errorf("a JSON-RPC error: span status %s %q, want ERROR naming the tool", unknown.StatusCode, unknown.StatusMessage)
			}
			c := one(t, "the client's span of no_such_tool", spans.find("everything-test", "CLIENT", "tools/call no_such_tool", root.SpanID), spans, r.trace)
			wantAttrs(t, c, map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602"})
		})
	}
	logSpanTable(t, spanIndex(all).trace(results[2].trace))

	// The metrics: every export sends the cumulative points again, so
	// wait for the last ones (the servers flushed as they exited; the
	// HTTP ones export every 200 ms).
	want := []struct{ service, metric, method, transport string }{
		{"everything", "mcp.server.operation.duration", "tools/call", "pipe"},
		{"everything", "mcp.server.operation.duration", "tools/call", "tcp"},
		{"everything", "mcp.client.operation.duration", "sampling/createMessage", "pipe"},
		{"everything", "mcp.client.operation.duration", "sampling/createMessage", "tcp"},
		{"everything", "mcp.server.session.duration", "", "pipe"},
		{"everything-test", "mcp.client.operation.duration", "tools/call", "tcp"},
		{"everything-test", "mcp.server.operation.duration", "sampling/createMessage", "pipe"},
		{"everything-test", "mcp.client.session.duration", "", "tcp"},
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		missing := ""
		for _, w := range want {
			if p := findPoint(recv.Points(), w.service, w.metric, w.method, "network.transport", w.transport); p == nil {
				missing = fmt.Sprintf("%s from %s (method %q, %s)", w.metric, w.service, w.method, w.transport)
				break
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s", missing)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, w := range want {
		p := findPoint(recv.Points(), w.service, w.metric, w.method, "network.transport", w.transport)
		if p.Unit != "s" || !slices.Equal(p.Bounds, []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}) {
			t.Errorf("%s: unit %q, bounds %v; want s and the conventions' buckets", w.metric, p.Unit, p.Bounds)
		}
	}
	p := findPoint(recv.Points(), "everything", "mcp.server.operation.duration", "tools/call", "gen_ai.tool.name", "test_error_handling")
	if p == nil || p.Attrs["error.type"] != telemetry.ErrorTypeToolError {
		t.Errorf("test_error_handling's operation metric: %+v; want error.type tool_error", p)
	}
	logPointTable(t, recv.Points())
}

// callTool calls a tool with the generated client of the session's era
// (which follows input rounds).
func callTool(ctx context.Context, cs *rt.ClientSession, name, args string) error {
	if cs.Stateless() {
		_, err := v26.NewClient(cs).CallTool(ctx, &v26.CallToolRequestParams{Name: name, Arguments: v26.CallToolRequestParamsArguments(args)})
		return err
	}
	_, err := v25.NewClient(cs).CallTool(ctx, &v25.CallToolRequestParams{Name: name, Arguments: v25.CallToolRequestParamsArguments(args)})
	return err
}

// findPoint returns the last point of metric from service whose
// mcp.method.name is method ("" for any) and whose attributes include
// the pairs kv, or nil.
func findPoint(points []otlptest.Point, service, metric, method string, kv ...string) *otlptest.Point {
	for i := len(points) - 1; i >= 0; i-- {
		p := points[i]
		if p.Service != service || p.Metric != metric || (method != "" && p.Attrs["mcp.method.name"] != method) {
			continue
		}
		ok := true
		for j := 0; j+1 < len(kv); j += 2 {
			ok = ok && p.Attrs[kv[j]] == kv[j+1]
		}
		if ok {
			return &p
		}
	}
	return nil
}

// logSpanTable logs the spans of a trace as a Markdown table (for the
// issue's note; go test -v).
func logSpanTable(t *testing.T, spans spanIndex) {
	var sb strings.Builder
	sb.WriteString("| span | kind | service | attributes |\n|---|---|---|---|\n")
	slices.SortStableFunc(spans, func(a, b otlptest.Span) int { return a.Start.Compare(b.Start) })
	for _, sp := range spans {
		as := pairs(sp.Attrs)
		if sp.StatusCode == "ERROR" {
			as = append(as, "status=ERROR")
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s |\n", sp.Name, sp.Kind, sp.Service, strings.Join(as, ", "))
	}
	t.Logf("spans of the http/stateful trace:\n%s", sb.String())
}

// pairs are attributes as key=value, sorted by key.
func pairs(attrs map[string]string) []string {
	var as []string
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		as = append(as, k+"="+attrs[k])
	}
	return as
}

// logPointTable logs the last point of each metric series.
func logPointTable(t *testing.T, points []otlptest.Point) {
	seen := map[string]otlptest.Point{}
	var order []string
	for _, p := range points {
		id := p.Service + " | " + p.Metric + " | " + strings.Join(pairs(p.Attrs), ", ")
		if _, ok := seen[id]; !ok {
			order = append(order, id)
		}
		seen[id] = p
	}
	sort.Strings(order)
	var sb strings.Builder
	sb.WriteString("| service | metric | attributes | count |\n|---|---|---|---|\n")
	for _, id := range order {
		fmt.Fprintf(&sb, "| %s | %d |\n", id, seen[id].Count)
	}
	t.Logf("metric series:\n%s", sb.String())
}

// TestTraceAcrossInstances: two bin/everything instances sharing a real
// redis-server behind a round-robin proxy. The stateful session's
// sampling request goes out on one instance's stream and the client's
// answer reaches the other, which relays it: the span of the request
// ends with its answer, in the client's trace; the stateless era's
// second input round lands on the other instance and continues the same
// trace; a task created on one instance and read on the other too.
func TestTraceAcrossInstances(t *testing.T) {
	recv := otlpEnv(t)
	x := clientExport(t)
	redis := redistest.Start(t)
	store := "EVERYTHING_REDIS=redis://" + redis.Addr + "/0"
	var urls []string
	for _, id := range []string{"a", "b"} {
		cmd, u, _ := launchHTTP(t, store, "OTEL_RESOURCE_ATTRIBUTES=service.instance.id="+id)
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			stop := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
			_ = cmd.Wait()
			stop.Stop()
		})
		urls = append(urls, u)
	}
	ps := serveProxy(t, rrproxy.New(urls, nil))

	var traces []string
	for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
		id, _, _ := tracedSession(t, x, &streamhttp.ClientTransport{URL: ps.URL}, era, "across instances ", func(ctx context.Context, cs *rt.ClientSession) {
			for range 2 { // whichever instance the proxy starts with, one call crosses
				if err := callTool(ctx, cs, samplingTool(cs), `{"prompt":"hi"}`); err != nil {
					t.Fatal(err)
				}
			}
			if cs.Stateless() {
				return
			}
			// A task: created on one instance, its result read through
			// the other.
			var res wire.Raw
			if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"slow_compute","arguments":{"seconds":0.1,"label":"traced"},"task":{"ttl":60000}}`), &res); err != nil {
				t.Fatal(err)
			}
			task, _ := wire.MemberOf(res, "task")
			tid, _ := wire.MemberOf(task, "taskId")
			var out wire.Raw
			if err := cs.Call(ctx, "tasks/result", wire.Raw(`{"taskId":`+string(tid)+`}`), &out); err != nil {
				t.Fatal(err)
			}
		})
		traces = append(traces, id)
	}
	all, err := flushAndWait(t, x, recv, func(s []otlptest.Span) bool {
		for _, id := range traces {
			instances := map[string]bool{}
			for _, sp := range s {
				if sp.TraceID == id && sp.Service == "everything" {
					instances[sp.Resource["service.instance.id"]] = true
				}
			}
			if !instances["a"] || !instances["b"] {
				return false
			}
		}
		return true
	})
	for i, id := range traces {
		spans := spanIndex(all).trace(id)
		t.Logf("trace %s:\n%s", id, otlptest.Tree(spans, id))
		if err != nil {
			continue
		}
		for _, sp := range spans.find("everything", "CLIENT", "sampling/createMessage", "*") {
			if sp.StatusCode == "ERROR" || len(spans.find("everything-test", "SERVER", "sampling/createMessage", sp.SpanID)) != 1 {
				t.Errorf("era %d: the sampling request on instance %s: status %s; want it answered, with the client's span as its child", i, sp.Resource["service.instance.id"], sp.StatusCode)
			}
		}
		for _, sp := range spans {
			if sp.Service == "everything" && sp.Kind == "SERVER" && !slices.ContainsFunc(spans, func(c otlptest.Span) bool {
				return c.Service == "everything-test" && c.Kind == "CLIENT" && c.Name == sp.Name && c.SpanID == sp.ParentID
			}) {
				t.Errorf("era %d: server span %s on instance %s has no client span as its parent", i, sp.Name, sp.Resource["service.instance.id"])
			}
		}
	}
	if err != nil {
		t.Fatalf("spans of both instances in each trace: %v", err)
	}
}

// TestTypeScriptClientTrace: the official TypeScript client sends
// traceparent and tracestate in params._meta (as a client instrumented by
// the conventions does); bin/everything's spans are children of its span,
// in both eras, over stdio and Streamable HTTP, and the server's sampling request carries the trace on to
// the client.
func TestTypeScriptClientTrace(t *testing.T) {
	interopDir(t)
	recv := otlpEnv(t)
	url := startHTTP(t)
	for _, tc := range []struct{ era, transport string }{{"legacy", "stdio"}, {"modern", "stdio"}, {"legacy", "http"}, {"modern", "http"}} {
		era := tc.era
		t.Run(tc.transport+"/"+era, func(t *testing.T) {
			args := []string{"--era", era, "--stdio", binary, "--script", "trace"}
			if tc.transport == "http" {
				args = []string{"--era", era, "--http", url, "--script", "trace"}
			}
			r := tsClient(t, args...)
			traceID, parent := r["traceId"].(string), r["parentSpanId"].(string)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			spans, err := recv.WaitSpans(ctx, func(s []otlptest.Span) bool {
				return len(spanIndex(s).trace(traceID).find("everything", "SERVER", "tools/call echo", parent)) >= 1
			})
			if err != nil {
				t.Fatalf("no server span with the TypeScript client's span as parent: %v\n%s", err, otlptest.Tree(spans, traceID))
			}
			if era == "legacy" {
				tps, _ := r["samplingTraceparents"].([]any)
				if len(tps) == 0 {
					t.Fatalf("no sampling request reached the TypeScript client: %v", r)
				}
				tp, _ := tps[0].(string)
				if !strings.HasPrefix(tp, "00-"+traceID+"-") {
					t.Errorf("the server's sampling request carried traceparent %q; want the client's trace %s", tp, traceID)
				}
			}
		})
	}
}
