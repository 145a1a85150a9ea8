package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestConcurrency runs 100 slow requests at once with a fast one among them.
func TestConcurrency(t *testing.T) {
	tests := []struct {
		name      string
		max       int
		maxQueued int
	}{
		{"all at once", 128, 0},
		{"limit 8 with queue", 8, 0},
		{"limit 8 without queue", 8, -1},
		{"limit 1", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			var running, peak atomic.Int32
			gate := make(chan struct{})
			m := mux{
				"ping": ping,
				"slow": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
					n := running.Add(1)
					defer running.Add(-1)
					for {
						p := peak.Load()
						if n <= p || peak.CompareAndSwap(p, n) {
							break
						}
					}
					select {
					case <-gate:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					id, _ := jsonrpc.RequestIDFrom(ctx)
					return id, nil // echo the id as the result
				},
			}
			h := start(t, m, jsonrpc.Options{MaxConcurrent: tt.max, MaxQueued: tt.maxQueued})
			const n = 100
			want := map[string]string{}
			go func() {
				for i := range n {
					// Ids alternate between integers and strings; "1" and
					// 1 are distinct ids, both in flight at once.
					id := strconv.Itoa(i / 2)
					if i%2 == 1 {
						id = `"` + id + `"`
					}
					h.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"slow"}`)
				}
			}()
			for i := range n {
				id := strconv.Itoa(i / 2)
				if i%2 == 1 {
					id = `"` + id + `"`
				}
				want[id] = `{"jsonrpc":"2.0","id":` + id + `,"result":` + id + `}`
			}
			if tt.max > n {
				// Every slow request runs: the fast one answers at once.
				waitFor(t, func() bool { return running.Load() == n })
				h.send(`{"jsonrpc":"2.0","id":"fast","method":"ping"}`)
				expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":"fast","result":{}}`)
			} else {
				waitFor(t, func() bool { return running.Load() == int32(tt.max) })
				time.Sleep(20 * time.Millisecond)
				if r := running.Load(); r != int32(tt.max) {
					t.Errorf("%d running, want %d", r, tt.max)
				}
			}
			close(gate)
			for range n {
				got := h.recv()
				d := wire.NewDecoder([]byte(got))
				var id wire.Raw
				_ = d.Object(func(k []byte) (err error) {
					if string(k) == "id" {
						id, err = d.Raw()
						return err
					}
					return d.Skip()
				})
				w, ok := want[string(id)]
				if !ok {
					t.Fatalf("unexpected or repeated response %s", got)
				}
				delete(want, string(id))
				expectJSON(t, got, w)
			}
			if p := peak.Load(); p > int32(tt.max) {
				t.Errorf("peak concurrency %d > MaxConcurrent %d", p, tt.max)
			}
			h.expectNothing()
			if err := h.eof(); err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(time.Millisecond)
	}
}

// blocker is a handler whose "block" method waits for ctx and reports what
// it saw.
type blocker struct {
	started chan jsonrpc.ID
	ended   chan error
	release chan struct{}
	cancels chan bool // results of Cancel by the "cancel" notification
}

func newBlocker() *blocker {
	return &blocker{started: make(chan jsonrpc.ID, 100), ended: make(chan error, 100), release: make(chan struct{}), cancels: make(chan bool, 100)}
}

func (b *blocker) mux() mux {
	return mux{
		"ping": ping,
		"block": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			b.started <- r.ID
			select {
			case <-ctx.Done():
				b.ended <- ctx.Err()
				return nil, ctx.Err()
			case <-b.release:
				b.ended <- nil
				return &emptyObject, nil
			}
		},
		"ignore-ctx": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			b.started <- r.ID
			<-b.release
			b.ended <- ctx.Err()
			return &emptyObject, nil
		},
		// notifications/cancelled as the MCP layer would implement it.
		"cancel": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			ok, err := cancelParams(ctx, r)
			if err == nil {
				b.cancels <- ok
			}
			return nil, err
		},
		"panic": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) {
			panic("boom")
		},
	}
}

