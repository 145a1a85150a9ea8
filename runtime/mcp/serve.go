package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A method whose results the revision defines is served in three parts:
// the handler (serveHandler), the features' steps in front of it
// (feature.go), and, around them all, what every result of the revision
// goes through (finished): one ordered chain, built for the method when
// the server is made from what the revision has, so that a result pays
// only for the steps its revision asks for.

// resultStep is one step every result of a method goes through, in
// order, once its handler or a feature produced it.
type resultStep func(rc *reqCtx, res wire.Marshaler) (wire.Marshaler, error)

// finished serves a method with next (the features' steps and the
// handler) and completes what it returns: a tools/call's structuredContent
// checked against its outputSchema, the result stamped as the revision
// asks (resultType, serverInfo, cache fields), the input it asks for
// checked against the client's capabilities, and the result validated.
// An AnswerWith error is answered with its result; the single-use states
// the request opened are spent when it completes (not with an error, a
// panic included, nor with another round of input).
func (s *Server) finished(m *mounted, md *protocol.Method, next routeFunc) routeFunc {
	var steps []resultStep
	call := md.Role == protocol.RoleToolsCall
	if call && !s.opts.DisableToolSchemas {
		steps = append(steps, func(rc *reqCtx, res wire.Marshaler) (wire.Marshaler, error) {
			return res, s.tools.checkResult(rc, rc.r.mount, res)
		})
	}
	if st := m.Protocol.Stamp; st != nil {
		stamp := s.opts.newStamp(md.Name, md.Cacheable)
		steps = append(steps, func(_ *reqCtx, res wire.Marshaler) (wire.Marshaler, error) { return st(res, stamp), nil })
	}
	if m.Protocol.InputRequired != nil {
		steps = append(steps, func(rc *reqCtx, res wire.Marshaler) (wire.Marshaler, error) {
			asks, err := checkInputRequests(s.log, &rc.r, rc.r.Protocol, res)
			rc.r.asksInput = asks
			return res, err
		})
	}
	if s.validate {
		steps = append(steps, func(_ *reqCtx, res wire.Marshaler) (wire.Marshaler, error) {
			return res, validateResult(md.Name, res)
		})
	}
	return func(rc *reqCtx) (res wire.Marshaler, err error) {
		defer rc.r.finish()
		if call {
			if args := rc.r.in.args; len(args) > 0 && args.Kind() != wire.Object {
				// The schema's CallToolRequestParams.arguments is an
				// object: anything else breaks the params, before any
				// tool sees them.
				return nil, InvalidParams("/params/arguments", "must be an object")
			}
		}
		defer func() { rc.r.settleStates(err == nil && res != nil && !rc.r.asksInput) }()
		if next == nil {
			return nil, jsonrpc.MethodNotFound(md.Name)
		}
		if res, err = next(rc); err != nil {
			if aw := answerWith(err); aw != nil {
				return aw.Result, nil
			}
			return nil, err
		}
		if res == nil {
			return nil, nil
		}
		for _, step := range steps {
			if res, err = step(rc, res); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
}

// serveHandler serves a method with the mounted handler; a tools/call has
// its arguments checked against the tool's inputSchema first.
func (s *Server) serveHandler(rc *reqCtx) (wire.Marshaler, error) {
	mount, m := rc.r.mount, rc.r.route.method
	if m.Role == protocol.RoleToolsCall {
		if res, err := s.tools.checkCall(rc, mount); res != nil || err != nil {
			return res, err
		}
	}
	return m.Serve(rc, mount.Handler, rc.r.in.req.Params)
}

// notFound is the -32601 of a request nothing serves.
func notFound(rc *reqCtx) error { return jsonrpc.MethodNotFound(rc.r.Method) }
