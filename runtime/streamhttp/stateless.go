package streamhttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// serveStateless serves one message of the stateless era (2026-07-28 on).
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept) {
	switch msg.Kind {
	case jsonrpc.KindResponse:
		h.writeError(w, r, http.StatusBadRequest, msg.ID, msg.HasID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: clients do not send responses in the stateless protocol"))
		return
	case jsonrpc.KindNotification:
		// No header rules are defined for notifications; there is nothing
		// to answer.
		_, _ = x.Serve(r.Context(), nil, discardOut{})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if je := x.Check(r.Context(), r.Header); je != nil {
		h.writeError(w, r, httpStatus(je), msg.ID, true, je)
		return
	}
	if h.draining() {
		h.refuseDraining(w, r, msg.ID, true)
		return
	}
	// Closing the response (the client going away) cancels the request;
	// so does Close, and the end of a drain, which answers it first. Its
	// context watches the POST's only once something asks for its Done
	// (lazyctx): an echo costs no context.WithCancel.
	lr := &liveReq{out: reqOut{h: h, w: w, rc: *http.NewResponseController(w), acc: acc, wd: writeDeadline{acc.armed}}, id: msg.ID, noID: h.noID(r)}
	lr.ctx.Init(r.Context(), time.Time{}, true)
	ctx := &lr.ctx
	defer lr.cancel()
	out, noID := &lr.out, lr.noID
	h.track(lr)
	defer h.untrack(lr)
	res, err := x.Serve(ctx, nil, out)
	if ctx.Err() != nil {
		// The client is gone or the handler closed: nothing to say.
		out.abort()
		return
	}
	status := http.StatusOK
	var body []byte
	if err == nil {
		body, err = encodeResult(msg.ID, res)
		if err != nil {
			h.log.Error("streamhttp: encoding a result failed", "method", msg.Method, "err", err)
		}
	}
	if err != nil {
		je, ok := asRPCError(err)
		if !ok {
			h.log.Error("streamhttp: handler failed", "method", msg.Method, "id", msg.ID.String(), "err", err)
		}
		body = errorBody(msg.ID, true, noID, je)
		status = limitedStatus(w, je, httpStatus(je))
	}
	out.final(status, body)
}

// reqOut is the response of one stateless request: JSON, or an SSE stream
// from its first related message on.
type reqOut struct {
	h   *Handler
	w   http.ResponseWriter
	rc  http.ResponseController
	acc accept

	mu   sync.Mutex
	sse  bool
	done bool
	ka   *time.Timer
	wd   writeDeadline
}

var errStreamClosed = errors.New("streamhttp: the stream is closed")

// Notify implements mcp.Outbound: the message is an SSE event, written and
// flushed at once. A client that does not accept SSE does not get it.
func (o *reqOut) Notify(_ context.Context, method string, params wire.Marshaler) error {
	b, err := jsonrpc.AppendNotification(nil, method, params)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return errStreamClosed
	}
	if !o.sse {
		if !o.acc.sse {
			return nil
		}
		o.startLocked()
	}
	return o.writeLocked(b)
}

func (o *reqOut) startLocked() {
	sseHeaders(o.w)
	o.sse = true
	if ka := o.h.o.KeepAlive; ka > 0 {
		o.ka = time.AfterFunc(ka, o.ping)
	}
}

func (o *reqOut) writeLocked(msg []byte) error {
	o.wd.arm(&o.rc, o.h.o.StallTimeout)
	buf := make([]byte, 0, len(msg)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	if _, err := o.w.Write(buf); err != nil {
		return err
	}
	return o.rc.Flush()
}

// ping writes a keep-alive comment.
func (o *reqOut) ping() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return
	}
	o.wd.arm(&o.rc, o.h.o.StallTimeout)
	if _, err := o.w.Write([]byte(":\n\n")); err == nil && o.rc.Flush() == nil {
		o.ka.Reset(o.h.o.KeepAlive)
	}
}

// final writes the response: the last SSE event, or the JSON body. Only
// the first call writes.
func (o *reqOut) final(status int, body []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return
	}
	o.stopLocked()
	if !o.sse && !o.acc.json {
		sseHeaders(o.w)
		o.sse = true
	}
	if o.sse {
		_ = o.writeLocked(body)
		return
	}
	o.wd.arm(&o.rc, o.h.o.StallTimeout)
	writeJSON(o.w, status, body)
}

func (o *reqOut) stopLocked() {
	o.done = true
	if o.ka != nil {
		o.ka.Stop()
	}
}

func (o *reqOut) abort() {
	o.mu.Lock()
	o.stopLocked()
	o.mu.Unlock()
}

// discardOut drops related messages.
type discardOut struct{}

func (discardOut) Notify(context.Context, string, wire.Marshaler) error { return nil }

// setRetryAfter sets the Retry-After of a 429: whole seconds, rounded up.
func setRetryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10))
}

// httpStatus is the HTTP status a stateless error is answered with.
func httpStatus(err *jsonrpc.Error) int {
	switch err.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInternalError:
		return http.StatusInternalServerError
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams,
		mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
