package mcp

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// handleStateless serves req in the stateless era, as a transport that
// accepted it there would.
func (s *Server) handleStateless(ctx context.Context, req *jsonrpc.Request, out Outbound) (wire.Marshaler, error) {
	x := s.Accept(req, Via{})
	x.era = protocol.Stateless
	return x.Serve(ctx, nil, out)
}

// handle serves req in the stateful era within sess.
func (sess *Session) handle(ctx context.Context, req *jsonrpc.Request, out Outbound) (wire.Marshaler, error) {
	x := sess.srv.Accept(req, Via{Session: true})
	x.era = protocol.Stateful
	return x.Serve(ctx, sess, out)
}
