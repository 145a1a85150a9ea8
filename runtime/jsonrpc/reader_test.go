package jsonrpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// stdioServer runs a Conn on a stdio stream over pipes: the test writes
// lines to in and reads the Conn's lines from out.
type stdioServer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	conn *jsonrpc.Conn
	done chan error
}

func startStdio(t *testing.T, h jsonrpc.Handler, o jsonrpc.Options) *stdioServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioServer{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	s.conn = jsonrpc.NewConn(newStdio(inR, outW), h, o)
	go func() { s.done <- s.conn.Serve(context.Background()) }()
	t.Cleanup(func() {
		s.conn.Close()
		inW.Close()
		outR.Close()
		<-s.done
	})
	return s
}

func (s *stdioServer) send(msg string) {
	s.t.Helper()
	if _, err := s.in.Write([]byte(msg + "\n")); err != nil {
		s.t.Fatal(err)
	}
}

// recv returns the next line the Conn wrote (without its newline).
func (s *stdioServer) recv() string {
	s.t.Helper()
	line := make(chan string, 1)
	go func() {
		l, _ := s.out.ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		if l == "" {
			s.t.Fatal("output ended")
		}
		return l[:len(l)-1]
	case <-time.After(10 * time.Second):
		s.t.Fatal("no message written")
		return ""
	}
}

// serveDone waits for Serve to return.
func (s *stdioServer) serveDone() error {
	s.t.Helper()
	return serveResult(s.t, s.done)
}

