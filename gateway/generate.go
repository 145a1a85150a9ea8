package gateway

// The protocol packages of the five published revisions and the bridges
// that carry each older one to 2026-07-28, the revision the gateway is
// written in: build outputs (gitignored), made by go generate as a
// user's would be — from $MCPGEN_SPEC_ROOT when set (make sets it to
// ../shared/mcp-schema), else from the user cache or a checked download.

//go:generate go tool mcpgen --revision 2024-11-05 --out mcp/v20241105
//go:generate go tool mcpgen --revision 2025-03-26 --out mcp/v20250326
//go:generate go tool mcpgen --revision 2025-06-18 --out mcp/v20250618
//go:generate go tool mcpgen --revision 2025-11-25 --out mcp/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --out mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20241105 --to mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20250326 --to mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20250618 --to mcp/v20260728
//go:generate go tool mcpgen convert --from mcp/v20251125 --to mcp/v20260728
