package resume

import (
	"container/list"
	"context"
	"sync"
	"time"
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

// Default bounds of NewMemoryStore.
const (
	DefaultStoreEntries = 4096
	DefaultStoreBytes   = 64 << 20
)

// MemoryStore is a Store in memory, bounded by a number of entries and of
// state bytes: expired entries go first, then the oldest. Dropping a
// completion early lets that operation's tokens be honoured again until
// they expire, so size the bounds for the operations that run at once.
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
	s.put(&storeEntry{key: "s:" + key, state: append([]byte(nil), state...), expires: expires})
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

// Complete implements Store.
func (s *MemoryStore) Complete(_ context.Context, op string, expires time.Time) error {
	s.put(&storeEntry{key: "c:" + op, done: true, expires: expires})
	return nil
}

// Completed implements Store.
func (s *MemoryStore) Completed(_ context.Context, op string) (bool, error) {
	return s.get("c:"+op) != nil, nil
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

func (s *MemoryStore) put(e *storeEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el := s.index[e.key]; el != nil {
		s.removeLocked(el)
	}
	s.index[e.key] = s.order.PushBack(e)
	s.bytes += len(e.state)
	now := s.now()
	for el := s.order.Front(); el != nil && (s.order.Len() > s.maxEntries || s.bytes > s.maxBytes); {
		next := el.Next()
		if !now.Before(el.Value.(*storeEntry).expires) {
			s.removeLocked(el)
		}
		el = next
	}
	for s.order.Len() > s.maxEntries || s.bytes > s.maxBytes {
		s.removeLocked(s.order.Front())
	}
}

func (s *MemoryStore) removeLocked(el *list.Element) {
	e := s.order.Remove(el).(*storeEntry)
	delete(s.index, e.key)
	s.bytes -= len(e.state)
}