// cancelParams cancels the request whose id is the first of the params
// array, reporting what Conn.Cancel did.
func cancelParams(ctx context.Context, r *jsonrpc.Request) (bool, error) {
	var id jsonrpc.ID
	d := wire.NewDecoder(r.Params)
	if err := d.Array(func() error { return id.DecodeJSON(d) }); err != nil {
		return false, err
	}
	return jsonrpc.ConnFrom(ctx).Cancel(id), nil
}

func recvID[T any](t testing.TB, ch chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("timed out")
		var zero T
		return zero
	}
}

func TestCancel(t *testing.T) {
	leakCheck(t)
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{})
	h.send(`{"jsonrpc":"2.0","id":"c1","method":"block"}`)
	recvID(t, b.started)
	if h.conn.Cancel(wire.StringValue("nope")) {
		t.Error("Cancel of an unknown id returned true")
	}
	// The cancellation arrives as a notification, handled on the read loop.
	h.send(`{"jsonrpc":"2.0","method":"cancel","params":["c1"]}`)
	if err := recvID(t, b.ended); !errors.Is(err, context.Canceled) {
		t.Errorf("handler saw %v, want context.Canceled", err)
	}
	h.expectNothing() // no response for c1
	if h.conn.Cancel(wire.StringValue("c1")) {
		t.Error("second Cancel returned true")
	}
	if h.conn.Cancel(wire.StringValue("probe")) {
		t.Error("Cancel of an answered request returned true")
	}
}

// TestCancelResultIgnored: a cancelled handler that returns a result anyway
// gets no response.
func TestCancelResultIgnored(t *testing.T) {
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"ignore-ctx"}`)
	recvID(t, b.started)
	if !h.conn.Cancel(wire.IntValue(1)) {
		t.Fatal("Cancel returned false")
	}
	close(b.release)
	if err := recvID(t, b.ended); !errors.Is(err, context.Canceled) {
		t.Errorf("ctx.Err() = %v", err)
	}
	h.expectNothing()
}

// TestCancelQueued: a request cancelled while waiting for a slot never runs.
func TestCancelQueued(t *testing.T) {
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{MaxConcurrent: 1})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	recvID(t, b.started)
	h.send(`{"jsonrpc":"2.0","id":2,"method":"block"}`)
	h.send(`{"jsonrpc":"2.0","method":"cancel","params":[2]}`)
	if !recvID(t, b.cancels) {
		t.Error("request 2 was not cancelled by the notification")
	}
	close(b.release)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":1,"result":{}}`)
	h.expectNothing()
	select {
	case id := <-b.started:
		t.Errorf("cancelled queued request %v ran", id)
	default:
	}
}

func TestPanic(t *testing.T) {
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"panic"}`)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`)
	h.send(`{"jsonrpc":"2.0","method":"panic"}`) // a panicking notification handler
	h.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":2,"result":{}}`)
}

type panicResult struct{}

func (panicResult) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.Field("half")
	panic("encoder boom")
}

func TestPanicInEncode(t *testing.T) {
	h := start(t, mux{"p": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) { return panicResult{}, nil }, "ping": ping}, jsonrpc.Options{})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"p"}`)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`)
	h.expectNothing()
}

func TestDuplicateID(t *testing.T) {
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{})
	h.send(`{"jsonrpc":"2.0","id":7,"method":"block"}`)
	recvID(t, b.started)
	h.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	expectJSON(t, h.recv(), invalid("7", "duplicate request id 7"))
	h.send(`{"jsonrpc":"2.0","id":"7","method":"ping"}`) // a different id
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":"7","result":{}}`)
	h.send(`{"jsonrpc":"2.0","id":"s","method":"block"}`)
	recvID(t, b.started)
	h.send(`{"jsonrpc":"2.0","id":"s","method":"block"}`)
	expectJSON(t, h.recv(), invalid(`"s"`, `duplicate request id "s"`))
	close(b.release) // the first ones were not disturbed
	for range 2 {
		got := h.recv()
		if eq, _ := wire.Equal([]byte(got), []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)); !eq {
			expectJSON(t, got, `{"jsonrpc":"2.0","id":"s","result":{}}`)
		}
	}
	// Once answered, the id may be used again.
	h.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":7,"result":{}}`)
}

