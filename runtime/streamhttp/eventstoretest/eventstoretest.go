// Package eventstoretest checks an implementation of streamhttp.EventStore
// against the contract the transport relies on, so that every store (the
// in-memory one, runtime/store/redis) is held to the same behaviour.
package eventstoretest

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// Run checks the stores newStore returns. Each store must keep at least
// the last 3 events of a stream; shared is a second store on the same
// backing (nil when there is none), which must see the first's events, as
// another instance would.
func Run(t *testing.T, newStore func(t *testing.T) (store, shared streamhttp.EventStore)) {
	ctx := context.Background()
	t.Run("append and replay", func(t *testing.T) {
		s, _ := newStore(t)
		var ids []string
		for i := range 3 {
			id, err := s.Append(ctx, "s", "p1", []byte{byte('a' + i)})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		evs, stream, err := s.Replay(ctx, "s", ids[0])
		if err != nil || stream != "p1" || len(evs) != 2 || string(evs[0].Data) != "b" || string(evs[1].Data) != "c" || evs[1].ID != ids[2] {
			t.Fatalf("replay after the first: %v %q %v", evs, stream, err)
		}
		if evs, _, err := s.Replay(ctx, "s", ids[2]); err != nil || len(evs) != 0 {
			t.Fatalf("replay from the end: %v %v", evs, err)
		}
	})
	t.Run("priming events have no data", func(t *testing.T) {
		s, _ := newStore(t)
		prime, err := s.Append(ctx, "s", "g1", nil)
		if err != nil {
			t.Fatal(err)
		}
		next, _ := s.Append(ctx, "s", "g1", []byte(`{"jsonrpc":"2.0","method":"x"}`))
		evs, stream, err := s.Replay(ctx, "s", prime)
		if err != nil || stream != "g1" || len(evs) != 1 || evs[0].ID != next {
			t.Fatalf("%v %q %v", evs, stream, err)
		}
	})
	t.Run("streams apart", func(t *testing.T) {
		s, _ := newStore(t)
		a, _ := s.Append(ctx, "s", "p1", []byte("a"))
		s.Append(ctx, "s", "p2", []byte("x"))
		s.Append(ctx, "s", "p1", []byte("b"))
		evs, stream, err := s.Replay(ctx, "s", a)
		if err != nil || stream != "p1" || len(evs) != 1 || string(evs[0].Data) != "b" {
			t.Fatalf("%v %q %v", evs, stream, err)
		}
	})
	t.Run("unknown ids", func(t *testing.T) {
		s, _ := newStore(t)
		id, _ := s.Append(ctx, "s", "p1", []byte("a"))
		for _, bad := range []string{"", "p1", "p1_x", "p9_1", "nonsense", id + "0"} {
			if _, _, err := s.Replay(ctx, "s", bad); !errors.Is(err, streamhttp.ErrUnknownEvent) {
				t.Errorf("%q: %v, want ErrUnknownEvent", bad, err)
			}
		}
		if _, _, err := s.Replay(ctx, "other", id); !errors.Is(err, streamhttp.ErrUnknownEvent) {
			t.Errorf("another session's event: %v", err)
		}
	})
	t.Run("forget", func(t *testing.T) {
		s, _ := newStore(t)
		id, _ := s.Append(ctx, "s", "p1", []byte("a"))
		keep, _ := s.Append(ctx, "t", "p1", []byte("a"))
		if err := s.Forget(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Replay(ctx, "s", id); !errors.Is(err, streamhttp.ErrUnknownEvent) {
			t.Errorf("a forgotten session's event: %v", err)
		}
		if _, _, err := s.Replay(ctx, "t", keep); err != nil {
			t.Errorf("another session forgotten too: %v", err)
		}
	})
	t.Run("shared", func(t *testing.T) {
		s, other := newStore(t)
		if other == nil {
			t.Skip("no shared backing")
		}
		a, _ := s.Append(ctx, "s", "p1", []byte("a"))
		other.Append(ctx, "s", "p1", []byte("b")) // the stream goes on at another instance
		s.Append(ctx, "s", "p1", []byte("c"))
		evs, stream, err := other.Replay(ctx, "s", a)
		if err != nil || stream != "p1" || len(evs) != 2 || string(evs[0].Data) != "b" || string(evs[1].Data) != "c" {
			t.Fatalf("replay on another instance: %v %q %v", evs, stream, err)
		}
	})
}
