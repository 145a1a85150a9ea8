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
	// discard it); an error response is a *jsonrpc.Error.
	Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error
	// Notify sends a notification.
	Notify(ctx context.Context, method string, params wire.Marshaler) error
}

// HandlerOf returns the value a client session answers the server's
// requests with (sampling, elicitation, roots), or nil.
func HandlerOf(c Caller) any {
	if h, ok := c.(interface{ Handler() any }); ok {
		return h.Handler()
	}
	return nil
}
