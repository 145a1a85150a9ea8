package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

var clientMounts = []mcp.Mount{{Protocol: protoOld, Handler: clientHandler{}}, {Protocol: protoNew, Handler: clientHandler{}}}

func (f *fixture) connect(t *testing.T, era mcp.Era, retries int) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.Connect(context.Background(), &ClientTransport{URL: f.url, HTTPClient: f.c, MaxRetries: retries}, mcp.ClientOptions{Era: era}, clientMounts...)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func callText(ctx context.Context, cs *mcp.ClientSession, tool, args string) (string, error) {
	var res wire.Raw
	params := `{"name":` + quote(tool)
	if args != "" {
		params += `,"arguments":` + args
	}
	if err := cs.Call(ctx, "tools/call", wire.Raw(params+"}"), &res); err != nil {
		return "", err
	}
	return string(res), nil
}

func TestClientRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name      string
		era       mcp.Era
		stateless bool
	}{
		{"legacy", mcp.Stateful, false},
		{"modern", mcp.Stateless, true},
		{"auto", mcp.Auto, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			cs := f.connect(t, tc.era, 0)
			if cs.Stateless() != tc.stateless {
				t.Fatalf("stateless %v", cs.Stateless())
			}
			notes := make(chan string, 10)
			cs.OnNotification(func(_ context.Context, method string, _ wire.Raw) { notes <- method })
			ctx := context.Background()
			var list wire.Raw
			if err := cs.Call(ctx, "tools/list", nil, &list); err != nil || !bytes.Contains(list, []byte(`"echo"`)) {
				t.Fatalf("tools/list: %v %s", err, list)
			}
			if out, err := callText(ctx, cs, "echo", `{"text":"hi"}`); err != nil || !strings.Contains(out, `"hi"`) {
				t.Fatalf("echo: %v %s", err, out)
			}
			var updates atomic.Int32
			pctx := mcp.WithProgress(ctx, func(mcp.ProgressUpdate) { updates.Add(1) })
			if out, err := callText(pctx, cs, "progress", ""); err != nil || !strings.Contains(out, "done") || updates.Load() != 3 {
				t.Fatalf("progress: %v %s, %d updates", err, out, updates.Load())
			}
			// A JSON-RPC error comes back as *jsonrpc.Error (on the
			// stateless era with HTTP 400).
			_, err := callText(ctx, cs, "nope", "")
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("unknown tool: %v", err)
			}
			if tc.stateless {
				// x-mcp-header arguments are mirrored (the server checks).
				out, err := callText(ctx, cs, "headers", `{"text":"ok","region":"Hello, 世界","priority":7,"verbose":true,"config":{"zone":" padded "},"query":"q"}`)
				if err != nil || !strings.Contains(out, `"ok"`) {
					t.Fatalf("headers: %v %s", err, out)
				}
				if err := cs.Call(ctx, "nope/nope", nil, nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
					t.Fatalf("unknown method: %v", err)
				}
			} else {
				// A request to the client on the call's stream.
				if out, err := callText(ctx, cs, "sample", ""); err != nil || !strings.Contains(out, "from client") {
					t.Fatalf("sample: %v %s", err, out)
				}
				// The GET stream takes notifications outside requests.
				waitFor(t, func() bool {
					s := f.session(sessionOf(f))
					return s != nil && s.standaloneAttached()
				})
				f.srv.NotifyListChanged(context.Background(), mcp.ToolsList)
				for m := ""; m != "notifications/tools/list_changed"; {
					select {
					case m = <-notes:
					case <-time.After(5 * time.Second):
						t.Fatal("no notification on the GET stream")
					}
				}
			}
			// Cancelling a call cancels it on the server: by
			// notifications/cancelled (stateful) or by closing the
			// request (stateless).
			cctx, cancel := context.WithCancel(ctx)
			errc := make(chan error, 1)
			go func() { _, err := callText(cctx, cs, "block", `{"key":"`+tc.name+`"}`); errc <- err }()
			<-f.ts.started
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled call: %v", err)
			}
			select {
			case <-f.ts.cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the server did not cancel the call")
			}
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
			if n := f.h.SessionCount(); n != 0 {
				t.Fatalf("%d sessions after Close", n)
			}
		})
	}
}

