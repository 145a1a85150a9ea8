package streamhttp

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// session is one stateful (2025-03-26 … 2025-11-25) session: the
// mcp.Session, its streams, the client requests it serves and the requests
// it sent the client. It is the session's mcp.Caller: requests to the
// client go on the SSE stream of the request being served (or on the GET
// stream outside one) and their responses come back by POST.
type session struct {
	h         *Handler
	id        string
	ms        *mcp.Session
	principal string          // who opened it: only they may use it
	ctx       context.Context // cancelled when the session ends
	cancel    context.CancelFunc

	// Guarded by h.mu: the session's places in the handler's LRU lists.
	client          *sessionSet
	inAll, inClient *list.Element

	mu         sync.Mutex
	closed     bool
	active     int // HTTP requests in progress on the session
	uses       int // HTTP requests after initialize
	lastUsed   time.Time
	inflight   map[string]*inflightReq
	calls      jsonrpc.Calls // the session's requests to the client
	nextStream int
	streams    map[string]*stream // streams that may still get events
	standalone *stream            // the GET stream (a legacy session's one stream)
	// legacy marks a session of the HTTP+SSE transport (legacy.go):
	// everything the server sends goes on its one stream.
	legacy bool
	// backlog and backlogBytes are an HTTP+SSE session's requests in
	// progress and the bytes of their bodies (Options.MaxSSEPending,
	// MaxSSEPendingBytes; see session.hold).
	backlog      int
	backlogBytes int64

	// With a SessionStore: shared reports a session other instances may
	// serve too (its events stay when it ends here, unless deleted);
	// deleted that the client ended it; savedChanges and savedAt what was
	// stored last.
	shared, deleted bool
	savedChanges    uint64
	savedAt         time.Time
	// unsynced reports a state the store does not have (it was down, or
	// lost it): saved again when it can be.
	unsynced bool
}

// inflightReq is a client request being served; whoever removes it from
// session.inflight answers it (its handler, or a drain that expires it).
type inflightReq struct {
	id        jsonrpc.ID
	st        *stream // the stream its answer goes on
	cancel    context.CancelFunc
	cancelled bool
	// held is what a request of an HTTP+SSE session holds until its
	// handler returns (session.hold); nil for others.
	held *backlogHold
}

var (
	// ErrNoStream is returned by calls to a stateful client that has no
	// stream to receive them (no SSE on the request and no GET stream).
	ErrNoStream = errors.New("streamhttp: no stream to the client")
	// ErrSessionClosed is returned by calls pending when the session ends.
	ErrSessionClosed = errors.New("streamhttp: session closed")
)

type streamKey struct{}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// initialize opens a session (or, on a server without stateful
// revisions, answers with the supported versions).
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept) {
	if h.draining() {
		h.refuseDraining(w, r, msg.ID, true)
		return
	}
	if !h.stateful {
		// Answered without a session: with the versions the server has.
		_, err := x.Serve(r.Context(), nil, discardOut{})
		if err == nil {
			err = errInternal
		}
		je, _ := asRPCError(err)
		h.writeError(w, r, httpStatus(je), msg.ID, true, je)
		return
	}
	s := h.newSession(r)
	res, err := x.Serve(r.Context(), s.ms, discardOut{})
	var body []byte
	if err == nil {
		body, err = encodeResult(msg.ID, res)
	}
	if err == nil {
		if serr := s.saveState(r.Context()); serr != nil {
			s.ms.Close()
			s.cancel()
			h.log.Error("streamhttp: saving a new session failed", "err", serr)
			h.writeError(w, r, http.StatusServiceUnavailable, msg.ID, true, storeUnavailable(serr))
			return
		}
	}
	if err != nil {
		s.ms.Close()
		s.cancel()
		je, ok := asRPCError(err)
		if !ok {
			h.log.Error("streamhttp: initialize failed", "err", err)
		}
		h.writeError(w, r, http.StatusBadRequest, msg.ID, true, je)
		return
	}
	if !h.admitSession(w, r, s, msg.ID, true) {
		return
	}
	w.Header().Set(hdrSessionID, s.id)
	writeResponse(w, acc, body)
}

// newSession makes a session for the principal of r (not yet admitted:
// see admitLocked and addLocked).
func (h *Handler) newSession(r *http.Request) *session {
	s := &session{h: h, id: newSessionID(), principal: mcp.PrincipalFrom(r.Context()), inflight: map[string]*inflightReq{}, streams: map[string]*stream{}, lastUsed: time.Now(), shared: h.o.SessionStore != nil}
	if s.shared {
		s.calls.Offset(callOffset())
	}
	s.ctx, s.cancel = context.WithCancel(h.base)
	s.ms = h.srv.NewSession(s, s.cancelRequest)
	s.ms.SetID(s.id)
	return s
}

