// Package mcp is the revision-agnostic core of the MCP runtime: it serves
// the revisions a server mounts over any transport, with each revision's
// lifecycle rules (initialize and sessions for 2024-11-05 … 2025-11-25;
// per-request _meta for 2026-07-28 on), and gives handlers what they need
// from the request (progress, logging, client capabilities, calls back to
// the client).
//
// The generated package of each revision describes itself with a Protocol
// (a method table, like a gRPC service descriptor) and adapts the user's
// implementation with Mount; this package never sees revision-specific
// types.
package mcp

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Protocol describes one protocol revision to the runtime. Generated code
// builds it; it must not be modified.
type Protocol struct {
	// Revision is the protocol version ("2025-11-25").
	Revision string
	// Stateless reports a revision without initialize (2026-07-28 on).
	Stateless bool
	// Batches reports a revision with JSON-RPC batches (2025-03-26).
	Batches bool
	// Methods are the requests and notifications of the revision, by
	// method string.
	Methods map[string]*Method
	// Stamp returns a copy of a handler's result completed with what the
	// revision asks of every result (resultType, _meta serverInfo, cache
	// fields). Nil for revisions that ask nothing.
	Stamp func(result wire.Marshaler, s *Stamp) wire.Marshaler
	// ServerCapabilities and ClientCapabilities list the members of the
	// revision's capability objects, so the runtime declares only what the
	// revision knows.
	ServerCapabilities []string
	ClientCapabilities []string
}

// Method returns the method named name, or nil.
func (p *Protocol) Method(name string) *Method { return p.Methods[name] }

// Preferred reports whether version a is preferred to b as a default: a
// published revision (a date, "2025-11-25") to any other version — a
// draft generated with mcpgen --protocol-version ("DRAFT-2026-v1") is
// spoken only when a peer asks for it — and, among published revisions,
// the newer.
func Preferred(a, b string) bool {
	if pa, pb := isPublished(a), isPublished(b); pa != pb {
		return pa
	}
	return a > b
}

// isPublished reports a version of the form YYYY-MM-DD.
func isPublished(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range v {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Method is one request or notification of a revision.
type Method struct {
	// Name is the method string.
	Name string
	// Notification is set for notifications.
	Notification bool
	// FromClient and FromServer tell who sends it.
	FromClient, FromServer bool
	// NameParam is the params member the Mcp-Name header mirrors on
	// stateless HTTP ("name", "uri"), or "".
	NameParam string
	// Cacheable reports a stateless result that carries ttlMs and
	// cacheScope.
	Cacheable bool
	// Implemented reports whether handler serves this method.
	Implemented func(handler any) bool
	// Serve decodes and validates params (nil when absent), calls the
	// handler and returns its result (nil for a notification). Errors that
	// are not *jsonrpc.Error become -32603.
	Serve func(ctx context.Context, handler any, params wire.Raw) (wire.Marshaler, error)
	// ValidateParams checks params without serving (for methods the
	// runtime answers itself, such as initialize).
	ValidateParams func(params wire.Raw) error
}

// Stamp is what the runtime adds to results.
type Stamp struct {
	// Method is the method the result answers.
	Method string
	// ServerName and ServerVersion are the server's Implementation, for
	// _meta io.modelcontextprotocol/serverInfo.
	ServerName, ServerVersion string
	// TTLMs and CacheScope fill the cache fields of a cacheable result that
	// the handler left unset.
	TTLMs      int64
	CacheScope string
}

// Mount is one revision mounted on a server: its protocol and the value
// that implements its methods.
type Mount struct {
	Protocol *Protocol
	Handler  any
}
