// Package mcpgenecho is the echo server of mcpgen: both eras (2025-11-25
// and 2026-07-28) mounted on one server, the handler reading its argument
// in place as examples/everything's echo does.
package mcpgenecho

import (
	"context"
	"errors"
	"log/slog"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/bench/echo"
	v25 "github.com/mcpgen/mcpgen/bench/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/bench/mcp/v20260728"
)

// handler25 serves echo for revision 2025-11-25 (the stateful era).
type handler25 struct{ tools *v25.ListToolsResult }

// ListTools answers the echo tool; the runtime calls it once to learn the
// tool's inputSchema.
func (h *handler25) ListTools(context.Context, *v25.PaginatedRequestParams) (*v25.ListToolsResult, error) {
	return h.tools, nil
}

// CallTool answers echo with its text argument as one text block.
func (h *handler25) CallTool(_ context.Context, p *v25.CallToolRequestParams) (v25.CallToolReply, error) {
	s, err := text(p.Name, wire.Raw(p.Arguments))
	if err != nil {
		return nil, err
	}
	return &v25.CallToolResult{Content: []v25.ContentBlock{&v25.TextContent{Text: s}}}, nil
}

// handler26 serves echo for revision 2026-07-28 (the stateless era).
type handler26 struct{ tools *v26.ListToolsResult }

// ListTools answers the echo tool.
func (h *handler26) ListTools(context.Context, *v26.PaginatedRequestParams) (*v26.ListToolsResult, error) {
	return h.tools, nil
}

// CallTool answers echo with its text argument as one text block.
func (h *handler26) CallTool(_ context.Context, p *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	s, err := text(p.Name, wire.Raw(p.Arguments))
	if err != nil {
		return nil, err
	}
	return &v26.CallToolResult{Content: []v26.ContentBlock{&v26.TextContent{Text: s}}}, nil
}

// text returns the text argument of an echo call, reading the raw
// arguments in place as examples/everything's echo does (the runtime has
// already checked them against the inputSchema).
func text(tool string, args wire.Raw) (string, error) {
	if tool != "echo" {
		return "", rt.InvalidParams("/params/name", "unknown tool "+tool)
	}
	d := wire.NewDecoder(args)
	k, s, err := d.PeekMember("text")
	if err != nil || k != wire.String {
		return "", rt.InvalidParams("/params/arguments/text", "want a string")
	}
	return string(s), nil
}

// New returns an mcpgen server with echo in both eras (2025-11-25 and
// 2026-07-28 mounted side by side), logging to logger.
func New(logger *slog.Logger) (*rt.Server, error) {
	h25 := &handler25{tools: new(v25.ListToolsResult)}
	h26 := &handler26{tools: new(v26.ListToolsResult)}
	if err := errors.Join(wire.Unmarshal([]byte(echo.ToolList), h25.tools), wire.Unmarshal([]byte(echo.ToolList), h26.tools)); err != nil {
		return nil, err
	}
	return rt.NewServer(rt.ServerOptions{Name: "mcpgen-echo", Version: "bench", Logger: logger},
		v25.Mount(h25), v26.Mount(h26))
}
