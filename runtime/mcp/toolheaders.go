package mcp

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// toolHeaders returns the x-mcp-header annotations of the tool a
// tools/call of mount m names (nil for unknown tools and tools without
// annotations; tools whose annotations are invalid have none). They are
// learned with the tools' schemas: the tools are listed through the
// handler once, with the request's _meta, and again after the tool list
// changes.
func (s *Server) toolHeaders(ctx context.Context, in *inbound, m *mounted) []mcpheader.Param {
	if ts := s.tools.learned(m); ts != nil {
		if tool := ts.tools[in.toolName()]; tool != nil {
			return tool.headers
		}
		return nil
	}
	// The first call lists the tools through the handler, as a request
	// of its own.
	rc := &reqCtx{Context: ctx}
	rc.r = Request{Method: in.req.Method, ID: in.req.ID, Protocol: m.Protocol, server: s, mount: m, out: discardOut{}, in: *in}
	rc.r.client = metaClient{&rc.r}
	rc.r.ctx = rc
	defer rc.r.finish()
	if ts := s.tools.set(rc, m, in.req.Params).tools[in.toolName()]; ts != nil {
		return ts.headers
	}
	return nil
}

// discardOut drops the related messages of an internal request.
type discardOut struct{}

func (discardOut) Notify(context.Context, string, wire.Marshaler) error { return nil }
