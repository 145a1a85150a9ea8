package mcp

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The two implementations of era. Each serves a message from the route
// table of the revision it is served with (routes.go); what they differ in
// is where that revision and the client's side of the conversation come
// from: the stateful era takes both from the session initialize opened,
// the stateless era from the request's own _meta.

var (
	_ era = statefulEra{}
	_ era = statelessEra{}
)

// statefulEra serves the revisions that open a session with initialize
// (2024-11-05 … 2025-11-25).
type statefulEra struct{}

// errNoSession answers a stateful message a transport served without the
// session it keeps for it: a bug of the transport.
var errNoSession = jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: the transport gave the stateful era no session")

// check refuses a declared version the server does not serve statefully,
// naming those it does (in the message, and in data as -32022 does:
// supported and requested).
func (statefulEra) check(_ context.Context, x Exchange, _ mcpheader.Values) *jsonrpc.Error {
	if v := x.via.Version; v != "" {
		if m := x.srv.byRev[v]; m == nil || m.Protocol.Stateless() {
			served := versions(x.srv.stateful)
			je := unsupportedVersion(v, served)
			je.Code = jsonrpc.CodeInvalidRequest
			je.Message = "unsupported MCP-Protocol-Version " + strconv.Quote(v) + ": sessions of this server speak " + strings.Join(served, ", ")
			return je
		}
	}
	return nil
}

// serve serves one message of sess: initialize opens it; the other
// messages need it initialized (but ping, cancellation and progress) and
// sent by the principal who opened it.
func (statefulEra) serve(ctx context.Context, x Exchange, sess *Session, out Outbound) (wire.Marshaler, error) {
	srv, in := x.srv, &x.in
	method := in.req.Method
	if sess == nil {
		if x.opens && len(srv.stateful) == 0 {
			// A server without stateful revisions lists what it supports.
			return nil, unsupportedVersion(requestedVersion(in.req.Params), srv.supportedVersions())
		}
		return nil, errNoSession
	}
	if x.opens {
		return sess.initialize(ctx, in, x.via.Transport)
	}
	rt := sess.route(method)
	sess.mu.Lock()
	foreign := sess.initialized && PrincipalFrom(ctx) != sess.principal
	mount, initialized := sess.mount, sess.initialized
	sess.mu.Unlock()
	switch {
	case foreign:
		if in.req.IsNotification {
			return nil, nil
		}
		return nil, errOtherPrincipal
	case !in.req.IsNotification && rt != nil && rt.method.Notification:
		return nil, notificationWithID(method)
	case !initialized && (rt == nil || !rt.method.Role.BeforeSession()):
		if in.req.IsNotification {
			return nil, nil
		}
		return nil, errNotInitialized
	case rt != nil && in.req.IsNotification && !rt.method.Notification:
		// A request without an id: JSON-RPC forbids answering it, and
		// running it would be work nobody asked to see.
		srv.log.Debug("mcp: a request sent as a notification is ignored", "method", method)
		return nil, nil
	case rt == nil || !rt.method.FromClient || rt.serve == nil:
		if in.req.IsNotification {
			return nil, nil
		}
		return nil, jsonrpc.MethodNotFound(method)
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	rc := x.request(ctx, rt, out)
	rc.r.client = sess
	if mount != nil {
		rc.r.mount, rc.r.Protocol = mount, mount.Protocol
	}
	return rt.serve(rc)
}

// statelessEra serves the revisions whose every request carries its
// protocol version and the client's capabilities in _meta (2026-07-28 on).
type statelessEra struct{}

// check applies the request metadata headers of Streamable HTTP
// (headers.go); notifications have none.
func (statelessEra) check(ctx context.Context, x Exchange, hd mcpheader.Values) *jsonrpc.Error {
	if x.in.req == nil || x.in.req.IsNotification {
		return nil
	}
	return x.srv.checkHeaders(ctx, &x.in, hd)
}

// serve serves one stateless request. Its only notification is the
// client's cancellation, which ends the request it names where the
// transport can (stdio; on HTTP the client closes the request's stream).
func (statelessEra) serve(ctx context.Context, x Exchange, _ *Session, out Outbound) (wire.Marshaler, error) {
	s, in := x.srv, &x.in
	method := in.req.Method
	if in.req.IsNotification {
		if s.roles[method] == protocol.RoleCancelled {
			if c, ok := out.(canceller); ok {
				if id, ok := cancelledID(in.req.Params); ok {
					c.Cancel(id)
				}
			}
		}
		return nil, nil
	}
	meta := &in.meta
	if meta.protocolVersion != "" {
		if err := s.statelessError(meta.protocolVersion, method, false); err != nil {
			return nil, err
		}
	}
	var missing []string
	if meta.protocolVersion == "" {
		missing = append(missing, MetaProtocolVersion)
	}
	if meta.clientCaps == nil {
		missing = append(missing, MetaClientCapabilities)
	}
	if len(missing) > 0 {
		return nil, InvalidParams("/params/_meta", "missing _meta keys: "+strings.Join(missing, ", "))
	}
	mount := s.byRev[meta.protocolVersion]
	if mount == nil || !mount.Protocol.Stateless() {
		return nil, unsupportedVersion(meta.protocolVersion, s.supportedVersions())
	}
	rt := mount.routes[method]
	if rt == nil || !rt.method.FromClient || rt.method.Notification || rt.serve == nil {
		return nil, jsonrpc.MethodNotFound(method)
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	rc := x.request(ctx, rt, out)
	rc.r.mount, rc.r.Protocol = mount, mount.Protocol
	rc.r.client = metaClient{&rc.r}
	return rt.serve(rc)
}

// newRequest makes the context a request is served with, which carries
// its Request (and, with middleware, the view of its Outbound): one
// allocation for all.
func (x *Exchange) request(ctx context.Context, rt *route, out Outbound) *reqCtx {
	s := x.srv
	var rc *reqCtx
	if s.outgoing != nil && out != nil {
		rv := &reqCtxView{reqCtx: reqCtx{Context: ctx}}
		rc, out = &rv.reqCtx, s.wrapOut(ctx, out, x, &rv.view)
	} else {
		rc = &reqCtx{Context: ctx}
	}
	rc.r = Request{Method: x.in.req.Method, ID: x.in.req.ID, server: s, route: rt, out: out, in: x.in, header: x.via.Header, addr: x.via.Client}
	rc.r.ctx = rc
	return rc
}

// requestedVersion is params.protocolVersion of initialize ("" if none).
func requestedVersion(params wire.Raw) string {
	if len(params) == 0 {
		return ""
	}
	k, v, err := wire.NewDecoder(params).PeekMember("protocolVersion")
	if err != nil || k != wire.String {
		return ""
	}
	return string(v)
}