// admitSession registers a new session within the limits (ending others
// as they allow); when it cannot, it ends s and answers the refusal (with
// id, hasID) itself.
func (h *Handler) admitSession(w http.ResponseWriter, r *http.Request, s *session, id jsonrpc.ID, hasID bool) bool {
	key := h.clientKey(r)
	h.mu.Lock()
	var evicted []*session
	status, refusal := http.StatusServiceUnavailable, errShuttingDown
	if !h.closed && !h.drain {
		evicted, status, refusal = h.admitLocked(key)
	}
	if refusal != nil {
		h.mu.Unlock()
		h.evict(evicted)
		s.ms.Close()
		s.cancel()
		h.writeError(w, r, status, id, hasID, refusal)
		return false
	}
	h.addLocked(s, key)
	h.mu.Unlock()
	h.evict(evicted)
	return true
}

// writeResponse writes a response as JSON, or as a one-event SSE stream
// to a client that accepts only SSE.
func writeResponse(w http.ResponseWriter, acc accept, body []byte) {
	if acc.json {
		writeJSON(w, http.StatusOK, body)
		return
	}
	sseHeaders(w)
	_, _ = w.Write(append(append([]byte("data: "), body...), "\n\n"...))
}

// lookup finds the session a request names and marks it active; it
// answers 400 (no Mcp-Session-Id, or a version the exchange x's era
// refuses) or 404 (unknown or ended) itself.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request, x *mcp.Exchange, id jsonrpc.ID, hasID bool) *session {
	sid := r.Header.Get(hdrSessionID)
	if sid == "" {
		h.writeError(w, r, http.StatusBadRequest, id, hasID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "missing Mcp-Session-Id header: send initialize first"))
		return nil
	}
	h.mu.Lock()
	s := h.sessions[sid]
	if s != nil && (s.principal != mcp.PrincipalFrom(r.Context()) || s.legacy) {
		// Another principal's session, or one of the HTTP+SSE transport:
		// as if there were none.
		s = nil
	}
	restored := false
	if s == nil && h.o.SessionStore != nil {
		// Opened on another instance, maybe: continue it here.
		h.mu.Unlock()
		restored = true
		var err error
		if s, err = h.restore(r.Context(), sid, mcp.PrincipalFrom(r.Context()), h.clientKey(r)); err != nil {
			je, ok := err.(*jsonrpc.Error)
			if !ok {
				if h.endedHere(sid) {
					// Ended here while the store was down.
					h.writeError(w, r, http.StatusNotFound, id, hasID, errSessionNotFound)
					return nil
				}
				h.storeDown(err)
				je = storeUnavailable(err)
			}
			h.writeError(w, r, http.StatusServiceUnavailable, id, hasID, je)
			return nil
		}
		h.mu.Lock()
	}
	if s != nil {
		s.mu.Lock()
		s.active++
		s.uses++
		s.lastUsed = time.Now()
		s.mu.Unlock()
		h.touchLocked(s)
	}
	h.mu.Unlock()
	if s != nil && s.shared && !restored {
		// Another instance may have ended it: the store says. When it
		// cannot (down) or lost the session, this instance, which holds
		// it, goes on serving it and writes it back.
		_, ok, err := h.o.SessionStore.Load(r.Context(), sid)
		switch {
		case errors.Is(err, ErrSessionEnded):
			s.mu.Lock()
			s.deleted = true
			s.mu.Unlock()
			s.leave()
			s.close()
			s = nil
		case err != nil:
			h.storeDown(err)
			s.markUnsynced()
		case !ok:
			h.storeUp()
			h.log.Warn("streamhttp: the session store lost a session this instance holds; writing it back", "session", sid)
			s.markUnsynced()
		default:
			h.storeUp()
		}
	}
	if s == nil {
		h.writeError(w, r, http.StatusNotFound, id, hasID, errSessionNotFound)
		return nil
	}
	if je := x.Check(r.Context(), r.Header); je != nil {
		s.leave()
		h.writeError(w, r, http.StatusBadRequest, id, hasID, je)
		return nil
	}
	return s
}

func (s *session) leave() {
	s.mu.Lock()
	s.active--
	s.lastUsed = time.Now()
	s.mu.Unlock()
	if s.shared {
		// What the request changed (initialized, log level,
		// subscriptions) is seen by every instance.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), storeTimeout)
		defer cancel()
		if err := s.saveState(ctx); err != nil {
			s.h.storeDown(err)
			s.markUnsynced()
		}
	}
}

