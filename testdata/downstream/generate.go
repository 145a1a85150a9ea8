// Package downstream is a module that uses mcpgen the way a user's would:
// mcpgen is a tool of the module (go.mod), go generate writes one protocol
// package per revision, and nothing generated is committed. The revisions
// come from the spec root, the user cache or a checked download; see
// "Using mcpgen in your repository" in mcpgen's README.
//
// cmd/server serves a greet tool in both protocol eras; cmd/client calls it
// with the generated typed clients. mcpgen's test
// (cmd/mcpgen/downstream_test.go) generates, vendors, builds, vets and runs
// them.
package downstream

//go:generate go tool mcpgen --revision 2025-11-25 --out mcp/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --out mcp/v20260728
