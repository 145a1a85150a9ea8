package mcp

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/toolschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The tool checks: a tools/call's arguments against the tool's
// inputSchema and its structuredContent against its outputSchema, the
// steps the engine puts first and last in a tools/call's chain unless
// ServerOptions.DisableToolSchemas, and, on a revision whose tools/call is
// mirrored in headers (Mcp-Name: the stateless Streamable HTTP
// transport), the x-mcp-header annotations. Package toolschema learns the
// tools (listing them through the handler once per mounted revision, with
// the caller's _meta), compiles and checks; the server forgets them when
// the tool list changes (Server.NotifyListChanged). Arguments that do not
// match are a tool execution error (isError), as the tools specification
// asks, so the model can correct itself; a result that breaks its
// outputSchema is a server bug, answered as an internal error.

// tool is the tool a tools/call of m names, learning m's tools first.
func (s *Server) tool(rc *reqCtx, m *mounted) *toolschema.Tool {
	if tool, learned := s.tools.Learned(m, rc.r.in.toolName()); learned {
		return tool
	}
	l := toolschema.Learning{Meta: metaOf(rc.r.in.req.Params), Log: s.log, Schemas: !s.opts.DisableToolSchemas}
	if call := m.Protocol.Role(protocol.RoleToolsCall); call != nil {
		l.Headers = call.NameParam != ""
	}
	if list := m.Protocol.Role(protocol.RoleToolsList); list != nil && list.Serve != nil && list.Implemented != nil && list.Implemented(m.Handler) {
		l.List = func(params wire.Raw) (wire.Marshaler, error) { return list.Serve(rc, m.Handler, params) }
	}
	return s.tools.Get(m, rc.r.in.toolName(), l)
}

// checkCall checks the arguments of a tools/call. A non-nil result is the
// tool execution error to answer with.
func (s *Server) checkCall(rc *reqCtx, m *mounted) (wire.Marshaler, error) {
	if s.opts.DisableToolSchemas {
		return nil, nil
	}
	name := rc.r.in.toolName()
	if msg := s.tool(rc, m).CheckArguments(rc.r.in.args); msg != "" {
		if m.Protocol.ToolError == nil {
			return nil, InvalidParams("/params/arguments", "invalid arguments for tool "+name+": "+msg)
		}
		return m.Protocol.ToolError("invalid arguments for tool " + name + ": " + msg), nil
	}
	return nil, nil
}

// checkResult checks the structuredContent of a tools/call's result.
func (s *Server) checkResult(rc *reqCtx, m *mounted, res wire.Marshaler) error {
	tool := s.tool(rc, m)
	if tool == nil || tool.Out == nil {
		return nil
	}
	data, ok := written(res)
	if !ok {
		var err error
		if data, err = wire.Marshal(res); err != nil {
			return err
		}
	}
	if msg := tool.CheckResult(data); msg != "" {
		return fmt.Errorf("tool %s: structuredContent does not match its outputSchema: %s", rc.r.in.toolName(), msg)
	}
	return nil
}

// toolHeaders returns the x-mcp-header annotations of the tool a
// tools/call of mount m names (nil for unknown tools and tools without
// annotations). The first call lists the tools through the handler, as a
// request of its own.
func (s *Server) toolHeaders(ctx context.Context, in *inbound, m *mounted) []mcpheader.Param {
	if tool, learned := s.tools.Learned(m, in.toolName()); learned {
		if tool == nil {
			return nil
		}
		return tool.Headers
	}
	rc := &reqCtx{Context: ctx}
	rc.r = Request{Method: in.req.Method, ID: in.req.ID, Protocol: m.Protocol, server: s, mount: m, out: discardOut{}, in: *in}
	rc.r.client = metaClient{&rc.r}
	rc.r.ctx = rc
	defer rc.r.finish()
	if tool := s.tool(rc, m); tool != nil {
		return tool.Headers
	}
	return nil
}

// discardOut drops the related messages of an internal request.
type discardOut struct{}

func (discardOut) Notify(context.Context, string, wire.Marshaler) error { return nil }

// metaOf returns params._meta, or nil.
func metaOf(params wire.Raw) wire.Raw {
	meta, _ := wire.MemberOf(params, "_meta")
	return meta
}
