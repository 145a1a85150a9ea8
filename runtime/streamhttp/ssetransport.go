package streamhttp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
)

// The HTTP+SSE transport of 2024-11-05, which Streamable HTTP replaced in
// 2025-03-26 and whose clients are still in use (see the 2025-03-26
// transports' backwards compatibility). A GET opens an SSE stream whose
// first event, "endpoint", names the URL to POST messages to; every
// message of the server — responses, requests, notifications — goes on
// that stream as a "message" event, and each POST is answered 202
// Accepted. Its sessions are the Handler's stateful sessions: the same
// mcp.Server and handlers, the same checks, limits, principals, drain and
// session store; one lives as long as its stream.

// SSE returns the http.Handler of the HTTP+SSE transport, served by
// h's sessions: mount it beside the Streamable HTTP endpoint (at /sse,
// say). A GET opens a session and its stream; the endpoint event names
// the same path with ?sessionId=, where the client POSTs. It negotiates
// every stateful revision the server has.
func (h *Handler) SSE() http.Handler { return sseEndpoint{h} }

type sseEndpoint struct{ h *Handler }

const (
	// sseSessionParam is the query parameter naming the session of a
	// POST.
	sseSessionParam = "sessionId"
	// transportSSE marks the sessions of the HTTP+SSE transport in
	// the session store (mcp.SessionState.Transport).
	transportSSE = "sse"
	// sseRelayPrefix marks, in a Relay's session argument, a message
	// for the stream of an HTTP+SSE session (an instance that serves one
	// of its requests hands its messages to the one holding the stream);
	// sseInPrefix one the client POSTed to another instance before the
	// session was initialized, for the holder to serve.
	sseRelayPrefix = "sse:"
	sseInPrefix    = "sse-in:"
)

func (e sseEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := e.h
	r, addr, key, ok := h.guard(w, r)
	if !ok {
		return
	}
	defer h.leave(key)
	switch r.Method {
	case http.MethodGet:
		h.openSSE(w, r)
	case http.MethodPost:
		h.postSSE(w, r, addr, key)
	default:
		w.Header().Set("Allow", "GET, POST")
		h.writeError(w, r, http.StatusMethodNotAllowed, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "method not allowed: GET opens the stream, POST sends a message"))
	}
}

// openSSE opens a session and its stream, announces the endpoint and
// keeps the stream until the client leaves or the session ends; the
// session ends with it.
func (h *Handler) openSSE(w http.ResponseWriter, r *http.Request) {
	if vals := r.Header.Values("Accept"); len(vals) > 0 && !parseAccept(vals).sse {
		h.writeError(w, r, http.StatusNotAcceptable, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Accept must allow text/event-stream"))
		return
	}
	if !h.stateful {
		h.writeError(w, r, http.StatusNotFound, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "this server speaks no revision of the HTTP+SSE transport (2024-11-05 … 2025-11-25)"))
		return
	}
	if h.draining() {
		h.refuseDraining(w, r, jsonrpc.ID{}, false)
		return
	}
	s := h.newSession(r)
	s.httpSSE = true
	if s.shared {
		// Before initialize, a record that the session exists (and whose
		// it is), so that another instance relays its first POSTs here.
		if err := h.o.SessionStore.Save(r.Context(), s.id, mcp.SessionState{Principal: s.principal, Transport: transportSSE}, h.o.SessionIdleTimeout); err != nil {
			s.ms.Close()
			s.cancel()
			h.storeDown(err)
			h.writeError(w, r, http.StatusServiceUnavailable, jsonrpc.ID{}, false, storeUnavailable(err))
			return
		}
	}
	if !h.admitSession(w, r, s, jsonrpc.ID{}, false) {
		return
	}
	// The stream holds the session in use: it is not idle while open.
	s.mu.Lock()
	s.active++
	c := h.newConn(w, true)
	c.q = &sseQueue{wake: make(chan struct{}, 1)}
	st := s.newStreamLocked("l")
	st.httpSSE = true
	st.conn = c
	s.standalone = st
	s.mu.Unlock()
	defer h.endSSE(s)
	h.armFirstWrite(http.NewResponseController(w))
	endpoint := url.URL{Path: r.URL.Path, RawQuery: url.Values{sseSessionParam: {s.id}}.Encode()}
	st.mu.Lock()
	st.started, c.began = true, true
	sseHeaders(w)
	err := c.write([]byte("event: endpoint\ndata: " + endpoint.String() + "\n\n"))
	if err == nil {
		st.keepAliveLocked(c)
	}
	st.mu.Unlock()
	if err != nil {
		return
	}
	// This goroutine writes the stream: what the session sends waits in
	// the connection's queue (stream.queueLocked), so that no handler
	// waits for a client that does not read.
	for {
		select {
		case <-c.q.wake:
			if !st.flush(c) {
				return
			}
		case <-c.gone:
			st.flush(c)
			return
		case <-r.Context().Done():
			st.detach(c)
			return
		}
	}
}

