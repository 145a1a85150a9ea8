package streamhttp

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// bearerAuth accepts "Bearer <user>-<n>" for users that Auth names as the
// principal, and "Bearer anon-<n>" without naming one (the transport then
// derives it from the token).
func bearerAuth(r *http.Request) (context.Context, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return nil, &AuthError{}
	}
	user, _, _ := strings.Cut(tok, "-")
	if user == "anon" {
		return r.Context(), nil
	}
	return mcp.WithPrincipal(r.Context(), user), nil
}

func initBody() string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + revOld + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// open initializes a session with hdr and returns its id.
func (f *fixture) open(hdr map[string]string) string {
	f.t.Helper()
	resp := f.do(context.Background(), http.MethodPost, hdr, initBody())
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		f.t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	return resp.Header.Get("Mcp-Session-Id")
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestPrincipalBinding: a session is bound to the principal that opened
// it. Another principal's requests, streams and DELETE get 404, as if the
// session did not exist, and leave it alone; the same principal (a
// refreshed token naming the same user) goes on.
func TestPrincipalBinding(t *testing.T) {
	tests := []struct {
		name          string
		opener, other string // tokens
		httpMethod    string
		body          string
		want          int
	}{
		{"another user's tools/call", "alice-1", "bob-1", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, 404},
		{"another user's notification", "alice-1", "bob-1", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 404},
		{"another user's response", "alice-1", "bob-1", http.MethodPost, `{"jsonrpc":"2.0","id":1,"result":{}}`, 404},
		{"another user's GET stream", "alice-1", "bob-1", http.MethodGet, "", 404},
		{"another user's DELETE", "alice-1", "bob-1", http.MethodDelete, "", 404},
		{"another token, principal derived from it", "anon-1", "anon-2", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 404},
		{"a user's refreshed token", "alice-1", "alice-2", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200},
		{"the same derived token", "anon-1", "anon-1", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{Auth: bearerAuth})
			as := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
			sid := f.open(as(tt.opener))
			sess := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}
			hdr := merge(sess, as(tt.other))
			if tt.httpMethod == http.MethodGet {
				hdr["Accept"] = "text/event-stream"
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			resp := f.do(ctx, tt.httpMethod, hdr, tt.body)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, b)
			}
			if tt.want == 404 && !strings.Contains(string(b), "session not found") {
				t.Errorf("the 404 says more than an unknown session's: %s", b)
			}
			// The owner's session is untouched.
			resp = f.do(context.Background(), http.MethodPost, merge(sess, as(tt.opener)), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("the owner's next request: %d", resp.StatusCode)
			}
		})
	}
}

