package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// answers collects the responses written until Serve returns and counts
// them by outcome.
type answers struct {
	results, errs int
	codes         map[int64]int
	byID          map[string]string
}

func collect(t *testing.T, h *harness, until <-chan error) (answers, error) {
	t.Helper()
	a := answers{codes: map[int64]int{}, byID: map[string]string{}}
	var serveErr error
	timeout := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case m := <-h.s.out:
			a.add(t, string(m))
		case serveErr = <-until:
			done = true
		case <-timeout:
			t.Fatal("Serve did not return")
		}
	}
	for {
		select {
		case m := <-h.s.out:
			a.add(t, string(m))
		default:
			return a, serveErr
		}
	}
}

func (a *answers) add(t *testing.T, msg string) {
	var id wire.Raw
	var code int64
	isErr := false
	d := wire.NewDecoder([]byte(msg))
	err := d.Object(func(k []byte) (err error) {
		switch string(k) {
		case "id":
			id, err = d.Raw()
		case "error":
			isErr = true
			err = d.Object(func(k []byte) (err error) {
				if string(k) == "code" {
					code, err = d.Int64()
					return err
				}
				return d.Skip()
			})
		default:
			err = d.Skip()
		}
		return err
	})
	if err != nil {
		t.Fatalf("bad message %s: %v", msg, err)
	}
	a.byID[string(id)] = msg
	if isErr {
		a.errs++
		a.codes[code]++
	} else {
		a.results++
	}
}

// sleeper answers "sleep" after params[0] milliseconds, or when its context
// ends; "stubborn" ignores its context for params[0] milliseconds.
func sleeper(started *atomic.Int32) mux {
	dur := func(r *jsonrpc.Request) time.Duration {
		var ms int64
		d := wire.NewDecoder(r.Params)
		_ = d.Array(func() (err error) { ms, err = d.Int64(); return err })
		return time.Duration(ms) * time.Millisecond
	}
	return mux{
		"ping": ping,
		"sleep": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			started.Add(1)
			select {
			case <-time.After(dur(r)):
				return &emptyObject, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		"stubborn": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			started.Add(1)
			time.Sleep(dur(r))
			return &emptyObject, nil
		},
		"cancel": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			_, err := cancelParams(ctx, r)
			return nil, err
		},
	}
}

