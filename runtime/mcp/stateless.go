package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// statelessError is the error a stateless request of method, declaring
// protocol version (in its _meta, or on HTTP in its MCP-Protocol-Version
// header), is refused with before anything else is looked at: -32022 with
// the supported versions for a version the server does not serve
// statelessly; -32600 for a notification of the revision sent with an id;
// -32601 for a method the revision's route table does not have (ping, say,
// which 2026-07-28 removed; tasks and skills are there when the server
// serves those extensions). It is nil for a request that may be served.
func (r *revisions) statelessError(version, method string, isNotification bool) *jsonrpc.Error {
	mount := r.byRev[version]
	if mount == nil || !mount.Protocol.Stateless() {
		return unsupportedVersion(version, r.supportedVersions())
	}
	rt := mount.routes[method]
	switch {
	case rt != nil && rt.method.Notification:
		if !isNotification {
			return notificationWithID(method)
		}
		return nil
	case isNotification, rt != nil && rt.method.FromClient:
		return nil
	}
	return jsonrpc.MethodNotFound(method)
}

// notificationWithID is the -32600 for a request whose method is a
// notification.
func notificationWithID(method string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: %s is a notification: it must not have an id", method)
}

// serveDiscover answers server/discover.
func serveDiscover(rc *reqCtx) (wire.Marshaler, error) {
	md := rc.r.route.method
	if err := md.ValidateParams(rc.r.in.req.Params); err != nil {
		return nil, err
	}
	return rc.r.server.discover(rc.r.mount, md.Name), nil
}

// discover builds the DiscoverResult of a stateless mount.
func (s *Server) discover(m *mounted, method string) wire.Raw {
	pol := s.opts.cachePolicy(method)
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"resultType":`)
	e.Str("complete")
	e.FieldRaw(`"supportedVersions":`)
	e.ArrayStart()
	for _, v := range s.supportedVersions() {
		e.Str(v)
	}
	e.ArrayEnd()
	e.FieldRaw(`"capabilities":`)
	e.Raw(s.capabilities(m))
	if s.opts.Instructions != "" {
		e.FieldRaw(`"instructions":`)
		e.Str(s.opts.Instructions)
	}
	s.opts.endCacheable(e, pol)
	return append(wire.Raw(nil), e.Bytes()...)
}

// endCacheable writes the ttlMs and cacheScope of pol and the _meta
// serverInfo of a stateless result the runtime builds, and closes it.
func (o *ServerOptions) endCacheable(e *wire.Encoder, pol CachePolicy) {
	e.FieldRaw(`"ttlMs":`)
	e.Int64(pol.TTLMs)
	e.FieldRaw(`"cacheScope":`)
	e.Str(pol.Scope)
	e.FieldRaw(`"_meta":`)
	e.ObjectStart()
	e.Field(MetaServerInfo)
	o.implementation(e)
	e.ObjectEnd()
	e.ObjectEnd()
}
