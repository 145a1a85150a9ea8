package resume

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
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

// ErrOwnerFull is the error of a Store refusing one more operation of a
// client that holds more than its share of the store
// (MemoryStore.PerOwner, redis.Options.ResumePerOwner): others are still
// served. The client finishes the operations it has (or
// lets their tokens expire) first.
var ErrOwnerFull error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many resumable operations in progress for this client: finish the ones it has, or try again once their tokens expire"}

// Owner names whom a Store keeps an operation or a state for, for the
// share of each (MemoryStore.PerOwner): the principal the request acts
// for (mcp.PrincipalFrom), else the client's address (HTTP without
// authentication: mcp.Request.ClientAddress), else "" (stdio, whose one
// client has the whole store).
func Owner(ctx context.Context) string {
	if p := mcp.PrincipalFrom(ctx); p != "" {
		return "principal " + p
	}
	if r := mcp.RequestFrom(ctx); r != nil && r.ClientAddress() != "" {
		return "address " + r.ClientAddress()
	}
	return ""
}

// Default bounds of NewMemoryStore.
const (
	// DefaultStoreEntries bounds the states and, apart, the operations a
	// MemoryStore remembers. Operations are remembered until their last
	// token expires (Tokens.TTL): 1,048,576 of them sustain about 1,700
	// operations of more than one call a second with the default TTL, in
	// 48 MB at worst (16 bytes an entry, and the table's room to grow).
	// Busier servers share a store (Redis) or shorten the TTL.
	DefaultStoreEntries = 1 << 20
	DefaultStoreBytes   = 64 << 20
	// DefaultOwnerShare is the part of the operations one owner may hold
	// by default: MemoryStore.PerOwner is the entries over it (16,384 of
	// the default 1,048,576).
	DefaultOwnerShare = 64
)

// MemoryStore is a Store in memory. States are bounded by a number of
// entries and of bytes: at the bounds expired states go first, then the
// oldest of the owner holding the most bytes of state (whose tokens then
// fail: "its state is gone"), so one client's states cannot push out
// another's. Operations — the room reserved for a completion while a token
// lives (Reserver), and the completions — are bounded by the number of
// entries apart, in a compact table, and kept until they expire: a
// completed operation's tokens are never honoured again; when every entry
// is an operation whose tokens live, Reserve refuses a new one
// (ErrStoreFull). Once the table is half full, an owner (see Owner)
// holding PerOwner operations or more is refused one more (ErrOwnerFull)
// while the others are not: one client may use half the table, the rest
// stays for the others, each of whom is sure of PerOwner.
type MemoryStore struct {
	// PerOwner is the share of operations each owner (Owner) is sure of
	// (default: the entries over DefaultOwnerShare, at least 1): beyond
	// it, an owner is refused new operations once the table is half full.
	// Set it before the store is used. The owner "" (stdio) has no share
	// but the whole store.
	PerOwner int

	maxEntries, maxBytes int
	now                  func() time.Time

	mu    sync.Mutex
	bytes int
	order *list.List // of *storeEntry (states), oldest first
	index map[string]*list.Element
	// ops is the table of operations: 16 bytes an entry.
	ops map[tableKey]opSlot
	// epoch is the time the table's expiries count seconds from.
	epoch time.Time
	// soonest is the earliest expiry in ops, or zero when unknown: no
	// sweep of ops frees anything before it.
	soonest opEntry
	// owners are the owners holding operations or states, by name and,
	// for the table's entries, by number (ownerAt).
	owners  map[string]*owner
	ownerAt []*owner
	freeIDs []uint32
}

type storeEntry struct {
	key     string
	state   []byte
	expires time.Time
	owner   *owner
	mine    *list.Element // in owner.states
}

// owner is what one owner holds: operations in the table, and states
// (oldest first).
type owner struct {
	name       string
	id         uint32
	ops        int
	states     list.List // of *list.Element of MemoryStore.order
	stateBytes int
}

// tableKey is an operation's key in the table: the first 8 of the 16 random
// bytes of its id (two operations share one only by a chance of one in
// 2^64 a pair; it would make the other's tokens refused as completed,
// never honour a token).
type tableKey uint64

// opEntry is what the table keeps of an operation: when it expires, in
// whole seconds after the table's epoch (rounded up: never forgotten
// early), and whether it completed (opDone).
type opEntry uint32

