package streamhttp

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Stateful sessions cost memory until they end, so no client may hold
// them all, and none may lock the others out. Three limits share them out
// (Options):
//
//   - MaxSessionsPerClient: a client (its principal when requests are
//     authenticated, else its address: the remote address, or behind a
//     proxy named in TrustedProxies the address it forwards; see
//     ClientKey) that opens one more ends its own least recently used
//     idle session first; with none idle it gets 429;
//   - MaxSessions, over all clients, shared fairly: at the cap, a client
//     holding fewer sessions than its fair share (MaxSessions divided by
//     the clients holding sessions, itself included) is always admitted —
//     the client holding the most sessions loses its least recently used
//     one, idle if it has one; for a client at its share, the least
//     recently used session that is unused since its initialize or idle
//     for EvictIdleAfter ends, of a client holding at least as many, and
//     without one it gets 503. Re-touching sessions does not keep a
//     client over its share;
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
	defaultBodyTimeout          = 10 * time.Second
	defaultMaxRequestsPerClient = 256
	defaultMaxSSEPending        = 32
	defaultMaxSSEPendingBytes   = 8 << 20
)

// requesterKey names a client without building a string on each request
// (MaxRequestsPerClient); String is its key for the session limits.
type requesterKey struct {
	kind byte // 'k' ClientKey's, 'p' a principal, 'a' an address
	name string
}

// String is the client's key: ClientKey's, "principal P" or "address A".
func (k requesterKey) String() string {
	switch k.kind {
	case 'p':
		return "principal " + k.name
	case 'a':
		return "address " + k.name
	}
	return k.name
}

// requester is the requesterKey of the client r comes from, at address
// addr (clientAddr).
func (h *Handler) requester(r *http.Request, addr string) requesterKey {
	if h.o.ClientKey != nil {
		return requesterKey{'k', h.o.ClientKey(r)}
	}
	if p := mcp.PrincipalFrom(r.Context()); p != "" {
		return requesterKey{'p', p}
	}
	return requesterKey{'a', addr}
}

// enter counts a request of client key in progress; false when the client
// has MaxRequestsPerClient already.
func (h *Handler) enter(key requesterKey) bool {
	limit := int32(min(h.o.MaxRequestsPerClient, math.MaxInt32))
	h.busyMu.RLock()
	c := h.perClient[key]
	h.busyMu.RUnlock()
	// A client with requests in progress: counted without the lock,
	// unless its entry is being removed (its last request just ended).
	if c != nil {
		if ok, counted := c.add(limit); counted {
			return ok
		}
	}
	h.busyMu.Lock()
	defer h.busyMu.Unlock()
	if c = h.perClient[key]; c == nil {
		if limit <= 0 {
			return false
		}
		c = &busyCount{}
		c.n.Store(1)
		h.perClient[key] = c
		return true
	}
	// An entry in the map is never a removed one (removal holds the lock).
	ok, _ := c.add(limit)
	return ok
}

// leave ends a request enter counted. The entry of a client with none
// left in progress stays while there are at most idleClientEntries
// entries (a client that comes back counts without the lock); past that
// it goes.
func (h *Handler) leave(key requesterKey) {
	h.busyMu.RLock()
	c := h.perClient[key] // there while this request is counted
	entries := len(h.perClient)
	h.busyMu.RUnlock()
	if c.n.Add(-1) != 0 || entries <= idleClientEntries {
		return
	}
	h.busyMu.Lock()
	// Unless a request began meanwhile, the entry goes.
	if c.n.CompareAndSwap(0, -1) {
		delete(h.perClient, key)
	}
	h.busyMu.Unlock()
}

// idleClientEntries bounds the entries Handler.perClient keeps for clients
// with no request in progress.
const idleClientEntries = 64

// busyClients counts the clients with requests in progress.
func (h *Handler) busyClients() int {
	h.busyMu.RLock()
	defer h.busyMu.RUnlock()
	n := 0
	for _, c := range h.perClient {
		if c.n.Load() > 0 {
			n++
		}
	}
	return n
}

// busyCount is the requests in progress of one client; -1 once its entry
// is removed from Handler.perClient.
type busyCount struct{ n atomic.Int32 }

// add counts a request if fewer than limit are in progress; counted is
// false for a removed entry (the caller looks the client up again).
func (c *busyCount) add(limit int32) (ok, counted bool) {
	for {
		n := c.n.Load()
		switch {
		case n < 0:
			return false, false
		case n >= limit:
			return false, true
		case c.n.CompareAndSwap(n, n+1):
			return true, true
		}
	}
}

// sessionSet is the sessions of one client, least recently used first.
type sessionSet struct {
	key string
	lru list.List // of *session
}

// clientKey names the client a request comes from, for the session
// limits.
func (h *Handler) clientKey(r *http.Request) string {
	return h.requester(r, h.clientAddr(r)).String()
}

// clientAddr is the address of the client a request comes from: its
// remote address, unless that is a trusted proxy (Options.TrustedProxies),
// which forwards the client's: the last address of
// Options.ForwardedHeader that is not itself a trusted proxy. Headers from
// anyone else are never read, nor the header the proxies do not write.
func (h *Handler) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(h.o.TrustedProxies) == 0 || !h.trusted(host) {
		return host
	}
	hops := forwardedFor(r.Header, h.o.ForwardedHeader)
	for i := len(hops) - 1; i >= 0; i-- {
		if !h.trusted(hops[i]) {
			return hops[i]
		}
	}
	if len(hops) > 0 {
		return hops[0] // proxies all the way: the first one
	}
	return host
}

