// Command everything is an MCP server that serves every published protocol
// revision from one binary — 2024-11-05, 2025-03-26, 2025-06-18 and
// 2025-11-25 (stateful, initialize) and 2026-07-28 (stateless) — on stdio
// (default) or Streamable HTTP. The fixtures are declared once
// (declared.go); what a Go type cannot declare is one handler set written
// for 2026-07-28 (handlers.go), mounted for the older revisions through
// the bridges mcpgen convert generates. It implements the fixtures of the
// official conformance suite plus an echo tool and count_to, a resumable
// tool (the packages are generated with the resumable extension).
//
// Its protocol packages are generated, as a user's would be, with go
// generate: the revisions come from $MCPGEN_SPEC_ROOT when set (make sets
// it to ../shared/mcp-schema), else from the user cache or a checked
// download.
package main

//go:generate go tool mcpgen --revision 2024-11-05 --out mcp/v20241105
//go:generate go tool mcpgen --revision 2025-03-26 --out mcp/v20250326
//go:generate go tool mcpgen --revision 2025-06-18 --out mcp/v20250618
//go:generate go tool mcpgen --revision 2025-11-25 --extension resumable --out mcp/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --extension resumable --out mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20241105 --to mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20250326 --to mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20250618 --to mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20251125 --to mcp/v20260728
//go:generate go tool mcpgen tools
