package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ssePeer is a raw client of the HTTP+SSE endpoint: its stream, and
// the URL its endpoint event named.
type ssePeer struct {
	t        *testing.T
	base     string
	endpoint string
	events   chan sseEvent
	resp     *http.Response
}

// openSSEPeer GETs the stream at base+"/sse" with hdr.
func openSSEPeer(t *testing.T, base string, hdr map[string]string) (*ssePeer, int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, resp.StatusCode
	}
	p := &ssePeer{t: t, base: base, events: make(chan sseEvent, 64), resp: resp}
	rd := newSSEReader(resp.Body, 1<<20)
	first, err := rd.next()
	if err != nil || first.event != "endpoint" {
		t.Fatalf("first event %+v, %v; want endpoint", first, err)
	}
	p.endpoint = string(first.data)
	go func() {
		defer close(p.events)
		for {
			ev, err := rd.next()
			if err != nil {
				return
			}
			p.events <- ev
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return p, http.StatusOK
}

// post POSTs body to the endpoint (or to path, when given) with hdr.
func (p *ssePeer) post(path, body string, hdr map[string]string) (int, string) {
	p.t.Helper()
	if path == "" {
		path = p.endpoint
	}
	req, _ := http.NewRequest(http.MethodPost, p.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// next is the next message event of the stream.
func (p *ssePeer) next() rpc {
	p.t.Helper()
	select {
	case ev, ok := <-p.events:
		if !ok {
			p.t.Fatal("the stream ended")
		}
		if ev.event != "message" {
			p.t.Fatalf("event %q, want message", ev.event)
		}
		return decodeRPC(p.t, ev.data)
	case <-time.After(5 * time.Second):
		p.t.Fatal("no event within 5s")
	}
	return rpc{}
}

const sseInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + revOld + `","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`

// sseFixture serves the fixture's server at /mcp and /sse, with
// bearer tokens as principals ("Bearer alice" is alice).
func sseFixture(t *testing.T, o Options) (*Handler, string) {
	h, base, _ := sseFixtureServer(t, o)
	return h, base
}

// sseFixtureServer is sseFixture with the test server behind it.
func sseFixtureServer(t *testing.T, o Options) (*Handler, string, *testServer) {
	t.Helper()
	f := newFixture(t, Options{})
	o.Auth = func(r *http.Request) (context.Context, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return nil, &AuthError{Status: http.StatusUnauthorized, Description: "a bearer token, please"}
		}
		return mcp.WithPrincipal(r.Context(), tok), nil
	}
	h := NewHandler(f.srv, o)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h.SSE())
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		hs.CloseClientConnections()
		hs.Close()
	})
	return h, hs.URL, f.ts
}

// TestSSE: the HTTP+SSE transport end to end — the endpoint event,
// initialize and a call answered on the stream, a server request whose
// answer the client POSTs back — and what it refuses: another principal's
// session and an unknown one (404), malformed JSON (400, and -32700 on
// the stream), a batch, a Streamable HTTP request naming a HTTP+SSE session,
// a bad Origin, no token, and a POST once the stream is gone.
func TestSSE(t *testing.T) {
	h, base := sseFixture(t, Options{MaxBodyBytes: 4096})
	alice := map[string]string{"Authorization": "Bearer alice"}
	bob := map[string]string{"Authorization": "Bearer bob"}
	p, _ := openSSEPeer(t, base, alice)
	if !strings.HasPrefix(p.endpoint, "/sse?sessionId=") {
		t.Fatalf("endpoint %q", p.endpoint)
	}
	if st, body := p.post("", sseInit, alice); st != http.StatusAccepted {
		t.Fatalf("initialize: %d %s", st, body)
	}
	if m := p.next(); string(m.ID) != "1" || !strings.Contains(string(m.Result), revOld) {
		t.Fatalf("initialize answered %+v", m)
	}
	p.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, alice)
	if st, _ := p.post("", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, alice); st != http.StatusAccepted {
		t.Fatalf("tools/call: %d", st)
	}
	if m := p.next(); string(m.ID) != "2" || !strings.Contains(string(m.Result), "hi") {
		t.Fatalf("tools/call answered %+v", m)
	}
	// A handler's request to the client goes on the stream; the answer
	// comes back by POST.
	p.post("", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","arguments":{}}}`, alice)
	req := p.next()
	if req.Method != "sampling/createMessage" {
		t.Fatalf("want sampling/createMessage, got %+v", req)
	}
	if st, _ := p.post("", `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"sampled"}}}`, alice); st != http.StatusAccepted {
		t.Fatalf("posting the answer: %d", st)
	}
	if m := p.next(); string(m.ID) != "3" || !strings.Contains(string(m.Result), "sampled") {
		t.Fatalf("sample answered %+v", m)
	}

	sid := strings.TrimPrefix(p.endpoint, "/sse?sessionId=")
	for _, c := range []struct {
		name, path, body string
		hdr              map[string]string
		status           int
		code             int64
	}{
		{"another principal's session", "", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, bob, http.StatusNotFound, jsonrpc.CodeInvalidRequest},
		{"an unknown session", "/sse?sessionId=nope", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, alice, http.StatusNotFound, jsonrpc.CodeInvalidRequest},
		{"no session", "/sse", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, alice, http.StatusBadRequest, jsonrpc.CodeInvalidRequest},
		{"malformed JSON", "", `{"jsonrpc":`, alice, http.StatusBadRequest, jsonrpc.CodeParseError},
		{"a batch", "", `[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, alice, http.StatusBadRequest, jsonrpc.CodeInvalidRequest},
		{"too large", "", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 5000) + `"}}}`, alice, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest},
		{"a bad Origin", "", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, map[string]string{"Authorization": "Bearer alice", "Origin": "http://evil.example"}, http.StatusForbidden, jsonrpc.CodeInvalidRequest},
		{"no token", "", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, nil, http.StatusUnauthorized, 0},
	} {
		st, body := p.post(c.path, c.body, c.hdr)
		if st != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, st, body, c.status)
			continue
		}
		if c.code != 0 {
			if m := decodeRPC(t, []byte(body)); m.Error == nil || m.Error.Code != c.code {
				t.Errorf("%s: %s, want error %d", c.name, body, c.code)
			}
		}
	}
	// The malformed JSON was answered on the stream too.
	if m := p.next(); m.Error == nil || m.Error.Code != jsonrpc.CodeParseError {
		t.Errorf("the stream got %+v, want -32700", m)
	}
	// Streamable HTTP does not serve a HTTP+SSE session.
	req2, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	req2.Header.Set("Content-Type", "application/json")
	req2.Header.Set("Accept", "application/json, text/event-stream")
	req2.Header.Set("Authorization", "Bearer alice")
	req2.Header.Set("Mcp-Session-Id", sid)
	req2.Header.Set("MCP-Protocol-Version", revOld)
	if resp, err := http.DefaultClient.Do(req2); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("Streamable HTTP with a HTTP+SSE session id: %v %v", resp.StatusCode, err)
	}
	// The session ends with its stream: a POST after is 404, not a hang.
	p.resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for h.SessionCount() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st, body := p.post("", `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`, alice); st != http.StatusNotFound {
		t.Errorf("a POST after the stream ended: %d %s", st, body)
	}
}

