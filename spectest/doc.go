// Package spectest exercises the packages mcpgen generates for the official
// MCP revisions: round trips of the spec's examples and of our own vectors,
// the differential test of generated validators against jsonschema, fuzzing
// and benchmarks.
//
// The generated packages are build outputs, not committed: `go generate`
// (make test does it) writes them under mcp/, one per revision, with a
// registry of their types for the harness.
package spectest

//go:generate go run ./internal/specgen
