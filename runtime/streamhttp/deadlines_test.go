package streamhttp

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// deadlineWriter is a ResponseWriter that records its deadlines and
// counts the write deadlines set.
type deadlineWriter struct {
	http.ResponseWriter
	mu     sync.Mutex
	rd, wd time.Time
	set    int // write deadlines set
}

func (w *deadlineWriter) SetReadDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rd = t
	return nil
}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wd = t
	w.set++
	return nil
}

func (w *deadlineWriter) deadline() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rd
}

// TestBodyWatchSweep: a read is cut at the ninth tick after it began, not
// before; ended reads leave their shards' lists, in any order.
func TestBodyWatchSweep(t *testing.T) {
	bw := newBodyWatch(time.Hour) // its timer does not fire during the test
	t.Cleanup(func() { bw.timer.Stop() })
	if bw.ticks != bodyWatchTicks {
		t.Fatalf("ticks %d, want %d", bw.ticks, bodyWatchTicks)
	}
	if off := unsafe.Offsetof(bw.shards); off%64 != 0 {
		t.Errorf("the shards begin at offset %d, inside the cache line of the fields every request reads", off)
	}
	const n = 100
	reads := make([]*bodyRead, n)
	ws := make([]*deadlineWriter, n)
	for i := range reads {
		reads[i], ws[i] = new(bodyRead), new(deadlineWriter)
		bw.start(reads[i], ws[i])
	}
	if !bw.ticking.Load() {
		t.Fatal("the timer is not armed with reads in the watch")
	}
	if !bw.sweep(bodyWatchTicks) {
		t.Fatal("sweep found no read")
	}
	for i, w := range ws {
		if !w.deadline().IsZero() {
			t.Fatalf("read %d cut after %d ticks", i, bodyWatchTicks)
		}
	}
	late := new(bodyRead) // begins at tick 1: not cut at tick 9
	bw.epoch.Store(1)
	lw := new(deadlineWriter)
	bw.start(late, lw)
	bw.sweep(bodyWatchTicks + 1)
	for i, w := range ws {
		if !w.deadline().Equal(aLongTimeAgo) {
			t.Fatalf("read %d not cut after %d ticks", i, bodyWatchTicks+1)
		}
	}
	if !lw.deadline().IsZero() {
		t.Fatal("a read begun a tick later was cut with the others")
	}
	for _, i := range rand.Perm(n) {
		if !bw.end(reads[i]) {
			t.Fatalf("read %d: end does not report its cut", i)
		}
	}
	if bw.end(late) {
		t.Fatal("an uncut read reported cut")
	}
	if bw.waiting() {
		t.Fatal("reads left in the watch")
	}
	for i := range bw.shards {
		if bw.shards[i].head != nil {
			t.Fatalf("shard %d not empty", i)
		}
	}
}

// TestBodyTimeout: behind an http.Server without timeouts (the handler's
// own bounds only), a body that stops arriving gets 408 and its
// connection is closed within BodyTimeout and a tick; a request on another
// connection is served meanwhile, and the watch's timer stops once no
// body is being read.
func TestBodyTimeout(t *testing.T) {
	f := newFixture(t, Options{BodyTimeout: 100 * time.Millisecond})
	host := strings.TrimPrefix(f.hs.URL, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\"", host)
	resp := f.do(context.Background(), http.MethodPost, statelessHeaders("tools/call", "echo"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+meta("")+`}}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"hi"`) {
		t.Errorf("another connection meanwhile: %d %s", resp.StatusCode, b)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hang, not a bound
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("the connection was not closed: %v (read %q)", err, got)
	}
	if !strings.HasPrefix(string(got), "HTTP/1.1 408") || !strings.Contains(string(got), "did not arrive within 100ms") {
		t.Errorf("answer %q, want 408 naming the body timeout", got)
	}
	for end := time.Now().Add(20 * time.Second); f.h.bodies.ticking.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the watch's timer still ticks with no body being read")
		}
	}
}

// TestServerReadTimeout: a handler that runs past the http.Server's
// ReadTimeout is answered, in both eras. The Handler does not lift the
// server's read deadline (it would end the request's context when it
// expires): net/http lifts it once the body has been read to its end
// (armFirstWrite), which this test keeps true.
func TestServerReadTimeout(t *testing.T) {
	f := newFixture(t, Options{})
	hs := httptest.NewUnstartedServer(f.h)
	hs.Config.ReadTimeout = 100 * time.Millisecond
	hs.Start()
	t.Cleanup(hs.Close)
	f.url = hs.URL
	sid := f.initSession()
	cases := []struct {
		name string
		hdr  map[string]string
		body string
	}{
		{"2025-11-25", map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}, toolCall("1", "gate", `{"key":"old"}`, "")},
		{"2026-07-28", statelessHeaders("tools/call", "gate"),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gate","arguments":{"key":"new"},` + meta("") + `}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan string, 1)
			go func() {
				resp := f.do(context.Background(), http.MethodPost, c.hdr, c.body)
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				done <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			}()
			key := <-f.ts.started
			// Past the server's read timeout (a lower bound: a slow machine
			// only waits longer).
			time.Sleep(3 * hs.Config.ReadTimeout)
			close(f.ts.gate(key))
			if got := <-done; !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "opened "+key) {
				t.Errorf("answer %s, want 200 with the handler's result", got)
			}
		})
	}
}

// TestWriteDeadline: a write arms StallTimeout unless the deadline was
// armed within StallTimeout/64 before.
func TestWriteDeadline(t *testing.T) {
	const stall = 64 * time.Second
	now := time.Now()
	for _, c := range []struct {
		name string
		at   time.Time // the deadline armed before
		arms bool
	}{
		{"none armed", time.Time{}, true},
		{"armed just now", now.Add(stall), false},
		{"armed 2s ago (over 1/64)", now.Add(stall - 2*time.Second), true},
		{"cut (a deadline in the past)", now.Add(-time.Second), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := new(deadlineWriter)
			d := writeDeadline{c.at}
			d.arm(http.NewResponseController(w), stall)
			if got := w.set == 1; got != c.arms {
				t.Fatalf("armed %v, want %v", got, c.arms)
			}
			if c.arms && (!d.at.Equal(w.wd) || time.Until(d.at) < stall-time.Second) {
				t.Errorf("deadline %v (in %v), want StallTimeout from now", w.wd, time.Until(w.wd))
			}
		})
	}
}
