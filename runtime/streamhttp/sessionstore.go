package streamhttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
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
//
// While the store is down, an instance keeps serving the sessions it
// holds and writes their state back when the store returns (a session
// the store lost, restarted without persistence, is written back by the
// instance holding it too); only the sessions no instance holds are
// lost then, so persist the store (Redis: appendonly yes). New sessions,
// and sessions held elsewhere, get 503 until it returns. A DELETE during
// an outage ends the session on the instance that receives it at once,
// and on the others once the store has the tombstone (written back then).
type SessionStore interface {
	// Save stores the state of session id, to expire ttl after unless
	// saved again. A session Delete ended stays ended.
	Save(ctx context.Context, id string, st mcp.SessionState, ttl time.Duration) error
	// Load returns the state of session id; ok is false when there is
	// none (it expired, or the store lost it). A session Delete ended
	// fails with ErrSessionEnded.
	Load(ctx context.Context, id string) (st mcp.SessionState, ok bool, err error)
	// Delete ends session id for every instance: it keeps a tombstone
	// (for as long as a session may stay idle, at least an hour) so that
	// Load tells an ended session from one the store lost.
	Delete(ctx context.Context, id string) error
}

// ErrSessionEnded is the error of SessionStore.Load for a session a
// client ended (DELETE) on any instance.
var ErrSessionEnded = errors.New("streamhttp: the session was ended")

// tombstoneTTL is how long a SessionStore remembers an ended session.
const tombstoneTTL = time.Hour

// MemorySessionStore is a SessionStore in memory: instances of one
// process share it (tests); across processes use a shared one.
type MemorySessionStore struct {
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]memSessionState
}

type memSessionState struct {
	st      mcp.SessionState
	ended   bool // a tombstone
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
	if v, ok := m.sessions[id]; ok && v.ended {
		return nil // ended stays ended
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
	if v.ended {
		return mcp.SessionState{}, false, ErrSessionEnded
	}
	return v.st, true, nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	m.sessions[id] = memSessionState{ended: true, expires: m.now().Add(tombstoneTTL)}
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
	if s.httpSSE {
		st.Transport = transportSSE
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
	if errors.Is(err, ErrSessionEnded) {
		return nil, nil
	}
	if err != nil || !ok || st.Principal != principal || st.Revision == "" {
		// (No revision: an HTTP+SSE session before initialize, which its
		// own instance serves.)
		return nil, err
	}
	h.storeUp()
	s := &session{h: h, id: sid, principal: principal, inflight: map[string]*inflightReq{}, streams: map[string]*stream{}, lastUsed: time.Now(), shared: true,
		httpSSE: st.Transport == transportSSE}
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
	if h.draining() {
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

// storeDown notes that the session store failed: the first failure of an
// outage is logged as a warning, the rest at debug level.
func (h *Handler) storeDown(err error) {
	if h.storeFailing.CompareAndSwap(false, true) {
		h.log.Warn("streamhttp: the session store is unavailable; serving the sessions this instance holds and writing them back when it returns", "err", err)
	} else {
		h.log.Debug("streamhttp: the session store is still unavailable", "err", err)
	}
}

// storeUp notes that the session store answered.
func (h *Handler) storeUp() {
	if h.storeFailing.CompareAndSwap(true, false) {
		h.log.Info("streamhttp: the session store is back; writing back what it missed")
		go h.writeBack()
	}
}

// deleteLater keeps the tombstone of a session ended while the store was
// down, for the janitor to write back.
func (h *Handler) deleteLater(id string) {
	h.mu.Lock()
	h.pendingDeletes = append(h.pendingDeletes, id)
	if h.janitor == nil && !h.closing.Load() {
		h.janitor = time.AfterFunc(h.sweepInterval(), h.sweep)
	}
	h.mu.Unlock()
}

// endedHere reports a session ended here whose tombstone the store has
// not yet.
func (h *Handler) endedHere(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Contains(h.pendingDeletes, id)
}

// writeBack saves the sessions the store lacks and the tombstones it
// missed, now that it may be back (the janitor calls it, and storeUp).
func (h *Handler) writeBack() {
	if h.o.SessionStore == nil {
		return
	}
	var unsynced []*session
	h.mu.Lock()
	for _, s := range h.sessions {
		s.mu.Lock()
		if s.unsynced {
			unsynced = append(unsynced, s)
		}
		s.mu.Unlock()
	}
	deletes := h.pendingDeletes
	h.pendingDeletes = nil
	h.mu.Unlock()
	if len(unsynced) == 0 && len(deletes) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(h.base, storeTimeout)
	defer cancel()
	for i, id := range deletes {
		if err := h.o.SessionStore.Delete(ctx, id); err != nil {
			h.storeDown(err)
			h.mu.Lock()
			h.pendingDeletes = append(h.pendingDeletes, deletes[i:]...)
			h.mu.Unlock()
			return
		}
	}
	for _, s := range unsynced {
		if err := s.saveState(ctx); err != nil {
			h.storeDown(err)
			return
		}
		s.mu.Lock()
		s.unsynced = false
		s.mu.Unlock()
	}
	h.storeFailing.Store(false)
}
