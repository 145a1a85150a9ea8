// Package sessionstoretest holds the contract every streamhttp.SessionStore
// must meet, for its implementations' tests:
//
//	func TestSessionStore(t *testing.T) {
//		sessionstoretest.Run(t, func(t *testing.T) streamhttp.SessionStore { return newStore(t) })
//	}
package sessionstoretest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Run checks the contract against fresh stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) streamhttp.SessionStore) {
	ctx := context.Background()
	st := mcp.SessionState{
		Revision: "2025-11-25", ClientCapabilities: wire.Raw(`{"sampling":{}}`), ClientInfo: wire.Raw(`{"name":"c","version":"1"}`),
		Principal: "alice", Ready: true, LogLevel: "debug", Subscriptions: []string{"a://1", "a://2"},
	}
	t.Run("round trip", func(t *testing.T) {
		s := newStore(t)
		if _, ok, err := s.Load(ctx, "s1"); ok || err != nil {
			t.Fatalf("Load of nothing: %v %v", ok, err)
		}
		if err := s.Save(ctx, "s1", st, time.Minute); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.Load(ctx, "s1")
		if err != nil || !ok || !reflect.DeepEqual(got, st) {
			t.Fatalf("Load = %+v %v %v, want %+v", got, ok, err, st)
		}
		changed := st
		changed.LogLevel = "error"
		if err := s.Save(ctx, "s1", changed, time.Minute); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := s.Load(ctx, "s1"); got.LogLevel != "error" {
			t.Errorf("a second Save did not replace the state: %+v", got)
		}
	})
	t.Run("delete", func(t *testing.T) {
		s := newStore(t)
		if err := s.Save(ctx, "s2", st, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "s2"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.Load(ctx, "s2"); ok || !errors.Is(err, streamhttp.ErrSessionEnded) {
			t.Errorf("Load after Delete: %v %v, want ErrSessionEnded", ok, err)
		}
		// A late Save (an instance writing back) does not revive it.
		if err := s.Save(ctx, "s2", st, time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.Load(ctx, "s2"); ok || !errors.Is(err, streamhttp.ErrSessionEnded) {
			t.Errorf("Load after Delete and Save: %v %v, want ErrSessionEnded", ok, err)
		}
		if err := s.Delete(ctx, "never"); err != nil {
			t.Errorf("Delete of nothing: %v", err)
		}
		if _, ok, err := s.Load(ctx, "unknown"); ok || err != nil {
			t.Errorf("Load of a session never seen: %v %v, want none and no error", ok, err)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		s := newStore(t)
		if err := s.Save(ctx, "s3", st, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, ok, err := s.Load(ctx, "s3"); err != nil || !ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("a session outlived its time to live by seconds")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
