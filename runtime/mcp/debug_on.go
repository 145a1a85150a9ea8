//go:build mcpgen_debug

package mcp

// debugBuild reports a binary built with the mcpgen_debug build tag, which
// turns on the runtime's own checks by default (ValidateResultsAuto).
const debugBuild = true
