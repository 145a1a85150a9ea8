package requeststate

import (
	"errors"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestSealOpen: a state opens for its own request only, with the key that
// sealed it or one it names as previous, until it expires.
func TestSealOpen(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	old, err := New(Options{Key: []byte("old"), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := New(Options{Key: []byte("new"), Previous: [][]byte{[]byte("old")}, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(Options{Key: []byte("other"), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	b := Binding{Version: "2026-07-28", Method: "tools/call", Name: "t", Principal: "alice", Params: wire.Raw(`{"name":"t","arguments":{"a":1,"b":2}}`)}
	state := old.Seal(b, []byte("data"), false)
	with := func(f func(*Binding)) Binding { c := b; f(&c); return c }
	tests := []struct {
		name  string
		s     *Sealer
		b     Binding
		state string
		ok    bool
	}{
		{"the same request", old, b, state, true},
		{"the same request, encoded otherwise, with a _meta and inputResponses", old, with(func(c *Binding) {
			c.Params = wire.Raw(`{"arguments":{"b":2,"a":1},"name":"t","_meta":{"x":1},"inputResponses":{}}`)
		}), state, true},
		{"after a rotation", rotated, b, state, true},
		{"another key", other, b, state, false},
		{"another principal", old, with(func(c *Binding) { c.Principal = "bob" }), state, false},
		{"other arguments", old, with(func(c *Binding) { c.Params = wire.Raw(`{"name":"t","arguments":{"a":2}}`) }), state, false},
		{"another tool", old, with(func(c *Binding) { c.Name = "u" }), state, false},
		{"another version", old, with(func(c *Binding) { c.Version = "DRAFT" }), state, false},
		{"tampered", old, b, state[:len(state)-2] + "AA", false},
		{"not base64", old, b, "!!", false},
		{"empty", old, b, "", false},
	}
	for _, tt := range tests {
		data, err := tt.s.Open(tt.b, tt.state, nil)
		if ok := err == nil; ok != tt.ok {
			t.Errorf("%s: %q %v, want ok %v", tt.name, data, err, tt.ok)
		}
		if err == nil && string(data) != "data" {
			t.Errorf("%s: data %q", tt.name, data)
		}
		if err != nil && !errors.Is(err, ErrBad) {
			t.Errorf("%s: %v, want ErrBad", tt.name, err)
		}
	}
	now = now.Add(11 * time.Minute)
	if _, err := old.Open(b, state, nil); !errors.Is(err, ErrBad) {
		t.Errorf("expired: %v", err)
	}
	if _, err := New(Options{Previous: [][]byte{nil}}); err == nil {
		t.Error("an empty previous key was accepted")
	}
}

// TestOnce: a single-use state is held by one holder at a time and spent
// when its request completes.
func TestOnce(t *testing.T) {
	s, _ := New(Options{})
	b := Binding{Method: "tools/call"}
	st := s.Seal(b, []byte("o"), true)
	type holder struct{ int }
	h1, h2 := &holder{1}, &holder{2}
	if _, err := s.Open(b, st, h1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(b, st, h1); err != nil {
		t.Errorf("the holder again: %v", err)
	}
	if _, err := s.Open(b, st, h2); !errors.Is(err, ErrUsed) {
		t.Errorf("held by another: %v", err)
	}
	s.Settle(h1, false)
	if _, err := s.Open(b, st, h2); err != nil {
		t.Errorf("released: %v", err)
	}
	s.Settle(h2, true)
	if _, err := s.Open(b, st, h1); !errors.Is(err, ErrUsed) {
		t.Errorf("spent: %v", err)
	}
}

// TestSpentStatesExpire: the ledger forgets spent states once they expire
// (Open refuses them anyway).
func TestSpentStatesExpire(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s, _ := New(Options{TTL: time.Minute, Now: func() time.Time { return now }})
	b := Binding{Method: "tools/call"}
	for i := range sweepEvery + 1 {
		h := new(int)
		if _, err := s.Open(b, s.Seal(b, []byte{byte(i)}, true), h); err != nil {
			t.Fatal(err)
		}
		s.Settle(h, true)
		if i == sweepEvery/2 {
			now = now.Add(2 * time.Minute)
		}
	}
	s.mu.Lock()
	n := len(s.spent)
	s.mu.Unlock()
	if n > sweepEvery/2+1 {
		t.Errorf("%d spent states kept, want the expired ones gone", n)
	}
}

// FuzzOpen: Open refuses what it did not seal, never panicking.
func FuzzOpen(f *testing.F) {
	s, _ := New(Options{Key: []byte("k")})
	b := Binding{Method: "m"}
	f.Add(s.Seal(b, []byte("x"), true))
	f.Add("AwAAAA")
	f.Fuzz(func(t *testing.T, state string) {
		_, _ = s.Open(b, state, t)
	})
}
