package streamhttp

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Stateful sessions cost memory until they end, so one client must not be
// able to hold them all. Three limits share them out (Options):
//
//   - MaxSessionsPerClient: a client (its principal when requests are
//     authenticated, else its remote address; see ClientKey) that opens
//     one more ends its own least recently used idle session first; with
//     none idle it gets 429;
//   - MaxSessions, over all clients: at the cap initialize ends the least
//     recently used idle session that never served a request after its
//     initialize, or that has been idle for EvictIdleAfter; with none it
//     gets 503;
//   - idle expiry: SessionIdleTimeout, and the shorter
//     UnusedSessionTimeout for sessions that never served a request after
//     their initialize.
//
// A session is idle when no HTTP request uses it (a GET stream does) and
// none of its requests is still being handled. An ended session's id gets
// 404, and the client initializes a new one, as the specification asks.

// Defaults of the session limits.
const (
	defaultMaxSessions          = 10000
	defaultMaxSessionsPerClient = 100
	defaultSessionIdleTimeout   = 30 * time.Minute
	defaultUnusedSessionTimeout = time.Minute
	defaultEvictIdleAfter       = time.Minute
)

// sessionSet is the sessions of one client, least recently used first.
type sessionSet struct {
	key string
	lru list.List // of *session
}

// clientKey names the client a request comes from, for
// MaxSessionsPerClient.
func (h *Handler) clientKey(r *http.Request) string {
	if h.o.ClientKey != nil {
		return h.o.ClientKey(r)
	}
	if p := mcp.PrincipalFrom(r.Context()); p != "" {
		return "principal " + p
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "address " + host
}

// withPrincipal completes the context of an authenticated request with
// its principal: the one Options.Auth set (mcp.WithPrincipal), else one
// derived from the credentials it accepted (a digest of the Authorization
// header), so that what a token opens only that token can use. Requests
// without Auth have none.
func withPrincipal(r *http.Request) *http.Request {
	if mcp.PrincipalFrom(r.Context()) != "" {
		return r
	}
	cred := r.Header.Get("Authorization")
	if cred == "" {
		return r
	}
	sum := sha256.Sum256([]byte(cred))
	return r.WithContext(mcp.WithPrincipal(r.Context(), "credential:"+hex.EncodeToString(sum[:16])))
}

// admitLocked makes room for one more session of client key, ending idle
// sessions as the limits allow; it returns the sessions to end (their
// close must run without h.mu), or the refusal to answer with.
func (h *Handler) admitLocked(key string) (evicted []*session, status int, refusal *jsonrpc.Error) {
	if set := h.clients[key]; set != nil && set.lru.Len() >= h.o.MaxSessionsPerClient {
		v := h.idlestLocked(&set.lru, true)
		if v == nil {
			return nil, http.StatusTooManyRequests, jsonrpc.NewError(jsonrpc.CodeInternalError,
				"too many sessions for this client (%d, all in use): end one with DELETE first", h.o.MaxSessionsPerClient)
		}
		h.forgetLocked(v)
		evicted = append(evicted, v)
	}
	if len(h.sessions) >= h.o.MaxSessions {
		v := h.idlestLocked(&h.lru, false)
		if v == nil {
			return evicted, http.StatusServiceUnavailable, jsonrpc.NewError(jsonrpc.CodeInternalError, "too many sessions")
		}
		h.forgetLocked(v)
		evicted = append(evicted, v)
	}
	return evicted, 0, nil
}

// idlestLocked returns the least recently used idle session of lru (a
// list of the handler's or of one client's), or nil. Unless anyAge, only
// a session unused since its initialize, or idle for EvictIdleAfter, will
// do.
func (h *Handler) idlestLocked(lru *list.List, anyAge bool) *session {
	now := time.Now()
	for e := lru.Front(); e != nil; e = e.Next() {
		s := e.Value.(*session)
		s.mu.Lock()
		ok := s.active == 0 && len(s.inflight) == 0 && !s.closed &&
			(anyAge || s.uses == 0 || now.Sub(s.lastUsed) >= h.o.EvictIdleAfter)
		s.mu.Unlock()
		if ok {
			return s
		}
	}
	return nil
}

// addLocked registers a new session of client key.
func (h *Handler) addLocked(s *session, key string) {
	h.sessions[s.id] = s
	set := h.clients[key]
	if set == nil {
		set = &sessionSet{key: key}
		h.clients[key] = set
	}
	s.client = set
	s.inAll = h.lru.PushBack(s)
	s.inClient = set.lru.PushBack(s)
	if h.janitor == nil {
		h.janitor = time.AfterFunc(h.sweepInterval(), h.sweep)
	}
}

// touchLocked marks s used now.
func (h *Handler) touchLocked(s *session) {
	if s.inAll != nil {
		h.lru.MoveToBack(s.inAll)
		s.client.lru.MoveToBack(s.inClient)
	}
}

// forgetLocked unregisters s (it is ending).
func (h *Handler) forgetLocked(s *session) {
	if h.sessions[s.id] != s {
		return
	}
	delete(h.sessions, s.id)
	h.lru.Remove(s.inAll)
	s.client.lru.Remove(s.inClient)
	if s.client.lru.Len() == 0 {
		delete(h.clients, s.client.key)
	}
	s.inAll, s.inClient = nil, nil
}

// evict ends sessions the limits chose.
func (h *Handler) evict(sessions []*session) {
	for _, s := range sessions {
		h.log.Info("streamhttp: idle session ended to make room", "session", s.id, "client", s.client.key)
		s.close()
	}
}

// sweepInterval is how often expired sessions are looked for.
func (h *Handler) sweepInterval() time.Duration {
	return min(max(min(h.o.SessionIdleTimeout, h.o.UnusedSessionTimeout)/4, 10*time.Millisecond), time.Minute)
}

// sweep ends the sessions idle for longer than SessionIdleTimeout (or
// UnusedSessionTimeout); it reschedules itself while sessions remain.
func (h *Handler) sweep() {
	now := time.Now()
	var expired []*session
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	for _, s := range h.sessions {
		s.mu.Lock()
		limit := h.o.SessionIdleTimeout
		if s.uses == 0 {
			limit = min(limit, h.o.UnusedSessionTimeout)
		}
		if s.active == 0 && now.Sub(s.lastUsed) > limit {
			expired = append(expired, s)
		}
		s.mu.Unlock()
	}
	for _, s := range expired {
		h.forgetLocked(s)
	}
	if len(h.sessions) > 0 {
		h.janitor = time.AfterFunc(h.sweepInterval(), h.sweep)
	} else {
		h.janitor = nil
	}
	h.mu.Unlock()
	for _, s := range expired {
		h.log.Debug("streamhttp: session expired", "session", s.id)
		s.close()
	}
}