// markUnsynced notes a state the store lacks: it is saved again on the
// session's next request, or by the janitor.
func (s *session) markUnsynced() {
	s.mu.Lock()
	s.unsynced = true
	s.savedChanges = ^uint64(0) // due
	s.mu.Unlock()
}

// errSessionNotFound answers a request of a session that is not served.
var errSessionNotFound = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found: it expired or was ended; initialize a new one")

// storeUnavailable is the error of a request whose session the store
// could not load or save.
func storeUnavailable(err error) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "session store unavailable, try again: %v", err)
}

// serveStateful serves one POSTed message of the stateful era.
func (h *Handler) serveStateful(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept) {
	if x.OpensSession() && r.Header.Get(hdrSessionID) == "" {
		h.initialize(w, r, msg, x, acc)
		return
	}
	s := h.lookup(w, r, x, msg.ID, msg.HasID)
	if s == nil {
		return
	}
	defer s.leave()
	if msg.Kind == jsonrpc.KindRequest {
		s.serveRequest(w, r, msg, x, acc)
		return
	}
	s.oneWay(r.Context(), msg, x)
	w.WriteHeader(http.StatusAccepted)
}

// noID is how the session writes errors without an id: as its revision
// says.
func (s *session) noID() jsonrpc.NoID {
	if p := s.ms.Protocol(); p != nil {
		return p.NoID
	}
	return s.h.srv.NoID("")
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
func (s *session) serveRequest(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept) {
	st, c, err := s.postStream(w, acc, false)
	if err != nil {
		s.h.writeError(w, r, http.StatusNotFound, msg.ID, true, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found"))
		return
	}
	// Cancelled by the client: no response.
	c.post(r, msg.ID, true, http.StatusNoContent)
	st.owe()
	status, replay, je := s.start(r, msg, x, st, c, nil)
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
	c.sess, c.acc = s, acc
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
// recorded then (replay), to answer it with again.
func (s *session) start(r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, st *stream, c *sseConn, held *backlogHold) (status int, replay []byte, refusal *jsonrpc.Error) {
	id := msg.ID
	key := idKey(id)
	// Cancelled by notifications/cancelled (cancelRequest) and by the end
	// of the session (close cancels what its inflight table holds), not by
	// the client going away.
	hctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	if s.h.draining() {
		cancel()
		return http.StatusServiceUnavailable, nil, errShuttingDown
	}
	s.mu.Lock()
	if s.closed || s.inflight[key] != nil {
		closed := s.closed
		s.mu.Unlock()
		cancel()
		if closed {
			return http.StatusNotFound, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session ended")
		}
		return http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "duplicate request id %s", id.String())
	}
	s.mu.Unlock()
	// Sent before, to this instance or another (a retry)? The ledger
	// says; it answers again what was answered.
	entry, replay, refusal := s.begin(r.Context(), id, key, st)
	if replay != nil || refusal != nil {
		cancel()
		return http.StatusBadRequest, replay, refusal
	}
	s.mu.Lock()
	if s.closed || s.inflight[key] != nil {
		s.mu.Unlock()
		cancel()
		entry.finish(nil)
		return http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "duplicate request id %s", id.String())
	}
	ir := &inflightReq{id: id, st: st, cancel: cancel, held: held}
	s.inflight[key] = ir
	// Under s.mu, before close (which precedes Handler.Close's Wait).
	s.h.wg.Add(1)
	s.mu.Unlock()
	hctx = context.WithValue(hctx, streamKey{}, st)
	if c == nil {
		s.h.workers.run(func() { s.serveStarted(hctx, cancel, msg, x, st, key, ir, entry, nil) })
		return 0, nil, nil
	}
	st.mu.Lock()
	c.inline = !c.ended
	st.mu.Unlock()
	s.serveStarted(hctx, cancel, msg, x, st, key, ir, entry, c)
	return 0, nil, nil
}

// serveStarted runs the handler of a request start registered and hands
// its answer to the stream, unless a drain answered it first, or it was
// cancelled, or the session ended. c is the POST's connection when the
// handler runs on its goroutine (start), else nil.
func (s *session) serveStarted(ctx context.Context, cancel context.CancelFunc, msg *jsonrpc.Message, x *mcp.Exchange, st *stream, key string, ir *inflightReq, entry *ledgerEntry, c *sseConn) {
	defer s.h.wg.Done()
	defer cancel()
	id := msg.ID
	res, err := x.Serve(ctx, s.ms, st)
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
	}
	s.mu.Unlock()
	if !mine {
		entry.finish(nil)
		return // a drain answered it
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
		if d, ok := mcp.RetryAfter(je); ok {
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
	select {
	case <-c.gone:
		if !c.replied { // else the goroutine that ended c replied
			c.reply()
		}
	case <-r.Context().Done():
		st.detach(c)
	}
}

// serveGet opens the GET stream, or resumes a stream (Last-Event-ID).
func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request, x *mcp.Exchange) {
	if acc := parseAccept(r.Header.Values("Accept")); !acc.sse {
		h.writeError(w, r, http.StatusNotAcceptable, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Accept must allow text/event-stream"))
		return
	}
	if h.draining() {
		h.refuseDraining(w, r, jsonrpc.ID{}, false)
		return
	}
	s := h.lookup(w, r, x, jsonrpc.ID{}, false)
	if s == nil {
		return
	}
	defer s.leave()
	h.clearDeadlines(http.NewResponseController(w))
	if last := strings.TrimSpace(r.Header.Get(hdrLastEventID)); last != "" {
		s.resume(w, r, last)
		return
	}
	c := h.newConn(w, true)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		h.writeError(w, r, http.StatusNotFound, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session ended"))
		return
	}
	if old := s.standalone; old != nil && old.attached() {
		s.mu.Unlock()
		h.writeError(w, r, http.StatusConflict, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session already has a GET stream"))
		return
	}
	old := s.standalone
	st := s.newStreamLocked("g")
	st.conn = c
	s.standalone = st
	s.mu.Unlock()
	if old != nil {
		old.end()
		s.removeStream(old)
	}
	st.mu.Lock()
	if !st.started && st.conn == c {
		st.startLocked()
	}
	st.mu.Unlock()
	select {
	case <-c.gone:
		c.lastWrite()
	case <-r.Context().Done():
		st.detach(c)
	}
}

// resume replays the events of a stream after last, then goes on with the
// stream if it is still live.
func (s *session) resume(w http.ResponseWriter, r *http.Request, last string) {
	_, name, err := s.h.store.Replay(r.Context(), s.id, last)
	if err != nil {
		s.h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "cannot resume from Last-Event-ID %q: %v", last, err))
		return
	}
	s.mu.Lock()
	st := s.streams[name]
	s.mu.Unlock()
	c := s.h.newConn(w, true)
	if st == nil {
		// The stream is over here, or another instance serves it: what it
		// had left is in the store, and what it still owes the ledger
		// knows.
		events, _, err := s.h.store.Replay(r.Context(), s.id, last)
		if err != nil {
			s.h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "cannot resume from Last-Event-ID %q: %v", last, err))
			return
		}
		sseHeaders(w)
		c.writeRetry(s.h.o.RetryInterval)
		answered := map[string]bool{}
		for _, ev := range events {
			if c.writeEvent(ev.ID, ev.Data) != nil {
				return
			}
			last = ev.ID
			markAnswered(answered, ev.Data)
		}
		s.settleRemote(r.Context(), c, name, last, answered)
		return
	}
	st.mu.Lock()
	// Under the stream's lock no event is delivered: the replay and the
	// live events after it meet without gap or repeat.
	events, _, err := s.h.store.Replay(r.Context(), s.id, last)
	if err != nil {
		st.mu.Unlock()
		s.h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "cannot resume from Last-Event-ID %q: %v", last, err))
		return
	}
	if st.conn != nil {
		// The old connection may not know yet that it is broken.
		st.conn.end()
	}
	st.conn = c
	st.started = true
	c.began = true
	sseHeaders(w)
	c.writeRetry(s.h.o.RetryInterval)
	for _, ev := range events {
		if c.writeEvent(ev.ID, ev.Data) != nil {
			c.end()
			st.conn = nil
			break
		}
	}
	if st.final && st.conn == c {
		c.end()
		st.conn = nil
	} else if st.conn == c {
		st.keepAliveLocked(c)
	}
	st.mu.Unlock()
	select {
	case <-c.gone:
		c.lastWrite()
	case <-r.Context().Done():
		st.detach(c)
	}
}