// serveAs serves a POST from a remote address of its own: the handler is
// called directly, which is what lets one test be thousands of clients.
func serveAs(h http.Handler, remote string, hdr map[string]string, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	r.RemoteAddr = remote
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func newLimitsHandler(t *testing.T, o Options) *Handler {
	t.Helper()
	h := NewHandler(mustServer(t), o)
	t.Cleanup(func() { h.Close() })
	return h
}

// TestSessionExhaustion: one client opens 10,000 sessions and never ends
// one; another client still gets in, at once, and so does the first
// client's next session.
func TestSessionExhaustion(t *testing.T) {
	h := newLimitsHandler(t, Options{})
	start := time.Now()
	refused := 0
	for range 10000 {
		if w := serveAs(h, "192.0.2.1:4000", nil, initBody()); w.Code != 200 {
			refused++
		}
	}
	took := time.Since(start)
	t.Logf("one client: 10000 initialize in %v, %d refused; %d sessions live", took.Round(time.Millisecond), refused, h.SessionCount())
	if refused != 0 || h.SessionCount() != defaultMaxSessionsPerClient {
		t.Errorf("%d refused and %d sessions, want 0 and %d (the client's oldest idle ones make room)", refused, h.SessionCount(), defaultMaxSessionsPerClient)
	}
	w := serveAs(h, "198.51.100.7:5000", nil, initBody())
	if w.Code != 200 {
		t.Fatalf("another client's initialize: %d %s", w.Code, w.Body)
	}
	sid := w.Header().Get("Mcp-Session-Id")
	w = serveAs(h, "198.51.100.7:5000", map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if w.Code != 200 {
		t.Fatalf("another client's tools/list: %d %s", w.Code, w.Body)
	}
}

// TestSessionLimits: per client, the least recently used idle session
// makes room (429 when all are busy); over all clients, only a session
// unused since its initialize or idle for EvictIdleAfter does (503 when
// none); unused sessions expire sooner.
func TestSessionLimits(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	use := func(h *Handler, remote, sid string) int {
		return serveAs(h, remote, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}, list).Code
	}
	open := func(h *Handler, remote string) (string, int) {
		w := serveAs(h, remote, nil, initBody())
		return w.Header().Get("Mcp-Session-Id"), w.Code
	}
	t.Run("per client: the least recently used idle session goes", func(t *testing.T) {
		h := newLimitsHandler(t, Options{MaxSessionsPerClient: 3})
		a, _ := open(h, "192.0.2.1:1")
		b, _ := open(h, "192.0.2.1:2")
		c, _ := open(h, "192.0.2.1:3")
		use(h, "192.0.2.1:1", a) // a is now the most recently used
		other, _ := open(h, "192.0.2.9:1")
		d, code := open(h, "192.0.2.1:4")
		if code != 200 {
			t.Fatalf("the fourth session: %d", code)
		}
		for sid, want := range map[string]int{a: 200, b: 404, c: 200, d: 200, other: 200} {
			remote := "192.0.2.1:1"
			if sid == other {
				remote = "192.0.2.9:1"
			}
			if got := use(h, remote, sid); got != want {
				t.Errorf("session %s: %d, want %d", sid[:6], got, want)
			}
		}
	})
	t.Run("per client: 429 when every session is busy", func(t *testing.T) {
		h := newLimitsHandler(t, Options{MaxSessionsPerClient: 1, KeepAlive: -1})
		hs := httptest.NewServer(h)
		defer hs.Close()
		sid := initOver(t, hs.URL)
		// A GET stream keeps the session in use.
		req, _ := http.NewRequest(http.MethodGet, hs.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", revOld)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		waitFor(t, func() bool { return h.busyStreams() == 1 })
		r, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(initBody()))
		r.Header.Set("Content-Type", "application/json")
		r2, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r2.Body)
		r2.Body.Close()
		if r2.StatusCode != 429 || !strings.Contains(string(b), "too many sessions for this client") {
			t.Fatalf("%d %s", r2.StatusCode, b)
		}
	})
	t.Run("global: unused sessions make room, used ones only once idle long enough", func(t *testing.T) {
		// EvictIdleAfter is long enough for the steps between a use and
		// the 503 that depends on it on a loaded machine.
		h := newLimitsHandler(t, Options{MaxSessions: 2, EvictIdleAfter: time.Second})
		used, _ := open(h, "192.0.2.1:1")
		use(h, "192.0.2.1:1", used)
		unused, _ := open(h, "192.0.2.2:1")
		third, code := open(h, "192.0.2.3:1")
		if code != 200 {
			t.Fatalf("at the cap with an unused session: %d", code)
		}
		if use(h, "192.0.2.2:1", unused) != 404 || use(h, "192.0.2.1:1", used) != 200 || use(h, "192.0.2.3:1", third) != 200 {
			t.Fatal("the unused session should have made room, not the used one")
		}
		if _, code := open(h, "192.0.2.4:1"); code != 503 {
			t.Fatalf("at the cap with sessions used just now: %d, want 503", code)
		}
		time.Sleep(1100 * time.Millisecond)
		if _, code := open(h, "192.0.2.4:1"); code != 200 {
			t.Fatalf("at the cap with a session idle for EvictIdleAfter: %d", code)
		}
	})
	t.Run("unused sessions expire sooner", func(t *testing.T) {
		// Long enough for the used session to be used before it would
		// expire unused, on a loaded machine too.
		h := newLimitsHandler(t, Options{SessionIdleTimeout: time.Hour, UnusedSessionTimeout: time.Second})
		used, _ := open(h, "192.0.2.1:1")
		use(h, "192.0.2.1:1", used)
		unused, _ := open(h, "192.0.2.1:2")
		waitFor(t, func() bool { return h.SessionCount() == 1 })
		if use(h, "192.0.2.1:1", used) != 200 || use(h, "192.0.2.1:2", unused) != 404 {
			t.Fatal("the unused session should have expired, not the used one")
		}
	})
	t.Run("ClientKey and principals name the client", func(t *testing.T) {
		h := newLimitsHandler(t, Options{MaxSessionsPerClient: 1, Auth: bearerAuth})
		alice := serveAs(h, "192.0.2.1:1", map[string]string{"Authorization": "Bearer alice-1"}, initBody()).Header().Get("Mcp-Session-Id")
		// Same address, another principal: a client of its own.
		w := serveAs(h, "192.0.2.1:1", map[string]string{"Authorization": "Bearer bob-1"}, initBody())
		if w.Code != 200 {
			t.Fatal(w.Code)
		}
		if serveAs(h, "192.0.2.1:1", map[string]string{"Authorization": "Bearer alice-2", "Mcp-Session-Id": alice, "MCP-Protocol-Version": revOld}, list).Code != 200 {
			t.Error("bob's session took alice's place")
		}
	})
}

