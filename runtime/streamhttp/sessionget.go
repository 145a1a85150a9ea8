package streamhttp

import (
	"net/http"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// A stateful session's GET: its standalone stream, the resumption of any
// of its streams with Last-Event-ID, and DELETE, which ends it.

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
	s := h.lookup(w, r, x, jsonrpc.ID{}, false, false)
	if s == nil {
		return
	}
	defer s.leave()
	h.armFirstWrite(http.NewResponseController(w))
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
	s := h.lookup(w, r, x, jsonrpc.ID{}, false, false)
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
		if g != nil && !s.httpSSE {
			// An HTTP+SSE session's stream carries its answers too: it
			// ends when the drain closes the session, after them.
			s.endStream(g)
		}
	}
}
