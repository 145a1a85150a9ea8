package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// memStream is an in-memory jsonrpc.Stream: the test writes to in, the Conn
// writes to out. Closing in (closeInput) is a clean EOF.
type memStream struct {
	in        chan []byte
	out       chan []byte
	done      chan struct{}
	closeOnce sync.Once
	inOnce    sync.Once
}

func newMemStream() *memStream {
	return &memStream{
		in:   make(chan []byte, 1024),
		out:  make(chan []byte, 4096),
		done: make(chan struct{}),
	}
}

func (s *memStream) ReadMessage(ctx context.Context) ([]byte, error) {
	select {
	case m, ok := <-s.in:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, jsonrpc.ErrClosed
	}
}

func (s *memStream) WriteMessage(_ context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errors.New("newline in message")
	}
	select {
	case s.out <- bytes.Clone(msg):
		return nil
	case <-s.done:
		return jsonrpc.ErrClosed
	}
}

func (s *memStream) Close() error {
	s.closeOnce.Do(func() { close(s.done) })
	return nil
}

func (s *memStream) closeInput() { s.inOnce.Do(func() { close(s.in) }) }

// harness runs a Conn over a memStream.
type harness struct {
	t    testing.TB
	s    *memStream
	conn *jsonrpc.Conn
	done chan error
}

func start(t testing.TB, h jsonrpc.Handler, o jsonrpc.Options) *harness {
	t.Helper()
	s := newMemStream()
	hs := &harness{t: t, s: s, conn: jsonrpc.NewConn(s, h, o), done: make(chan error, 1)}
	go func() { hs.done <- hs.conn.Serve(context.Background()) }()
	t.Cleanup(func() {
		s.closeInput()
		select {
		case <-hs.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return hs
}

func (h *harness) send(msg string) { h.s.in <- []byte(msg) }

// recv returns the next message the Conn wrote.
func (h *harness) recv() string {
	h.t.Helper()
	select {
	case m := <-h.s.out:
		return string(m)
	case <-time.After(10 * time.Second):
		h.t.Fatal("no message written")
		return ""
	}
}

// expectNothing checks that nothing more is written: it sends a ping and
// expects its answer to be the next message.
func (h *harness) expectNothing() {
	h.t.Helper()
	h.send(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`)
	expectJSON(h.t, h.recv(), `{"jsonrpc":"2.0","id":"probe","result":{}}`)
}

// eof ends the input and waits for Serve.
func (h *harness) eof() error {
	h.t.Helper()
	h.s.closeInput()
	return serveResult(h.t, h.done)
}

// serveResult waits for Serve's error on done and puts it back for the
// test's Cleanup, which waits for it too.
func serveResult(t testing.TB, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		done <- err
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

func expectJSON(t testing.TB, got, want string) {
	t.Helper()
	if strings.Contains(want, `"syntax error*"`) {
		got = maskSyntaxError(t, got)
	}
	eq, err := wire.Equal([]byte(got), []byte(want))
	if err != nil {
		t.Fatalf("comparing %s with %s: %v", got, want, err)
	}
	if !eq {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// raw is a result that encodes as its JSON text.
type raw wire.Raw

func (r *raw) EncodeJSON(e *wire.Encoder) { e.Raw(wire.Raw(*r)) }

func rawResult(s string) wire.Marshaler { r := raw(s); return &r }

// rawOut decodes any result.
type rawOut struct{ v wire.Raw }

func (r *rawOut) DecodeJSON(d *wire.Decoder) (err error) {
	r.v, err = d.Raw()
	return err
}

// mux routes by method name and answers -32601 otherwise. It lists its
// methods, so they are interned.
type mux map[string]jsonrpc.HandlerFunc

func (m mux) Handle(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	if f, ok := m[req.Method]; ok {
		return f(ctx, req)
	}
	return nil, jsonrpc.MethodNotFound(req.Method)
}

func (m mux) Methods() []string {
	var ms []string
	for k := range m {
		ms = append(ms, k)
	}
	slices.Sort(ms)
	return ms
}

// echo answers with the params (null when absent). It returns a pointer into
// the Request, so it allocates nothing.
func echo(_ context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	return (*raw)(&req.Params), nil
}

var emptyObject = raw(`{}`)

func ping(context.Context, *jsonrpc.Request) (wire.Marshaler, error) { return &emptyObject, nil }

// leakCheck fails the test if goroutines started during it are still alive
// after a grace period.
func leakCheck(t testing.TB) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		var n int
		for range 200 {
			if n = runtime.NumGoroutine(); n <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("goroutines leaked: %d before, %d after\n%s", before, n, filterStacks(string(buf)))
	})
}

func filterStacks(s string) string {
	var out []string
	for _, g := range strings.Split(s, "\n\n") {
		if strings.Contains(g, "testing.(*T).Run") || strings.Contains(g, "testing.tRunner") && !strings.Contains(g, "jsonrpc") {
			continue
		}
		out = append(out, g)
	}
	return strings.Join(out, "\n\n")
}

// maskSyntaxError replaces the data of a -32700 error, a string starting with
// "syntax error", with "syntax error*".
func maskSyntaxError(t testing.TB, msg string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	e, _ := m["error"].(map[string]any)
	if d, ok := e["data"].(string); ok && strings.HasPrefix(d, "syntax error") {
		e["data"] = "syntax error*"
	}
	b, _ := json.Marshal(m)
	return string(b)
}
