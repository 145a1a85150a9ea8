package mcp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The requestState of an InputRequiredResult comes back from the client,
// which may read it and tamper with it. SealState encrypts and
// authenticates it (AES-256-GCM under a key derived from the server's
// StateKey), so the client can neither read nor change it, and binds it,
// as the cipher's additional data, to the request it belongs to: the
// protocol version, the method, the params member Mcp-Name mirrors (the
// tool, prompt or resource), a digest of every other member of the params
// but requestState, inputResponses and _meta (canonical form: members
// sorted, strings re-escaped, so a retry encoded differently still
// matches), and the principal the request acts for; it also carries an
// expiry. OpenState checks all of them: a retry that changes its
// arguments, or comes from another principal, is refused. That is what
// the 2026-07-28 MRTR rules ask ("the authenticated principal", "a short
// expiry", "an identifier for the originating request"), and, as they
// say, it bounds replay without making a state single-use: a retry may be
// repeated (after a lost answer, say) until the state expires.
// SealStateOnce makes a state that completes its request at most once,
// which the rules require of servers for which a state "must be consumed
// at most once (e.g., one-time redemptions)": the server remembers it
// until it expires.
//
// Without authentication there is no principal: whoever holds a state can
// retry the request it was sealed for (the same method, tool and
// arguments, before it expires) and nothing else. On the stateful era the
// session binds it further only in that a retry travels in the session
// the bridge keeps.

const (
	stateVersion = 3
	stateOnce    = 1 << 0 // flags: single-use, a nonce follows the expiry
	nonceSize    = 16
	stateHeader  = 1 + 8 // flags, expiry (inside the ciphertext)
)