// TestEOFMidRequest: the peer vanishes while requests run and wait, on a
// connection without drain (see TestDrain for the default).
func TestEOFMidRequest(t *testing.T) {
	leakCheck(t)
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{MaxConcurrent: 2, DrainTimeout: -1})
	for i := range 5 {
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"block"}`, i))
	}
	recvID(t, b.started)
	recvID(t, b.started)
	if err := h.eof(); err != nil {
		t.Errorf("Serve returned %v, want nil", err)
	}
	// Serve returned: both running handlers have finished, cancelled.
	for range 2 {
		select {
		case err := <-b.ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("handler saw %v", err)
			}
		default:
			t.Error("a handler had not finished when Serve returned")
		}
	}
	select {
	case id := <-b.started:
		t.Errorf("queued request %v ran after EOF", id)
	default:
	}
	select {
	case m := <-h.s.out:
		t.Errorf("response written after EOF: %s", m)
	default:
	}
	if err := h.conn.Call(context.Background(), "x", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Call after Serve: %v", err)
	}
	if err := h.conn.Notify(context.Background(), "x", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Notify after Serve: %v", err)
	}
}

func TestServeStops(t *testing.T) {
	t.Run("ctx", func(t *testing.T) {
		leakCheck(t)
		b := newBlocker()
		s := newMemStream()
		c := jsonrpc.NewConn(s, b.mux(), jsonrpc.Options{DrainTimeout: -1})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- c.Serve(ctx) }()
		s.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
		recvID(t, b.started)
		callErr := make(chan error)
		go func() { callErr <- c.Call(context.Background(), "never-answered", nil, nil) }()
		<-s.out // the call's request
		cancel()
		if err := recvID(t, done); !errors.Is(err, context.Canceled) {
			t.Errorf("Serve returned %v", err)
		}
		if err := recvID(t, b.ended); !errors.Is(err, context.Canceled) {
			t.Errorf("handler saw %v", err)
		}
		if err := recvID(t, callErr); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("pending Call returned %v", err)
		}
	})
	t.Run("Close", func(t *testing.T) {
		leakCheck(t)
		b := newBlocker()
		s := newMemStream()
		c := jsonrpc.NewConn(s, b.mux(), jsonrpc.Options{})
		done := make(chan error)
		go func() { done <- c.Serve(context.Background()) }()
		s.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
		recvID(t, b.started)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := recvID(t, done); err != nil {
			t.Errorf("Serve returned %v", err)
		}
		if err := recvID(t, b.ended); !errors.Is(err, context.Canceled) {
			t.Errorf("handler saw %v", err)
		}
		if err := c.Serve(context.Background()); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("Serve after Close: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
	t.Run("Close while the read loop waits for a slot", func(t *testing.T) {
		leakCheck(t)
		b := newBlocker()
		s := newMemStream()
		c := jsonrpc.NewConn(s, b.mux(), jsonrpc.Options{MaxConcurrent: 1, MaxQueued: -1})
		done := make(chan error)
		go func() { done <- c.Serve(context.Background()) }()
		s.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
		s.in <- []byte(`{"jsonrpc":"2.0","id":2,"method":"block"}`)
		recvID(t, b.started)
		time.Sleep(10 * time.Millisecond)
		c.Close()
		if err := recvID(t, done); err != nil {
			t.Errorf("Serve returned %v", err)
		}
	})
	t.Run("read error", func(t *testing.T) {
		s := &errStream{memStream: newMemStream(), err: errors.New("disk on fire")}
		c := jsonrpc.NewConn(s, nil, jsonrpc.Options{})
		if err := c.Serve(context.Background()); err != s.err {
			t.Errorf("Serve returned %v", err)
		}
	})
}

type errStream struct {
	*memStream
	err error
}

func (s *errStream) ReadMessage(context.Context) ([]byte, error) { return nil, s.err }

func TestTooLarge(t *testing.T) {
	s := &tooLargeStream{memStream: newMemStream()}
	h := &harness{t: t, s: s.memStream, conn: jsonrpc.NewConn(s, testMux, jsonrpc.Options{}), done: make(chan error, 1)}
	go func() { h.done <- h.conn.Serve(context.Background()) }()
	t.Cleanup(func() { h.eof() })
	h.send("too large")
	expectJSON(t, h.recv(), invalid("null", "message too large"))
	h.expectNothing()
}

// tooLargeStream reports the message "too large" as a *TooLargeError.
type tooLargeStream struct{ *memStream }

func (s *tooLargeStream) ReadMessage(ctx context.Context) ([]byte, error) {
	m, err := s.memStream.ReadMessage(ctx)
	if string(m) == "too large" {
		return nil, fmt.Errorf("wrapped: %w", &jsonrpc.TooLargeError{Limit: 1})
	}
	return m, err
}

func TestRequestTimeout(t *testing.T) {
	leakCheck(t)
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{RequestTimeout: 50 * time.Millisecond})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"ignore-ctx"}`)
	recvID(t, b.started)
	// The answer comes at expiry, while the handler still runs.
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out"}}`)
	close(b.release)
	if err := recvID(t, b.ended); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("handler ctx: %v", err)
	}
	h.expectNothing()
	// A handler honouring ctx.
	h2 := start(t, newBlocker().mux(), jsonrpc.Options{RequestTimeout: 20 * time.Millisecond})
	h2.send(`{"jsonrpc":"2.0","id":"t","method":"block"}`)
	expectJSON(t, h2.recv(), `{"jsonrpc":"2.0","id":"t","error":{"code":-32603,"message":"request timed out"}}`)
	h2.expectNothing()
	h.eof()
	h2.eof()
}

