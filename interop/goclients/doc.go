// Package goclients holds interop tests of bin/everything with the other
// Go MCP clients — the official go-sdk and mcp-go — over stdio and
// Streamable HTTP, one protocol revision at a time. A module of its own,
// so that mcpgen's module does not depend on them. Run with make
// test-goclients (which builds bin/everything first).
package goclients
