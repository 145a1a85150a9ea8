package streamhttp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func TestMemoryEventStore(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(3, 2)
	var ids []string
	for i := range 5 {
		id, err := s.Append(ctx, "s", "p1", []byte{byte('a' + i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if ids[0] != "p1_1" || ids[4] != "p1_5" {
		t.Fatal(ids)
	}
	if _, _, err := s.Replay(ctx, "s", ids[0]); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("replay past forgotten events: %v", err)
	}
	// The third stream of a session evicts the first.
	s.Append(ctx, "s", "p2", nil)
	s.Append(ctx, "s", "p3", nil)
	if _, _, err := s.Replay(ctx, "s", ids[4]); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("evicted stream: %v", err)
	}
	s.Forget(ctx, "s")
	if s.sessionCount() != 0 {
		t.Fatal("Forget")
	}
}

func TestSSEReader(t *testing.T) {
	in := ": comment\r\nid: 1\r\nretry: 500\r\ndata: \r\n\r\n" +
		"data: {\"a\":\ndata: 1}\n\n" +
		"event: message\nid: x\x00y\ndata:no-space\n\n" +
		"\n\n" +
		"data: partial"
	rd := newSSEReader(strings.NewReader(in), 1<<10)
	ev, err := rd.next()
	if err != nil || ev.id != "1" || ev.retry != 500*time.Millisecond || len(ev.data) != 0 {
		t.Fatalf("%+v %v", ev, err)
	}
	ev, err = rd.next()
	if err != nil || string(ev.data) != "{\"a\":\n1}" || ev.hasID {
		t.Fatalf("%+v %v", ev, err)
	}
	ev, err = rd.next()
	if err != nil || string(ev.data) != "no-space" || ev.hasID {
		t.Fatalf("%+v %v", ev, err)
	}
	if _, err := rd.next(); err != io.EOF {
		t.Fatalf("a trailing partial event: %v", err)
	}
	long := newSSEReader(strings.NewReader("data: "+strings.Repeat("x", 2000)+"\n\n"), 1<<10)
	if _, err := long.next(); !errors.Is(err, errLineTooLong) {
		t.Fatal(err)
	}
}

// TestParamHeadersFollowToolList: the annotations are learned from the
// tool list once and again after it changes.
func TestParamHeadersFollowToolList(t *testing.T) {
	f := newFixture(t, Options{})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"headers","arguments":{"region":"eu"},` + meta("") + `}}`
	send := func(hname string) int {
		hdr := statelessHeaders("tools/call", "headers")
		hdr[hname] = "eu"
		resp := f.do(context.Background(), http.MethodPost, hdr, call)
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := send("Mcp-Param-Region"); s != 200 {
		t.Fatal(s)
	}
	if s := send("Mcp-Param-Area"); s != 400 {
		t.Fatal(s)
	}
	f.ts.mu.Lock()
	f.ts.toolList = `{"tools":[{"name":"headers","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Area"}}}}]}`
	f.ts.mu.Unlock()
	f.srv.NotifyListChanged(context.Background(), mcp.ToolsList)
	if s := send("Mcp-Param-Area"); s != 200 {
		t.Fatal(s)
	}
	if s := send("Mcp-Param-Region"); s != 400 {
		t.Fatal(s)
	}
}

// TestEraFallback: clients against servers that mount one era only.
func TestEraFallback(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mount     mcp.Mount
		era       mcp.Era
		stateless bool
		fails     int64 // the JSON-RPC error code Connect fails with, or 0
	}{
		{"auto against legacy-only", mcp.Mount{Protocol: protoOld, Handler: newTestServer()}, mcp.Auto, false, 0},
		{"auto against modern-only", mcp.Mount{Protocol: protoNew, Handler: newTestServer()}, mcp.Auto, true, 0},
		{"legacy against modern-only", mcp.Mount{Protocol: protoNew, Handler: newTestServer()}, mcp.Stateful, false, mcp.CodeUnsupportedProtocolVersion},
		{"modern against legacy-only", mcp.Mount{Protocol: protoOld, Handler: newTestServer()}, mcp.Stateless, false, mcp.CodeUnsupportedProtocolVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := mcp.NewServer(mcp.ServerOptions{Name: "one", Version: "1"}, tc.mount)
			if err != nil {
				t.Fatal(err)
			}
			h := NewHandler(srv, Options{})
			defer h.Close()
			hs := newLoopbackServer(t, h)
			cs, err := mcp.Connect(context.Background(), &ClientTransport{URL: hs + "/mcp"}, mcp.ClientOptions{Era: tc.era}, clientMounts...)
			if tc.fails != 0 {
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != tc.fails {
					t.Fatalf("Connect: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if cs.Stateless() != tc.stateless {
				t.Fatal(cs.Stateless())
			}
			if _, err := callText(context.Background(), cs, "echo", `{"text":"x"}`); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// newLoopbackServer serves h at /mcp with ListenAndServe's Serve on
// 127.0.0.1 until the test ends.
func newLoopbackServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, mux) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	})
	return "http://" + ln.Addr().String()
}

// TestGracefulShutdown: when Serve's context ends, listen streams get
// their result, GET streams end, sessions end and Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	srv := mustServer(t)
	h := NewHandler(srv, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, mux) }()
	f := &fixture{t: t, url: "http://" + ln.Addr().String() + "/mcp", c: &http.Client{Transport: &http.Transport{}}}
	f.h = h
	sid := f.initSession()
	hdr := sessHeaders(sid)
	hdr["Accept"] = "text/event-stream"
	get := f.do(context.Background(), http.MethodGet, hdr, "")
	listen := f.do(context.Background(), http.MethodPost, statelessHeaders("subscriptions/listen", ""),
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+meta("")+`}}`)
	rd := newSSEReader(listen.Body, 1<<20)
	if ack, err := rd.next(); err != nil || !strings.Contains(string(ack.data), "acknowledged") {
		t.Fatal("no acknowledgement")
	}
	// mcp.Server.listen acknowledges before it registers the stream:
	// announce changes until one arrives, then the stream is registered.
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			srv.NotifyListChanged(context.Background(), mcp.ToolsList)
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	if ev, err := rd.next(); err != nil || !strings.Contains(string(ev.data), "list_changed") {
		t.Fatal("no notification")
	}
	close(stop)
	<-stopped
	cancel()
	var last sseEvent
	for {
		ev, err := rd.next()
		if err != nil {
			break
		}
		last = ev
	}
	listen.Body.Close()
	if !strings.Contains(string(last.data), `"result"`) {
		t.Fatalf("listen end: %s", last.data)
	}
	readEvents(t, get, -1) // ends
	get.Body.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if n := h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions after shutdown", n)
	}
}

// TestHandlerContexts: a stateful request's handler context keeps its
// POST's values but not its end (a client that goes away does not cancel
// its request: 2025-11-25), and context.Cause agrees with Err before and
// after its own end; a stateless request's follows its POST's end.
func TestHandlerContexts(t *testing.T) {
	type key struct{}
	post, leave := context.WithCancelCause(context.WithValue(context.Background(), key{}, "v"))
	defer leave(nil)
	r := httptest.NewRequestWithContext(post, http.MethodPost, "http://127.0.0.1/mcp", nil)
	errGone := errors.New("the client went away")

	ir := newInflightReq(r, jsonrpc.ID{}, nil, nil)
	ctx := context.Context(&ir.ctx)
	derived, stop := context.WithCancel(ctx)
	defer stop()
	leave(errGone)
	if ctx.Value(key{}) != "v" || ctx.Err() != nil || context.Cause(ctx) != nil || derived.Err() != nil || context.Cause(derived) != nil {
		t.Fatalf("stateful, after the POST's end: value %v, Err %v, Cause %v, derived %v / %v",
			ctx.Value(key{}), ctx.Err(), context.Cause(ctx), derived.Err(), context.Cause(derived))
	}
	ir.cancel()
	<-derived.Done()
	if ctx.Err() != context.Canceled || context.Cause(ctx) != context.Canceled || context.Cause(derived) != context.Canceled || ctx.Value(key{}) != "v" {
		t.Fatalf("stateful, cancelled: Err %v, Cause %v, derived Cause %v", ctx.Err(), context.Cause(ctx), context.Cause(derived))
	}

	post2, leave2 := context.WithCancelCause(context.Background())
	var lr liveReq
	lr.ctx.Init(post2, time.Time{}, true)
	sctx := context.Context(&lr.ctx)
	if sctx.Err() != nil || context.Cause(sctx) != nil {
		t.Fatalf("stateless, before: Err %v, Cause %v", sctx.Err(), context.Cause(sctx))
	}
	leave2(errGone)
	<-sctx.Done()
	if sctx.Err() != context.Canceled || context.Cause(sctx) != errGone {
		t.Fatalf("stateless, after the POST's end: Err %v, Cause %v", sctx.Err(), context.Cause(sctx))
	}
}
