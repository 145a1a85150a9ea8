package resume

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Store keeps what does not fit in a token: states bigger than
// Tokens.MaxInline, and the operations that completed, until their tokens
// would have expired. Servers that honour each other's tokens share one
// (an implementation over a shared database); MemoryStore keeps them in
// this process.
type Store interface {
	// PutState keeps state under key until expires.
	PutState(ctx context.Context, key string, state []byte, expires time.Time) error
	// State returns the state kept under key.
	State(ctx context.Context, key string) ([]byte, bool, error)
	// Complete records that operation op completed, until expires.
	Complete(ctx context.Context, op string, expires time.Time) error
	// Completed reports whether operation op completed.
	Completed(ctx context.Context, op string) (bool, error)
}

// Reserver is implemented by a Store whose room is bounded (MemoryStore):
// Tokens reserves, with the first token of an operation and each one
// after, the room to record the operation's completion until its token
// expires, and the store never forgets a completion or a reservation
// before then. A Store without it must keep completions until they
// expire (a Redis store: a maxmemory-policy that never evicts them).
type Reserver interface {
	// Reserve keeps room to record that operation op completed, until
	// expires; ErrStoreFull when there is none.
	Reserve(ctx context.Context, op string, expires time.Time) error
}

// ErrStoreFull is the error of a Store that cannot remember one more
// operation: every entry belongs to an operation whose tokens have not
// expired. The call that would have issued a token fails with it; the
// client tries again later.
var ErrStoreFull error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many resumable operations in progress to remember one more: try again later"}

// Default bounds of NewMemoryStore.
const (
	DefaultStoreEntries = 4096
	DefaultStoreBytes   = 64 << 20
)

// MemoryStore is a Store in memory, bounded by a number of entries and of
// state bytes. A completion, and the room reserved for one (Reserver), is
// kept until it expires: a completed operation's tokens are never
// honoured again. At the bounds, expired entries go first, then the
// oldest states (whose tokens then fail: "its state is gone"); when only
// operations whose tokens live are left, Reserve refuses a new one
// (ErrStoreFull).
type MemoryStore struct {
	maxEntries, maxBytes int
	now                  func() time.Time

	mu    sync.Mutex
	bytes int
	order *list.List // of *storeEntry, oldest first
	index map[string]*list.Element
}

type storeEntry struct {
	key     string
	state   []byte
	op      bool // a completion or the room reserved for one
	done    bool
	expires time.Time
}

// NewMemoryStore returns an empty MemoryStore holding at most maxEntries
// entries and maxBytes bytes of state (defaults for values <= 0).
func NewMemoryStore(maxEntries, maxBytes int) *MemoryStore {
	if maxEntries <= 0 {
		maxEntries = DefaultStoreEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultStoreBytes
	}
	return &MemoryStore{maxEntries: maxEntries, maxBytes: maxBytes, now: time.Now, order: list.New(), index: map[string]*list.Element{}}
}

// PutState implements Store.
func (s *MemoryStore) PutState(_ context.Context, key string, state []byte, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(&storeEntry{key: "s:" + key, state: append([]byte(nil), state...), expires: expires})
	return nil
}

// State implements Store.
func (s *MemoryStore) State(_ context.Context, key string) ([]byte, bool, error) {
	e := s.get("s:" + key)
	if e == nil {
		return nil, false, nil
	}
	return e.state, true, nil
}

// Reserve implements Reserver.
func (s *MemoryStore) Reserve(_ context.Context, op string, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := "c:" + op
	if el := s.index[key]; el != nil {
		if e := el.Value.(*storeEntry); e.done {
			return nil // completed meanwhile: the token will be refused
		} else if expires.After(e.expires) {
			e.expires = expires
		}
		return nil
	}
	s.makeRoomLocked(1, 0)
	if s.order.Len() >= s.maxEntries {
		return ErrStoreFull
	}
	s.putLocked(&storeEntry{key: key, op: true, expires: expires})
	return nil
}

// Complete implements Store. It replaces the room Reserve kept; a
// completion without one is kept too, past the bounds if it must.
func (s *MemoryStore) Complete(_ context.Context, op string, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el := s.index["c:"+op]; el != nil {
		e := el.Value.(*storeEntry)
		e.done = true
		if expires.After(e.expires) {
			e.expires = expires
		}
		return nil
	}
	s.putLocked(&storeEntry{key: "c:" + op, op: true, done: true, expires: expires})
	return nil
}

// Completed implements Store.
func (s *MemoryStore) Completed(_ context.Context, op string) (bool, error) {
	e := s.get("c:" + op)
	return e != nil && e.done, nil
}

// Len reports the number of entries.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

func (s *MemoryStore) get(key string) *storeEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	el := s.index[key]
	if el == nil {
		return nil
	}
	e := el.Value.(*storeEntry)
	if !s.now().Before(e.expires) {
		s.removeLocked(el)
		return nil
	}
	return e
}

// putLocked adds e (replacing an entry of its key), then makes room.
func (s *MemoryStore) putLocked(e *storeEntry) {
	if el := s.index[e.key]; el != nil {
		s.removeLocked(el)
	}
	s.index[e.key] = s.order.PushBack(e)
	s.bytes += len(e.state)
	s.makeRoomLocked(0, 0)
}

// makeRoomLocked drops entries until entries more (and bytes more) fit:
// expired ones first, then the oldest states; never a live operation's.
func (s *MemoryStore) makeRoomLocked(entries, bytes int) {
	over := func() bool {
		return s.order.Len()+entries > s.maxEntries || s.bytes+bytes > s.maxBytes
	}
	if !over() {
		return
	}
	now := s.now()
	for el := s.order.Front(); el != nil && over(); {
		next := el.Next()
		if !now.Before(el.Value.(*storeEntry).expires) {
			s.removeLocked(el)
		}
		el = next
	}
	for el := s.order.Front(); el != nil && over(); {
		next := el.Next()
		if !el.Value.(*storeEntry).op {
			s.removeLocked(el)
		}
		el = next
	}
}
func (s *MemoryStore) removeLocked(el *list.Element) {
	e := s.order.Remove(el).(*storeEntry)
	delete(s.index, e.key)
	s.bytes -= len(e.state)
}