// trusted reports an address in Options.TrustedProxies.
func (h *Handler) trusted(addr string) bool {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range h.o.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// The headers a proxy forwards the client's address in.
const (
	hdrXForwardedFor = "X-Forwarded-For"
	hdrForwarded     = "Forwarded"
)

// forwardedFor lists the client addresses proxies forwarded in header
// (Forwarded: the for= of every element; X-Forwarded-For: its list),
// nearest last. Ports, brackets and quotes are removed; obfuscated and
// unknown identifiers ("_hidden", "unknown") are kept, so that they are
// not mistaken for trusted proxies and are keyed as they are.
func forwardedFor(hd http.Header, header string) []string {
	var out []string
	if header == hdrForwarded {
		for _, line := range hd.Values(hdrForwarded) {
			for _, elem := range strings.Split(line, ",") {
				for _, pair := range strings.Split(elem, ";") {
					k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
					if ok && strings.EqualFold(k, "for") {
						out = append(out, hostOnly(strings.Trim(v, `"`)))
					}
				}
			}
		}
		return out
	}
	for _, line := range hd.Values(hdrXForwardedFor) {
		for _, a := range strings.Split(line, ",") {
			if a = strings.TrimSpace(a); a != "" {
				out = append(out, hostOnly(a))
			}
		}
	}
	return out
}

// hostOnly removes a port and IPv6 brackets from addr.
func hostOnly(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
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

// admitLocked makes room for one more session of client key, ending
// sessions as the limits allow; it returns the sessions to end (their
// close must run without h.mu), or the refusal to answer with.
func (h *Handler) admitLocked(key string) (evicted []*session, status int, refusal *jsonrpc.Error) {
	set := h.clients[key]
	if set != nil && set.lru.Len() >= h.o.MaxSessionsPerClient {
		v := h.idlestLocked(&set.lru, true, nil)
		if v == nil {
			return nil, http.StatusTooManyRequests, jsonrpc.NewError(jsonrpc.CodeInternalError,
				"too many sessions for this client (%d, all in use): end one with DELETE first", h.o.MaxSessionsPerClient)
		}
		h.forgetLocked(v)
		evicted = append(evicted, v)
	}
	if len(h.sessions) >= h.o.MaxSessions {
		v := h.fairVictimLocked(key)
		if v == nil {
			return evicted, http.StatusServiceUnavailable, jsonrpc.NewError(jsonrpc.CodeInternalError, "too many sessions (%d, all in use): try again later", h.o.MaxSessions)
		}
		h.forgetLocked(v)
		evicted = append(evicted, v)
	}
	return evicted, 0, nil
}

// fairVictimLocked chooses the session that ends so that client key may
// open one more at MaxSessions (see the limits above), or nil.
func (h *Handler) fairVictimLocked(key string) *session {
	held, clients := 0, len(h.clients)
	own := h.clients[key]
	if own != nil {
		held = own.lru.Len()
	} else {
		clients++
	}
	share := max(h.o.MaxSessions/clients, 1)
	top := 0
	for _, c := range h.clients {
		if c != own {
			top = max(top, c.lru.Len())
		}
	}
	if held < share && top > share {
		// Under its share while others are over theirs: the biggest
		// holders give way, their longest idle session first, then any
		// idle one, then their least recently used.
		biggest := func(s *session) bool { return s.client.lru.Len() == top }
		if v := h.idlestLocked(&h.lru, false, biggest); v != nil {
			return v
		}
		if v := h.idlestLocked(&h.lru, true, biggest); v != nil {
			return v
		}
		for e := h.lru.Front(); e != nil; e = e.Next() {
			if s := e.Value.(*session); biggest(s) {
				return s
			}
		}
	}
	// At its share: a session long idle or never used, of a client
	// holding at least as many (never one of a smaller client's).
	return h.idlestLocked(&h.lru, false, func(s *session) bool { return s.client.lru.Len() >= held })
}

// idlestLocked returns the least recently used idle session of lru (a
// list of the handler's or of one client's) that only accepts (when not
// nil), or nil. Unless anyAge, only a session unused since its
// initialize, or idle for EvictIdleAfter, will do.
func (h *Handler) idlestLocked(lru *list.List, anyAge bool, only func(*session) bool) *session {
	now := time.Now()
	for e := lru.Front(); e != nil; e = e.Next() {
		s := e.Value.(*session)
		if only != nil && !only(s) {
			continue
		}
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
// UnusedSessionTimeout) and writes back to the SessionStore what it missed
// while it was down; it reschedules itself while sessions (or tombstones
// to write) remain.
func (h *Handler) sweep() {
	now := time.Now()
	var expired []*session
	h.mu.Lock()
	if h.closing.Load() {
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
	h.mu.Unlock()
	for _, s := range expired {
		h.log.Debug("streamhttp: session expired", "session", s.id)
		s.close()
	}
	h.writeBack()
	h.mu.Lock()
	if !h.closing.Load() && (len(h.sessions) > 0 || len(h.pendingDeletes) > 0) {
		h.janitor = time.AfterFunc(h.sweepInterval(), h.sweep)
	} else {
		h.janitor = nil
	}
	h.mu.Unlock()
}
