package protocol

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Caller sends requests and notifications to the other side of a session.
// Generated Client types make their calls through one; the runtime's
// client sessions, a *jsonrpc.Conn and the sessions of the HTTP transport
// are Callers.
type Caller interface {
	// Call sends a request and decodes its result into result (nil to
	// discard it); an error response is a *jsonrpc.Error. It decodes
	// through result's DecodeJSON method (see wire.Into for what that
	// links): the runtime and generated code call CallInto.
	Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error
	// CallInto is Call decoding the result with result.Decode (the zero
	// Into to discard it).
	CallInto(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error
	// Notify sends a notification.
	Notify(ctx context.Context, method string, params wire.Marshaler) error
}

// HandlerOf returns the value a client session answers the server's
// requests with (sampling, elicitation, roots), or nil.
func HandlerOf(c Caller) any {
	if h, ok := c.(interface{ Handler() any }); ok {
		if b, ok := h.Handler().(*bridged); ok {
			return b.answering()
		}
		return h.Handler()
	}
	return nil
}

// ServeInput answers an input request of a multi round-trip request (an
// InputRequiredResult's) with serve, through the client session's
// middleware when c has some (c implements InputServer): the request is an
// incoming message to it, with params. Generated clients call it for each
// input request they fulfil (generated-code version 5).
func ServeInput(ctx context.Context, c Caller, method string, params wire.Marshaler, serve func(context.Context) (wire.Marshaler, error)) (wire.Marshaler, error) {
	if s, ok := c.(InputServer); ok {
		return s.ServeInput(ctx, method, params, serve)
	}
	return serve(ctx)
}

// InputServer is implemented by client sessions that show the input
// requests they answer to their middleware (mcp.ClientSession).
type InputServer interface {
	ServeInput(ctx context.Context, method string, params wire.Marshaler, serve func(context.Context) (wire.Marshaler, error)) (wire.Marshaler, error)
}