// TestDrain: at the end of the input (and of Serve's context) the requests
// already read are run and answered, within DrainTimeout; past it each is
// still answered, with an error.
func TestDrain(t *testing.T) {
	tests := []struct {
		name string
		opts jsonrpc.Options
		// lines are written, then the input ends (or ctx, with viaCtx).
		lines  []string
		viaCtx bool
		// after ctx ends and the drain began, these are written too.
		late []string
		// wantResults and wantCodes count the responses.
		wantResults int
		wantCodes   map[int64]int
		// maxWait bounds how long Serve may take.
		maxWait time.Duration
	}{
		{
			name:        "EOF: 100 quick calls pipelined",
			lines:       repeat(100, `{"jsonrpc":"2.0","id":%d,"method":"sleep","params":[1]}`),
			wantResults: 100,
			maxWait:     5 * time.Second,
		},
		{
			name:        "EOF: 10 calls of 200ms, 4 at a time, 6 queued",
			opts:        jsonrpc.Options{MaxConcurrent: 4},
			lines:       repeat(10, `{"jsonrpc":"2.0","id":%d,"method":"sleep","params":[200]}`),
			wantResults: 10,
			maxWait:     5 * time.Second,
		},
		{
			name:        "EOF: a malformed line first, then 20 calls",
			lines:       append([]string{`{"jsonrpc":"2.0","id":0,"method":`}, repeat(20, `{"jsonrpc":"2.0","id":%d,"method":"sleep","params":[20]}`)...),
			wantResults: 20,
			wantCodes:   map[int64]int{jsonrpc.CodeParseError: 1},
			maxWait:     5 * time.Second,
		},
		{
			name:      "EOF: calls outlasting the drain are answered with an error",
			opts:      jsonrpc.Options{MaxConcurrent: 2, DrainTimeout: 100 * time.Millisecond},
			lines:     append(repeat(2, `{"jsonrpc":"2.0","id":%d,"method":"sleep","params":[10000]}`), `{"jsonrpc":"2.0","id":"q","method":"sleep","params":[1]}`),
			wantCodes: map[int64]int{jsonrpc.CodeInternalError: 3},
			maxWait:   5 * time.Second,
		},
		{
			name:      "EOF: a handler ignoring its context still gets its error answer at the deadline",
			opts:      jsonrpc.Options{DrainTimeout: 50 * time.Millisecond},
			lines:     []string{`{"jsonrpc":"2.0","id":1,"method":"stubborn","params":[1000]}`},
			wantCodes: map[int64]int{jsonrpc.CodeInternalError: 1},
			maxWait:   5 * time.Second,
		},
		{
			name:        "ctx: running calls finish, requests read later are refused",
			viaCtx:      true,
			lines:       repeat(5, `{"jsonrpc":"2.0","id":%d,"method":"sleep","params":[1000]}`),
			late:        []string{`{"jsonrpc":"2.0","id":"late","method":"sleep","params":[1]}`},
			wantResults: 5,
			wantCodes:   map[int64]int{jsonrpc.CodeInternalError: 1},
			maxWait:     5 * time.Second,
		},
		{
			name:        "ctx: a cancellation read during the drain still cancels",
			viaCtx:      true,
			lines:       repeat(2, `{"jsonrpc":"2.0","id":%d,"method":"sleep","params":[10000]}`),
			late:        []string{`{"jsonrpc":"2.0","method":"cancel","params":[1]}`, `{"jsonrpc":"2.0","method":"cancel","params":[2]}`},
			wantResults: 0,
			maxWait:     5 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			var started atomic.Int32
			s := newMemStream()
			drained := make(chan struct{})
			if tt.viaCtx {
				tt.opts.OnDrain = func() { close(drained) }
			}
			conn := jsonrpc.NewConn(s, sleeper(&started), tt.opts)
			h := &harness{t: t, s: s, conn: conn}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- conn.Serve(ctx) }()
			for _, l := range tt.lines {
				h.send(l)
			}
			begin := time.Now()
			if tt.viaCtx {
				// Every call is running before ctx ends: one still
				// unread then would be refused by the drain, which is
				// another case (the late lines).
				waitFor(t, func() bool { return started.Load() == int32(len(tt.lines)) })
				cancel()
				<-drained // the late lines are read during the drain
				for _, l := range tt.late {
					h.send(l)
				}
			} else {
				s.closeInput()
			}
			a, err := collect(t, h, done)
			took := time.Since(begin)
			if tt.viaCtx {
				s.closeInput()
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Serve returned %v, want context.Canceled", err)
				}
			} else if err != nil {
				t.Errorf("Serve returned %v", err)
			}
			errs := 0
			for _, n := range tt.wantCodes {
				errs += n
			}
			t.Logf("%d answered with a result, %d with an error %v, in %v", a.results, a.errs, a.codes, took.Round(time.Millisecond))
			if a.results != tt.wantResults || a.errs != errs {
				t.Errorf("got %d results and %d errors %v, want %d and %d %v", a.results, a.errs, a.codes, tt.wantResults, errs, tt.wantCodes)
			}
			for code, n := range tt.wantCodes {
				if a.codes[code] != n {
					t.Errorf("%d errors with code %d, want %d", a.codes[code], code, n)
				}
			}
			if took > tt.maxWait {
				t.Errorf("Serve took %v", took)
			}
			if err := conn.Call(context.Background(), "x", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
				t.Errorf("Call after Serve: %v", err)
			}
		})
	}
}

func repeat(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i+1)
	}
	return out
}

// TestDrainMessages: the errors of a drain say what happened.
func TestDrainMessages(t *testing.T) {
	var started atomic.Int32
	s := newMemStream()
	// The late request is sent once the drain began (OnDrain runs after
	// it did), and the drain lasts long enough for it to be read on a
	// loaded machine.
	drained := make(chan struct{})
	conn := jsonrpc.NewConn(s, sleeper(&started), jsonrpc.Options{DrainTimeout: time.Second, OnDrain: func() { close(drained) }})
	h := &harness{t: t, s: s, conn: conn}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- conn.Serve(ctx) }()
	h.send(`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[10000]}`)
	waitFor(t, func() bool { return started.Load() == 1 })
	cancel()
	<-drained
	h.send(`{"jsonrpc":"2.0","id":2,"method":"sleep","params":[1]}`)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"the server is shutting down; the request was not run"}}`)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the server shut down before the request finished"}}`)
	if err := recvID(t, done); !errors.Is(err, context.Canceled) {
		t.Errorf("Serve returned %v", err)
	}
}

