// Package bench compares one MCP tools/call round trip of an echo tool
// across three Go MCP stacks — mcpgen (this repository), the official
// github.com/modelcontextprotocol/go-sdk and github.com/mark3labs/mcp-go —
// over the stdio transport's newline-delimited JSON framing, carried by
// in-process pipes. Everything lives in the _test.go files; see README.md.
//
// The mcpgen stack uses protocol packages generated here, as a user's
// would be (they are build outputs, not committed):
//
//	MCPGEN_SPEC_ROOT=/path/to/mcp-schema go generate
package bench

//go:generate go tool mcpgen --revision 2025-11-25 --out mcp/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --out mcp/v20260728