// initOver initializes a session over a real connection.
func initOver(t *testing.T, url string) string {
	t.Helper()
	r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody()))
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	return resp.Header.Get("Mcp-Session-Id")
}

// busyStreams counts the sessions with an HTTP request in progress.
func (h *Handler) busyStreams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.sessions {
		s.mu.Lock()
		if s.active > 0 {
			n++
		}
		s.mu.Unlock()
	}
	return n
}

// TestResourceMetadataChecks: the RFC 9728 document gets the endpoint's
// Host and Origin checks, and its resource is the configured one or is
// derived only from a Host the allow-list names.
func TestResourceMetadataChecks(t *testing.T) {
	prm := &ProtectedResourceMetadata{AuthorizationServers: []string{"https://as.example.com"}}
	tests := []struct {
		name         string
		o            Options
		host, origin string
		status       int
		resource     string
		acao         string
	}{
		{name: "a foreign Host", o: Options{ResourceMetadata: prm}, host: "evil.com", status: 403},
		{name: "a foreign Origin", o: Options{ResourceMetadata: prm}, host: "127.0.0.1:9", origin: "https://evil.com", status: 403},
		{name: "a loopback Host", o: Options{ResourceMetadata: prm}, host: "127.0.0.1:9", status: 200, resource: "http://127.0.0.1:9/mcp"},
		{name: "a named Host, a listed Origin", o: Options{ResourceMetadata: prm, AllowedHosts: []string{"mcp.example.com"}, AllowedOrigins: []string{"https://app.example.com"}}, host: "mcp.example.com", origin: "https://app.example.com", status: 200, resource: "http://mcp.example.com/mcp", acao: "https://app.example.com"},
		{name: "any Host, no Resource: nothing to derive from", o: Options{ResourceMetadata: prm, AllowedHosts: []string{"*"}}, host: "evil.com", status: 404},
		{name: "any Host, a configured Resource", o: Options{ResourceMetadata: &ProtectedResourceMetadata{Resource: "https://mcp.example.com/mcp"}, AllowedHosts: []string{"*"}, AllowedOrigins: []string{"*"}}, host: "evil.com", status: 200, resource: "https://mcp.example.com/mcp", acao: "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newLimitsHandler(t, tt.o)
			r := httptest.NewRequest(http.MethodGet, "http://x"+ResourceMetadataPath("/mcp"), nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.status != 200 {
				if strings.Contains(w.Body.String(), "evil") && tt.status == 404 {
					t.Errorf("the body names the foreign host: %s", w.Body)
				}
				return
			}
			var md ProtectedResourceMetadata
			if err := json.Unmarshal(w.Body.Bytes(), &md); err != nil || md.Resource != tt.resource {
				t.Errorf("resource %q (%v), want %q", md.Resource, err, tt.resource)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != tt.acao {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tt.acao)
			}
		})
	}
	// A challenge never points at metadata derived from a Host nobody vetted.
	h := newLimitsHandler(t, Options{ResourceMetadata: prm, AllowedHosts: []string{"*"}, Auth: bearerAuth})
	w := serveAs(h, "192.0.2.1:1", map[string]string{"Host": "evil.com"}, initBody())
	if w.Code != 401 || strings.Contains(w.Header().Get("WWW-Authenticate"), "evil.com") {
		t.Errorf("challenge %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
}

// TestDrain: when Serve's context ends, requests in progress, stateless
// and stateful, finish and are answered; new requests get 503; past
// DrainTimeout what is left is answered -32603; then Serve returns.
func TestDrain(t *testing.T) {
	tests := []struct {
		name     string
		timeout  time.Duration
		release  bool // the gates open during the drain
		wantText string
		wantCode int64
	}{
		{"requests finish within the drain", 5 * time.Second, true, "opened", 0},
		{"requests outlast the drain", 100 * time.Millisecond, false, "", -32603},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer()
			srv, err := mcp.NewServer(mcp.ServerOptions{Name: "test", Version: "1"}, mcp.Mount{Protocol: protoOld, Handler: ts}, mcp.Mount{Protocol: protoNew, Handler: ts})
			if err != nil {
				t.Fatal(err)
			}
			ts.srv = srv
			h := NewHandler(srv, Options{DrainTimeout: tt.timeout, KeepAlive: -1})
			// A stateful answer waits between its handler and its stream
			// long enough for the drain to look twice: the drain must wait
			// for it (busy), not close the session under it.
			h.answering = func() { time.Sleep(3 * drainPoll) }
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			url := "http://" + ln.Addr().String()
			ctx, stop := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- Serve(ctx, ln, h) }()
			client := &http.Client{Transport: &http.Transport{}}
			post := func(hdr map[string]string, body string) (int, string) {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				resp, err := client.Do(req)
				if err != nil {
					return 0, err.Error()
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp.StatusCode, string(b)
			}
			// A session and two requests in progress: one stateful, one
			// stateless.
			_, _ = post(nil, initBody())
			sidResp := func() string {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody()))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.Header.Get("Mcp-Session-Id")
			}()
			sess := map[string]string{"Mcp-Session-Id": sidResp, "MCP-Protocol-Version": revOld}
			type answer struct {
				status int
				body   string
			}
			answers := make(chan answer, 2)
			var wg sync.WaitGroup
			wg.Go(func() {
				st, b := post(sess, `{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"gate","arguments":{"key":"s"}}}`)
				answers <- answer{st, b}
			})
			wg.Go(func() {
				st, b := post(statelessHeaders("tools/call", "gate"), `{"jsonrpc":"2.0","id":"l","method":"tools/call","params":{"name":"gate","arguments":{"key":"l"},`+meta("")+`}}`)
				answers <- answer{st, b}
			})
			<-ts.started
			<-ts.started
			stop()
			waitFor(t, h.draining)
			if tt.release {
				// The drain lasts until the gates open: a new request
				// surely comes during it (a 100 ms drain may be over
				// before it arrives on a loaded machine).
				st, b := post(statelessHeaders("tools/list", ""), `{"jsonrpc":"2.0","id":"new","method":"tools/list","params":{`+meta("")+`}}`)
				if st != 503 || !strings.Contains(b, "shutting down") {
					t.Errorf("a request during the drain: %d %s", st, b)
				}
				close(ts.gate("s"))
				close(ts.gate("l"))
			}
			wg.Wait()
			close(answers)
			for a := range answers {
				var m rpc
				_ = json.Unmarshal([]byte(a.body), &m)
				switch {
				case tt.wantCode == 0 && (m.Error != nil || !strings.Contains(string(m.Result), tt.wantText)):
					t.Errorf("in-flight request: %d %s", a.status, a.body)
				case tt.wantCode != 0 && (m.Error == nil || m.Error.Code != tt.wantCode):
					t.Errorf("in-flight request past the drain: %d %s", a.status, a.body)
				}
			}
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return")
			}
		})
	}
}