// TestDrainCalls: a handler waiting for the peer's answer to a Call gets
// ErrClosed when the input ends (no answer can come), and the answer when
// the drain began with ctx (reading goes on).
func TestDrainCalls(t *testing.T) {
	for _, viaCtx := range []bool{false, true} {
		t.Run(fmt.Sprint("viaCtx=", viaCtx), func(t *testing.T) {
			leakCheck(t)
			s := newMemStream()
			got := make(chan error, 1)
			m := mux{"ask": func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
				err := jsonrpc.ConnFrom(ctx).Call(ctx, "question", nil, nil)
				got <- err
				if err != nil {
					return nil, err
				}
				return &emptyObject, nil
			}}
			drained := make(chan struct{})
			conn := jsonrpc.NewConn(s, m, jsonrpc.Options{OnDrain: func() { close(drained) }})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- conn.Serve(ctx) }()
			s.in <- []byte(`{"jsonrpc":"2.0","id":"a","method":"ask"}`)
			q := string(<-s.out)
			if !strings.Contains(q, `"method":"question"`) {
				t.Fatalf("got %s", q)
			}
			if viaCtx {
				cancel()
				<-drained // the answer is read during the drain
				s.in <- []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
				if err := recvID(t, got); err != nil {
					t.Errorf("Call during a drain: %v", err)
				}
				expectJSON(t, string(<-s.out), `{"jsonrpc":"2.0","id":"a","result":{}}`)
			} else {
				s.closeInput()
				if err := recvID(t, got); !errors.Is(err, jsonrpc.ErrClosed) {
					t.Errorf("Call after EOF: %v", err)
				}
			}
			recvID(t, done)
			s.closeInput()
		})
	}
}

// TestOnDrain: the hook runs once when the drain begins, so the layer above
// can end long-lived requests.
func TestOnDrain(t *testing.T) {
	leakCheck(t)
	b := newBlocker()
	var calls atomic.Int32
	h := start(t, b.mux(), jsonrpc.Options{OnDrain: func() {
		calls.Add(1)
		close(b.release)
	}})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	recvID(t, b.started)
	if err := h.eof(); err != nil {
		t.Fatal(err)
	}
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":1,"result":{}}`)
	if n := calls.Load(); n != 1 {
		t.Errorf("OnDrain called %d times", n)
	}
}

// TestHeadOfLine: with every slot busy and the queue full, the read loop
// goes on reading while the queued requests fit MaxQueuedBytes: pings
// (served inline), cancellations and responses get through.
func TestHeadOfLine(t *testing.T) {
	tests := []struct {
		name     string
		opts     jsonrpc.Options
		calls    int
		pingWait bool // the ping waits until the calls are released
	}{
		{"backlog within MaxQueuedBytes", jsonrpc.Options{MaxConcurrent: 2, MaxQueued: 4}, 2000, false},
		{"MaxQueuedBytes exhausted: reading pauses", jsonrpc.Options{MaxConcurrent: 2, MaxQueued: 4, MaxQueuedBytes: -1}, 50, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			b := newBlocker()
			b.started = make(chan jsonrpc.ID, tt.calls+1)
			b.ended = make(chan error, tt.calls+1)
			m := b.mux()
			s := newMemStream()
			s.in = make(chan []byte, 4096)
			conn := jsonrpc.NewConn(s, inlinePing{m}, tt.opts)
			h := &harness{t: t, s: s, conn: conn, done: make(chan error, 1)}
			go func() { h.done <- conn.Serve(context.Background()) }()
			for i := 1; i <= tt.calls; i++ {
				h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"block"}`, i))
			}
			recvID(t, b.started)
			recvID(t, b.started)
			// Cancel the last call queued, then ping.
			h.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"cancel","params":[%d]}`, tt.calls))
			h.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
			// The answer comes once the backlog before it is read, which
			// under -race on a loaded machine is not quick; that none
			// comes is judged after a short wait (a slow machine can
			// only miss a bug there, not invent one).
			wait := 10 * time.Second
			if tt.pingWait {
				wait = 200 * time.Millisecond
			}
			select {
			case msg := <-s.out:
				if tt.pingWait {
					t.Fatalf("answered while reading should pause: %s", msg)
				}
				expectJSON(t, string(msg), `{"jsonrpc":"2.0","id":"ping","result":{}}`)
				if !recvID(t, b.cancels) {
					t.Error("the queued call could not be cancelled")
				}
			case <-time.After(wait):
				if !tt.pingWait {
					t.Fatal("the ping is stuck behind the queued calls")
				}
			}
			close(b.release)
			a, err := collect(t, h, func() <-chan error { s.closeInput(); return h.done }())
			if err != nil {
				t.Error(err)
			}
			want := tt.calls - 1
			if tt.pingWait {
				want = tt.calls + 1 // the ping, and the cancellation came too late
				if len(b.cancels) > 0 && <-b.cancels {
					want = tt.calls
				}
			}
			if a.results != want || a.errs != 0 {
				t.Errorf("%d results and %d errors, want %d results", a.results, a.errs, want)
			}
		})
	}
}

// inlinePing serves ping on the read loop, as package mcp does.
type inlinePing struct{ mux }

func (inlinePing) Inline(method string) bool { return method == "ping" }