func TestCallErrors(t *testing.T) {
	leakCheck(t)
	var unknown atomic.Int32
	s := newMemStream()
	c := jsonrpc.NewConn(s, nil, jsonrpc.Options{OnUnknownResponse: func(jsonrpc.ID) { unknown.Add(1) }})
	done := make(chan error)
	go func() { done <- c.Serve(context.Background()) }()

	// An error response.
	errc := make(chan error)
	go func() { errc <- c.Call(context.Background(), "m", rawResult(`{"a":1}`), nil) }()
	expectJSON(t, string(<-s.out), `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`)
	s.in <- []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: m","data":[1]}}`)
	var re *jsonrpc.Error
	if err := recvID(t, errc); !errors.As(err, &re) || re.Code != -32601 || re.Message != "method not found: m" || string(re.Data) != "[1]" {
		t.Errorf("Call returned %v", err)
	}

	// A result that does not decode.
	go func() { errc <- c.Call(context.Background(), "m", nil, new(wire.StringOrInt)) }()
	expectJSON(t, string(<-s.out), `{"jsonrpc":"2.0","id":2,"method":"m"}`)
	s.in <- []byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	if err := recvID(t, errc); err == nil || wire.Pointer(err) != "/result" {
		t.Errorf("Call returned %v", err)
	}

	// A malformed error object.
	go func() { errc <- c.Call(context.Background(), "m", nil, nil) }()
	<-s.out
	s.in <- []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}`)
	if err := recvID(t, errc); err == nil || errors.As(err, &re) {
		t.Errorf("Call returned %v", err)
	}

	// Cancellation returns at once; the late response is dropped.
	ctx, cancel := context.WithCancel(context.Background())
	ids := make(chan jsonrpc.ID, 1)
	go func() { errc <- c.CallWithID(ctx, "slow", nil, wire.Into{}, func(id jsonrpc.ID) { ids <- id }) }()
	if id := recvID(t, ids); !id.Equal(wire.IntValue(4)) {
		t.Errorf("id %v", id)
	}
	<-s.out
	cancel()
	if err := recvID(t, errc); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Call returned %v", err)
	}
	s.in <- []byte(`{"jsonrpc":"2.0","id":4,"result":{}}`)
	waitFor(t, func() bool { return unknown.Load() == 1 })

	// A notification with params.
	if err := c.Notify(context.Background(), "n", rawResult(`[1]`)); err != nil {
		t.Fatal(err)
	}
	expectJSON(t, string(<-s.out), `{"jsonrpc":"2.0","method":"n","params":[1]}`)
	// An unencodable param.
	if err := c.Notify(context.Background(), "n", nanResult{}); err == nil {
		t.Error("Notify with NaN succeeded")
	}

	s.closeInput()
	if err := recvID(t, done); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// pipePair connects two Conns with stdio streams over io.Pipe pairs.
func pipePair(t testing.TB, ha, hb jsonrpc.Handler, o jsonrpc.Options) (a, b *jsonrpc.Conn) {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	a = jsonrpc.NewConn(newStdio(ar, aw), ha, o)
	b = jsonrpc.NewConn(newStdio(br, bw), hb, o)
	var wg sync.WaitGroup
	for _, c := range []*jsonrpc.Conn{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Serve(context.Background()); err != nil {
				t.Errorf("Serve: %v", err)
			}
		}()
	}
	t.Cleanup(func() {
		a.Close()
		b.Close()
		wg.Wait()
	})
	return a, b
}

type echoParams struct {
	Text string
	N    int64
}

func (p *echoParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"text":`)
	e.Str(p.Text)
	e.FieldRaw(`"n":`)
	e.Int64(p.N)
	e.ObjectEnd()
}

