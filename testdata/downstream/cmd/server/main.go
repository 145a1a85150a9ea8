// Command server serves a greet tool over stdio in two protocol eras: the
// stateful 2025-11-25 (initialize) and the stateless 2026-07-28. It uses
// the optional modules as a user's server would: OpenTelemetry when
// OTEL_EXPORTER_OTLP_ENDPOINT is set (runtime/telemetry), and a rate limit
// whose buckets are in Redis when DOWNSTREAM_REDIS names one
// (runtime/store/redis).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/store/redis"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "example.com/downstream/mcp/v20251125"
	v26 "example.com/downstream/mcp/v20260728"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := mcp.ServerOptions{Name: "downstream", Version: "1.0.0"}
	x, err := telemetry.FromEnv(ctx, "downstream", telemetry.Options{}) // nil without an endpoint
	if err != nil {
		return err
	}
	if x != nil {
		defer x.Shutdown(context.Background())
		x.InstrumentServer(&opts)
	}
	if url := os.Getenv("DOWNSTREAM_REDIS"); url != "" {
		ro, err := goredis.ParseURL(url)
		if err != nil {
			return err
		}
		limit := ratelimit.Limit{Rate: 10, Burst: 20}
		opts.Middleware = append(opts.Middleware, ratelimit.Middleware(ratelimit.Options{
			Limit: limit, Limiter: redis.NewRateLimiter(goredis.NewClient(ro), redis.Options{}, limit),
		}))
	}
	srv, err := mcp.NewServer(opts, v25.Mount(stateful{}), v26.Mount(stateless{}))
	if err != nil {
		return err
	}
	return stdio.Serve(ctx, srv, os.Stdin, os.Stdout, stdio.Options{})
}

// greeting is what greet answers for its arguments.
func greeting(args wire.Raw) (string, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(args, &in); err != nil || in.Name == "" {
		return "", fmt.Errorf("greet wants {\"name\": string}")
	}
	return "Hello, " + in.Name + "!", nil
}

const greetDoc = "Greets someone by name."

// stateful serves 2025-11-25.
type stateful struct{}

func (stateful) ListTools(context.Context, *v25.PaginatedRequestParams) (*v25.ListToolsResult, error) {
	return &v25.ListToolsResult{Tools: []v25.Tool{{Name: "greet", Description: wire.Some(greetDoc), InputSchema: &v25.ToolInputSchema{}}}}, nil
}

func (stateful) CallTool(_ context.Context, p *v25.CallToolRequestParams) (v25.CallToolReply, error) {
	text, err := greeting(wire.Raw(p.Arguments))
	if err != nil {
		return &v25.CallToolResult{IsError: wire.Some(true), Content: []v25.ContentBlock{&v25.TextContent{Text: err.Error()}}}, nil
	}
	return &v25.CallToolResult{Content: []v25.ContentBlock{&v25.TextContent{Text: text}}}, nil
}

// stateless serves 2026-07-28.
type stateless struct{}

func (stateless) ListTools(context.Context, *v26.PaginatedRequestParams) (*v26.ListToolsResult, error) {
	return &v26.ListToolsResult{Tools: []v26.Tool{{Name: "greet", Description: wire.Some(greetDoc), InputSchema: &v26.ToolInputSchema{}}}}, nil
}

func (stateless) CallTool(_ context.Context, p *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	text, err := greeting(wire.Raw(p.Arguments))
	if err != nil {
		return &v26.CallToolResult{IsError: wire.Some(true), Content: []v26.ContentBlock{&v26.TextContent{Text: err.Error()}}}, nil
	}
	return &v26.CallToolResult{Content: []v26.ContentBlock{&v26.TextContent{Text: text}}}, nil
}