func sessionOf(f *fixture) string {
	f.h.mu.Lock()
	defer f.h.mu.Unlock()
	for id := range f.h.sessions {
		return id
	}
	return ""
}

func (s *session) standaloneAttached() bool {
	s.mu.Lock()
	g := s.standalone
	s.mu.Unlock()
	return g != nil && g.attached()
}

// cutWriter breaks a response after its first message event.
type cutWriter struct {
	http.ResponseWriter
	events int
	cut    bool
}

func (w *cutWriter) Write(b []byte) (int, error) {
	if w.cut {
		return 0, errTest
	}
	if bytes.Contains(b, []byte("data: {")) {
		w.events++
		if w.events > 1 {
			w.cut = true
			return 0, errTest
		}
	}
	return w.ResponseWriter.Write(b)
}

func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestClientResume(t *testing.T) {
	var mu sync.Mutex
	var cutAt, resumedAt time.Time
	var lastEventID string
	cutter := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.Header.Get("X-Cut") != "" {
				cw := &cutWriter{ResponseWriter: w}
				next.ServeHTTP(cw, r)
				if cw.cut {
					mu.Lock()
					cutAt = time.Now()
					mu.Unlock()
				}
				return
			}
			if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
				mu.Lock()
				resumedAt, lastEventID = time.Now(), r.Header.Get("Last-Event-ID")
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
	retry := 150 * time.Millisecond
	f := newFixture(t, Options{RetryInterval: retry}, cutter)
	cs, err := mcp.Connect(context.Background(), &ClientTransport{URL: f.url, HTTPClient: f.c, Header: http.Header{"X-Cut": {"1"}}}, mcp.ClientOptions{Era: mcp.Stateful}, clientMounts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var updates []float64
	var umu sync.Mutex
	ctx := mcp.WithProgress(context.Background(), func(u mcp.ProgressUpdate) {
		umu.Lock()
		updates = append(updates, u.Progress)
		umu.Unlock()
	})
	out, err := callText(ctx, cs, "progress", "")
	if err != nil || !strings.Contains(out, "done") {
		t.Fatalf("%v %s", err, out)
	}
	umu.Lock()
	defer umu.Unlock()
	if fmt.Sprint(updates) != "[1 2 3]" {
		t.Fatalf("progress %v: each event exactly once", updates)
	}
	mu.Lock()
	defer mu.Unlock()
	if lastEventID == "" || resumedAt.IsZero() {
		t.Fatal("no resumption")
	}
	if d := resumedAt.Sub(cutAt); d < retry-20*time.Millisecond {
		t.Fatalf("resumed %v after the cut, retry is %v", d, retry)
	}
}

func TestClientSessionExpired(t *testing.T) {
	f := newFixture(t, Options{})
	cs := f.connect(t, mcp.Stateful, 0)
	defer cs.Close()
	f.session(sessionOf(f)).close()
	err := cs.Call(context.Background(), "tools/list", nil, nil)
	if !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("%v", err)
	}
}

func TestClientBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x/mcp", "http://"} {
		if _, err := (&ClientTransport{URL: u}).Dial(context.Background(), nil); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}

