// Package gosdkecho is the echo server of the official go-sdk
// (github.com/modelcontextprotocol/go-sdk), apart from package echo so that
// a binary serving another stack does not link it.
package gosdkecho

import (
	"context"
	"log/slog"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/bench/echo"
)

// In is the echo tool's arguments; go-sdk infers InputSchema from it.
type In struct {
	Text string `json:"text" jsonschema:"The text to echo"`
}

// New returns a go-sdk server with echo added by the generic mcp.AddTool
// (the SDK infers the inputSchema from In, validates every call's
// arguments against it and unmarshals them).
func New(logger *slog.Logger) *gosdk.Server {
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-echo", Version: "bench"},
		&gosdk.ServerOptions{Logger: logger})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "echo", Description: echo.Description},
		func(_ context.Context, _ *gosdk.CallToolRequest, in In) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
		})
	return srv
}
