package gateway_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/gateway"
	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// pidBackend is bin/everything serving revision rev, started through sh,
// which first appends its process id to file: the test knows each
// backend process the gateway starts.
func pidBackend(t *testing.T, rev, file string) *stdio.CommandTransport {
	return &stdio.CommandTransport{Path: "/bin/sh", Args: []string{"-c", `echo $$ >> "$0"; exec "$1" --revisions "$2"`, file, everything(t), rev},
		Stderr: os.Stderr, ShutdownTimeout: 5 * time.Second}
}

// pids are the backend processes started so far.
func pids(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, n)
	}
	return out
}

// notes collects a front session's notifications by method.
type notes struct {
	mu  sync.Mutex
	got map[string][]string
	ch  chan struct{}
}

func watch(cs *rt.ClientSession) *notes {
	n := &notes{got: map[string][]string{}, ch: make(chan struct{}, 64)}
	cs.Watch(func(method string, params wire.Raw) {
		n.mu.Lock()
		n.got[method] = append(n.got[method], string(params))
		n.mu.Unlock()
		select {
		case n.ch <- struct{}{}:
		default:
		}
	})
	return n
}

// has reports a notification of method whose params hold want.
func (n *notes) has(method, want string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range n.got[method] {
		if strings.Contains(p, want) {
			return true
		}
	}
	return false
}

// await waits (until ctx ends) for a notification of method whose params
// hold want.
func (n *notes) await(ctx context.Context, t *testing.T, method, want string) {
	t.Helper()
	for {
		n.mu.Lock()
		for _, p := range n.got[method] {
			if strings.Contains(p, want) {
				n.mu.Unlock()
				return
			}
		}
		n.mu.Unlock()
		select {
		case <-n.ch:
		case <-ctx.Done():
			n.mu.Lock()
			defer n.mu.Unlock()
			t.Fatalf("no %s holding %q; got %v", method, want, n.got)
		}
	}
}