func (p *echoParams) DecodeJSON(d *wire.Decoder) error {
	return d.Object(func(k []byte) (err error) {
		switch string(k) {
		case "text":
			p.Text, err = d.Str()
		case "n":
			p.N, err = d.Int64()
		default:
			err = d.Skip()
		}
		return err
	})
}

func TestRoundTrip(t *testing.T) {
	leakCheck(t)
	notes := make(chan string, 1000)
	h := mux{
		"echo": echo,
		"note": func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			notes <- string(r.Params)
			return nil, nil
		},
		// A handler that calls back into the peer while serving.
		"callback": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			var out echoParams
			if err := jsonrpc.ConnFrom(ctx).Call(ctx, "echo", &echoParams{Text: "back", N: 1}, &out); err != nil {
				return nil, err
			}
			return &out, nil
		},
	}
	a, b := pipePair(t, h, h, jsonrpc.Options{})
	var wg sync.WaitGroup
	for i := range 50 {
		for _, c := range []*jsonrpc.Conn{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in := echoParams{Text: fmt.Sprintf("héllo \"%d\"\n", i), N: int64(i)}
				var out echoParams
				if err := c.Call(context.Background(), "echo", &in, &out); err != nil {
					t.Errorf("Call: %v", err)
					return
				}
				if out != in {
					t.Errorf("echo %+v, got %+v", in, out)
				}
				if err := c.Notify(context.Background(), "note", &in); err != nil {
					t.Errorf("Notify: %v", err)
				}
				var cb echoParams
				if err := c.Call(context.Background(), "callback", nil, &cb); err != nil || cb.Text != "back" {
					t.Errorf("callback: %v %+v", err, cb)
				}
				var re *jsonrpc.Error
				if err := c.Call(context.Background(), "missing", nil, nil); !errors.As(err, &re) || re.Code != jsonrpc.CodeMethodNotFound {
					t.Errorf("missing: %v", err)
				}
			}()
		}
	}
	wg.Wait()
	waitFor(t, func() bool { return len(notes) == 100 })
}

