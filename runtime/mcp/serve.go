package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// serve runs the handler of the request's method, in either era: a
// tools/call has its arguments checked before and its structuredContent
// after; an AnswerWith error is answered with its result.
func (s *Server) serve(rc *reqCtx) (res wire.Marshaler, err error) {
	mount, m := rc.r.mount, rc.r.route.method
	call := m.Role == protocol.RoleToolsCall
	if call {
		if args := rc.r.in.args; len(args) > 0 && args.Kind() != wire.Object {
			// The schema's CallToolRequestParams.arguments is an object:
			// anything else breaks the params, before any tool sees them.
			return nil, InvalidParams("/params/arguments", "must be an object")
		}
	}
	// The single-use states the handler opened are spent when the round
	// completes: not with an error (a panic included) nor with another
	// round of input.
	asksInput := false
	defer func() { rc.r.settleStates(err == nil && res != nil && !asksInput) }()
	if rc.r.route.catalog {
		res, err = s.fromCatalog(rc)
	} else {
		res, err = s.fromHandler(rc)
	}
	if err != nil {
		if aw := answerWith(err); aw != nil {
			return aw.Result, nil
		}
		return nil, err
	}
	if res == nil {
		return nil, nil
	}
	if call {
		if err := s.tools.checkResult(rc, mount, res); err != nil {
			return nil, err
		}
	}
	if p := mount.Protocol; p.Stamp != nil {
		res = p.Stamp(res, s.stamps[m])
	}
	if asksInput, err = s.checkInputRequests(&rc.r, mount.Protocol, res); err != nil {
		return nil, err
	}
	if err := s.validateResult(m.Name, res); err != nil {
		return nil, err
	}
	return res, nil
}

// serveHandler serves a method with the mounted handler.
func (s *Server) serveHandler(rc *reqCtx) (wire.Marshaler, error) {
	defer rc.r.finish()
	return s.serve(rc)
}
