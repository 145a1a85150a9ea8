package redis_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/store/redis"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/eventstoretest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/sessionstoretest"
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
// every RequestLedger.
func TestRequestLedger(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	sessionstoretest.RunLedger(t, func(t *testing.T) streamhttp.RequestLedger {
		n++
		return redis.NewRequestLedger(srv.Client(), redis.Options{Prefix: "l" + strings.Repeat("x", n) + ":"})
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
	rec := mcp.TaskRecord{ID: "t1", Principal: "alice", Status: mcp.TaskCompleted, Created: time.Now(), Updated: time.Now(), TTL: time.Minute,
		Result: wire.Raw(`{"content":[]}`), Inputs: []mcp.TaskRecordInput{{Key: "k", Request: wire.Raw(`{"method":"roots/list"}`)}}}
	if err := redis.NewTaskStore(srv.Client(), redis.Options{}).Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, ok, err := redis.NewTaskStore(srv.Client(), redis.Options{}).Load(ctx, "t1")
	if err != nil || !ok || got.Principal != "alice" || got.Status != mcp.TaskCompleted || string(got.Result) != `{"content":[]}` || len(got.Inputs) != 1 {
		t.Fatalf("Load = %+v %v %v", got, ok, err)
	}
	if ttl := srv.Client().PTTL(ctx, "mcpgen:task:t1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the key expires in %v, want within the task's minute", ttl)
	}
}
