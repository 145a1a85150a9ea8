// Package mcpgoecho is the echo server of github.com/mark3labs/mcp-go, apart
// from package echo so that a binary serving another stack does not link it.
package mcpgoecho

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgen/mcpgen/bench/echo"
)

// New returns an mcp-go server with echo (its handler reads the argument
// with CallToolRequest.RequireString from the map mcp-go decoded). mcp-go
// checks arguments against the inputSchema only with validate
// (server.WithInputSchemaValidation, off by mcp-go's default).
func New(validate bool) *mcpgoserver.MCPServer {
	var opts []mcpgoserver.ServerOption
	if validate {
		opts = append(opts, mcpgoserver.WithInputSchemaValidation())
	}
	srv := mcpgoserver.NewMCPServer("mcpgo-echo", "bench", opts...)
	srv.AddTool(mcpgo.NewToolWithRawSchema("echo", echo.Description, []byte(echo.InputSchema)),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText(text), nil
		})
	return srv
}