// endSSE ends a HTTP+SSE session when its stream is over: the client
// cannot come back to it (a new GET opens a new session).
func (h *Handler) endSSE(s *session) {
	s.mu.Lock()
	s.active--
	s.deleted = true
	s.mu.Unlock()
	if s.shared {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), storeTimeout)
		defer cancel()
		if err := h.o.SessionStore.Delete(ctx, s.id); err != nil {
			h.storeDown(err)
			h.deleteLater(s.id)
		}
	}
	s.close()
}

// postSSE serves one message POSTed to a HTTP+SSE session: it answers
// 202 Accepted and the server's answer goes on the session's stream.
func (h *Handler) postSSE(w http.ResponseWriter, r *http.Request, addr string, key requesterKey) {
	sid := r.URL.Query().Get(sseSessionParam)
	if sid == "" {
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "missing ?%s=: POST to the URL of the stream's endpoint event", sseSessionParam))
		return
	}
	var br bodyRead
	body, _, ok := h.readBody(w, r, &br)
	if !ok {
		return
	}
	s := h.sseSession(r, sid)
	if s == nil {
		forwarded, initialized := h.forwardSSEPOST(r, sid, body)
		if forwarded {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if initialized {
			// Initialized by its instance between the two looks at the
			// store: restorable now.
			s = h.sseSession(r, sid)
		}
	}
	if s == nil {
		h.writeError(w, r, http.StatusNotFound, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found: its stream ended, or it never was; GET the stream again for a new session"))
		return
	}
	defer s.leave()
	if status, id, hasID, je := s.serveSSE(r, body, addr, key); je != nil {
		if status == http.StatusTooManyRequests {
			setRetryAfter(w, time.Second)
		}
		h.writeError(w, r, status, id, hasID, je)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// serveSSE serves one message of a HTTP+SSE session: answers and refusals
// go on the session's stream; a refusal is returned too, with the HTTP
// status to answer the POST with (nil: 202 Accepted).
func (s *session) serveSSE(r *http.Request, body []byte, addr string, key requesterKey) (status int, id jsonrpc.ID, hasID bool, je *jsonrpc.Error) {
	h := s.h
	if jsonrpc.IsBatch(body) {
		return http.StatusBadRequest, jsonrpc.ID{}, false, errBatchesUnsupported("the HTTP+SSE transport takes one message per POST")
	}
	msg, err := h.parse(body)
	if err != nil || msg.Kind == jsonrpc.KindInvalid {
		je := jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: %v", err)
		if err == nil {
			je = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: %s", msg.Problem)
			id, hasID = msg.ID, msg.HasID
		}
		// On the stream, where the client reads its answers, and as the
		// POST's answer.
		_ = s.send(s.sseStream(), errorBody(id, hasID, s.noID(), je))
		return http.StatusBadRequest, id, hasID, je
	}
	// The session is named by ?sessionId=, not Mcp-Session-Id: the
	// engine hears of it all the same, so that the message is the
	// session's (an unknown method -32601, like any other).
	v := via(r, addr)
	v.Session = true
	x := h.accept(msg, v)
	if x.Era() != protocol.Stateful {
		je := jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the HTTP+SSE transport carries the stateful revisions only")
		_ = s.send(s.sseStream(), errorBody(msg.ID, msg.HasID, s.noID(), je))
		return http.StatusBadRequest, msg.ID, msg.HasID, je
	}
	if msg.Kind != jsonrpc.KindRequest {
		s.oneWay(r.Context(), msg, x)
		return 0, id, false, nil
	}
	st := s.sseStream()
	if st == nil {
		return http.StatusNotFound, msg.ID, true, errSessionNotFound
	}
	if st.forward != nil {
		// Another instance holds the stream: this request gets a
		// forwarding stream of its own.
		if st, _ = s.newStream("r"); st == nil {
			return http.StatusNotFound, msg.ID, true, errSessionNotFound
		}
		st.httpSSE, st.started, st.forward = true, true, s.forwardSSE
	}
	held, status, refusal := s.hold(st, key, len(body))
	if refusal != nil {
		return status, msg.ID, true, refusal
	}
	status, replay, je := s.start(r, msg, x, st, nil, held, false)
	if replay != nil || je != nil {
		s.release(held)
	}
	switch {
	case replay != nil:
		_ = s.send(st, replay)
	case je != nil:
		_ = s.send(st, errorBody(msg.ID, true, s.noID(), je))
		return status, msg.ID, true, je
	}
	return 0, id, false, nil
}

// forwardSSEPOST hands a POST of a session this instance cannot serve
// yet — one another instance opened and that has not been initialized,
// so the store holds no state to restore it from — to the instance
// holding its stream, through the Relay. It reports forwarded false when
// the store knows no such session of the principal, or when the session
// has a state now (initialized: its instance answered initialize since
// the caller looked, so it can be restored here).
func (h *Handler) forwardSSEPOST(r *http.Request, sid string, body []byte) (forwarded, initialized bool) {
	if h.o.SessionStore == nil || h.o.Relay == nil {
		return false, false
	}
	st, ok, err := h.o.SessionStore.Load(r.Context(), sid)
	if err != nil || !ok || st.Transport != transportSSE || st.Principal != mcp.PrincipalFrom(r.Context()) {
		return false, false
	}
	if st.Revision != "" {
		return false, true
	}
	if err := h.o.Relay.Publish(r.Context(), sseInPrefix+sid, body); err != nil {
		h.log.Error("streamhttp: relaying a message to the HTTP+SSE session's instance failed", "session", sid, "err", err)
		return false, false
	}
	return true, false
}

// serveRelayedSSE serves a message another instance relayed to an HTTP+SSE
// session this one holds (forwardSSEPOST), as if it was POSTed here.
func (h *Handler) serveRelayedSSE(sid string, body []byte) {
	s := h.localSSE(sid)
	if s == nil {
		return
	}
	s.mu.Lock()
	live := !s.closed && s.standalone != nil
	if live {
		s.active++
	}
	s.mu.Unlock()
	if !live {
		return
	}
	defer s.leave()
	r := (&http.Request{Method: http.MethodPost, Header: http.Header{}}).WithContext(mcp.WithPrincipal(s.ctx, s.principal))
	_, _, _, _ = s.serveSSE(r, body, "", h.requester(r, ""))
}

// sseSession finds the HTTP+SSE session sid for the principal of r
// and marks it active (leave when done): this instance's, or, with a
// session store and a Relay, one whose stream another instance holds,
// restored here. nil when there is none the request may use.
func (h *Handler) sseSession(r *http.Request, sid string) *session {
	principal := mcp.PrincipalFrom(r.Context())
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	if st := s.sseStreamOf(); st != nil && st.forward != nil {
		// Its stream is another instance's, which ends the session with
		// it: the store says whether it still lives.
		if _, ok, err := h.o.SessionStore.Load(r.Context(), sid); err == nil && !ok || errors.Is(err, ErrSessionEnded) {
			s.mu.Lock()
			s.deleted = true
			s.mu.Unlock()
			s.close()
			return nil
		}
	}
	if s == nil && h.o.SessionStore != nil && h.o.Relay != nil {
		var err error
		if s, err = h.restore(r.Context(), sid, principal, h.clientKey(r)); err != nil {
			h.log.Debug("streamhttp: restoring an HTTP+SSE session failed", "session", sid, "err", err)
			s = nil
		}
	}
	if s == nil || !s.httpSSE || s.principal != principal {
		// None, a Streamable HTTP session, or another principal's: as if
		// there were none.
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s.mu.Lock()
	live := !s.closed
	if live {
		s.active++
		s.uses++
		s.lastUsed = time.Now()
	}
	s.mu.Unlock()
	if !live {
		return nil
	}
	h.touchLocked(s)
	return s
}

// sseStreamOf is the HTTP+SSE stream of s, nil when s is nil or no
// HTTP+SSE session.
func (s *session) sseStreamOf() *stream {
	if s == nil || !s.httpSSE {
		return nil
	}
	return s.sseStream()
}

// sseStream is the stream the answers of a HTTP+SSE session's request go
// on: the session's own; on an instance that does not hold it, a stub
// whose forward is set (see postSSE); nil once the session ended.
func (s *session) sseStream() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.standalone == nil && !s.closed && s.shared {
		return &stream{sess: s, httpSSE: true, started: true, forward: s.forwardSSE}
	}
	return s.standalone
}

// forwardSSE hands a message to the instance holding the session's
// stream.
func (s *session) forwardSSE(msg []byte) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), storeTimeout)
	defer cancel()
	if err := s.h.o.Relay.Publish(ctx, sseRelayPrefix+s.id, msg); err != nil {
		s.h.log.Error("streamhttp: relaying a message to the HTTP+SSE stream failed", "session", s.id, "err", err)
	}
}

