// Package registry checks the server.json mcpgen tools writes against the
// MCP registry's own published definition of it: the JSON Schema and the
// Go types of github.com/modelcontextprotocol/registry, pinned in go.mod
// (v1.8.9: docs/reference/server-json/draft/server.schema.json, $id
// https://raw.githubusercontent.com/modelcontextprotocol/registry/main/docs/reference/server-json/draft/server.schema.json,
// and pkg/api/v0.ServerJSON). The module is fetched through the Go module
// proxy and checked against go.sum, never copied here. A module of its
// own, so that mcpgen's module does not depend on the registry's. Run
// with make test-registry.
package registry
