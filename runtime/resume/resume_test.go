package resume_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, resume.KeySize) }

func ring(t testing.TB, keys ...[]byte) *resume.KeyRing {
	t.Helper()
	r, err := resume.NewKeyRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// call is a tools/call of count_to with params.
func call(params, token string) resume.Call {
	return resume.Call{Method: "tools/call", Tool: "count_to", Params: wire.Raw(params), Token: token}
}

// first runs the first call of an operation and returns its token.
func first(t *testing.T, tok *resume.Tokens, ctx context.Context, params string, state []byte) string {
	t.Helper()
	c := call(params, "")
	op, err := tok.Begin(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if op.State() != nil {
		t.Fatalf("a first call has state %q", op.State())
	}
	next, err := tok.Next(ctx, c, op, state)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// TestTokens: a token continues its operation with its state, once it is
// checked against everything it binds; each way to break one is -32602
// naming resumeToken.
func TestTokens(t *testing.T) {
	const params = `{"name":"count_to","arguments":{"n":25}}`
	now := time.Now() // the in-memory store keeps completions by the real clock
	alice := mcp.WithPrincipal(context.Background(), "alice")
	tests := []struct {
		name    string
		ctx     context.Context
		params  string
		tamper  func(string) string
		later   time.Duration
		keys    *resume.KeyRing
		complet bool
		want    string // "" for a valid continuation
	}{
		{name: "valid", params: params},
		{name: "params re-encoded: same members, other order and spacing", params: `{ "arguments": {"n": 25}, "name": "count_to", "_meta": {"progressToken": 3} }`},
		{name: "a byte flipped", params: params, tamper: flip, want: "altered"},
		{name: "truncated", params: params, tamper: func(s string) string { return s[:len(s)/2] }, want: "altered"},
		{name: "not base64", params: params, tamper: func(string) string { return "%%%" }, want: "altered"},
		{name: "a parameter swapped", params: `{"name":"count_to","arguments":{"n":26}}`, want: "other parameters"},
		{name: "another tool", params: `{"name":"count_from","arguments":{"n":25}}`, want: "other parameters"},
		{name: "another principal", ctx: alice, params: params, want: "principal"},
		{name: "expired", params: params, later: 11 * time.Minute, want: "expired"},
		{name: "rotated: the old key still opens", params: params, keys: ring(t, key(2), key(1))},
		{name: "key dropped", params: params, keys: ring(t, key(2)), want: "altered"},
		{name: "operation completed", params: params, complet: true, want: "completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := now
			tok := resume.NewTokens(ring(t, key(1)))
			tok.Now = func() time.Time { return clock }
			ctx := context.Background()
			token := first(t, tok, ctx, params, []byte("11"))
			if tt.complet {
				op, err := tok.Begin(ctx, call(params, token))
				if err != nil {
					t.Fatal(err)
				}
				if next, err := tok.Step(ctx, call(params, token), op, nil, false); err != nil || next != "" {
					t.Fatalf("Step: %q %v", next, err)
				}
			}
			if tt.tamper != nil {
				token = tt.tamper(token)
			}
			if tt.keys != nil {
				tok.Keys = tt.keys
			}
			clock = clock.Add(tt.later)
			c := tt.ctx
			if c == nil {
				c = ctx
			}
			op, err := tok.Begin(c, call(tt.params, token))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if string(op.State()) != "11" {
					t.Errorf("state %q, want 11", op.State())
				}
				return
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("error %v, want -32602", err)
			}
			if !strings.Contains(err.Error(), "resumeToken") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to name resumeToken and say %q", err, tt.want)
			}
		})
	}
}

