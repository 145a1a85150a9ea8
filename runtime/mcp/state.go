package mcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The requestState of an InputRequiredResult comes back from the client,
// which may tamper with it. SealState authenticates it (HMAC-SHA256 with
// the server's StateKey), binds it to the request it belongs to (method,
// protocol version and the params member Mcp-Name mirrors: the tool, prompt
// or resource) and to the principal the request acts for, and gives it an
// expiry; OpenState checks all of them. That is what the 2026-07-28 MRTR
// rules ask ("the authenticated principal", "a short expiry", "an
// identifier for the originating request"), and, as they say, it bounds
// replay without making a state single-use: a retry may be repeated (after
// a lost answer, say) until the state expires. SealStateOnce makes a
// state that completes its request at most once, which the rules require
// of servers for which a state "must be consumed at most once (e.g.,
// one-time redemptions)": the server remembers it until it expires.

const (
	stateVersion = 2
	stateOnce    = 1 << 0 // flags: single-use, a nonce follows the expiry
	nonceSize    = 16
	stateHeader  = 1 + 1 + 8 // version, flags, expiry
)

// SealState returns the opaque requestState carrying data for a retry of
// the current request (by the same principal, before StateTTL).
func (r *Request) SealState(data []byte) string { return r.seal(data, false) }

// SealStateOnce is SealState for a state that completes its request at
// most once: once a retry carrying it is answered with anything but
// another InputRequiredResult or an error, the state is spent, and while
// such a retry runs another one carrying it is refused. Both are answered
// -32602.
func (r *Request) SealStateOnce(data []byte) string { return r.seal(data, true) }

func (r *Request) seal(data []byte, once bool) string {
	exp := r.server.opts.Now().Add(r.server.opts.StateTTL).Unix()
	buf := make([]byte, 0, stateHeader+nonceSize+len(data)+sha256.Size)
	buf = append(buf, stateVersion, 0)
	buf = binary.BigEndian.AppendUint64(buf, uint64(exp))
	if once {
		buf[1] |= stateOnce
		var n [nonceSize]byte
		_, _ = rand.Read(n[:])
		buf = append(buf, n[:]...)
	}
	buf = append(buf, data...)
	buf = append(buf, r.stateMAC(buf)...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// ErrBadState is the -32602 answer to a requestState that is malformed,
// tampered with, expired, or meant for another request or principal.
var ErrBadState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/requestState: not a requestState this server issued for this request, or expired"}

// ErrStateUsed is the -32602 answer to a single-use requestState
// (SealStateOnce) that already completed its request, or that another
// request in progress carries.
var ErrStateUsed = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/requestState: this requestState was already used; it completes its request once"}

// OpenState verifies a requestState from SealState or SealStateOnce and
// returns its data.
func (r *Request) OpenState(state string) ([]byte, error) {
	buf, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(buf) < stateHeader+sha256.Size || buf[0] != stateVersion {
		return nil, ErrBadState
	}
	body, mac := buf[:len(buf)-sha256.Size], buf[len(buf)-sha256.Size:]
	if !hmac.Equal(mac, r.stateMAC(body)) {
		return nil, ErrBadState
	}
	exp := int64(binary.BigEndian.Uint64(body[2:10]))
	if r.server.opts.Now().Unix() > exp {
		return nil, ErrBadState
	}
	data := body[stateHeader:]
	if body[1]&stateOnce != 0 {
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

// stateMAC authenticates body and binds it to the request.
func (r *Request) stateMAC(body []byte) []byte {
	h := hmac.New(sha256.New, r.server.key)
	bind := func(s string) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	bind(r.ProtocolVersion())
	bind(r.Method)
	bind(r.nameValue())
	bind(r.Principal())
	h.Write(body)
	return h.Sum(nil)
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
	v, _ := r.in.member(r.server, r.route.method.NameParam)
	return v
}
