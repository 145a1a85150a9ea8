package ratelimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// TestRefill: the bucket's arithmetic.
func TestRefill(t *testing.T) {
	l := Limit{Rate: 2, Burst: 5}
	for _, tc := range []struct {
		name    string
		tokens  float64
		elapsed time.Duration
		cost    float64
		left    float64
		wait    time.Duration
	}{
		{"full", 5, 0, 1, 5, 0},
		{"refills to the burst at most", 0, time.Hour, 1, 5, 0},
		{"half a second refills one", 0, 500 * time.Millisecond, 1, 1, 0},
		{"short by one waits half a second", 0, 0, 1, 0, 500 * time.Millisecond},
		{"a cost over the burst waits for a full bucket", 4, 0, 9, 4, 500 * time.Millisecond},
	} {
		left, wait := Refill(l, tc.tokens, tc.elapsed, tc.cost)
		if left != tc.left || wait != tc.wait {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, left, wait, tc.left, tc.wait)
		}
	}
}

// TestMemory: a burst is spent at once, then requests wait for the rate;
// keys are apart; full buckets are forgotten past MaxKeys.
func TestMemory(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewMemory(Limit{Rate: 10, Burst: 3})
	l.now = func() time.Time { return now }
	ctx := context.Background()
	for i := range 3 {
		if w, _ := l.Take(ctx, "a", 1); w != 0 {
			t.Fatalf("take %d within the burst waits %v", i, w)
		}
	}
	if w, _ := l.Take(ctx, "a", 1); w != 100*time.Millisecond {
		t.Errorf("the fourth waits %v, want 100ms", w)
	}
	if w, _ := l.Take(ctx, "b", 1); w != 0 {
		t.Errorf("another key waits %v", w)
	}
	now = now.Add(100 * time.Millisecond)
	if w, _ := l.Take(ctx, "a", 1); w != 0 {
		t.Errorf("after 100ms: waits %v", w)
	}
	l.maxKeys = 2
	now = now.Add(time.Hour)
	if _, err := l.Take(ctx, "c", 1); err != nil {
		t.Fatal(err)
	}
	if n := len(l.buckets); n != 1 {
		t.Errorf("%d buckets kept, want the new one only (the others were full)", n)
	}
	if _, err := NewMemory(Limit{}).Take(ctx, "a", 1); err == nil {
		t.Error("a zero rate: no error")
	}
}

// TestRateLimitedError: the error names the limit and when to retry,
// and RetryAfter reads it back.
func TestRateLimitedError(t *testing.T) {
	err := error(Refused(Limit{Rate: 10, Burst: 20}.String(), 1500*time.Millisecond))
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32010 || je.Message != "rate limited (10 requests/s, burst 20): retry in 1500 ms" || string(je.Data) != `{"retryAfterMs":1500,"limit":"10 requests/s, burst 20"}` {
		t.Fatalf("%+v", je)
	}
	if d, ok := RetryAfter(err); !ok || d != 1500*time.Millisecond {
		t.Errorf("RetryAfter = %v %v", d, ok)
	}
	if _, ok := RetryAfter(errors.New("x")); ok {
		t.Error("RetryAfter of another error")
	}
	// The wait is rounded up, never down: a client sleeping the
	// advertised time must find its token (a wait of 1,999.0001 ms
	// advertised as 1,999 ms made the next request fail once more).
	for _, c := range []struct {
		d    time.Duration
		want time.Duration
	}{
		{1999*time.Millisecond + 100*time.Nanosecond, 2000 * time.Millisecond},
		{2 * time.Second, 2 * time.Second},
		{time.Nanosecond, time.Millisecond},
		{0, time.Millisecond},
	} {
		if d, _ := RetryAfter(Refused("x", c.d)); d != c.want {
			t.Errorf("Refused(%v): RetryAfter = %v, want %v", c.d, d, c.want)
		}
	}
}
