package streamhttp

import "github.com/mcpgen/mcpgen/runtime/mcpheader"

// The HTTP headers of the transport. The request metadata headers of the
// stateless protocol (Mcp-Method, Mcp-Name, Mcp-Param-*) and their rules
// are the core's (package mcp).
const (
	hdrSessionID       = "Mcp-Session-Id"
	hdrProtocolVersion = mcpheader.ProtocolVersion // MCP-Protocol-Version
	hdrLastEventID     = "Last-Event-Id"
)