// TestDrainEndsStreams: a drain ends listen streams with their result and
// GET streams with a retry hint (2025-11-25 on).
func TestDrainEndsStreams(t *testing.T) {
	f := newFixture(t, Options{KeepAlive: -1, RetryInterval: 1500 * time.Millisecond})
	sid := f.initSession()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	get := f.do(ctx, http.MethodGet, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld, "Accept": "text/event-stream"}, "")
	defer get.Body.Close()
	listen := f.do(ctx, http.MethodPost, statelessHeaders("subscriptions/listen", ""), `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+meta("")+`}}`)
	defer listen.Body.Close()
	lr := newSSEReader(listen.Body, 1<<20)
	if _, err := lr.next(); err != nil { // the acknowledgement
		t.Fatal(err)
	}
	waitFor(t, func() bool { return f.h.busyStreams() == 1 })
	done := make(chan error, 1)
	go func() { done <- f.h.Shutdown(ctx) }()
	var last sseEvent
	for _, ev := range readEvents(t, get, -1) {
		last = ev
	}
	if last.retry != 1500*time.Millisecond {
		t.Errorf("the GET stream's last event: %+v, want retry 1.5s", last)
	}
	var end rpc
	for {
		ev, err := lr.next()
		if err != nil {
			break
		}
		end = decodeRPC(t, ev.data)
	}
	if string(end.ID) != `"L"` || !strings.Contains(string(end.Result), `"resultType":"complete"`) {
		t.Errorf("the listen stream ended with %+v", end)
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if n := f.h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after Shutdown", n)
	}
}

// TestCloseCancelsStateless: Close cancels a stateless request in
// progress (its handler's context ends) and refuses the ones after it.
func TestCloseCancelsStateless(t *testing.T) {
	ts := newTestServer()
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "test", Version: "1"}, mcp.Mount{Protocol: protoNew, Handler: ts})
	if err != nil {
		t.Fatal(err)
	}
	ts.srv = srv
	h := NewHandler(srv, Options{KeepAlive: -1})
	hs := httptest.NewServer(h)
	defer hs.Close()
	post := func(method, tool, body string) (int, error) {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range statelessHeaders(method, tool) {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = post("tools/call", "block", `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block","arguments":{"key":"b"},`+meta("")+`}}`)
	}()
	<-ts.started
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if k := <-ts.cancelled; k != "b" {
		t.Fatalf("cancelled %q", k)
	}
	<-done
	if st, err := post("tools/list", "", `{"jsonrpc":"2.0","id":"n","method":"tools/list","params":{`+meta("")+`}}`); err != nil || st != http.StatusServiceUnavailable {
		t.Errorf("after Close: %d %v", st, err)
	}
}
