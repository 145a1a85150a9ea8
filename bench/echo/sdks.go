package echo

import (
	"context"
	"log/slog"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDKIn is the echo tool's arguments; go-sdk infers InputSchema from it.
type GoSDKIn struct {
	Text string `json:"text" jsonschema:"The text to echo"`
}

// GoSDK returns a go-sdk server with echo added by the generic mcp.AddTool
// (the SDK infers the inputSchema from GoSDKIn, validates every call's
// arguments against it and unmarshals them).
func GoSDK(logger *slog.Logger) *gosdk.Server {
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-echo", Version: "bench"},
		&gosdk.ServerOptions{Logger: logger})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "echo", Description: Description},
		func(_ context.Context, _ *gosdk.CallToolRequest, in GoSDKIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
		})
	return srv
}

// MCPGo returns an mcp-go server with echo (its handler reads the argument
// with CallToolRequest.RequireString from the map mcp-go decoded). mcp-go
// checks arguments against the inputSchema only with validate
// (server.WithInputSchemaValidation, off by mcp-go's default).
func MCPGo(validate bool) *mcpgoserver.MCPServer {
	var opts []mcpgoserver.ServerOption
	if validate {
		opts = append(opts, mcpgoserver.WithInputSchemaValidation())
	}
	srv := mcpgoserver.NewMCPServer("mcpgo-echo", "bench", opts...)
	srv.AddTool(mcpgo.NewToolWithRawSchema("echo", Description, []byte(InputSchema)),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText(text), nil
		})
	return srv
}
