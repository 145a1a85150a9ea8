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

// RunLedger checks the contract every streamhttp.RequestLedger must meet
// against fresh ledgers made by newLedger: one request begins once, its
// later beginnings get its record, updates replace it, a stream lists its
// requests, records expire and sessions are apart.
func RunLedger(t *testing.T, newLedger func(t *testing.T) streamhttp.RequestLedger) {
	ctx := context.Background()
	lease := time.Now().Add(time.Minute).Round(time.Millisecond).UTC()
	rec := streamhttp.RequestRecord{ID: wire.Raw(`7`), Stream: "i1-p1", Lease: lease}
	t.Run("begins once", func(t *testing.T) {
		l := newLedger(t)
		if _, fresh, err := l.Begin(ctx, "s1", "7", rec, time.Minute); !fresh || err != nil {
			t.Fatalf("first Begin: %v %v", fresh, err)
		}
		other := rec
		other.Stream = "i2-p9"
		prior, fresh, err := l.Begin(ctx, "s1", "7", other, time.Minute)
		if fresh || err != nil || !sameRecord(prior, rec) {
			t.Fatalf("second Begin = %+v %v %v, want the first record", prior, fresh, err)
		}
		if _, fresh, _ := l.Begin(ctx, "s2", "7", rec, time.Minute); !fresh {
			t.Error("the same id in another session is another request")
		}
	})
	t.Run("update and stream", func(t *testing.T) {
		l := newLedger(t)
		for _, id := range []string{"1", "2"} {
			r := rec
			r.ID = wire.Raw(id)
			if _, _, err := l.Begin(ctx, "s1", id, r, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		r3 := rec
		r3.ID, r3.Stream = wire.Raw(`"x"`), "i1-p2"
		_, _, _ = l.Begin(ctx, "s1", "x", r3, time.Minute)
		done := rec
		done.ID, done.Done, done.Response = wire.Raw(`2`), true, wire.Raw(`{"jsonrpc":"2.0","id":2,"result":{}}`)
		if err := l.Update(ctx, "s1", "2", done, time.Minute); err != nil {
			t.Fatal(err)
		}
		got, err := l.Stream(ctx, "s1", "i1-p1")
		if err != nil || len(got) != 2 || !got["2"].Done || string(got["2"].Response) != string(done.Response) || got["1"].Done {
			t.Fatalf("Stream = %+v %v", got, err)
		}
		if prior, fresh, _ := l.Begin(ctx, "s1", "2", rec, time.Minute); fresh || !prior.Done {
			t.Errorf("Begin of an answered request = %+v %v", prior, fresh)
		}
		if got, _ := l.Stream(ctx, "s1", "nothing"); len(got) != 0 {
			t.Errorf("an unknown stream lists %v", got)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		l := newLedger(t)
		if _, _, err := l.Begin(ctx, "s1", "7", rec, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // Redis expires by the second at worst
		if _, fresh, _ := l.Begin(ctx, "s1", "7", rec, time.Minute); !fresh {
			t.Error("an expired record still blocks its request")
		}
	})
}

func sameRecord(a, b streamhttp.RequestRecord) bool {
	return reflect.DeepEqual(a.ID, b.ID) && a.Stream == b.Stream && a.Lease.Equal(b.Lease) && a.Done == b.Done && string(a.Response) == string(b.Response)
}

// RunSessionLedger checks the contract of a streamhttp.SessionLedger
// against the SessionStore it reads, both fresh from newPair: Begin's
// contract through BeginInSession, and the session's state seen in the
// same call — stored, missing (the request still recorded), or ended
// (nothing recorded).
func RunSessionLedger(t *testing.T, newPair func(t *testing.T) (streamhttp.SessionStore, streamhttp.SessionLedger)) {
	ctx := context.Background()
	lease := time.Now().Add(time.Minute).Round(time.Millisecond).UTC()
	rec := streamhttp.RequestRecord{ID: wire.Raw(`7`), Stream: "i1-p1", Lease: lease}
	RunLedger(t, func(t *testing.T) streamhttp.RequestLedger { _, l := newPair(t); return l })
	t.Run("in session", func(t *testing.T) {
		s, l := newPair(t)
		_, fresh, stored, err := l.BeginInSession(ctx, "s1", "7", rec, time.Minute)
		if !fresh || stored || err != nil {
			t.Fatalf("a session the store lacks: fresh %v stored %v err %v; want fresh, not stored", fresh, stored, err)
		}
		if err := s.Save(ctx, "s1", mcp.SessionState{Revision: "2025-11-25", Principal: "alice"}, time.Minute); err != nil {
			t.Fatal(err)
		}
		prior, fresh, stored, err := l.BeginInSession(ctx, "s1", "7", rec, time.Minute)
		if fresh || !stored || err != nil || !sameRecord(prior, rec) {
			t.Fatalf("the same request again, session stored: %+v fresh %v stored %v err %v; want the first record, stored", prior, fresh, stored, err)
		}
		if _, fresh, stored, _ := l.BeginInSession(ctx, "s1", "8", rec, time.Minute); !fresh || !stored {
			t.Errorf("another request of a stored session: fresh %v stored %v", fresh, stored)
		}
		if err := s.Delete(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := l.BeginInSession(ctx, "s1", "9", rec, time.Minute); !errors.Is(err, streamhttp.ErrSessionEnded) {
			t.Fatalf("a request of an ended session: %v, want ErrSessionEnded", err)
		}
		if _, fresh, _ := l.Begin(ctx, "s1", "9", rec, time.Minute); !fresh {
			t.Error("a request refused for its ended session was recorded")
		}
	})
}