func flip(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// TestTokensAcrossServers: a token minted by one server is honoured by
// another sharing its key ring (and, for big states, its store); not by
// one with other keys.
func TestTokensAcrossServers(t *testing.T) {
	const params = `{"name":"count_to","arguments":{"n":25}}`
	ctx := context.Background()
	store := resume.NewMemoryStore(0, 0)
	a, b := resume.NewTokens(ring(t, key(7))), resume.NewTokens(ring(t, key(7)))
	a.Store, b.Store = store, store
	a.MaxInline, b.MaxInline = 8, 8
	big := bytes.Repeat([]byte("x"), 100)
	token := first(t, a, ctx, params, big)
	if len(token) > 200 {
		t.Errorf("a token of a stored state is %d bytes", len(token))
	}
	op, err := b.Begin(ctx, call(params, token))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(op.State(), big) {
		t.Errorf("state %q", op.State())
	}
	other := resume.NewTokens(ring(t, key(8)))
	if _, err := other.Begin(ctx, call(params, token)); err == nil {
		t.Error("a server with other keys honoured the token")
	}
}

// TestKeyRings: what a key ring accepts.
func TestKeyRings(t *testing.T) {
	if _, err := resume.NewKeyRing(); err == nil {
		t.Error("an empty key ring")
	}
	if _, err := resume.NewKeyRing([]byte("short")); err == nil {
		t.Error("a short key")
	}
	r, err := resume.ParseKeyRing("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=, AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI")
	if err != nil || r == nil {
		t.Errorf("ParseKeyRing: %v", err)
	}
	if _, err := resume.ParseKeyRing("not base64!"); err == nil {
		t.Error("ParseKeyRing accepted garbage")
	}
}

// TestFollow: Follow calls until no next token, passing each on, and stops
// on an error or a cancelled context.
func TestFollow(t *testing.T) {
	var seen []string
	err := resume.Follow(context.Background(), func(_ context.Context, token string) (string, error) {
		seen = append(seen, token)
		if len(seen) < 3 {
			return "t" + token, nil
		}
		return "", nil
	})
	if err != nil || strings.Join(seen, ",") != ",t,tt" {
		t.Errorf("calls %q, %v", seen, err)
	}
	boom := errors.New("boom")
	if err := resume.Follow(context.Background(), func(context.Context, string) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Errorf("error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = resume.Follow(ctx, func(context.Context, string) (string, error) {
		n++
		cancel()
		return "more", nil
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("after cancel: %v after %d calls", err, n)
	}
}

// BenchmarkSealOpen: minting a token (Next) and checking it (Begin), with
// an inline state of 16 bytes.
func BenchmarkSealOpen(b *testing.B) {
	tok := resume.NewTokens(ring(b, key(1)))
	ctx := context.Background()
	c := call(`{"name":"count_to","arguments":{"n":25}}`, "")
	op, err := tok.Begin(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	state := []byte("0123456789abcdef")
	b.ReportAllocs()
	for b.Loop() {
		token, err := tok.Next(ctx, c, op, state)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tok.Begin(ctx, call(`{"name":"count_to","arguments":{"n":25}}`, token)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCompletionsOutliveTokens: a completed operation's tokens stay
// refused however many operations follow. Operations that complete in
// their first call issue no token and take no room; each operation with
// a live token holds room for its completion; when they fill the store, a
// new operation's token is refused with ErrStoreFull rather than a
// completion forgotten.
func TestCompletionsOutliveTokens(t *testing.T) {
	const params = `{"name":"count_to","arguments":{"n":25}}`
	ctx := context.Background()
	tok := resume.NewTokens(ring(t, key(1)))
	tok.Store = resume.NewMemoryStore(8, 0)
	// An operation run to its end, whose first token is kept.
	stale := first(t, tok, ctx, params, []byte("11"))
	op, err := tok.Begin(ctx, call(params, stale))
	if err != nil {
		t.Fatal(err)
	}
	if err := tok.Complete(ctx, op); err != nil {
		t.Fatal(err)
	}
	// Operations that end in their first call: nothing to remember.
	for range 4200 {
		op, err := tok.Begin(ctx, call(`{"name":"count_to","arguments":{"n":1}}`, ""))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tok.Step(ctx, call(`{"name":"count_to","arguments":{"n":1}}`, ""), op, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	// Operations left open fill the rest of the store; one more is
	// refused.
	for i := range 7 {
		if _, err := tok.Next(ctx, call(params, ""), mustBegin(t, tok, params), []byte("11")); err != nil {
			t.Fatalf("open operation %d: %v", i, err)
		}
	}
	if _, err := tok.Next(ctx, call(params, ""), mustBegin(t, tok, params), []byte("11")); !errors.Is(err, resume.ErrStoreFull) {
		t.Errorf("a ninth operation: %v, want ErrStoreFull", err)
	}
	var je *jsonrpc.Error
	if !errors.As(resume.ErrStoreFull, &je) || je.Code != jsonrpc.CodeInternalError {
		t.Errorf("ErrStoreFull is not a -32603: %v", resume.ErrStoreFull)
	}
	_, err = tok.Begin(ctx, call(params, stale))
	if err == nil || !strings.Contains(err.Error(), "completed") {
		t.Errorf("the completed operation's token after the flood: %v, want refused as completed", err)
	}
}

func mustBegin(t *testing.T, tok *resume.Tokens, params string) *resume.Op {
	t.Helper()
	op, err := tok.Begin(context.Background(), call(params, ""))
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// TestOwnerShare: one client cannot fill the store for the others. Once
// the table is half full, an owner (its principal, else its address)
// holding MemoryStore.PerOwner operations or more is refused one more
// with ErrOwnerFull, while other owners are served; before, a lone busy
// client may use half the table. When the states are at their bound, the
// owner holding the most bytes of state loses its oldest, not another
// owner's.
func TestOwnerShare(t *testing.T) {
	const params = `{"name":"count_to","arguments":{"n":25}}`
	tok := resume.NewTokens(ring(t, key(1)))
	store := resume.NewMemoryStore(16, 3000)
	store.PerOwner = 3
	tok.Store = store
	tok.MaxInline = 1 // every state in the store
	alice := mcp.WithPrincipal(context.Background(), "alice")
	bob := mcp.WithPrincipal(context.Background(), "bob")
	open := func(ctx context.Context, state []byte) (string, error) {
		c := call(params, "")
		op, err := tok.Begin(ctx, c)
		if err != nil {
			return "", err
		}
		return tok.Next(ctx, c, op, state)
	}
	// Alone, alice goes past her share until half the table (8) is used.
	for i := range 8 {
		state := []byte("x")
		if i < 3 {
			state = bytes.Repeat([]byte("a"), 600)
		}
		if _, err := open(alice, state); err != nil {
			t.Fatalf("alice's operation %d: %v", i, err)
		}
	}
	if _, err := open(alice, []byte("x")); !errors.Is(err, resume.ErrOwnerFull) {
		t.Fatalf("alice's ninth operation, the table half full: %v, want ErrOwnerFull", err)
	}
	var je *jsonrpc.Error
	if !errors.As(resume.ErrOwnerFull, &je) || !strings.Contains(je.Message, "for this client") {
		t.Errorf("ErrOwnerFull: %v", resume.ErrOwnerFull)
	}
	bobsFirst, err := open(bob, bytes.Repeat([]byte("b"), 500))
	if err != nil {
		t.Fatalf("bob while alice is over her share: %v", err)
	}
	for i := range 2 {
		if _, err := open(bob, []byte("b")); err != nil {
			t.Fatalf("bob's operation %d within his share: %v", i+2, err)
		}
	}
	// stdio's one client ("" owner) has the whole store.
	for i := range 3 {
		if _, err := open(context.Background(), []byte("s")); err != nil {
			t.Fatalf("an operation without owner %d: %v", i, err)
		}
	}
	// A continued operation is not a new one: bob goes on at his share.
	// States: alice's 1805 bytes, bob's 502 (and the ownerless ones)
	// under 3000; bob's second state of 700 goes beyond, and alice's
	// oldest goes (she holds the most), not bob's.
	c := call(params, bobsFirst)
	op, err := tok.Begin(bob, c)
	if err != nil {
		t.Fatalf("bob's token: %v", err)
	}
	if _, err := tok.Next(bob, c, op, bytes.Repeat([]byte("B"), 700)); err != nil {
		t.Fatalf("bob's second page: %v", err)
	}
	if _, err := tok.Begin(bob, call(params, bobsFirst)); err != nil {
		t.Errorf("bob's first state was pushed out by alice's: %v", err)
	}
}