const opDone opEntry = 1 << 31

func (e opEntry) expires() opEntry { return e &^ opDone }

// opSlot is an operation's entry and its owner's number.
type opSlot struct {
	e     opEntry
	owner uint32
}

// NewMemoryStore returns an empty MemoryStore holding at most maxEntries
// states, maxBytes bytes of state and, apart, maxEntries operations
// (defaults for values <= 0).
func NewMemoryStore(maxEntries, maxBytes int) *MemoryStore {
	if maxEntries <= 0 {
		maxEntries = DefaultStoreEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultStoreBytes
	}
	return &MemoryStore{maxEntries: maxEntries, maxBytes: maxBytes, now: time.Now, order: list.New(), index: map[string]*list.Element{}, ops: map[tableKey]opSlot{}, epoch: time.Now(), owners: map[string]*owner{}}
}

// PutState implements Store.
func (s *MemoryStore) PutState(ctx context.Context, key string, state []byte, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el := s.index[key]; el != nil {
		s.removeLocked(el)
	}
	o := s.ownerLocked(Owner(ctx))
	e := &storeEntry{key: key, state: append([]byte(nil), state...), expires: expires, owner: o}
	el := s.order.PushBack(e)
	s.index[key] = el
	s.bytes += len(e.state)
	e.mine = o.states.PushBack(el)
	o.stateBytes += len(e.state)
	now := s.now()
	over := func() bool { return s.order.Len() > s.maxEntries || s.bytes > s.maxBytes }
	for el := s.order.Front(); el != nil && over(); {
		next := el.Next()
		if !now.Before(el.Value.(*storeEntry).expires) {
			s.removeLocked(el)
		}
		el = next
	}
	for over() {
		s.removeLocked(s.evictableLocked())
	}
	return nil
}

// evictableLocked is the state that goes first at the bounds once the
// expired ones went: the oldest of the owner holding the most bytes of
// state.
func (s *MemoryStore) evictableLocked() *list.Element {
	var top *owner
	for _, o := range s.owners {
		if o.states.Len() > 0 && (top == nil || o.stateBytes > top.stateBytes) {
			top = o
		}
	}
	return top.states.Front().Value.(*list.Element)
}

// State implements Store.
func (s *MemoryStore) State(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el := s.index[key]
	if el == nil {
		return nil, false, nil
	}
	e := el.Value.(*storeEntry)
	if !s.now().Before(e.expires) {
		s.removeLocked(el)
		return nil, false, nil
	}
	return e.state, true, nil
}

// Reserve implements Reserver. An owner (Owner of ctx) holding PerOwner
// operations is refused one more with ErrOwnerFull.
func (s *MemoryStore) Reserve(ctx context.Context, op string, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, exp := toTableKey(op), s.at(expires)
	if e, ok := s.ops[key]; ok && e.e.expires() > s.at(s.now()) {
		if e.e&opDone == 0 && exp > e.e {
			s.setOpLocked(key, opSlot{exp, e.owner})
		}
		return nil // done meanwhile: the token will be refused
	}
	name := Owner(ctx)
	if s.overShareLocked(name) && (!s.sweepOpsLocked() || s.overShareLocked(name)) {
		return ErrOwnerFull
	}
	if len(s.ops) >= s.maxEntries && !s.sweepOpsLocked() {
		return ErrStoreFull
	}
	s.setOpLocked(key, opSlot{exp, s.ownerLocked(name).id})
	return nil
}

// Complete implements Store. It takes the room Reserve kept; a completion
// without one is kept too, past the bound if it must (only a Store
// without reservations gets there).
func (s *MemoryStore) Complete(ctx context.Context, op string, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, exp := toTableKey(op), s.at(expires)
	e, ok := s.ops[key]
	if ok && e.e.expires() > exp {
		exp = e.e.expires()
	}
	if !ok {
		if len(s.ops) >= s.maxEntries {
			s.sweepOpsLocked()
		}
		e.owner = s.ownerLocked(Owner(ctx)).id
	}
	s.setOpLocked(key, opSlot{exp | opDone, e.owner})
	return nil
}

