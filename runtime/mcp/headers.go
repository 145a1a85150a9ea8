package mcp

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The request metadata headers of the stateless protocol on Streamable
// HTTP (package mcpheader) are checked here against the message's
// classification: the rules read it, never the body again.

// checkHeaders checks the request metadata headers of a stateless request
// against its classification (2026-07-28, Streamable HTTP: Server
// Validation): a missing MCP-Protocol-Version first, then one that differs
// from the _meta protocolVersion. A version not served gets -32022 with
// the supported ones. A body without _meta protocolVersion is judged by
// the header's version (a method that revision lacks gets -32601; a
// notification method with an id -32600) and otherwise left to
// the stateless era (-32602). Then come Mcp-Method, Mcp-Name and the
// Mcp-Param-* headers of the tool's x-mcp-header annotations, before
// the stateless era judges the method. It is nil when the headers agree.
func (s *Server) checkHeaders(ctx context.Context, in *inbound, hd mcpheader.Values) *jsonrpc.Error {
	method := in.req.Method
	hv, ok := mcpheader.Get(hd, mcpheader.ProtocolVersion)
	if !ok {
		return mcpheader.Mismatch("missing MCP-Protocol-Version header")
	}
	mv := in.meta.protocolVersion
	if mv != "" && hv != mv {
		return mcpheader.Mismatch("MCP-Protocol-Version header %q does not match _meta %s %q", hv, MetaProtocolVersion, mv)
	}
	if mv == "" {
		// Nothing to check the headers against: what the header declares
		// decides, else the stateless era answers the missing _meta.
		return s.statelessError(hv, method, false)
	}
	mount := s.byRev[mv]
	if mount == nil || !mount.Protocol.Stateless() {
		return s.statelessError(mv, method, false)
	}
	hm, ok := mcpheader.Get(hd, mcpheader.Method)
	if !ok {
		return mcpheader.Mismatch("missing Mcp-Method header")
	}
	if hm != method {
		return mcpheader.Mismatch("Mcp-Method header %q does not match the method %q", hm, method)
	}
	// The method's table entry, the extensions' included, names what
	// Mcp-Name mirrors, whether or not the server serves the method.
	md := mount.Protocol.Lookup(method)
	if md == nil {
		return nil
	}
	if np := md.NameParam; np != "" {
		body, present := in.member(&s.revisions, np)
		hn, has := mcpheader.Get(hd, mcpheader.Name)
		switch {
		case !has && present:
			return mcpheader.Mismatch("missing Mcp-Name header (params.%s is %q)", np, body)
		case has:
			v, err := mcpheader.DecodeValue(hn)
			if err != nil {
				return mcpheader.Mismatch("Mcp-Name header is not a valid value")
			}
			if !present || v != body {
				return mcpheader.Mismatch("Mcp-Name header %q does not match params.%s %q", v, np, body)
			}
		}
	}
	if md.Role == protocol.RoleToolsCall {
		return mcpheader.CheckParams(hd, in.args, s.toolHeaders(ctx, in, mount))
	}
	return nil
}
