package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/telemetry/otlptest"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// runTraceDemo shows one trace per era: the client calls test_sampling on
// server (over stdio), whose handler asks the client for a completion —
// in the stateful era with a sampling/createMessage request, in the
// stateless era with an input round. Both processes export their spans
// over OTLP/HTTP (protobuf) to a receiver this program runs on 127.0.0.1,
// and the demo prints each trace as a tree.
func runTraceDemo(server string) error {
	recv, err := otlptest.Start()
	if err != nil {
		return err
	}
	defer recv.Close()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint(), "OTEL_SERVICE_NAME="}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	export, err := telemetry.FromEnv(ctx, "everything-client", telemetry.Options{})
	if err != nil {
		return err
	}
	tracer := export.TracerProvider.Tracer("everything-client")
	var traces []string
	for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
		id, err := tracedCall(ctx, tracer, export.Telemetry, server, era)
		if err != nil {
			return err
		}
		traces = append(traces, id)
	}
	if err := export.Shutdown(ctx); err != nil {
		return fmt.Errorf("flushing the client's spans: %w", err)
	}
	// The server flushed its spans as it exited (the session's end
	// closed its standard input).
	spans, err := recv.WaitSpans(ctx, func(s []otlptest.Span) bool {
		services := map[string]bool{}
		for _, sp := range s {
			services[sp.Service] = true
		}
		return services["everything"] && services["everything-client"]
	})
	if err != nil {
		return err
	}
	for i, id := range traces {
		show("\n== trace %s (%s era), as the OTLP receiver got it from both processes:", id, []string{"stateful", "stateless"}[i])
		fmt.Print(otlptest.Tree(spans, id))
	}
	return nil
}

// tracedCall calls test_sampling (stateful) or
// test_input_required_result_sampling (stateless) in a span of its own, over a session of
// era with server, and returns the trace's id.
func tracedCall(ctx context.Context, tracer trace.Tracer, tel *telemetry.Telemetry, server string, era rt.Era) (string, error) {
	opts := rt.ClientOptions{Name: "everything-client", Version: "0.1.0", Era: era}
	tel.InstrumentClient(&opts)
	cs, err := rt.Connect(ctx, &stdio.CommandTransport{Path: server, Stderr: os.Stderr, Env: os.Environ()}, opts,
		v25.Mount(legacyHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		return "", err
	}
	defer cs.Close()
	ctx, span := tracer.Start(ctx, "demo "+cs.ProtocolVersion())
	defer span.End()
	if cs.Stateless() {
		_, err = v26.NewClient(cs).CallTool(ctx, &v26.CallToolRequestParams{Name: "test_input_required_result_sampling"})
	} else {
		_, err = v25.NewClient(cs).CallTool(ctx, &v25.CallToolRequestParams{Name: "test_sampling", Arguments: v25.CallToolRequestParamsArguments(`{"prompt":"Say hi"}`)})
	}
	return span.SpanContext().TraceID().String(), err
}
