package resume

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Defaults of Tokens.
const (
	DefaultTTL       = 10 * time.Minute
	DefaultMaxInline = 1024
)

// Tokens issues and checks the resume tokens of a server. Its zero value
// is not usable: set Keys (NewTokens does, with a random key ring).
type Tokens struct {
	// Keys seal and open tokens. Servers that share them honour each
	// other's tokens.
	Keys *KeyRing
	// TTL is how long a token stays valid after it is issued (default
	// DefaultTTL): the time a client has to continue.
	TTL time.Duration
	// MaxInline is the largest state kept in the token itself (default
	// DefaultMaxInline bytes); a bigger one goes to Store.
	MaxInline int
	// Store keeps big states and the operations that completed (so that
	// their tokens are refused); default a bounded in-memory store of this
	// process. Servers honouring each other's tokens share one.
	Store Store
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

// NewTokens returns Tokens sealing with keys (a random key ring when nil)
// and the defaults for the rest.
func NewTokens(keys *KeyRing) *Tokens {
	if keys == nil {
		keys = RandomKeyRing()
	}
	return &Tokens{Keys: keys, Store: NewMemoryStore(0, 0)}
}

// Call is one request of a resumable operation, as a handler sees it.
type Call struct {
	// Method is the request's method (tools/call).
	Method string
	// Tool is the tool's name, for tools/call.
	Tool string
	// Params are the request's params: the token binds a digest of every
	// member but resumeToken and _meta.
	Params wire.Marshaler
	// Token is the request's resumeToken; empty for the first call.
	Token string
}

// Op is an operation being resumed: the state the last call left.
type Op struct {
	id     [16]byte
	seq    uint32
	issued bool // Next gave this call a token
	state  []byte
	digest [32]byte // of the call Begin checked, for Next
}

// State is what the previous call of the operation left for this one; nil
// for the first call.
func (o *Op) State() []byte { return o.state }

// Begin starts or continues an operation: for a call without a token, a
// new operation with no state; for one with a token, the operation it
// continues and its state, after checking the token was issued by a key of
// the ring for this method, tool, parameters and principal (that of ctx,
// mcp.PrincipalFrom), has not expired and its operation has not completed.
// A token that fails is an error for -32602 naming /params/resumeToken.
func (t *Tokens) Begin(ctx context.Context, c Call) (*Op, error) {
	digest, err := bindingDigest(ctx, c)
	if err != nil {
		return nil, err
	}
	if c.Token == "" {
		op := &Op{digest: digest}
		if _, err := rand.Read(op.id[:]); err != nil {
			return nil, err
		}
		return op, nil
	}
	pt, err := t.Keys.open(c.Token)
	if err != nil {
		return nil, invalid(err.Error())
	}
	p, err := parsePayload(pt)
	if err != nil {
		return nil, invalid("not a token this server issued, or altered")
	}
	if !bytes.Equal(p.digest[:], digest[:]) {
		return nil, invalid("it was issued for another method, tool, principal or other parameters: a resumed call changes nothing but resumeToken")
	}
	if !t.now().Before(time.UnixMilli(p.expires)) {
		return nil, invalid("it has expired; start the operation again")
	}
	store := t.store()
	done, err := store.Completed(ctx, opKey(p.op))
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if done {
		return nil, invalid("its operation has completed")
	}
	op := &Op{id: p.op, seq: p.seq, state: p.state, digest: digest}
	if p.stored {
		s, ok, err := store.State(ctx, stateKey(p.op, p.seq))
		if err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		if !ok {
			return nil, invalid("its state is gone; start the operation again")
		}
		op.state = s
	}
	return op, nil
}

// Next returns the nextResumeToken that continues op with state after this
// call of c (the call Begin returned op for). Call it only for a
// successful result: an error result carries no token.
func (t *Tokens) Next(ctx context.Context, c Call, op *Op, state []byte) (string, error) {
	digest := op.digest
	if digest == ([32]byte{}) {
		var err error
		if digest, err = bindingDigest(ctx, c); err != nil {
			return "", err
		}
	}
	expires := t.now().Add(t.ttl())
	if r, ok := t.store().(Reserver); ok {
		// Room to remember the operation's completion as long as this
		// token lives.
		if err := r.Reserve(ctx, opKey(op.id), expires); err != nil {
			if errors.Is(err, ErrStoreFull) || errors.Is(err, ErrOwnerFull) {
				return "", err
			}
			return "", fmt.Errorf("resume: %w", err)
		}
	}
	p := payload{op: op.id, seq: op.seq + 1, expires: expires.UnixMilli(), digest: digest, state: state}
	if len(state) > t.maxInline() {
		if err := t.store().PutState(ctx, stateKey(p.op, p.seq), state, expires); err != nil {
			return "", fmt.Errorf("resume: keeping the state: %w", err)
		}
		p.stored, p.state = true, nil
	}
	op.issued = true
	return t.Keys.seal(p.encode()), nil
}

// Complete marks op completed: its tokens are refused from now on (until
// they would have expired anyway). An operation that completes in its
// first call issued no token, and has nothing to remember.
func (t *Tokens) Complete(ctx context.Context, op *Op) error {
	if op.seq == 0 && !op.issued {
		return nil
	}
	return t.store().Complete(ctx, opKey(op.id), t.now().Add(t.ttl()))
}

func (t *Tokens) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Tokens) ttl() time.Duration {
	if t.TTL > 0 {
		return t.TTL
	}
	return DefaultTTL
}