// TestSSEClient: streamhttp's client on the HTTP+SSE transport,
// forced (SSEOnly) and by fallback (a server that refuses initialize
// POSTed to the SSE URL), and refusing it when told (SSENever).
func TestSSEClient(t *testing.T) {
	_, base := sseFixture(t, Options{})
	hdr := http.Header{"Authorization": {"Bearer alice"}}
	for _, c := range []struct {
		name string
		mode SSEMode
		era  mcp.Era
		fail bool
	}{
		{"forced", SSEOnly, mcp.Stateful, false},
		{"fallback", SSEFallback, mcp.Auto, false},
		{"never", SSENever, mcp.Stateful, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := mcp.Connect(ctx, &ClientTransport{URL: base + "/sse", Header: hdr, SSE: c.mode}, mcp.ClientOptions{Era: c.era},
				mcp.Mount{Protocol: protoOld, Handler: clientHandler{}})
			if c.fail {
				if err == nil {
					cs.Close()
					t.Fatal("connected without the HTTP+SSE transport")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var res wire.Raw
			if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"echo","arguments":{"text":"over sse"}}`), &res); err != nil || !strings.Contains(string(res), "over sse") {
				t.Fatalf("echo: %s %v", res, err)
			}
			// A server request (sampling) answered by the client handler.
			res = nil
			if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"sample","arguments":{}}`), &res); err != nil {
				t.Fatalf("sample: %v", err)
			}
			var he *HTTPError
			if errors.As(err, &he) {
				t.Fatal(he)
			}
		})
	}
}

// TestSSEDrain: a shutdown drains an HTTP+SSE session's request in
// progress — its answer is the stream's last event — refuses new streams
// meanwhile, and then ends the stream and the session.
func TestSSEDrain(t *testing.T) {
	h, base, ts := sseFixtureServer(t, Options{})
	alice := map[string]string{"Authorization": "Bearer alice"}
	p, _ := openSSEPeer(t, base, alice)
	p.post("", sseInit, alice)
	p.next()
	p.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, alice)
	p.post("", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gate","arguments":{"key":"drain"},"_meta":{"progressToken":"t"}}}`, alice)
	<-ts.started
	if m := p.next(); m.Method != "notifications/progress" {
		t.Fatalf("want progress, got %+v", m)
	}
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- h.Shutdown(ctx)
	}()
	for !h.draining() {
		time.Sleep(time.Millisecond)
	}
	if _, st := openSSEPeer(t, base, alice); st != http.StatusServiceUnavailable {
		t.Errorf("a new stream while draining: %d, want 503", st)
	}
	close(ts.gate("drain"))
	var last rpc
	for m := range p.events {
		last = decodeRPC(t, m.data)
	}
	if string(last.ID) != "2" || !strings.Contains(string(last.Result), "opened drain") {
		t.Errorf("the stream's last event: %+v, want the drained request's answer", last)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after shutdown", n)
	}
}