// TestNoLeak runs many short-lived clients of both eras, then checks that
// no session and no goroutine is left; then sessions whose clients vanish
// without DELETE, which expire.
func TestNoLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// No session may expire while its client uses it, however loaded the
	// machine: expiry has its own fixture below.
	f := newFixture(t, Options{SessionIdleTimeout: time.Minute})
	// Warm up (the first tools/call learns the tool schemas), then count.
	cs := f.connect(t, mcp.Stateless, 0)
	_, _ = callText(context.Background(), cs, "echo", `{"text":"x"}`)
	cs.Close()
	f.tr.CloseIdleConnections()
	before := settledGoroutines(0)

	const clients, parallel = 1000, 25
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	sem := make(chan struct{}, parallel)
	for i := range clients {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			era := mcp.Stateful
			if i%2 == 1 {
				era = mcp.Stateless
			}
			cs, err := mcp.Connect(context.Background(), &ClientTransport{URL: f.url, HTTPClient: f.c}, mcp.ClientOptions{Era: era}, clientMounts...)
			if err != nil {
				errs <- err
				return
			}
			if _, err := callText(context.Background(), cs, "echo", `{"text":"x"}`); err != nil {
				errs <- err
			}
			if err := cs.Close(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := f.h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions left after DELETE", n)
	}
	f.tr.CloseIdleConnections()
	// Workers parked for the next requests (at most maxIdleWorkers) are
	// not leaks.
	parked := int(f.h.workers.n.Load())
	if after := settledGoroutines(before+parked) - parked; after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}

	// Clients that vanish: their sessions expire, their events go.
	// (f.open initializes only: a session may expire before a second
	// request on a loaded machine.)
	f = newFixture(t, Options{SessionIdleTimeout: 200 * time.Millisecond})
	f.open(nil)
	waitFor(t, func() bool { return f.h.SessionCount() == 0 })
	f.tr.CloseIdleConnections()
	before = settledGoroutines(0)
	for range 200 {
		f.open(nil)
	}
	waitFor(t, func() bool { return f.h.SessionCount() == 0 })
	// The events go just after the session leaves the table.
	waitFor(t, func() bool { return f.h.store.(*MemoryEventStore).sessionCount() == 0 })
	f.tr.CloseIdleConnections()
	// Workers parked for the next requests (at most maxIdleWorkers) are
	// not leaks.
	parked = int(f.h.workers.n.Load())
	if after := settledGoroutines(before+parked) - parked; after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after expiry:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// settledGoroutines waits (up to 5s) for the goroutine count to come down
// to want, and returns it.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(5 * time.Second)
	n := runtime.NumGoroutine()
	for (want == 0 || n > want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if want == 0 && m == n {
			return n
		}
		n = m
	}
	return n
}

// TestClientExcludesInvalidParamHeaderTools: on the stateless era a tool
// whose x-mcp-header annotations break the specification's constraints is
// left out of tools/list, with a warning naming it; the other tools and the
// other members of the result are kept. A stateful session, where the
// annotations mean nothing, sees the list as sent.
func TestClientExcludesInvalidParamHeaderTools(t *testing.T) {
	list := `{"tools":[
{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},
{"name":"float","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}},
{"name":"headers","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},
{"name":"dup","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}},
{"name":"items","inputSchema":{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}}
],"nextCursor":"c2"}`
	for _, tc := range []struct {
		name string
		era  mcp.Era
		want []string
	}{
		{"stateless", mcp.Stateless, []string{"echo", "headers"}},
		{"stateful", mcp.Stateful, []string{"echo", "float", "headers", "dup", "items"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.ts.mu.Lock()
			f.ts.toolList = list
			f.ts.mu.Unlock()
			var logs bytes.Buffer
			var logMu sync.Mutex
			tr := &ClientTransport{URL: f.url, HTTPClient: f.c, Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))}
			cs, err := mcp.Connect(context.Background(), tr, mcp.ClientOptions{Era: tc.era}, clientMounts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var res struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			}
			var raw wire.Raw
			if err := cs.Call(context.Background(), "tools/list", nil, &raw); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			var got []string
			for _, tl := range res.Tools {
				got = append(got, tl.Name)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || res.NextCursor != "c2" {
				t.Fatalf("tools %v cursor %q, want %v c2", got, res.NextCursor, tc.want)
			}
			logMu.Lock()
			out := logs.String()
			logMu.Unlock()
			for _, name := range []string{"float", "dup", "items"} {
				if has := strings.Contains(out, "tool="+name); has != (tc.era == mcp.Stateless) {
					t.Errorf("warning about %s: %v in %q", name, has, out)
				}
			}
			if tc.era == mcp.Stateless {
				// The valid annotated tool still mirrors its header.
				if out, err := callText(context.Background(), cs, "headers", `{"text":"ok","region":"eu"}`); err != nil || !strings.Contains(out, `"ok"`) {
					t.Fatalf("headers: %v %s", err, out)
				}
			}
		})
	}
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
