package redis_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/store/redis"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/eventstoretest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/sessionstoretest"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestEventStore holds the Redis store to the contract of every
// EventStore, with a second store on another connection as another
// instance: it sees the first one's events.
func TestEventStore(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	eventstoretest.Run(t, func(t *testing.T) (streamhttp.EventStore, streamhttp.EventStore) {
		n++ // a prefix per case: the cases share the server
		o := redis.Options{Prefix: "t" + strings.Repeat("x", n) + ":"}
		return redis.NewEventStore(srv.Client(), o), redis.NewEventStore(srv.Client(), o)
	})
}

// TestEventStoreBounds: an event log keeps about PerStream events and
// every key expires; a replay from a trimmed event is ErrUnknownEvent, not
// a silent gap.
func TestEventStoreBounds(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	ctx := context.Background()
	s := redis.NewEventStore(c, redis.Options{PerStream: 10, TTL: time.Minute})
	first, _ := s.Append(ctx, "s", "p1", []byte("0"))
	for i := range 500 {
		if _, err := s.Append(ctx, "s", "p1", []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.XLen(ctx, "mcpgen:ev:{s}:p1").Val(); n > 200 {
		t.Errorf("%d events kept, want about 10", n)
	}
	if _, _, err := s.Replay(ctx, "s", first); err != streamhttp.ErrUnknownEvent {
		t.Errorf("replay from a trimmed event: %v", err)
	}
	for _, key := range []string{"mcpgen:ev:{s}:p1", "mcpgen:ev:{s}"} {
		if ttl := c.TTL(ctx, key).Val(); ttl <= 0 || ttl > time.Minute {
			t.Errorf("%s expires in %v", key, ttl)
		}
	}
}

// TestRedisDown: while redis-server is down the stores fail with an error
// saying so, and they work again once it is back.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s := redis.NewEventStore(srv.Client(), redis.Options{})
	if _, err := s.Append(ctx, "s", "p1", []byte("a")); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	_, err := s.Append(ctx, "s", "p1", []byte("b"))
	if err == nil || !strings.Contains(err.Error(), "redis event store") {
		t.Fatalf("with redis down: %v", err)
	}
	srv.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err = s.Append(ctx, "s", "p1", []byte("c")); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}

// TestResumeAcrossInstances: two instances sharing a key ring and the
// Redis store continue each other's operations (a state too big for the
// token included) and refuse the tokens of an operation either completed.
func TestResumeAcrossInstances(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	keys, err := resume.NewKeyRing(bytes.Repeat([]byte{9}, resume.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	instance := func() *resume.Tokens {
		tok := resume.NewTokens(keys)
		tok.Store = redis.NewResumeStore(srv.Client(), redis.Options{})
		tok.MaxInline = 16
		return tok
	}
	a, b := instance(), instance()
	call := func(token string) resume.Call {
		return resume.Call{Method: "tools/call", Tool: "count_to", Params: wire.Raw(`{"name":"count_to","arguments":{"n":25}}`), Token: token}
	}
	op, err := a.Begin(ctx, call(""))
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("s"), 100)
	token, err := a.Next(ctx, call(""), op, big)
	if err != nil {
		t.Fatal(err)
	}
	op, err = b.Begin(ctx, call(token))
	if err != nil {
		t.Fatalf("instance B: %v", err)
	}
	if !bytes.Equal(op.State(), big) {
		t.Fatalf("state on B %q", op.State())
	}
	if _, err := b.Step(ctx, call(token), op, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Begin(ctx, call(token)); err == nil || !strings.Contains(err.Error(), "completed") {
		t.Fatalf("A after B completed the operation: %v", err)
	}
}

// TestSessionStore holds the Redis session store to the contract of every
// SessionStore.
func TestSessionStore(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	sessionstoretest.Run(t, func(t *testing.T) streamhttp.SessionStore {
		n++
		return redis.NewSessionStore(srv.Client(), redis.Options{Prefix: "s" + strings.Repeat("x", n) + ":"})
	})
}

// TestRequestLedger holds the Redis request ledger to the contract of
// every SessionLedger (and so RequestLedger).
func TestRequestLedger(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	sessionstoretest.RunSessionLedger(t, func(t *testing.T) (streamhttp.SessionStore, streamhttp.SessionLedger) {
		n++
		o := redis.Options{Prefix: "l" + strings.Repeat("x", n) + ":"}
		return redis.NewSessionStore(srv.Client(), o), redis.NewRequestLedger(srv.Client(), o)
	})
}

// TestRelay: what one instance publishes, another delivers; nothing is
// delivered after its context ends.
func TestRelay(t *testing.T) {
	srv := redistest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 4)
	if err := redis.NewRelay(srv.Client(), redis.Options{}).Subscribe(ctx, func(session string, msg []byte) {
		got <- session + " " + string(msg)
	}); err != nil {
		t.Fatal(err)
	}
	if err := redis.NewRelay(srv.Client(), redis.Options{}).Publish(ctx, "s1", []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != `s1 {"jsonrpc":"2.0","id":7,"result":{}}` {
			t.Errorf("delivered %q", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing delivered")
	}
}

// TestTaskStore: a record saved by one instance loads on another, whole,
// and expires with its task.
func TestTaskStore(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	rec := tasks.Record{ID: "t1", Principal: "alice", Status: tasks.Completed, Created: time.Now(), Updated: time.Now(), TTL: time.Minute,
		Result: wire.Raw(`{"content":[]}`), Inputs: []tasks.RecordInput{{Key: "k", Request: wire.Raw(`{"method":"roots/list"}`)}}}
	if err := redis.NewTaskStore(srv.Client(), redis.Options{}).Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, ok, err := redis.NewTaskStore(srv.Client(), redis.Options{}).Load(ctx, "t1")
	if err != nil || !ok || got.Principal != "alice" || got.Status != tasks.Completed || string(got.Result) != `{"content":[]}` || len(got.Inputs) != 1 {
		t.Fatalf("Load = %+v %v %v", got, ok, err)
	}
	if ttl := srv.Client().PTTL(ctx, "mcpgen:task:t1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the key expires in %v, want within the task's minute", ttl)
	}
}

// TestCluster: the stores on a Redis Cluster of three masters the test
// starts. Every store's contract passes, pub/sub reaches other clients,
// and the keys of a session all carry its hash tag (one slot: the
// multi-key transactions of the event store and the ledger stay legal).
func TestCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	c := cl.Client()
	ctx := context.Background()
	n := 0
	prefix := func() redis.Options {
		n++
		return redis.Options{Prefix: "c" + strings.Repeat("x", n) + ":"}
	}
	t.Run("event store", func(t *testing.T) {
		eventstoretest.Run(t, func(t *testing.T) (streamhttp.EventStore, streamhttp.EventStore) {
			o := prefix()
			return redis.NewEventStore(c, o), redis.NewEventStore(cl.Client(), o)
		})
	})
	t.Run("session store", func(t *testing.T) {
		sessionstoretest.Run(t, func(t *testing.T) streamhttp.SessionStore { return redis.NewSessionStore(c, prefix()) })
	})
	t.Run("request ledger", func(t *testing.T) {
		sessionstoretest.RunSessionLedger(t, func(t *testing.T) (streamhttp.SessionStore, streamhttp.SessionLedger) {
			o := prefix()
			return redis.NewSessionStore(c, o), redis.NewRequestLedger(c, o)
		})
	})
	t.Run("relay", func(t *testing.T) {
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		got := make(chan string, 1)
		if err := redis.NewRelay(c, redis.Options{}).Subscribe(rctx, func(session string, msg []byte) { got <- session + " " + string(msg) }); err != nil {
			t.Fatal(err)
		}
		if err := redis.NewRelay(cl.Client(), redis.Options{}).Publish(rctx, "s1", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m != "s1 {}" {
				t.Errorf("delivered %q", m)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("nothing delivered across the cluster")
		}
	})
	t.Run("task and resume stores", func(t *testing.T) {
		rec := tasks.Record{ID: "t1", Principal: "alice", Status: tasks.Completed, Created: time.Now(), Updated: time.Now(), TTL: time.Minute}
		if err := redis.NewTaskStore(c, redis.Options{}).Save(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := redis.NewTaskStore(cl.Client(), redis.Options{}).Load(ctx, "t1"); err != nil || !ok || got.Principal != "alice" {
			t.Fatalf("task Load = %+v %v %v", got, ok, err)
		}
		rs := redis.NewResumeStore(c, redis.Options{})
		if err := rs.Complete(ctx, "op1", time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if done, err := redis.NewResumeStore(cl.Client(), redis.Options{}).Completed(ctx, "op1"); err != nil || !done {
			t.Fatalf("Completed = %v %v", done, err)
		}
		alice := mcp.WithPrincipal(ctx, "alice")
		one := redis.NewResumeStore(c, redis.Options{ResumePerOwner: 1})
		if err := one.Reserve(alice, "op2", time.Now().Add(time.Minute)); err != nil {
			t.Fatalf("Reserve: %v", err)
		}
		if err := redis.NewResumeStore(cl.Client(), redis.Options{ResumePerOwner: 1}).Reserve(alice, "op3", time.Now().Add(time.Minute)); !errors.Is(err, resume.ErrOwnerFull) {
			t.Fatalf("Reserve beyond the share on another client: %v", err)
		}
	})
	t.Run("a session's keys share its hash tag", func(t *testing.T) {
		o := redis.Options{Prefix: "tag:"}
		if _, err := redis.NewEventStore(c, o).Append(ctx, "sx", "p1", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if err := redis.NewSessionStore(c, o).Save(ctx, "sx", mcp.SessionState{Revision: "2025-11-25"}, time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, _, err := redis.NewRequestLedger(c, o).Begin(ctx, "sx", "1", streamhttp.RequestRecord{Stream: "p1"}, time.Minute); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex // the masters are asked at once
		var keys []string
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *goredis.Client) error {
			ks, err := m.Keys(ctx, "tag:*").Result()
			mu.Lock()
			keys = append(keys, ks...)
			mu.Unlock()
			return err
		})
		if err != nil || len(keys) < 4 {
			t.Fatalf("keys %v %v", keys, err)
		}
		for _, k := range keys {
			if !strings.Contains(k, "{sx}") {
				t.Errorf("key %s lacks the session's hash tag {sx}", k)
			}
		}
	})
}

// TestRateLimiter: two instances' limiters on one Redis share a client's
// bucket — the burst once, then the rate — and keys are apart.
func TestRateLimiter(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	// One token a second: the eight takes need not all come within a
	// refill, even on a loaded machine.
	limit := ratelimit.Limit{Rate: 1, Burst: 4}
	a, b := redis.NewRateLimiter(srv.Client(), redis.Options{}, limit), redis.NewRateLimiter(srv.Client(), redis.Options{}, limit)
	served := 0
	for i := range 8 {
		l := a
		if i%2 == 1 {
			l = b
		}
		w, err := l.Take(ctx, "alice", 1)
		if err != nil {
			t.Fatal(err)
		}
		if w == 0 {
			served++
		} else if w > time.Second {
			t.Errorf("take %d waits %v, want at most a second", i, w)
		}
	}
	if served != 4 {
		t.Errorf("%d of 8 served across two instances, want the burst of 4", served)
	}
	if w, _ := a.Take(ctx, "bob", 1); w != 0 {
		t.Errorf("another client waits %v", w)
	}
	time.Sleep(1100 * time.Millisecond)
	if w, _ := b.Take(ctx, "alice", 1); w != 0 {
		t.Errorf("after a second: waits %v", w)
	}
	if ttl := srv.Client().PTTL(ctx, "mcpgen:rl:{alice}").Val(); ttl <= 0 || ttl > 5*time.Second {
		t.Errorf("the bucket's key expires in %v, want once it would be full (and a second)", ttl)
	}
}

// TestResumeOwnerShare: one owner cannot fill the Redis resume store for
// the others: at Options.ResumePerOwner operations whose tokens live, its
// next operation is refused with ErrOwnerFull, another owner's is not,
// and a continued operation takes no new place. The share counts over
// every instance sharing the store.
func TestResumeOwnerShare(t *testing.T) {
	srv := redistest.Start(t)
	keys, err := resume.NewKeyRing(bytes.Repeat([]byte{9}, resume.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	instance := func() *resume.Tokens {
		tok := resume.NewTokens(keys)
		tok.Store = redis.NewResumeStore(srv.Client(), redis.Options{ResumePerOwner: 3})
		return tok
	}
	a, b := instance(), instance()
	call := func(token string) resume.Call {
		return resume.Call{Method: "tools/call", Tool: "count_to", Params: wire.Raw(`{"name":"count_to","arguments":{"n":25}}`), Token: token}
	}
	open := func(tok *resume.Tokens, ctx context.Context) (string, error) {
		op, err := tok.Begin(ctx, call(""))
		if err != nil {
			return "", err
		}
		return tok.Next(ctx, call(""), op, []byte("11"))
	}
	alice := mcp.WithPrincipal(context.Background(), "alice")
	bob := mcp.WithPrincipal(context.Background(), "bob")
	var token string
	for i, tok := range []*resume.Tokens{a, b, a} {
		if token, err = open(tok, alice); err != nil {
			t.Fatalf("alice's operation %d: %v", i, err)
		}
	}
	if _, err := open(b, alice); !errors.Is(err, resume.ErrOwnerFull) {
		t.Fatalf("alice's fourth operation: %v, want ErrOwnerFull", err)
	}
	if _, err := open(a, bob); err != nil {
		t.Fatalf("bob while alice is at her share: %v", err)
	}
	op, err := b.Begin(alice, call(token))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Next(alice, call(token), op, []byte("21")); err != nil {
		t.Fatalf("alice continuing an operation at her share: %v", err)
	}
}
