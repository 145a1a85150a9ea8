package telemetry_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
)

// A server instrumented from the standard OpenTelemetry environment: with
// OTEL_EXPORTER_OTLP_ENDPOINT set, its spans and metrics go there and its
// log records name their trace; without it, nothing changes. Mount the
// generated packages of your revisions as usual (mcp.NewServer(opts,
// v20260728.Mount(handler))).
func ExampleFromEnv() {
	ctx := context.Background()
	var logs slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	opts := mcp.ServerOptions{Name: "weather", Version: "1.0.0"}
	x, err := telemetry.FromEnv(ctx, "weather", telemetry.Options{})
	if err != nil {
		panic(err)
	}
	if x != nil {
		defer x.Shutdown(context.Background()) // flush before exit
		x.InstrumentServer(&opts)
		logs = telemetry.LogHandler(logs)
	}
	opts.Logger = slog.New(logs)
	_ = opts // mcp.NewServer(opts, ...)
	// Output:
}

// A client whose calls carry their trace to the server, with the caller's
// spans from a provider of its own.
func ExampleTelemetry_InstrumentClient() {
	opts := mcp.ClientOptions{Name: "agent", Version: "1.0.0"}
	telemetry.New(telemetry.Options{Parent: telemetry.Parent}).InstrumentClient(&opts)
	_ = opts // mcp.Connect(ctx, transport, opts, v20260728.Mount(handler))
	// Output:
}