// deliverSSE writes a message another instance relayed to the stream of
// a HTTP+SSE session this instance holds.
func (h *Handler) deliverSSE(sid string, msg []byte) {
	s := h.localSSE(sid)
	if s == nil {
		return
	}
	s.mu.Lock()
	st := s.standalone
	s.mu.Unlock()
	if st != nil && st.forward == nil {
		_ = st.deliver(msg)
	}
}

// localSSE is the HTTP+SSE session sid this instance has, or nil.
func (h *Handler) localSSE(sid string) *session {
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	if s == nil || !s.httpSSE {
		return nil
	}
	return s
}

// backlogHold is what a request of an HTTP+SSE session holds from its
// POST until its handler returns (session.hold): bytes of the session's
// MaxSSEPendingBytes, one of its MaxSSEPending, and one of its client's
// MaxRequestsPerClient.
type backlogHold struct {
	bytes  int64
	client requesterKey
}

// hold takes a place for one more request of the HTTP+SSE session, whose
// body has size bytes, for client key; st is the stream its answer goes
// on. The POST that carries it is answered before its handler runs, so
// these bounds, not the POST, keep what one client may have the server
// hold. It returns the refusal and its HTTP status when the session or
// the client is at its bound (429), or the stream is gone (404).
func (s *session) hold(st *stream, key requesterKey, size int) (*backlogHold, int, *jsonrpc.Error) {
	h := s.h
	var queued int64
	st.mu.Lock()
	gone := st.forward == nil && st.conn == nil
	if st.conn != nil && st.conn.q != nil {
		queued = st.conn.q.queued
	}
	st.mu.Unlock()
	if gone {
		// Cut (its client did not read) or left: the session is ending.
		return nil, http.StatusNotFound, errSessionNotFound
	}
	s.mu.Lock()
	busy := s.backlog > 0 || queued > 0
	switch {
	case s.backlog >= h.o.MaxSSEPending:
		n := s.backlog
		s.mu.Unlock()
		return nil, http.StatusTooManyRequests, jsonrpc.NewError(jsonrpc.CodeInternalError,
			"this session has %d requests in progress (the most it may have): wait for their answers on its stream", n)
	case busy && s.backlogBytes+queued+int64(size) > h.o.MaxSSEPendingBytes:
		n := s.backlogBytes + queued
		s.mu.Unlock()
		return nil, http.StatusTooManyRequests, jsonrpc.NewError(jsonrpc.CodeInternalError,
			"this session holds %d bytes of requests in progress and of messages its stream has not taken yet (at most %d): read the stream, or wait for its answers", n, h.o.MaxSSEPendingBytes)
	}
	s.backlog++
	s.backlogBytes += int64(size)
	s.mu.Unlock()
	if !h.enter(key) {
		s.mu.Lock()
		s.backlog--
		s.backlogBytes -= int64(size)
		s.mu.Unlock()
		return nil, http.StatusTooManyRequests, jsonrpc.NewError(jsonrpc.CodeInternalError,
			"too many requests in progress for this client (%d)", h.o.MaxRequestsPerClient)
	}
	return &backlogHold{bytes: int64(size), client: key}, 0, nil
}

// release gives back what hold took.
func (s *session) release(b *backlogHold) {
	s.mu.Lock()
	s.backlog--
	s.backlogBytes -= b.bytes
	s.mu.Unlock()
	s.h.leave(b.client)
}
