package mcp

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// What a Feature's step reads of the request it serves, and how it hands
// back a result it wrote as JSON.

// Params are the request's params as JSON (nil for none). They must not be
// modified.
func (r *Request) Params() wire.Raw { return r.in.req.Params }

// Name is params.name as the runtime read it when it classified the
// request: the tool of tools/call, the prompt of prompts/get ("" for
// none).
func (r *Request) Name() string { return r.in.named[0] }

// Arguments are params.arguments of tools/call (nil for none).
func (r *Request) Arguments() wire.Raw { return r.in.args }

// Task is params.task, with which a 2025-11-25 requestor asks for a task
// (nil for none).
func (r *Request) Task() wire.Raw { return r.in.task }

// Role is the role of the request's method.
func (r *Request) Role() protocol.Role { return r.route.method.Role }

// Handled reports whether the mounted handler implements the request's
// method (a feature may leave it the request).
func (r *Request) Handled() bool {
	md := r.route.method
	return r.mount != nil && md.Implemented != nil && md.Implemented(r.mount.Handler)
}

// Stamp is what the request's revision asks of every result (resultType,
// the server's Implementation, cache fields), for a feature that writes
// its result as JSON (WriteStamp) and hands it back with Written. Nil when
// the revision asks nothing, or when Written decodes the result (the
// server validates its results): the engine then stamps the decoded
// result as it does a handler's, and the JSON need not carry, nor the
// decoding pay for, what the stamp adds.
func (r *Request) Stamp() *protocol.Stamp {
	if r.server.validate && r.route.method.DecodeResult != nil {
		return nil
	}
	return r.server.stamps[r.route.method]
}

// Written returns the result a feature wrote as JSON in the shape of the
// request's revision (Protocol.Has tells what it can carry): sent as it
// is, or, when the server validates its results, decoded into the
// revision's result type first and then treated as a handler's (stamped,
// validated).
func (r *Request) Written(data wire.Raw) (wire.Marshaler, error) {
	md := r.route.method
	if !r.server.validate || md.DecodeResult == nil {
		return &writtenResult{raw: data}, nil
	}
	res, err := md.DecodeResult(data)
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: the result written does not decode as revision %s's: %w", md.Name, r.Protocol.Revision, err)
	}
	return res, nil
}

// Notify sends a notification related to the request on its stream (the
// notifications of a listen stream, say).
func (r *Request) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	return r.out.Notify(ctx, method, params)
}

// ValidateParams checks the request's params against its method's schema
// (without serving it): for a feature that answers a method the handler
// would otherwise have decoded. Nil when the method has no such check.
func (r *Request) ValidateParams() error {
	if v := r.route.method.ValidateParams; v != nil {
		return v(r.in.req.Params)
	}
	return nil
}

// WriteStamp writes, inside a result object being encoded, the members
// st asks of every result of its method, for a result that carries none
// of them: resultType "complete", the cache fields of a cacheable result
// (ttlMs, cacheScope) and _meta with the server's Implementation. The
// caller closes the object. Nothing for a nil st.
func WriteStamp(e *wire.Encoder, st *protocol.Stamp) {
	if st == nil {
		return
	}
	e.FieldRaw(`"resultType":`)
	e.Str("complete")
	if st.CacheScope != "" {
		e.FieldRaw(`"ttlMs":`)
		e.Int64(st.TTLMs)
		e.FieldRaw(`"cacheScope":`)
		e.Str(st.CacheScope)
	}
	if st.ServerName != "" {
		e.FieldRaw(`"_meta":`)
		e.ObjectStart()
		e.Field(MetaServerInfo)
		encodeImplementation(e, st.ServerName, "", st.ServerVersion)
		e.ObjectEnd()
	}
}

// writtenResult is a result written as JSON, in the revision's shape and
// stamped: it is sent as it is (Protocol.Stamp leaves it alone).
type writtenResult struct{ raw wire.Raw }

// EncodeJSON implements wire.Marshaler.
func (w *writtenResult) EncodeJSON(e *wire.Encoder) { e.Raw(w.raw) }

// written returns the JSON of a result written as JSON, if it is one.
func written(res wire.Marshaler) (wire.Raw, bool) {
	switch r := res.(type) {
	case *writtenResult:
		return r.raw, true
	case wire.Raw:
		return r, true
	}
	return nil, false
}

// Options are the server's options, as NewServer completed them (and the
// features changed them: Registry.ListChanged).
func (s *Server) Options() ServerOptions { return s.opts }
