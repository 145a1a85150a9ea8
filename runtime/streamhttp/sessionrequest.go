package streamhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/lazyctx"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
)

// A stateful session's requests: each POSTed request runs its handler on
// its POST's goroutine (a batch's and the HTTP+SSE transport's on a
// worker), registered in the session's in-flight table so that the
// session's end and a drain reach it, and its answer goes on the stream of
// its POST.

// inflightReq is a client request being served; whoever removes it from
// session.inflight answers it (its handler, or a drain that expires it).
type inflightReq struct {
	id        jsonrpc.ID
	st        *stream // the stream its answer goes on
	cancelled bool
	// held is what a request of an HTTP+SSE session holds until its
	// handler returns (session.hold); nil for others.
	held *backlogHold
	// ctx is its handler's context, and vals its parent, here so that
	// the request takes no allocation for either. The context keeps this
	// entry alive (a few words) as long as it lives.
	ctx  lazyctx.Ctx
	vals requestValues
}

// cancel ends the request's handler context.
func (ir *inflightReq) cancel() { ir.ctx.Cancel(context.Canceled, nil) }

// requestValues is the parent of a request's handler context: the values
// of its POST's context (the principal, say) without the POST's
// cancellation or deadline (a client that goes away does not cancel its
// request: 2025-11-25), and the stream the request's related messages go
// on (session.target). The handler's context (inflightReq.ctx) is made from
// it; the session's end and notifications/cancelled end that.
type requestValues struct {
	// post is the POST's context. Value forwards every key to it, the
	// context package's own included: a context derived from the
	// handler's sees that the POST's cancelCtx is not its parent's (their
	// Done channels differ) and follows the handler's context instead, and
	// context.Cause of the handler's context is nil until it ends (Cause
	// asks Err first) and its own cause after (lazyctx).
	post context.Context
	st   *stream
}

// newInflightReq makes the record of a client request POSTed with r, with
// its handler's context; the context ends only by inflightReq.cancel.
func newInflightReq(r *http.Request, id jsonrpc.ID, st *stream, held *backlogHold) *inflightReq {
	ir := &inflightReq{id: id, st: st, held: held, vals: requestValues{post: r.Context(), st: st}}
	ir.ctx.Init(&ir.vals, time.Time{}, false)
	return ir
}

// Deadline implements context.Context: none.
func (*requestValues) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done implements context.Context: never done (a nil channel): the
// handler's context ends only when the session or the client's
// notifications/cancelled ends it.
func (*requestValues) Done() <-chan struct{} { return nil }

// Err implements context.Context: never cancelled.
func (*requestValues) Err() error { return nil }

// Value implements context.Context: the request's stream, else the POST's
// values.
func (v *requestValues) Value(key any) any {
	if _, ok := key.(streamKey); ok {
		return v.st
	}
	return v.post.Value(key)
}

// String names the context, as the context package's own do.
func (v *requestValues) String() string { return "streamhttp.requestValues" }

// serveStateful serves one POSTed message of the stateful era.
func (h *Handler) serveStateful(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept) {
	if x.OpensSession() && r.Header.Get(hdrSessionID) == "" {
		h.initialize(w, r, msg, x, acc)
		return
	}
	request := msg.Kind == jsonrpc.KindRequest
	check := request && h.sessionLedger
	s := h.lookup(w, r, x, msg.ID, msg.HasID, check)
	if s == nil {
		return
	}
	defer s.leave()
	if request {
		s.serveRequest(w, r, msg, x, acc, check)
		return
	}
	s.oneWay(r.Context(), msg, x)
	w.WriteHeader(http.StatusAccepted)
}

// cancelRequest cancels a client request (notifications/cancelled); no
// response is sent for it.
func (s *session) cancelRequest(id jsonrpc.ID) bool {
	s.mu.Lock()
	ir := s.inflight[idKey(id)]
	if ir == nil || ir.cancelled {
		s.mu.Unlock()
		return false
	}
	ir.cancelled = true
	s.mu.Unlock()
	ir.cancel()
	return true
}

func idKey(id jsonrpc.ID) string {
	var buf [32]byte // an id's key is built here, and only the string allocated
	return string(id.AppendKey(buf[:0]))
}