// stateAEAD derives the cipher of requestState from the server's key.
func stateAEAD(key []byte) (cipher.AEAD, error) {
	sum := sha256.Sum256(append([]byte("mcpgen requestState v3\x00"), key...))
	block, err := aes.NewCipher(sum[:])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// SealState returns the opaque requestState carrying data for a retry of
// the current request (the same params but requestState, inputResponses
// and _meta, by the same principal, before StateTTL).
func (r *Request) SealState(data []byte) string { return r.seal(data, false) }

// SealStateOnce is SealState for a state that completes its request at
// most once: once a retry carrying it is answered with anything but
// another InputRequiredResult or an error, the state is spent, and while
// such a retry runs another one carrying it is refused. Both are answered
// -32602.
func (r *Request) SealStateOnce(data []byte) string { return r.seal(data, true) }

func (r *Request) seal(data []byte, once bool) string {
	aead := r.server.stateAEAD
	exp := r.server.opts.Now().Add(r.server.opts.StateTTL).Unix()
	plain := make([]byte, 0, stateHeader+nonceSize+len(data))
	plain = append(plain, 0)
	plain = binary.BigEndian.AppendUint64(plain, uint64(exp))
	if once {
		plain[0] |= stateOnce
		var n [nonceSize]byte
		_, _ = rand.Read(n[:])
		plain = append(plain, n[:]...)
	}
	plain = append(plain, data...)
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = stateVersion
	_, _ = rand.Read(out[1:])
	out = aead.Seal(out, out[1:], plain, r.stateBinding())
	return base64.RawURLEncoding.EncodeToString(out)
}

// ErrBadState is the -32602 answer to a requestState that is malformed,
// tampered with, expired, or meant for another request or principal.
var ErrBadState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/requestState: not a requestState this server issued for this request (the same method, tool, arguments and principal), or expired"}

// ErrStateUsed is the -32602 answer to a single-use requestState
// (SealStateOnce) that already completed its request, or that another
// request in progress carries.
var ErrStateUsed = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/requestState: this requestState was already used; it completes its request once"}

// OpenState verifies a requestState from SealState or SealStateOnce and
// returns its data.
func (r *Request) OpenState(state string) ([]byte, error) {
	aead := r.server.stateAEAD
	buf, err := base64.RawURLEncoding.DecodeString(state)
	ns := aead.NonceSize()
	if err != nil || len(buf) < 1+ns+aead.Overhead()+stateHeader || buf[0] != stateVersion {
		return nil, ErrBadState
	}
	binding := r.stateBinding()
	var body []byte
	for _, aead := range r.server.openAEAD {
		// The current key first; after a rotation, the previous ones.
		if body, err = aead.Open(nil, buf[1:1+ns], buf[1+ns:], binding); err == nil {
			break
		}
	}
	if err != nil {
		return nil, ErrBadState
	}
	exp := int64(binary.BigEndian.Uint64(body[1:9]))
	if r.server.opts.Now().Unix() > exp {
		return nil, ErrBadState
	}
	data := body[stateHeader:]
	if body[0]&stateOnce != 0 {
		if len(data) < nonceSize {
			return nil, ErrBadState
		}
		var n stateNonce
		copy(n[:], data)
		data = data[nonceSize:]
		if !r.server.states.hold(n, exp, r) {
			return nil, ErrStateUsed
		}
	}
	return data, nil
}

// stateBinding is what a requestState is bound to: the state's version,
// the request's protocol version, method, named member and principal, and
// the digest of its other params (paramsDigest).
func (r *Request) stateBinding() []byte {
	b := []byte{stateVersion}
	for _, s := range []string{r.ProtocolVersion(), r.Method, r.nameValue(), r.Principal()} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	d := r.paramsDigest()
	return append(b, d[:]...)
}

// stateParamsOmitted are the params members a retry adds or changes, left
// out of the digest a requestState binds.
var stateParamsOmitted = []string{"requestState", "inputResponses", "_meta"}

// paramsDigest is the SHA-256 of the canonical form of the request's
// params without stateParamsOmitted (params that are not an object, which
// the handler's decoder refuses anyway, are digested as they are).
func (r *Request) paramsDigest() [sha256.Size]byte {
	var params wire.Raw
	if r.in.req != nil {
		params = r.in.req.Params
	}
	canon, err := wire.Canonical(params, stateParamsOmitted...)
	if err != nil {
		canon = params
	}
	return sha256.Sum256(canon)
}

// settleStates ends the request's hold on the single-use states it
// opened: spent when the request completed, released otherwise.
func (r *Request) settleStates(completed bool) {
	if r.server.states.holding.Load() > 0 {
		r.server.states.settle(r, completed)
	}
}

type stateNonce [nonceSize]byte

// stateLedger remembers the single-use states spent (until they expire)
// and those held by a request in progress. (Servers behind a load
// balancer would share it; in memory it is per Server.)
type stateLedger struct {
	now func() time.Time

	// holding counts the requests holding states, so that the others
	// settle without taking the lock.
	holding atomic.Int32

	mu    sync.Mutex
	spent map[stateNonce]int64 // nonce -> expiry (Unix seconds)
	held  map[stateNonce]heldState
	byReq map[*Request][]stateNonce // what each request holds
	adds  int                       // spent entries added since the last sweep
}

type heldState struct {
	by  *Request
	exp int64
}

// sweepEvery is how many spent states are added between two sweeps of the
// expired ones.
const sweepEvery = 1024

// hold reserves n for r; false when n is spent or held by another request.
func (l *stateLedger) hold(n stateNonce, exp int64, r *Request) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, spent := l.spent[n]; spent {
		return false
	}
	if h, ok := l.held[n]; ok && h.by != r {
		return false
	}
	if _, ok := l.held[n]; ok {
		return true // already this request's
	}
	if l.held == nil {
		l.held, l.byReq = map[stateNonce]heldState{}, map[*Request][]stateNonce{}
	}
	l.held[n] = heldState{r, exp}
	if len(l.byReq[r]) == 0 {
		l.holding.Add(1)
	}
	l.byReq[r] = append(l.byReq[r], n)
	return true
}

// settle spends (completed) or releases the states r holds.
func (l *stateLedger) settle(r *Request, completed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	held, ok := l.byReq[r]
	if !ok {
		return
	}
	delete(l.byReq, r)
	l.holding.Add(-1)
	for _, n := range held {
		h, ok := l.held[n]
		if !ok || h.by != r {
			continue
		}
		delete(l.held, n)
		if completed {
			if l.spent == nil {
				l.spent = map[stateNonce]int64{}
			}
			l.spent[n] = h.exp
			l.adds++
		}
	}
	if l.adds >= sweepEvery {
		l.adds = 0
		// Past its expiry OpenState refuses a state anyway.
		now := l.now().Unix()
		for n, exp := range l.spent {
			if now > exp {
				delete(l.spent, n)
			}
		}
	}
}

// nameValue is the value of the params member the request's Mcp-Name
// mirrors (the tool, prompt or resource), which requestState is bound to;
// "" for methods without one.
func (r *Request) nameValue() string {
	if r.route == nil || r.route.method.NameParam == "" {
		return ""
	}
	v, _ := r.in.member(&r.server.revisions, r.route.method.NameParam)
	return v
}
