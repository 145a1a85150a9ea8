package streamhttp

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
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

	mu       sync.Mutex
	closed   bool
	active   int // HTTP requests in progress on the session
	uses     int // HTTP requests after initialize
	lastUsed time.Time
	inflight map[string]*inflightReq
	// answering counts the requests taken out of inflight by their
	// handler whose answer is not yet on its stream: a drain waits for
	// them too (busy), or closing the session would lose the answer.
	answering  atomic.Int32
	calls      jsonrpc.Calls // the session's requests to the client
	nextStream int
	streams    map[string]*stream // streams that may still get events
	standalone *stream            // the GET stream (a HTTP+SSE session's one stream)
	// httpSSE marks a session of the HTTP+SSE transport (ssetransport.go):
	// everything the server sends goes on its one stream.
	httpSSE bool
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
	if !h.draining() {
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
// refuses) or 404 (unknown or ended) itself. With deferCheck (a request
// whose ledger Begin can look: sessionLedger) it leaves the question
// whether another instance ended a shared session it holds to
// session.begin.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request, x *mcp.Exchange, id jsonrpc.ID, hasID, deferCheck bool) *session {
	sid := r.Header.Get(hdrSessionID)
	if sid == "" {
		h.writeError(w, r, http.StatusBadRequest, id, hasID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "missing Mcp-Session-Id header: send initialize first"))
		return nil
	}
	now := time.Now() // read outside the lock every request takes
	h.mu.Lock()
	s := h.sessions[sid]
	if s != nil && (s.principal != mcp.PrincipalFrom(r.Context()) || s.httpSSE) {
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
		s.lastUsed = now
		s.mu.Unlock()
		h.touchLocked(s)
	}
	h.mu.Unlock()
	if s != nil && s.shared && !restored && !deferCheck {
		// Another instance may have ended it: the store says. When it
		// cannot (down) or lost the session, this instance, which holds
		// it, goes on serving it and writes it back. (A request whose
		// Begin can look, deferCheck, learns it there, in the same round
		// trip: session.begin.)
		_, ok, err := h.o.SessionStore.Load(r.Context(), sid)
		switch {
		case errors.Is(err, ErrSessionEnded):
			s.leave()
			s.ended()
			s = nil
		case err != nil:
			h.storeDown(err)
			s.markUnsynced()
		case !ok:
			s.lostByStore()
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

// ended closes the session another instance ended (the store holds its
// tombstone), keeping nothing of it.
func (s *session) ended() {
	s.mu.Lock()
	s.deleted = true
	s.mu.Unlock()
	s.close()
}

// lostByStore notes a session this instance holds that the store lost
// (expired, or a Redis restarted without persistence): it is written
// back.
func (s *session) lostByStore() {
	s.h.storeUp()
	s.h.log.Warn("streamhttp: the session store lost a session this instance holds; writing it back", "session", s.id)
	s.markUnsynced()
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

// noID is how the session writes errors without an id: as its revision
// says.
func (s *session) noID() jsonrpc.NoID {
	if p := s.ms.Protocol(); p != nil {
		return p.NoID
	}
	return s.h.srv.NoID("")
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
	return s.CallInto(ctx, method, params, wire.To(result))
}

// CallInto implements mcp.Caller.
func (s *session) CallInto(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
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
