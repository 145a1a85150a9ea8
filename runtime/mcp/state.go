package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/requeststate"
)

// The requestState of an InputRequiredResult comes back from the client,
// which may read it and tamper with it: SealState encrypts, authenticates
// and binds it to the request it belongs to, OpenState checks it (package
// runtime/requeststate says how). On the stateful era the session binds it
// further only in that a retry travels in the session the bridge keeps.

// SealState returns the opaque requestState carrying data for a retry of
// the current request (the same params but requestState, inputResponses
// and _meta, by the same principal, before StateTTL).
func (r *Request) SealState(data []byte) string {
	return r.server.states.Seal(r.stateBinding(), data, false)
}

// SealStateOnce is SealState for a state that completes its request at
// most once: once a retry carrying it is answered with anything but
// another InputRequiredResult or an error, the state is spent, and while
// such a retry runs another one carrying it is refused. Both are answered
// -32602.
func (r *Request) SealStateOnce(data []byte) string {
	return r.server.states.Seal(r.stateBinding(), data, true)
}

// ErrBadState is the -32602 answer to a requestState that is malformed,
// tampered with, expired, or meant for another request or principal.
var ErrBadState = requeststate.ErrBad

// ErrStateUsed is the -32602 answer to a single-use requestState
// (SealStateOnce) that already completed its request, or that another
// request in progress carries.
var ErrStateUsed = requeststate.ErrUsed

// OpenState verifies a requestState from SealState or SealStateOnce and
// returns its data.
func (r *Request) OpenState(state string) ([]byte, error) {
	return r.server.states.Open(r.stateBinding(), state, r)
}

// stateBinding is the request a requestState is bound to.
func (r *Request) stateBinding() requeststate.Binding {
	b := requeststate.Binding{Version: r.ProtocolVersion(), Method: r.Method, Principal: r.Principal()}
	if r.in.req != nil {
		b.Params = r.in.req.Params
	}
	if r.route != nil && r.route.method.NameParam != "" {
		b.Name, _ = r.in.member(&r.server.revisions, r.route.method.NameParam)
	}
	return b
}