// TestServeOnReader covers the requests a Conn on a stdio stream runs on
// its reading goroutine (the only request running): reading must go on
// when such a handler takes long, calls the peer, or the Conn ends.
func TestServeOnReader(t *testing.T) {
	leakCheck(t)
	t.Run("slow handler does not stop reading", func(t *testing.T) {
		second := make(chan struct{})
		s := startStdio(t, jsonrpc.HandlerFunc(func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			switch r.Method {
			case "first":
				// Runs until the second request, read after it, has run.
				select {
				case <-second:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			case "second":
				close(second)
			}
			return rawResult(`"` + r.Method + `"`), nil
		}), jsonrpc.Options{})
		s.send(`{"jsonrpc":"2.0","id":1,"method":"first"}`)
		s.send(`{"jsonrpc":"2.0","id":2,"method":"second"}`)
		// Both are answered; in either order, as the first ends as soon as
		// the second has run, and both then write.
		got := []string{s.recv(), s.recv()}
		if !strings.Contains(got[0], `"id":2`) {
			got[0], got[1] = got[1], got[0]
		}
		expectJSON(t, got[0], `{"jsonrpc":"2.0","id":2,"result":"second"}`)
		expectJSON(t, got[1], `{"jsonrpc":"2.0","id":1,"result":"first"}`)
		// The reading goroutine that turned worker serves on; reading goes on.
		s.send(`{"jsonrpc":"2.0","id":3,"method":"third"}`)
		expectJSON(t, s.recv(), `{"jsonrpc":"2.0","id":3,"result":"third"}`)
	})
	t.Run("cancellation of the running request is read", func(t *testing.T) {
		s := startStdio(t, jsonrpc.HandlerFunc(func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			switch r.Method {
			case "wait":
				<-ctx.Done()
				return nil, ctx.Err()
			case "cancel":
				jsonrpc.ConnFrom(ctx).Cancel(wire.IntValue(1))
			}
			return rawResult(`{}`), nil
		}), jsonrpc.Options{})
		s.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		s.send(`{"jsonrpc":"2.0","method":"cancel"}`)
		s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		// Cancelled requests are not answered: the ping's answer comes first.
		expectJSON(t, s.recv(), `{"jsonrpc":"2.0","id":2,"result":{}}`)
	})
	t.Run("handler calls the peer", func(t *testing.T) {
		// b's handler calls a back while running on b's reading goroutine:
		// the response is read by the goroutine reading on.
		a, _ := pipePair(t,
			jsonrpc.HandlerFunc(func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
				return rawResult(`"pong"`), nil
			}),
			jsonrpc.HandlerFunc(func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
				var got wire.Raw
				if err := jsonrpc.ConnFrom(ctx).Call(ctx, "ping", nil, &got); err != nil {
					return nil, err
				}
				return rawResult(`{"peer":` + string(got) + `}`), nil
			}), jsonrpc.Options{})
		for range 3 {
			var got wire.Raw
			if err := a.Call(context.Background(), "ask", nil, &got); err != nil {
				t.Fatal(err)
			}
			expectJSON(t, string(got), `{"peer":"pong"}`)
		}
	})
	t.Run("Close ends a handler on the reading goroutine", func(t *testing.T) {
		running := make(chan struct{})
		ended := make(chan error, 1)
		s := startStdio(t, jsonrpc.HandlerFunc(func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			close(running)
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		}), jsonrpc.Options{})
		s.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		<-running
		s.conn.Close()
		if err := s.serveDone(); err != nil {
			t.Errorf("Serve: %v", err)
		}
		// Serve returned after the handler did.
		select {
		case err := <-ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("handler context: %v", err)
			}
		default:
			t.Error("Serve returned before the handler")
		}
	})
	t.Run("EOF drains a handler on the reading goroutine", func(t *testing.T) {
		release := make(chan struct{})
		running := make(chan struct{})
		s := startStdio(t, jsonrpc.HandlerFunc(func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			close(running)
			<-release
			return rawResult(`"done"`), nil
		}), jsonrpc.Options{})
		s.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
		<-running
		s.in.Close()
		time.Sleep(2 * time.Millisecond) // past the hand-off: the EOF is read
		close(release)
		expectJSON(t, s.recv(), `{"jsonrpc":"2.0","id":1,"result":"done"}`)
		if err := s.serveDone(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// TestOrderAcrossReads: messages arriving alone (handled, requests served,
// on the reading goroutine) and in bursts (requests to workers) alike:
// notifications are handled in arrival order, every request is answered.
func TestOrderAcrossReads(t *testing.T) {
	leakCheck(t)
	var mu sync.Mutex
	var seen []int
	s := startStdio(t, jsonrpc.HandlerFunc(func(ctx context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
		if r.IsNotification {
			var n []int
			if err := json.Unmarshal(r.Params, &n); err != nil || len(n) != 1 {
				t.Errorf("params %s: %v", r.Params, err)
				return nil, nil
			}
			mu.Lock()
			seen = append(seen, n[0])
			mu.Unlock()
			return nil, nil
		}
		return rawResult(`"ok"`), nil
	}), jsonrpc.Options{})
	// The answers are read as they come (the pipe holds none).
	answers := make(chan string, 100)
	go func() {
		for {
			l, err := s.out.ReadString('\n')
			if err != nil {
				close(answers)
				return
			}
			answers <- l
		}
	}()
	// Runs of 100 writes of one message and of three.
	const writes = 400
	next, requests := 0, 0
	for i := range writes {
		var b strings.Builder
		n := 1
		if (i/100)%2 == 1 {
			n = 3
		}
		for range n {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"n","params":[%d]}`+"\n", next)
			next++
		}
		if _, err := s.in.Write([]byte(b.String())); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"r"}`, i))
			requests++
		}
	}
	// A request after the last notification: answered after they were
	// handled.
	s.send(`{"jsonrpc":"2.0","id":"last","method":"r"}`)
	for range requests + 1 {
		select {
		case got := <-answers:
			if !strings.Contains(got, `"result":"ok"`) {
				t.Fatalf("answer %s", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("answers missing")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != next {
		t.Fatalf("%d notifications handled, want %d", len(seen), next)
	}
	for i, n := range seen {
		if n != i {
			t.Fatalf("notification %d handled as number %d: %v", n, i, seen[max(0, i-3):i+1])
		}
	}
}