// TestBatchCancel: a cancelled request in a batch just has no element.
func TestBatchCancel(t *testing.T) {
	b := newBlocker()
	h := start(t, b.mux(), jsonrpc.Options{})
	h.conn.SetBatch(true)
	h.send(`[{"jsonrpc":"2.0","id":1,"method":"block"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	recvID(t, b.started)
	h.conn.Cancel(wire.IntValue(1))
	expectJSON(t, h.recv(), `[{"jsonrpc":"2.0","id":2,"result":{}}]`)
	// A batch whose only request is cancelled gets no response at all.
	h.send(`[{"jsonrpc":"2.0","id":3,"method":"block"},{"jsonrpc":"2.0","method":"ping"}]`)
	recvID(t, b.started)
	h.conn.Cancel(wire.IntValue(3))
	h.expectNothing()
	// A batch of notifications gets none either.
	h.send(`[{"jsonrpc":"2.0","method":"ping"}]`)
	h.expectNothing()
}

func TestErrorType(t *testing.T) {
	e := jsonrpc.NewError(5, "x %d", 1)
	if e.Error() != "jsonrpc error 5: x 1" {
		t.Error(e.Error())
	}
	if m := jsonrpc.NewError(1, "100%%").Message; m != "100%%" {
		t.Errorf("message %q", m)
	}
	if m := jsonrpc.MethodNotFound("a/b"); m.Code != -32601 || m.Message != "method not found: a/b" {
		t.Error(m)
	}
	if (&jsonrpc.TooLargeError{Limit: 3}).Error() == "" {
		t.Error("empty")
	}
}

// TestDerivedContext: contexts derived from a handler context follow its
// cancellation, and carry its values and the Serve context's values.
func TestDerivedContext(t *testing.T) {
	type key struct{}
	results := make(chan string, 10)
	b := newBlocker()
	m := b.mux()
	m["derive"] = func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
		child, cancel := context.WithCancel(context.WithValue(ctx, key{}, "v"))
		defer cancel()
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() { close(fired) })
		defer stop()
		stop2 := context.AfterFunc(ctx, func() { t.Error("stopped AfterFunc ran") })
		stop2()
		b.started <- r.ID
		<-child.Done()
		<-fired
		id, _ := jsonrpc.RequestIDFrom(child)
		results <- fmt.Sprintf("%v %v %v %v %v", child.Err(), context.Cause(ctx), child.Value(key{}), child.Value("serve"), id)
		if _, ok := ctx.Deadline(); ok {
			t.Error("deadline without RequestTimeout")
		}
		return nil, ctx.Err()
	}
	s := newMemStream()
	c := jsonrpc.NewConn(s, m, jsonrpc.Options{})
	done := make(chan error)
	go func() { done <- c.Serve(context.WithValue(context.Background(), "serve", "sv")) }() //nolint:staticcheck
	s.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"derive"}`)
	recvID(t, b.started)
	c.Cancel(wire.IntValue(1))
	if got := recvID(t, results); got != "context canceled context canceled v sv 1" {
		t.Errorf("got %q", got)
	}
	s.closeInput()
	recvID(t, done)
}

// TestLogging: internal errors and panics are logged at level Error with
// method and id, and their text never reaches the peer.
func TestLogging(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	logger := slog.New(&captureHandler{mu: &mu, out: &logs})
	notif := make(chan bool, 1)
	m := mux{
		"leak": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) {
			return nil, errors.New("secret")
		},
		"panic": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) { panic("kaboom") },
		"note": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			_, ok := jsonrpc.RequestIDFrom(ctx)
			notif <- !ok && r.IsNotification && r.ID.IsZero() && jsonrpc.ConnFrom(ctx) != nil
			return nil, nil
		},
	}
	h := start(t, m, jsonrpc.Options{Logger: logger})
	h.send(`{"jsonrpc":"2.0","id":"L","method":"leak"}`)
	if got := h.recv(); strings.Contains(got, "secret") {
		t.Errorf("error text leaked: %s", got)
	}
	h.send(`{"jsonrpc":"2.0","id":9,"method":"panic"}`)
	if got := h.recv(); strings.Contains(got, "kaboom") {
		t.Errorf("panic text leaked: %s", got)
	}
	h.send(`{"jsonrpc":"2.0","method":"note"}`)
	if !recvID(t, notif) {
		t.Error("notification context or request wrong")
	}
	h.eof()
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(logs, "\n")
	for _, want := range []string{
		`ERROR jsonrpc: handler failed method=leak id="\"L\"" error=secret`,
		`ERROR jsonrpc: handler panicked method=panic id=9 panic=kaboom stack=`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("log lacks %q:\n%s", want, all)
		}
	}
	if !strings.Contains(all, "conn_test.go") {
		t.Error("panic log has no stack")
	}
}

type captureHandler struct {
	mu  *sync.Mutex
	out *[]string
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *captureHandler) WithGroup(string) slog.Handler            { return h }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	s := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value.String()
		if strings.ContainsAny(v, " \"") {
			v = strconv.Quote(v)
		}
		s += " " + a.Key + "=" + v
		return true
	})
	h.mu.Lock()
	*h.out = append(*h.out, s)
	h.mu.Unlock()
	return nil
}

func TestServeTwice(t *testing.T) {
	h := start(t, testMux, jsonrpc.Options{})
	h.expectNothing() // Serve is running
	if err := h.conn.Serve(context.Background()); err == nil {
		t.Error("second Serve succeeded")
	}
}
