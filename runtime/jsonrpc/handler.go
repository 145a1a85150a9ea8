package jsonrpc

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The interfaces a Conn works with: the Handler that serves what the
// peer sends, and the Stream that carries the messages.

// ID is a JSON-RPC request id: a string or an integer, kept as it arrived
// (the string "1" and the integer 1 are different ids).
type ID = wire.StringOrInt

// Request is one incoming request or notification.
type Request struct {
	ID             ID // zero when IsNotification
	IsNotification bool
	// Method is interned when the Handler lists it (see MethodLister), so
	// known methods cost no allocation.
	Method string
	// Params is the exact params JSON (an object or an array), nil when
	// absent. It is a copy owned by the Request: safe to keep.
	Params wire.Raw
}

// Handler serves requests and notifications. The result of a notification is
// ignored, and so is its error (logged at debug level).
//
// A request's handler runs in its own goroutine with a context that is
// cancelled when the peer cancels the request (Conn.Cancel), when it times
// out (Options.RequestTimeout), when the connection shuts down, and after
// Handle returns. Notifications are handled one at a time on the read loop,
// in arrival order: their handlers must be quick and must not wait for a
// Call on the same Conn (start a goroutine for that), or reading stalls.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result wire.Marshaler, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (wire.Marshaler, error)

// Handle implements Handler.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (wire.Marshaler, error) {
	return f(ctx, req)
}

// Inliner is optionally implemented by a Handler whose requests of some
// methods must be answered before the next message is read (they run on
// the read loop, like notifications; keep them quick).
type Inliner interface {
	Inline(method string) bool
}

// MethodLister is optionally implemented by a Handler to name the methods it
// serves. Conn interns those names, so Request.Method costs no allocation
// for them; any other method name is allocated per message.
type MethodLister interface {
	Methods() []string
}

// Stream carries whole messages (one JSON text each) in both directions.
type Stream interface {
	// ReadMessage returns the next message; io.EOF at a clean end. The
	// returned slice may be reused by the next call. It must return when ctx
	// is done (with ctx.Err()) or the stream is closed. A *TooLargeError
	// reports one skipped message; the stream stays usable.
	ReadMessage(ctx context.Context) ([]byte, error)
	// WriteMessage writes one message. Conn never calls it concurrently.
	WriteMessage(ctx context.Context, msg []byte) error
	// Close closes the stream; a blocked ReadMessage returns.
	Close() error
}

// PushStream is optionally implemented by a Stream that reads on a
// goroutine of its own (to honour ReadMessage's context: a blocked read of a
// pipe cannot be interrupted). Conn.Serve then has that goroutine hand it
// each message, rather than the goroutine passing each message to Serve's
// through a channel: one goroutine switch less per message. Conn may also
// run a request's handler on that goroutine, when nothing else runs and no
// more input is at hand (Pending), and hand reading on (HandOff) should
// the handler take long or need a response.
type PushStream interface {
	Stream
	// ReadMessages calls handle with each message in order until reading
	// fails (ReadMessages returns that error, io.EOF at a clean end), the
	// stream is closed (ErrClosed) or ctx is done (ctx.Err()). The calls
	// follow one another, on the reading goroutine, except that a call
	// handed off goes on beside the next ones. handle is never called after
	// ReadMessages returned; it waits for a call in progress unless that
	// was handed off. A skipped message is handle(nil, err) with err a
	// *TooLargeError. msg is valid until the call returns (handed off: as
	// long as that call lasts). ReadMessage is not called after it.
	ReadMessages(ctx context.Context, handle func(msg []byte, err error)) error
	// Pending, called on the reading goroutine during a call of handle,
	// reports whether input after msg is already at hand (a message the
	// next read returns without waiting, or part of one).
	Pending() bool
	// HandOff, while the reading goroutine is in a call of handle, makes
	// another goroutine read on at once (the call's goroutine stops reading
	// when it returns, and ReadMessages no longer waits for it); otherwise
	// it does nothing. It may be called from any goroutine.
	HandOff()
}

// PostingStream is optionally implemented by a Stream whose writes may be
// made from many goroutines at once and coalesce: Conn then calls its
// WriteMessage and PostMessage without serializing them. PostMessage
// writes msg like WriteMessage but does not wait for a write under way:
// the goroutine making that write writes msg after it, with whatever else
// was posted meanwhile (one system call for a burst of responses), and
// PostMessage returns at once. Conn posts its responses, whose write
// errors no caller waits for, and writes its requests and notifications,
// whose callers get the error; Flush, which returns once everything posted
// before it is written, ends Serve.
type PostingStream interface {
	Stream
	PostMessage(msg []byte) error
	Flush() error
}