// TestSSELimits: a client's HTTP+SSE sessions count toward its
// session limit, and an open stream keeps its session from being evicted:
// the next stream over the limit is refused (429).
func TestSSELimits(t *testing.T) {
	_, base := sseFixture(t, Options{MaxSessionsPerClient: 1})
	alice := map[string]string{"Authorization": "Bearer alice"}
	if _, st := openSSEPeer(t, base, alice); st != http.StatusOK {
		t.Fatalf("first stream: %d", st)
	}
	if _, st := openSSEPeer(t, base, alice); st != http.StatusTooManyRequests {
		t.Errorf("a second stream over the limit: %d, want 429", st)
	}
	if _, st := openSSEPeer(t, base, map[string]string{"Authorization": "Bearer bob"}); st != http.StatusOK {
		t.Errorf("another client's stream: %d", st)
	}
}

// TestNotifyListChangedTo: a list change announced to one principal
// reaches their session's stream only.
func TestNotifyListChangedTo(t *testing.T) {
	h, base := sseFixture(t, Options{})
	peers := map[string]*ssePeer{}
	for _, who := range []string{"alice", "bob"} {
		auth := map[string]string{"Authorization": "Bearer " + who}
		p, _ := openSSEPeer(t, base, auth)
		p.post("", sseInit, auth)
		p.next()
		p.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, auth)
		peers[who] = p
	}
	h.Server().NotifyListChangedTo(context.Background(), mcp.ToolsList, "alice")
	if m := peers["alice"].next(); m.Method != "notifications/tools/list_changed" {
		t.Errorf("alice got %+v", m)
	}
	select {
	case ev := <-peers["bob"].events:
		t.Errorf("bob got %s", ev.data)
	case <-time.After(200 * time.Millisecond):
	}
	// And to everyone, both.
	h.Server().NotifyListChanged(context.Background(), mcp.ToolsList)
	for who, p := range peers {
		if m := p.next(); m.Method != "notifications/tools/list_changed" {
			t.Errorf("%s got %+v", who, m)
		}
	}
}

// memRelay is a Relay in memory: what one instance publishes reaches every
// subscriber, in order, on a goroutine of its own.
type memRelay struct {
	mu   sync.Mutex
	subs []chan relayed
}

type relayed struct {
	session string
	msg     []byte
}

func (r *memRelay) Publish(_ context.Context, session string, msg []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.subs {
		c <- relayed{session, bytes.Clone(msg)}
	}
	return nil
}

func (r *memRelay) Subscribe(ctx context.Context, deliver func(session string, msg []byte)) error {
	c := make(chan relayed, 256)
	r.mu.Lock()
	r.subs = append(r.subs, c)
	r.mu.Unlock()
	go func() {
		for {
			select {
			case m := <-c:
				deliver(m.session, m.msg)
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}

// firstLookStale is a SessionStore whose first Load of a session finds it
// without its revision: as a Load that ran just before the session's
// instance saved what initialize made of it.
type firstLookStale struct {
	SessionStore
	mu   sync.Mutex
	seen map[string]bool
}

func (s *firstLookStale) Load(ctx context.Context, id string) (mcp.SessionState, bool, error) {
	st, ok, err := s.SessionStore.Load(ctx, id)
	s.mu.Lock()
	first := !s.seen[id]
	s.seen[id] = true
	s.mu.Unlock()
	if first && ok {
		st.Revision = ""
	}
	return st, ok, err
}

// TestSSEInitializedMeanwhile: a POST reaching an instance that does
// not hold the HTTP+SSE session's stream, just as the instance holding it
// saves the session's initialized state — the first look at the store
// finds no state to restore, the next one finds it — is served there,
// not refused with 404 (which TestLegacySSEAcrossInstances in
// examples/everything met now and then under load).
func TestSSEInitializedMeanwhile(t *testing.T) {
	store, relay := NewMemorySessionStore(), &memRelay{}
	_, a := sseFixture(t, Options{SessionStore: store, Relay: relay})
	_, b := sseFixture(t, Options{SessionStore: &firstLookStale{SessionStore: store, seen: map[string]bool{}}, Relay: relay})
	alice := map[string]string{"Authorization": "Bearer alice"}
	p, code := openSSEPeer(t, a, alice)
	if code != http.StatusOK {
		t.Fatalf("GET /sse on A: %d", code)
	}
	if code, body := p.post("", sseInit, alice); code != http.StatusAccepted {
		t.Fatalf("initialize on A: %d %s", code, body)
	}
	if m := p.next(); string(m.ID) != "1" || m.Result == nil {
		t.Fatalf("initialize answered %+v", m)
	}
	if code, body := p.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, alice); code != http.StatusAccepted {
		t.Fatalf("initialized on A: %d %s", code, body)
	}
	onB := &ssePeer{t: t, base: b, endpoint: p.endpoint}
	if code, body := onB.post("", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"via B"}}}`, alice); code != http.StatusAccepted {
		t.Fatalf("tools/call on B, whose first look at the store found no state: %d %s", code, body)
	}
	if m := p.next(); string(m.ID) != "2" || !strings.Contains(string(m.Result), "via B") {
		t.Fatalf("the call on B answered on A's stream %+v", m)
	}
}