func (t *Tokens) maxInline() int {
	if t.MaxInline > 0 {
		return t.MaxInline
	}
	return DefaultMaxInline
}

func (t *Tokens) store() Store {
	if t.Store == nil {
		panic("resume: Tokens without a Store (use NewTokens)")
	}
	return t.Store
}

// invalid is the -32602 answer to a token that fails.
func invalid(why string) error {
	return mcp.InvalidParams("/params/resumeToken", "invalid resumeToken: "+why)
}

// bindingDigest is the SHA-256 of what a token is bound to: the method,
// the tool, the principal of ctx and the canonical form of every parameter
// but resumeToken and _meta (wire.Canonical: members sorted, strings
// re-escaped), so a client that re-encodes the same request differently
// is still honoured.
func bindingDigest(ctx context.Context, c Call) ([32]byte, error) {
	var params []byte
	if c.Params != nil {
		b, err := wire.Marshal(c.Params)
		if err != nil {
			return [32]byte{}, fmt.Errorf("resume: encoding the params: %w", err)
		}
		params = b
	}
	canon, err := wire.Canonical(params, "resumeToken", "_meta")
	if err != nil {
		return [32]byte{}, fmt.Errorf("resume: reading the params: %w", err)
	}
	h := sha256.New()
	for _, s := range []string{c.Method, c.Tool, mcp.PrincipalFrom(ctx)} {
		binary.Write(h, binary.BigEndian, uint32(len(s)))
		h.Write([]byte(s))
	}
	h.Write(canon)
	var out [32]byte
	h.Sum(out[:0])
	return out, nil
}

// payload is what a token seals.
type payload struct {
	op      [16]byte
	seq     uint32
	expires int64 // Unix milliseconds
	digest  [32]byte
	stored  bool   // the state is in the Store
	state   []byte // inline
}

const payloadVersion = 1

// encode writes version, op, seq, expires, digest, flags, state.
func (p payload) encode() []byte {
	b := make([]byte, 0, 1+16+4+8+32+1+len(p.state))
	b = append(b, payloadVersion)
	b = append(b, p.op[:]...)
	b = binary.BigEndian.AppendUint32(b, p.seq)
	b = binary.BigEndian.AppendUint64(b, uint64(p.expires))
	b = append(b, p.digest[:]...)
	var flags byte
	if p.stored {
		flags = 1
	}
	b = append(b, flags)
	return append(b, p.state...)
}

func parsePayload(b []byte) (payload, error) {
	var p payload
	const head = 1 + 16 + 4 + 8 + 32 + 1
	if len(b) < head || b[0] != payloadVersion {
		return p, errors.New("bad payload")
	}
	copy(p.op[:], b[1:17])
	p.seq = binary.BigEndian.Uint32(b[17:21])
	p.expires = int64(binary.BigEndian.Uint64(b[21:29]))
	copy(p.digest[:], b[29:61])
	p.stored = b[61]&1 != 0
	if rest := b[head:]; len(rest) > 0 {
		p.state = rest
	}
	return p, nil
}

func opKey(id [16]byte) string { return hex.EncodeToString(id[:]) }

func stateKey(id [16]byte, seq uint32) string {
	return fmt.Sprintf("%s/%d", opKey(id), seq)
}

// Step ends one call of op: with more work left it returns the
// nextResumeToken carrying state (Next); without, it completes op
// (Complete) and returns "".
func (t *Tokens) Step(ctx context.Context, c Call, op *Op, state []byte, more bool) (string, error) {
	if more {
		return t.Next(ctx, c, op, state)
	}
	return "", t.Complete(ctx, op)
}