// serveRequest serves a client request. Its handler runs on this, the
// POST's, goroutine (no hand-off to another and back), but is not the
// POST's: a client that disconnects does not cancel it (2025-11-25:
// disconnection is not cancellation), its later events are kept for
// resumption, and the POST's response is written by whoever ends its
// connection first (sseConn.inline): the handler's answer, a drain that
// expires it, or the end of the session.
//
// check: the lookup left to the ledger's Begin to learn whether another
// instance ended the session (Handler.lookup).
func (s *session) serveRequest(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept, check bool) {
	st, c, err := s.postStream(w, acc, false)
	if err != nil {
		s.h.writeError(w, r, http.StatusNotFound, msg.ID, true, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found"))
		return
	}
	// Cancelled by the client: no response.
	c.post(r, msg.ID, true, http.StatusNoContent)
	st.owe()
	status, replay, je := s.start(r, msg, x, st, c, nil, check)
	if replay != nil {
		s.removeStream(st)
		writeResponse(w, acc, replay)
		return
	}
	if je != nil {
		s.removeStream(st)
		s.h.writeError(w, r, status, msg.ID, true, je)
		return
	}
	s.await(r, st, c)
}

// postStream makes the stream of a POST and attaches its response to it.
func (s *session) postStream(w http.ResponseWriter, acc accept, batch bool) (*stream, *sseConn, error) {
	st, err := s.newStream("p")
	if err != nil {
		return nil, nil, err
	}
	st.batch = batch
	c := s.h.newConn(w, acc.sse)
	c.sess, c.acc, c.wd.at = s, acc, acc.armed
	st.mu.Lock()
	st.conn = c
	st.mu.Unlock()
	return st, c, nil
}

// start registers a client request and runs its handler: here when c is
// the connection of the request's own POST (it answers the POST when the
// handler's answer, or whatever comes first, ends c), else on a worker.
// The handler's related messages go on st and its response is one st owes
// (owe it first). When the request cannot start (the session ended, or its
// id is in flight) start returns the HTTP status and error to answer it
// with; when it was answered before (Options.Requests), the response
// recorded then (replay), to answer it with again. check asks the ledger
// whether another instance ended the session (session.begin).
func (s *session) start(r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, st *stream, c *sseConn, held *backlogHold, check bool) (status int, replay []byte, refusal *jsonrpc.Error) {
	id := msg.ID
	key := idKey(id)
	// Cancelled by notifications/cancelled (cancelRequest) and by the end
	// of the session (close cancels what its inflight table holds), not by
	// the client going away.
	ir := newInflightReq(r, id, st, held)
	if s.h.draining() {
		ir.cancel()
		return http.StatusServiceUnavailable, nil, errShuttingDown
	}
	s.mu.Lock()
	if s.closed || s.inflight[key] != nil {
		closed := s.closed
		s.mu.Unlock()
		ir.cancel()
		if closed {
			return http.StatusNotFound, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session ended")
		}
		return http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "duplicate request id %s", id.String())
	}
	s.mu.Unlock()
	// Sent before, to this instance or another (a retry)? The ledger
	// says; it answers again what was answered.
	entry, replay, refusal, ended := s.begin(r.Context(), id, key, st, check)
	if ended {
		ir.cancel()
		return http.StatusNotFound, nil, refusal
	}
	if replay != nil || refusal != nil {
		ir.cancel()
		return http.StatusBadRequest, replay, refusal
	}
	s.mu.Lock()
	if s.closed || s.inflight[key] != nil {
		s.mu.Unlock()
		ir.cancel()
		entry.finish(nil)
		return http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "duplicate request id %s", id.String())
	}
	s.inflight[key] = ir
	// Under s.mu, before close (which precedes Handler.Close's Wait).
	s.h.wg.Add(1)
	s.mu.Unlock()
	if c == nil {
		s.h.workers.run(func() { s.serveStarted(msg, x, st, key, ir, entry, nil) })
		return 0, nil, nil
	}
	st.mu.Lock()
	c.inline = !c.ended
	st.mu.Unlock()
	s.serveStarted(msg, x, st, key, ir, entry, c)
	return 0, nil, nil
}

// serveStarted runs the handler of a request start registered and hands
// its answer to the stream, unless a drain answered it first, or it was
// cancelled, or the session ended. c is the POST's connection when the
// handler runs on its goroutine (start), else nil.
func (s *session) serveStarted(msg *jsonrpc.Message, x *mcp.Exchange, st *stream, key string, ir *inflightReq, entry *ledgerEntry, c *sseConn) {
	defer s.h.wg.Done()
	defer ir.cancel()
	id := msg.ID
	res, err := x.Serve(&ir.ctx, s.ms, st)
	if ir.held != nil {
		s.release(ir.held)
	}
	if c != nil {
		// The handler is done: the POST's goroutine replies from here on.
		st.mu.Lock()
		c.inline = false
		st.mu.Unlock()
	}
	s.mu.Lock()
	mine := s.inflight[key] == ir
	if mine {
		delete(s.inflight, key)
		s.answering.Add(1) // under s.mu, as the request leaves inflight
	}
	s.mu.Unlock()
	if !mine {
		entry.finish(nil)
		return // a drain answered it
	}
	defer s.answering.Add(-1)
	if s.h.answering != nil {
		s.h.answering()
	}
	if ir.cancelled || s.ctx.Err() != nil {
		entry.finish(nil)
		st.answer(nil)
		return
	}
	var body []byte
	if err == nil {
		body, err = encodeResult(id, res)
	}
	if err != nil {
		je, ok := asRPCError(err)
		if !ok {
			s.h.log.Error("streamhttp: handler failed", "method", msg.Method, "id", id.String(), "err", err)
		}
		body = errorBody(id, true, s.noID(), je)
		if d, ok := ratelimit.RetryAfter(je); ok {
			st.limited(d)
		}
	}
	entry.finish(body)
	st.answer(body)
}

// await waits until the stream of a POST has every response it owes (or
// the client goes away: the stream goes on without it), then ends the
// response (sseConn.reply), unless the goroutine that ended the
// connection did.
func (s *session) await(r *http.Request, st *stream, c *sseConn) {
	// Most often the handler ran here and its answer ended c already:
	// then the request's Done channel (made on first use) is not needed.
	select {
	case <-c.gone:
		if !c.replied { // else the goroutine that ended c replied
			c.reply()
		}
		return
	default:
	}
	select {
	case <-c.gone:
		if !c.replied {
			c.reply()
		}
	case <-r.Context().Done():
		st.detach(c)
	}
}
