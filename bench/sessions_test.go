package bench

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	"github.com/mcpgen/mcpgen/bench/echo/gosdkecho"
	"github.com/mcpgen/mcpgen/bench/echo/mcpgenecho"
	"github.com/mcpgen/mcpgen/bench/echo/mcpgoecho"
)

// sessionCounts are the numbers of idle sessions BenchmarkIdleSessions
// holds.
var sessionCounts = []int{1000, 10000, 100000}

// sessionStack is one stack's Streamable HTTP handler of the echo server;
// close releases it.
type sessionStack struct {
	name string
	open func(tb testing.TB, n int) (h http.Handler, close func())
}

var sessionStacks = []sessionStack{
	{"mcpgen", func(tb testing.TB, n int) (http.Handler, func()) {
		srv, err := mcpgenecho.New(slog.New(slog.DiscardHandler))
		if err != nil {
			tb.Fatal(err)
		}
		// Room for n sessions of one client (the defaults bound them
		// per client, and in all, well below 100,000).
		h := streamhttp.NewHandler(srv, streamhttp.Options{MaxSessions: n, MaxSessionsPerClient: n})
		return h, func() { h.Close() }
	}},
	{"go-sdk", func(testing.TB, int) (http.Handler, func()) {
		s := gosdkecho.New(slog.New(slog.DiscardHandler))
		h := gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, nil)
		return h, func() {}
	}},
	{"mcp-go", func(testing.TB, int) (http.Handler, func()) {
		h := mcpgoserver.NewStreamableHTTPServer(mcpgoecho.New(true))
		return h, func() {}
	}},
}

// BenchmarkIdleSessions opens n stateful sessions (initialize, then
// notifications/initialized, 2025-11-25, a revision all three
// stacks speak) on each stack's Streamable HTTP handler, without a
// network, and leaves them idle: what a session costs while it waits,
// in live heap after a GC (B/session) and goroutines (goroutines/session),
// and what opening one costs (ns/session). One iteration is n sessions:
// run with -benchtime=1x.
func BenchmarkIdleSessions(b *testing.B) {
	for _, n := range sessionCounts {
		for _, s := range sessionStacks {
			b.Run(fmt.Sprintf("%d/%s", n, s.name), func(b *testing.B) {
				var perSession, goroutines float64
				for b.Loop() {
					b.StopTimer()
					h, closeH := s.open(b, n)
					base, baseG := liveHeap(), runtime.NumGoroutine()
					b.StartTimer()
					for i := range n {
						openIdleSession(b, h, i)
					}
					b.StopTimer()
					perSession = float64(liveHeap()-base) / float64(n)
					goroutines = float64(runtime.NumGoroutine()-baseG) / float64(n)
					closeH()
					b.StartTimer()
				}
				b.ReportMetric(perSession, "B/session")
				b.ReportMetric(goroutines, "goroutines/session")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/session")
			})
		}
	}
}

// TestIdleSessions opens a few sessions on each stack, as the benchmark
// does: every stack takes them.
func TestIdleSessions(t *testing.T) {
	for _, s := range sessionStacks {
		t.Run(s.name, func(t *testing.T) {
			h, closeH := s.open(t, 10)
			defer closeH()
			for i := range 10 {
				openIdleSession(t, h, i)
			}
		})
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// openIdleSession opens session i on h and leaves it open.
func openIdleSession(tb testing.TB, h http.Handler, i int) {
	post := func(body, sid string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
			r.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(deadlines{w}, r)
		return w
	}
	w := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"idle-`+fmt.Sprint(i)+`","version":"1"}}}`, "")
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" || !strings.Contains(w.Body.String(), `"protocolVersion":"2025-11-25"`) {
		tb.Fatalf("session %d: initialize: %d %q %s", i, w.Code, sid, w.Body.String())
	}
	if w := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid); w.Code != http.StatusAccepted {
		tb.Fatalf("session %d: initialized: %d %s", i, w.Code, w.Body.String())
	}
}