// Completed implements Store.
func (s *MemoryStore) Completed(_ context.Context, op string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.ops[toTableKey(op)]
	return ok && e.e&opDone != 0 && e.e.expires() > s.at(s.now()), nil
}

// Len reports the number of entries: states and operations.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len() + len(s.ops)
}

// overShareLocked reports an owner that may not reserve one more
// operation now: it holds PerOwner or more while the table is half full.
// The owner "" (stdio's one client) has the whole store.
func (s *MemoryStore) overShareLocked(name string) bool {
	o := s.owners[name]
	return name != "" && o != nil && o.ops >= s.perOwner() && len(s.ops) >= s.maxEntries/2
}

func (s *MemoryStore) perOwner() int {
	if s.PerOwner > 0 {
		return s.PerOwner
	}
	return max(s.maxEntries/DefaultOwnerShare, 1)
}

// at is t in the table's seconds, rounded up.
func (s *MemoryStore) at(t time.Time) opEntry {
	d := t.Sub(s.epoch)
	if d <= 0 {
		return 0
	}
	return opEntry(min((d+time.Second-1)/time.Second, time.Duration(opDone-1)))
}

// setOpLocked sets the table's entry of key; a new entry counts for its
// owner.
func (s *MemoryStore) setOpLocked(key tableKey, e opSlot) {
	if old, ok := s.ops[key]; ok {
		if old.owner != e.owner {
			s.dropOpLocked(old.owner)
			s.holdOpLocked(e.owner)
		}
	} else {
		s.holdOpLocked(e.owner)
	}
	s.ops[key] = e
	if s.soonest == 0 || e.e.expires() < s.soonest {
		s.soonest = e.e.expires()
	}
}

// sweepOpsLocked drops the expired operations; it reports whether it
// freed any. It scans the table only once its soonest expiry has passed.
func (s *MemoryStore) sweepOpsLocked() bool {
	now := s.at(s.now())
	if s.soonest != 0 && now < s.soonest {
		return false
	}
	freed := false
	s.soonest = 0
	for key, e := range s.ops {
		if e.e.expires() <= now {
			delete(s.ops, key)
			s.dropOpLocked(e.owner)
			freed = true
		} else if s.soonest == 0 || e.e.expires() < s.soonest {
			s.soonest = e.e.expires()
		}
	}
	return freed
}

// ownerLocked is the owner named name, made if new.
func (s *MemoryStore) ownerLocked(name string) *owner {
	o := s.owners[name]
	if o == nil {
		o = &owner{name: name}
		if n := len(s.freeIDs); n > 0 {
			o.id = s.freeIDs[n-1]
			s.freeIDs = s.freeIDs[:n-1]
			s.ownerAt[o.id] = o
		} else {
			o.id = uint32(len(s.ownerAt))
			s.ownerAt = append(s.ownerAt, o)
		}
		s.owners[name] = o
	}
	return o
}

func (s *MemoryStore) holdOpLocked(id uint32) { s.ownerAt[id].ops++ }

func (s *MemoryStore) dropOpLocked(id uint32) {
	o := s.ownerAt[id]
	o.ops--
	s.forgetIfEmptyLocked(o)
}

// forgetIfEmptyLocked forgets an owner that holds nothing.
func (s *MemoryStore) forgetIfEmptyLocked(o *owner) {
	if o.ops > 0 || o.states.Len() > 0 {
		return
	}
	delete(s.owners, o.name)
	s.ownerAt[o.id] = nil
	s.freeIDs = append(s.freeIDs, o.id)
}

// toTableKey is the table key of operation op: the first 8 bytes of the id
// its hex names, else of a digest of it.
func toTableKey(op string) tableKey {
	var id [16]byte
	if len(op) == 2*len(id) {
		if _, err := hex.Decode(id[:], []byte(op)); err == nil {
			return tableKey(binary.LittleEndian.Uint64(id[:8]))
		}
	}
	sum := sha256.Sum256([]byte(op))
	return tableKey(binary.LittleEndian.Uint64(sum[:8]))
}

func (s *MemoryStore) removeLocked(el *list.Element) {
	e := s.order.Remove(el).(*storeEntry)
	delete(s.index, e.key)
	s.bytes -= len(e.state)
	o := e.owner
	o.states.Remove(e.mine)
	o.stateBytes -= len(e.state)
	s.forgetIfEmptyLocked(o)
}