// TestBackendRestart: a backend process that dies (kill -9) in the
// middle of a call: the call fails at once with an error that says so
// (not a hang), the front sessions are told (a log message, then the
// lists changed), the gateway starts the backend again, and the next
// call is served by the new process — for a stateful and a stateless
// backend, and a front client of each era.
func TestBackendRestart(t *testing.T) {
	for _, backendRev := range []string{"2025-11-25", "2026-07-28"} {
		for _, frontRev := range []string{"2025-11-25", "2026-07-28"} {
			t.Run("backend="+backendRev+"/front="+frontRev, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				file := filepath.Join(t.TempDir(), "pids")
				g, err := gateway.New(ctx, gateway.Options{Backend: pidBackend(t, backendRev, file), Logger: testLogger(t)})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { g.Close() })
				// A stateful session hears the gateway's notifications;
				// the calls are the front revision's.
				listener := connect(t, g, "stdio", "2025-11-25", &clientHandler{})
				n := watch(listener)
				// It is subscribed to a resource of the backend's.
				acked := make(chan struct{})
				go func() {
					params := &v26.SubscriptionsListenRequestParams{Notifications: &v26.SubscriptionFilter{ResourceSubscriptions: []string{"test://watched-resource"}}}
					for ev, err := range listen.Stream(ctx, listener, params) {
						if err != nil {
							return
						}
						if ev.Method == listen.MethodAcknowledged {
							close(acked)
						}
					}
				}()
				select {
				case <-acked:
				case <-ctx.Done():
					t.Fatal("the subscription was not acknowledged")
				}
				c := v26.NewClient(connect(t, g, "stdio", frontRev, &clientHandler{}))

				started := make(chan struct{})
				var once sync.Once
				pctx := rt.WithProgress(ctx, func(rt.ProgressUpdate) { once.Do(func() { close(started) }) })
				failed := make(chan error, 1)
				go func() {
					_, err := c.CallTool(pctx, &v26.CallToolRequestParams{Name: "slow", Arguments: v26.CallToolRequestParamsArguments(`{"seconds":600}`)})
					failed <- err
				}()
				select {
				case <-started: // the backend runs the call
				case <-ctx.Done():
					t.Fatal("the slow call never started")
				}
				// The processes serving the calls so far: the first, and
				// one for the front revision if the backend speaks it
				// and it is not the first's.
				before := pids(t, file)
				for _, pid := range before {
					if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
						t.Fatalf("kill %d: %v", pid, err)
					}
				}
				var je *jsonrpc.Error
				if err := <-failed; !errors.As(err, &je) || !strings.Contains(je.Message, "the backend ended during the request") {
					t.Fatalf("the call in progress when the backend died: %v; want an error saying it ended", err)
				}
				n.await(ctx, t, "notifications/message", "the backend died")
				n.await(ctx, t, "notifications/tools/list_changed", "")
				// The next call goes to a new process.
				var r *v26.CallToolResult
				for {
					r, err = c.CallTool(ctx, &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"after the restart"}`)})
					if err == nil || ctx.Err() != nil {
						break
					}
					time.Sleep(50 * time.Millisecond) // while the backend restarts
				}
				if err != nil || !strings.Contains(text(r), "after the restart") {
					t.Fatalf("echo after the restart: %s %v", text(r), err)
				}
				if after := pids(t, file); len(after) <= len(before) {
					t.Errorf("backend processes %v after the restart, %v before: no new one", after, before)
				}
				if g.Backend() == nil {
					t.Error("Backend() is nil after the restart")
				}
				// The subscription was made again on the new process: a
				// change there reaches the front session (touched until
				// the gateway has subscribed again).
				for !n.has("notifications/resources/updated", "test://watched-resource") {
					if _, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "touch_resource", Arguments: v26.CallToolRequestParamsArguments(`{"uri":"test://watched-resource"}`)}); err != nil {
						t.Fatalf("touch_resource: %v", err)
					}
					select {
					case <-n.ch:
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
						t.Fatal("no update of the resource subscribed to before the restart")
					}
				}
			})
		}
	}
}

// TestBackendPerPrincipal: with Sharing PerPrincipal, each principal's
// requests go to a backend process of its own, started on its first
// request and kept for its next; the shared one serves requests without
// a principal. MaxBackends bounds them, with an error naming the bound.
func TestBackendPerPrincipal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "pids")
	g, err := gateway.New(ctx, gateway.Options{Backend: pidBackend(t, "2026-07-28", file), Logger: testLogger(t), Sharing: gateway.PerPrincipal, MaxBackends: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	sh := streamhttp.NewHandler(g.Server(), streamhttp.Options{Auth: func(r *http.Request) (context.Context, error) {
		return rt.WithPrincipal(r.Context(), r.Header.Get("X-User")), nil
	}})
	srv := httptest.NewServer(sh)
	t.Cleanup(func() { srv.Close(); sh.Close() })
	as := func(user string) *v26.Client {
		cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: srv.URL, Header: http.Header{"X-User": {user}}},
			rt.ClientOptions{Name: "gateway-test", Version: "1", Era: rt.Stateless, ProtocolVersion: "2026-07-28"}, v26.Mount(&clientHandler{}))
		if err != nil {
			t.Fatalf("connect as %q: %v", user, err)
		}
		t.Cleanup(func() { cs.Close() })
		return v26.NewClient(cs)
	}
	echo := func(c *v26.Client) error {
		r, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"mine"}`)})
		if err == nil && !strings.Contains(text(r), "mine") {
			t.Errorf("echo: %s", text(r))
		}
		return err
	}
	if got := len(pids(t, file)); got != 1 {
		t.Fatalf("%d backend processes after New, want 1 (the shared one)", got)
	}
	alice, bob, carol := as("alice"), as("bob"), as("carol")
	for i, step := range []struct {
		c     *v26.Client
		procs int
	}{{alice, 2}, {alice, 2}, {bob, 3}, {as(""), 3}, {bob, 3}} {
		if err := echo(step.c); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := len(pids(t, file)); got != step.procs {
			t.Errorf("step %d: %d backend processes, want %d", i, got, step.procs)
		}
	}
	var je *jsonrpc.Error
	if err := echo(carol); !errors.As(err, &je) || !strings.Contains(je.Message, "3 backends (its bound") {
		t.Errorf("a third principal beyond MaxBackends 3: %v; want the bound named", err)
	}
}