// serveDelete ends a session.
func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request, x *mcp.Exchange) {
	s := h.lookup(w, r, x, jsonrpc.ID{}, false)
	if s == nil {
		return
	}
	s.leave()
	if s.shared {
		// Ended for every instance: at once through the store, or, while
		// it is down, here at once and elsewhere once the tombstone is
		// written back.
		if err := s.h.o.SessionStore.Delete(r.Context(), s.id); err != nil {
			s.h.storeDown(err)
			s.h.deleteLater(s.id)
		}
		s.mu.Lock()
		s.deleted = true
		s.mu.Unlock()
	}
	s.close()
	w.WriteHeader(http.StatusOK)
}

// close ends the session: its streams end, its requests are cancelled,
// calls to the client fail and its events are forgotten.
func (s *session) close() {
	h := s.h
	h.mu.Lock()
	h.forgetLocked(s)
	h.mu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	streams := make([]*stream, 0, len(s.streams))
	for _, st := range s.streams {
		streams = append(streams, st)
	}
	clear(s.streams)
	s.standalone = nil
	// The requests in flight: start registers one only while the session
	// is open, so these are all of them. Their handlers remove them.
	cancels := make([]context.CancelFunc, 0, len(s.inflight))
	for _, ir := range s.inflight {
		cancels = append(cancels, ir.cancel)
	}
	s.mu.Unlock()
	s.cancel()
	for _, cancel := range cancels {
		cancel()
	}
	s.calls.Close(ErrSessionClosed)
	for _, st := range streams {
		st.end()
	}
	s.ms.Close()
	s.mu.Lock()
	keep := s.shared && !s.deleted
	s.mu.Unlock()
	if keep {
		return // other instances may serve it: its events stay
	}
	if err := h.store.Forget(context.WithoutCancel(s.ctx), s.id); err != nil {
		h.log.Warn("streamhttp: forgetting a session's events failed", "session", s.id, "err", err)
	}
}

