package streamhttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// SessionStore keeps stateful sessions where every instance of a server
// sees them, so that a client's requests may land on any instance behind
// a load balancer without sticky routing: the instance a request reaches
// restores the session from its state (mcp.SessionState: revision, client
// capabilities and info, principal, log level, subscriptions) when it does
// not serve it yet. What runs in one process — a request in progress, an
// open stream, a call to the client — stays there; with a shared
// EventStore a broken stream resumes on any instance. Implementations must
// be safe for concurrent use (runtime/store/redis has one; the contract
// is streamhttp/sessionstoretest).
type SessionStore interface {
	// Save stores the state of session id, to expire ttl after unless
	// saved again.
	Save(ctx context.Context, id string, st mcp.SessionState, ttl time.Duration) error
	// Load returns the state of session id; ok is false when there is
	// none (it ended or expired).
	Load(ctx context.Context, id string) (st mcp.SessionState, ok bool, err error)
	// Delete ends session id for every instance.
	Delete(ctx context.Context, id string) error
}

// MemorySessionStore is a SessionStore in memory: instances of one
// process share it (tests); across processes use a shared one.
type MemorySessionStore struct {
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]memSessionState
}

type memSessionState struct {
	st      mcp.SessionState
	expires time.Time
}

// NewMemorySessionStore returns an empty store.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{now: time.Now, sessions: map[string]memSessionState{}}
}

// Save implements SessionStore.
func (m *MemorySessionStore) Save(_ context.Context, id string, st mcp.SessionState, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for k, v := range m.sessions { // expired ones go; the map stays bounded
		if now.After(v.expires) {
			delete(m.sessions, k)
		}
	}
	m.sessions[id] = memSessionState{st: st, expires: now.Add(ttl)}
	return nil
}

// Load implements SessionStore.
func (m *MemorySessionStore) Load(_ context.Context, id string) (mcp.SessionState, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.sessions[id]
	if !ok || m.now().After(v.expires) {
		return mcp.SessionState{}, false, nil
	}
	return v.st, true, nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	delete(m.sessions, id)
	m.mu.Unlock()
	return nil
}

// storeTimeout bounds one call to the SessionStore made outside a request
// (saving after a response was written).
const storeTimeout = 5 * time.Second

// instanceID names this handler among the instances sharing sessions: the
// streams it opens are named with it, so that their events do not mix
// with those of another instance serving the same session.
func instanceID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// callOffset is where the ids of a shared session's requests to the
// client start on this instance: a random multiple of 2^32 below 2^52, so
// that two instances' calls in one session do not share ids (and stay
// exact in a JSON number).
func callOffset() int64 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return int64(uint32(b[0])<<12|uint32(b[1])<<4|uint32(b[2])>>4) << 32
}

// saveState stores the session's state when it changed since it was
// last saved, or when the last save is older than a quarter of its time
// to live (so that a session in use does not expire in the store).
func (s *session) saveState(ctx context.Context) error {
	h := s.h
	if h.o.SessionStore == nil {
		return nil
	}
	ttl := h.o.SessionIdleTimeout
	changes := s.ms.Changes()
	s.mu.Lock()
	due := changes != s.savedChanges || time.Since(s.savedAt) > ttl/4
	s.mu.Unlock()
	if !due {
		return nil // the common case: a request that changed nothing
	}
	st, changes, ok := s.ms.State()
	if !ok {
		return nil
	}
	if err := h.o.SessionStore.Save(ctx, s.id, st, ttl); err != nil {
		return err
	}
	s.mu.Lock()
	s.savedChanges, s.savedAt = changes, time.Now()
	s.mu.Unlock()
	return nil
}

// restore makes the local session of sid from the shared store, for a
// request of principal; nil when the store has no such session (or it is
// another principal's).
func (h *Handler) restore(ctx context.Context, sid, principal, clientKey string) (*session, error) {
	st, ok, err := h.o.SessionStore.Load(ctx, sid)
	if err != nil || !ok || st.Principal != principal {
		return nil, err
	}
	s := &session{h: h, id: sid, principal: principal, inflight: map[string]*inflightReq{}, streams: map[string]*stream{}, lastUsed: time.Now(), shared: true}
	s.calls.Offset(callOffset())
	s.ctx, s.cancel = context.WithCancel(h.base)
	ms, err := h.srv.RestoreSession(st, s, s.cancelRequest)
	if err != nil {
		s.cancel()
		return nil, err
	}
	s.ms = ms
	ms.SetID(sid)
	_, s.savedChanges, _ = ms.State()
	s.savedAt = time.Now()
	h.mu.Lock()
	if prev := h.sessions[sid]; prev != nil {
		// Another request restored it first.
		h.mu.Unlock()
		ms.Close()
		s.cancel()
		return prev, nil
	}
	var evicted []*session
	var refusal error
	if h.closed || h.drain {
		refusal = errShuttingDown
	} else if ev, _, ref := h.admitLocked(clientKey); ref != nil {
		evicted, refusal = ev, ref
	} else {
		evicted = ev
		h.addLocked(s, clientKey)
	}
	h.mu.Unlock()
	h.evict(evicted)
	if refusal != nil {
		ms.Close()
		s.cancel()
		return nil, refusal
	}
	return s, nil
}