// TestBackendPerSession: with Sharing PerSession, each stateful front
// session has a backend process of its own; a principal's sessions hold
// a quarter of MaxBackends at most.
func TestBackendPerSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "pids")
	g, err := gateway.New(ctx, gateway.Options{Backend: pidBackend(t, "2025-11-25", file), Logger: testLogger(t), Sharing: gateway.PerSession, MaxBackends: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	echo := func(c *v26.Client) error {
		_, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"mine"}`)})
		return err
	}
	var sessions []*v26.Client
	var first *rt.ClientSession
	for i := range 3 {
		cs := connect(t, g, "stdio", "2025-11-25", &clientHandler{})
		if i == 0 {
			first = cs
		}
		sessions = append(sessions, v26.NewClient(cs))
	}
	for i, want := range []int{2, 3} {
		if err := echo(sessions[i]); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		if err := echo(sessions[i]); err != nil {
			t.Fatalf("session %d again: %v", i, err)
		}
		if got := len(pids(t, file)); got != want {
			t.Errorf("after session %d: %d backend processes, want %d", i, got, want)
		}
	}
	var je *jsonrpc.Error
	if err := echo(sessions[2]); !errors.As(err, &je) || !strings.Contains(je.Message, "2 backends for this principal's sessions") {
		t.Errorf("a third session of the same principal (MaxBackends 8): %v; want the per-principal bound named", err)
	}
	// A session that ends lets its backend go: the third session gets
	// one once the server has seen the first end.
	first.Close()
	for {
		err := echo(sessions[2])
		if err == nil {
			break
		}
		if !errors.As(err, &je) || !strings.Contains(je.Message, "for this principal's sessions") || ctx.Err() != nil {
			t.Fatalf("the third session after the first ended: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // until the server sees the first session end
	}
	if got := len(pids(t, file)); got != 4 {
		t.Errorf("%d backend processes after the third session's call, want 4", got)
	}
}

// TestPerSessionNotices: with a backend per session, what a session's
// backend says — here, that it died — reaches that session alone, even
// for sessions of one principal.
func TestPerSessionNotices(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "pids")
	g, err := gateway.New(ctx, gateway.Options{Backend: pidBackend(t, "2025-11-25", file), Logger: testLogger(t), Sharing: gateway.PerSession})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	var sessions []*rt.ClientSession
	var heard []*notes
	for i := range 2 {
		cs := connect(t, g, "stdio", "2025-11-25", &clientHandler{})
		sessions, heard = append(sessions, cs), append(heard, watch(cs))
		if _, err := v26.NewClient(cs).CallTool(ctx, &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"x"}`)}); err != nil {
			t.Fatal(err)
		}
		if got := len(pids(t, file)); got != i+2 {
			t.Fatalf("%d backend processes after session %d's call, want %d", got, i, i+2)
		}
	}
	procs := pids(t, file) // the shared one, then session 0's, then session 1's
	for i := range 2 {
		if err := syscall.Kill(procs[i+1], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		heard[i].await(ctx, t, "notifications/message", "the backend died")
	}
	for i, n := range heard {
		n.mu.Lock()
		died := 0
		for _, p := range n.got["notifications/message"] {
			if strings.Contains(p, "the backend died") {
				died++
			}
		}
		n.mu.Unlock()
		if died != 1 {
			t.Errorf("session %d heard %d deaths, want its own backend's alone", i, died)
		}
	}
}

// TestUnsubscribeOnlyOwn: a session's resources/unsubscribe from a URI it
// never subscribed to does not end another session's subscription to it
// on the shared backend.
func TestUnsubscribeOnlyOwn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g := start(t, "2025-11-25")
	a, b := connect(t, g, "stdio", "2025-11-25", &clientHandler{}), connect(t, g, "stdio", "2025-11-25", &clientHandler{})
	heard := watch(a)
	uri := wire.Raw(`{"uri":"test://watched-resource"}`)
	if err := a.Call(ctx, "resources/subscribe", uri, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Call(ctx, "resources/unsubscribe", uri, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Call(ctx, "tools/call", wire.Raw(`{"name":"touch_resource","arguments":{"uri":"test://watched-resource"}}`), nil); err != nil {
		t.Fatal(err)
	}
	heard.await(ctx, t, "notifications/resources/updated", "test://watched-resource")
}
