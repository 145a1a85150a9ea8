// Package jsonrpc is JSON-RPC 2.0 for every transport: the message model
// ([Parser], [Message], [ParseBatch], [AppendResponse], [AppendError],
// [AppendRequest], [AppendNotification]), the table of a peer's pending
// calls ([Calls]) and, on those, a transport-agnostic engine for message
// streams: a [Conn] reads whole messages from a [Stream], dispatches
// requests to a [Handler] and writes the responses, and sends its own
// requests ([Conn.Call]) and notifications ([Conn.Notify]) to the peer.
// Transports that carry messages one by one (HTTP) use the message model
// and the calls table directly. It knows nothing of MCP; the protocol
// layer built on it wraps the Handler and uses [Conn.Cancel],
// [RequestIDFrom], [ConnFrom], [Conn.SetBatch], [Conn.SetNoID] and the
// error hooks.
//
// # Hot path
//
// All JSON goes through package wire, without reflection. The envelope of
// each message is parsed in place with a wire.Decoder owned by the read
// loop; the method name is looked up without allocating (names listed by a
// [MethodLister] are interned) and params are copied once, into the request
// itself when small. A request then costs one allocation in the engine: its
// inflight record, which is also the handler's context (a purpose-built
// context rather than context.WithCancel plus context.WithValue), plus one
// for a string id. Responses are encoded into pooled wire.Encoders.
//
// # Validation
//
// Messages are checked strictly: malformed JSON or invalid UTF-8 is
// answered -32700 without an id (written as [NoID] says: "id": null by
// default); "jsonrpc" must be exactly "2.0"; an id must be a string or an
// integer literal that fits int64 (1.0 and 1e2 are refused; an unusable id
// is answered without one); "method" must be a string; params, when
// present, an object or an array; a message with both "result" and
// "error", with neither nor "method", or with "method" and
// "result"/"error" is invalid (-32600). Unknown members are ignored. A
// request whose id is already in flight is answered -32600 "duplicate
// request id <id>", leaving the first undisturbed. Whether a method exists
// is the Handler's business: it returns [MethodNotFound].
//
// # Concurrency
//
// Each request runs in its own goroutine, at most Options.MaxConcurrent at
// once; workers that finish pick up waiting requests and then park (a few
// of them) for reuse. Requests beyond the limit wait, in order, in a queue
// of Options.MaxQueued, and beyond that while they fit
// Options.MaxQueuedBytes, while the read loop keeps reading, so
// notifications (cancellations in particular), responses to the Conn's
// own Calls and the requests an [Inliner] serves on the read loop (MCP's
// ping) are never stuck behind requests; only when both bounds are
// reached does reading pause, pushing back on the peer. Notifications are
// handled synchronously on the read loop, in arrival order, each before
// the next message is read: a notification handler must be quick and must
// not wait for a Call on the same Conn. Writes are serialized by a mutex,
// or by a [PostingStream] itself, which coalesces: a response posted
// while another write is under way goes out with the next, so bursts cost
// one system call and a handler's goroutine does not wait for the write.
// The read loop runs on Serve's goroutine, or, for a [PushStream]
// (stdio), on the stream's reading goroutine, which then hands each
// message over without a goroutine switch; and a request that
// arrives when no other runs and no more input is at hand is served right
// there, on the reading goroutine, sparing the wake-up of a worker (with
// one request in flight that wake-up, often of another thread, cost more
// than a small handler). A peer found sending while such a request ran
// (input waiting behind the next one) gets workers for its next requests.
// Reading goes on on another goroutine as soon as such a handler makes a
// Call, runs for more than half a millisecond, or the Conn stops reading;
// the handler's goroutine then turns worker.
//
// # Errors
//
// A handler error that is (or wraps) an [*Error] is sent as is. Any other
// error is sent as -32603 "internal error" and logged, with method and id,
// at level Error; its text never reaches the peer. A panic in a handler is
// recovered, logged with its stack, and answered -32603; the connection
// goes on. A request cancelled with [Conn.Cancel] is never answered,
// whatever its handler returns. With Options.RequestTimeout, an expired
// request is answered -32603 "request timed out" at once and its context
// cancelled (context.DeadlineExceeded).
//
// # Shutdown
//
// [Conn.Serve] returns at the end of the stream, when its context is done
// or after [Conn.Close]. The first two drain the connection: nothing lost
// that was read. Requests already read, running or queued, go on and are
// answered; after Options.DrainTimeout (default 5s) the ones left are
// cancelled and each is answered -32603 "the server shut down before the
// request finished". At the end of the stream nothing more can be read,
// so pending Calls fail with [ErrClosed] at once; when the context ends
// first, reading goes on during the drain (cancellations and responses to
// Calls still arrive) and requests read then are answered -32603 "the
// server is shutting down". Options.OnDrain lets the layer above end
// long-lived requests when a drain begins. Serve returns once every
// answer is written and every handler goroutine has finished. Close does
// not drain: it cancels what runs, answers nothing and drops the queue;
// so does the end of the stream with a negative DrainTimeout. No goroutine
// outlives Serve, except that a Stream may keep its own reader blocked
// (see package stdio).
package jsonrpc
