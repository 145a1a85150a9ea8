// Package requeststate seals and opens the requestState of input-required
// results (the multi round-trip requests of 2026-07-28): the engine's
// Request.SealState, SealStateOnce and OpenState (package runtime/mcp)
// are built on a Sealer.
//
// The requestState of an InputRequiredResult comes back from the client,
// which may read it and tamper with it. A Sealer encrypts and
// authenticates it (AES-256-GCM under a key derived from the server's
// state key), so the client can neither read nor change it, and binds it,
// as the cipher's additional data, to the request it belongs to
// (Binding): the protocol version, the method, the params member Mcp-Name
// mirrors (the tool, prompt or resource), a digest of every other member
// of the params but requestState, inputResponses and _meta (canonical
// form: members sorted, strings re-escaped, so a retry encoded differently
// still matches), and the principal the request acts for; it also carries
// an expiry. Open checks all of them: a retry that changes its arguments,
// or comes from another principal, is refused. That is what the
// 2026-07-28 MRTR rules ask ("the authenticated principal", "a short
// expiry", "an identifier for the originating request"), and, as they
// say, it bounds replay without making a state single-use: a retry may be
// repeated (after a lost answer, say) until the state expires. A state
// sealed once (Seal with once) completes its request at most once, which
// the rules require of servers for which a state "must be consumed at
// most once (e.g., one-time redemptions)": the Sealer remembers it until
// it expires.
//
// Without authentication there is no principal: whoever holds a state can
// retry the request it was sealed for (the same method, tool and
// arguments, before it expires) and nothing else.
package requeststate

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

const (
	version     = 3
	flagOnce    = 1 << 0 // flags: single-use, a nonce follows the expiry
	nonceSize   = 16
	headerSize  = 1 + 8 // flags, expiry (inside the ciphertext)
	sweepEvery  = 1024  // spent states added between two sweeps of the expired
	derivePrefx = "mcpgen requestState v3\x00"
)

// ErrBad is the -32602 answer to a requestState that is malformed,
// tampered with, expired, or meant for another request or principal.
var ErrBad = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/requestState: not a requestState this server issued for this request (the same method, tool, arguments and principal), or expired"}

// ErrUsed is the -32602 answer to a single-use requestState that already
// completed its request, or that another request in progress carries.
var ErrUsed = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/requestState: this requestState was already used; it completes its request once"}

// Binding is the request a state is sealed for and opened by.
type Binding struct {
	// Version is the request's protocol version; Method its method.
	Version, Method string
	// Name is the value of the params member Mcp-Name mirrors (the tool,
	// prompt or resource), "" for methods without one.
	Name string
	// Principal is who the request acts for ("" without authentication).
	Principal string
	// Params are the request's params; requestState, inputResponses and
	// _meta are left out of what the state is bound to.
	Params wire.Raw
}

// omitted are the params members a retry adds or changes.
var omitted = []string{"requestState", "inputResponses", "_meta"}

// data is the additional data of the cipher: the state's version, the
// binding's strings and the digest of the canonical form of its params
// (params that are not an object, which a handler's decoder refuses
// anyway, are digested as they are).
func (b *Binding) data() []byte {
	out := []byte{version}
	for _, s := range []string{b.Version, b.Method, b.Name, b.Principal} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(s)))
		out = append(out, s...)
	}
	canon, err := wire.Canonical(b.Params, omitted...)
	if err != nil {
		canon = b.Params
	}
	d := sha256.Sum256(canon)
	return append(out, d[:]...)
}

// Options configure a Sealer.
type Options struct {
	// Key seals and opens states; instances that share it open each
	// other's. Empty: a random key of this Sealer alone.
	Key []byte
	// Previous keys open states too (they never seal), for a rotation of
	// Key: add the new key as a previous one everywhere first, then seal
	// with it everywhere, then, once TTL has passed, drop the old one.
	Previous [][]byte
	// TTL is how long a state stays valid (default 10 minutes).
	TTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Sealer seals and opens requestState, and remembers the single-use
// states spent (until they expire) and those held by a request in
// progress. (The ledger is in memory: instances sharing a key do not
// share it.) It is safe for concurrent use.
type Sealer struct {
	seal cipher.AEAD   // from Key
	open []cipher.AEAD // seal, then those of the Previous keys
	ttl  time.Duration
	now  func() time.Time

	// holding counts the holders of states, so that the others settle
	// without taking the lock.
	holding atomic.Int32

	mu     sync.Mutex
	spent  map[nonce]int64 // nonce -> expiry (Unix seconds)
	held   map[nonce]held
	byHold map[any][]nonce // what each holder holds
	adds   int             // spent entries added since the last sweep
}

type nonce [nonceSize]byte

type held struct {
	by  any
	exp int64
}

// New returns a Sealer; an empty previous key is an error.
func New(o Options) (*Sealer, error) {
	if o.TTL <= 0 {
		o.TTL = 10 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	key := o.Key
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("requeststate: key: %w", err)
		}
	}
	aead, err := derive(key)
	if err != nil {
		return nil, fmt.Errorf("requeststate: key: %w", err)
	}
	s := &Sealer{seal: aead, open: []cipher.AEAD{aead}, ttl: o.TTL, now: o.Now}
	for i, k := range o.Previous {
		if len(k) == 0 {
			return nil, fmt.Errorf("requeststate: previous key %d is empty", i)
		}
		old, err := derive(k)
		if err != nil {
			return nil, fmt.Errorf("requeststate: previous key %d: %w", i, err)
		}
		s.open = append(s.open, old)
	}
	return s, nil
}