// newStream makes a stream the session's events can go to; prefix is "p"
// for a POST, "g" for a GET stream.
func (s *session) newStream(prefix string) (*stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	return s.newStreamLocked(prefix), nil
}

func (s *session) newStreamLocked(prefix string) *stream {
	s.nextStream++
	var buf [32]byte // the name is built here, and only the string allocated
	name := strconv.AppendInt(append(append(buf[:0], prefix...), s.h.inst...), int64(s.nextStream), 10)
	st := &stream{sess: s, name: string(name)}
	s.streams[st.name] = st
	return st
}

func (s *session) removeStream(st *stream) {
	s.mu.Lock()
	if s.streams[st.name] == st {
		delete(s.streams, st.name)
	}
	if s.standalone == st {
		s.standalone = nil
	}
	s.mu.Unlock()
}

// target is the stream a message sent with ctx goes on: the stream of the
// request ctx belongs to, else the GET stream (nil if none).
func (s *session) target(ctx context.Context) *stream {
	if st, ok := ctx.Value(streamKey{}).(*stream); ok && st.sess == s {
		return st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.standalone
}

// send delivers a message on st, or on the GET stream when st cannot take
// it (finished, or a client that did not accept SSE).
func (s *session) send(st *stream, msg []byte) error {
	if st != nil {
		if err := st.deliver(msg); err == nil {
			return nil
		}
	}
	s.mu.Lock()
	g := s.standalone
	s.mu.Unlock()
	if g == nil || g == st {
		return ErrNoStream
	}
	return g.deliver(msg)
}

// Notify implements mcp.Caller. A notification no stream can take is
// dropped.
func (s *session) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	b, err := jsonrpc.AppendNotification(nil, method, params)
	if err != nil {
		return err
	}
	if err := s.send(s.target(ctx), b); err != nil && !errors.Is(err, ErrNoStream) {
		return err
	}
	return nil
}

// Call implements mcp.Caller: the request goes on the stream of the
// request being served (else the GET stream); the client POSTs the
// response.
func (s *session) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	st := s.target(ctx)
	p, err := s.calls.Start(result)
	if err != nil {
		return err
	}
	id := p.ID()
	b, err := jsonrpc.AppendRequest(nil, id, method, params)
	if err == nil {
		err = s.send(st, b)
	}
	if err != nil {
		s.calls.Abandon(p)
		return err
	}
	err = s.calls.Wait(ctx, p)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// Tell the client to stop; it must not answer anymore.
		if cancelled := s.protocol().RoleName(protocol.RoleCancelled); cancelled != "" {
			_ = s.Notify(ctx, cancelled, mcp.CancelledParams(id, ctx.Err().Error()))
		}
	}
	return err
}

// protocol is the session's revision (or, before initialize, an empty
// one).
func (s *session) protocol() *protocol.Protocol {
	if p := s.ms.Protocol(); p != nil {
		return p
	}
	return &protocol.Protocol{}
}

// endStandalone ends the GET streams of every session (the server is
// shutting down; clients may come back elsewhere).
func (h *Handler) endStandalone() {
	h.mu.Lock()
	sessions := h.sessionsLocked()
	h.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		g := s.standalone
		s.mu.Unlock()
		if g != nil && !s.legacy {
			// An HTTP+SSE session's stream carries its answers too: it
			// ends when the drain closes the session, after them.
			s.endStream(g)
		}
	}
}
