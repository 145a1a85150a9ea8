// Command server serves a greet tool over stdio in two protocol eras: the
// stateful 2025-11-25 (initialize) and the stateless 2026-07-28.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
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
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "downstream", Version: "1.0.0"},
		v25.Mount(legacy{}),
		v26.Mount(modern{}),
	)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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

// legacy serves 2025-11-25.
type legacy struct{}

func (legacy) ListTools(context.Context, *v25.PaginatedRequestParams) (*v25.ListToolsResult, error) {
	return &v25.ListToolsResult{Tools: []v25.Tool{{Name: "greet", Description: wire.Some(greetDoc), InputSchema: &v25.ToolInputSchema{}}}}, nil
}

func (legacy) CallTool(_ context.Context, p *v25.CallToolRequestParams) (v25.CallToolReply, error) {
	text, err := greeting(wire.Raw(p.Arguments))
	if err != nil {
		return &v25.CallToolResult{IsError: wire.Some(true), Content: []v25.ContentBlock{&v25.TextContent{Text: err.Error()}}}, nil
	}
	return &v25.CallToolResult{Content: []v25.ContentBlock{&v25.TextContent{Text: text}}}, nil
}

// modern serves 2026-07-28.
type modern struct{}

func (modern) ListTools(context.Context, *v26.PaginatedRequestParams) (*v26.ListToolsResult, error) {
	return &v26.ListToolsResult{Tools: []v26.Tool{{Name: "greet", Description: wire.Some(greetDoc), InputSchema: &v26.ToolInputSchema{}}}}, nil
}

func (modern) CallTool(_ context.Context, p *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	text, err := greeting(wire.Raw(p.Arguments))
	if err != nil {
		return &v26.CallToolResult{IsError: wire.Some(true), Content: []v26.ContentBlock{&v26.TextContent{Text: err.Error()}}}, nil
	}
	return &v26.CallToolResult{Content: []v26.ContentBlock{&v26.TextContent{Text: text}}}, nil
}