// derive derives the cipher of requestState from a key.
func derive(key []byte) (cipher.AEAD, error) {
	sum := sha256.Sum256(append([]byte(derivePrefx), key...))
	block, err := aes.NewCipher(sum[:])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal returns the opaque requestState carrying data for a retry of the
// request b (the same params but requestState, inputResponses and _meta,
// by the same principal, before the TTL). A state sealed once completes
// its request at most once: once a retry carrying it is answered with
// anything but another input-required result or an error (Settle), the
// state is spent, and while such a retry runs another one carrying it is
// refused (ErrUsed).
func (s *Sealer) Seal(b Binding, data []byte, once bool) string {
	exp := s.now().Add(s.ttl).Unix()
	plain := make([]byte, 0, headerSize+nonceSize+len(data))
	plain = append(plain, 0)
	plain = binary.BigEndian.AppendUint64(plain, uint64(exp))
	if once {
		plain[0] |= flagOnce
		var n nonce
		_, _ = rand.Read(n[:])
		plain = append(plain, n[:]...)
	}
	plain = append(plain, data...)
	out := make([]byte, 1+s.seal.NonceSize(), 1+s.seal.NonceSize()+len(plain)+s.seal.Overhead())
	out[0] = version
	_, _ = rand.Read(out[1:])
	out = s.seal.Seal(out, out[1:], plain, b.data())
	return base64.RawURLEncoding.EncodeToString(out)
}

// Open verifies a state of Seal for the request b and returns its data. A
// single-use state is held for holder (the request in progress) until
// Settle.
func (s *Sealer) Open(b Binding, state string, holder any) ([]byte, error) {
	buf, err := base64.RawURLEncoding.DecodeString(state)
	ns := s.seal.NonceSize()
	if err != nil || len(buf) < 1+ns+s.seal.Overhead()+headerSize || buf[0] != version {
		return nil, ErrBad
	}
	ad := b.data()
	var body []byte
	for _, aead := range s.open {
		// The current key first; after a rotation, the previous ones.
		if body, err = aead.Open(nil, buf[1:1+ns], buf[1+ns:], ad); err == nil {
			break
		}
	}
	if err != nil {
		return nil, ErrBad
	}
	exp := int64(binary.BigEndian.Uint64(body[1:9]))
	if s.now().Unix() > exp {
		return nil, ErrBad
	}
	data := body[headerSize:]
	if body[0]&flagOnce != 0 {
		if len(data) < nonceSize {
			return nil, ErrBad
		}
		var n nonce
		copy(n[:], data)
		data = data[nonceSize:]
		if !s.hold(n, exp, holder) {
			return nil, ErrUsed
		}
	}
	return data, nil
}

// hold reserves n for holder; false when n is spent or held by another.
func (s *Sealer) hold(n nonce, exp int64, holder any) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, spent := s.spent[n]; spent {
		return false
	}
	if h, ok := s.held[n]; ok {
		return h.by == holder // already this holder's, or another's
	}
	if s.held == nil {
		s.held, s.byHold = map[nonce]held{}, map[any][]nonce{}
	}
	s.held[n] = held{holder, exp}
	if len(s.byHold[holder]) == 0 {
		s.holding.Add(1)
	}
	s.byHold[holder] = append(s.byHold[holder], n)
	return true
}

// Settle ends holder's hold on the single-use states it opened: spent
// when its request completed, released otherwise.
func (s *Sealer) Settle(holder any, completed bool) {
	if s.holding.Load() == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, ok := s.byHold[holder]
	if !ok {
		return
	}
	delete(s.byHold, holder)
	s.holding.Add(-1)
	for _, n := range ns {
		h, ok := s.held[n]
		if !ok || h.by != holder {
			continue
		}
		delete(s.held, n)
		if completed {
			if s.spent == nil {
				s.spent = map[nonce]int64{}
			}
			s.spent[n] = h.exp
			s.adds++
		}
	}
	if s.adds >= sweepEvery {
		s.adds = 0
		// Past its expiry Open refuses a state anyway.
		now := s.now().Unix()
		for n, exp := range s.spent {
			if now > exp {
				delete(s.spent, n)
			}
		}
	}
}
