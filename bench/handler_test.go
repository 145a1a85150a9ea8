package bench

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	"github.com/mcpgen/mcpgen/bench/echo"
	"github.com/mcpgen/mcpgen/bench/echo/mcpgenecho"
)

// deadlines is a ResponseRecorder that takes connection deadlines, as
// net/http's own response writer does (the recorder alone answers each
// with a newly made "not supported" error, which no server pays).
type deadlines struct{ *httptest.ResponseRecorder }

func (deadlines) SetReadDeadline(time.Time) error  { return nil }
func (deadlines) SetWriteDeadline(time.Time) error { return nil }

// BenchmarkHTTPHandler serves one echo tools/call per iteration through an
// http.Handler, without a network: mcpgen's streamhttp.Handler against the
// plain loop's handler (echo.PlainHTTP), in both eras. It is the part of
// the black-box HTTP row that is the handler's own (net/http's request
// reading and response writing, the same for both, are left out), measured
// without the noise of sockets and two processes.
func BenchmarkHTTPHandler(b *testing.B) {
	srv, err := mcpgenecho.New(slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	mcpgen := streamhttp.NewHandler(srv, streamhttp.Options{})
	b.Cleanup(func() { mcpgen.Close() })
	const meta26 = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
	call := func(meta string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + benchText + `"}` + meta + `}}`
	}
	// Each request's context is cancelable, under a connection's, as
	// net/http makes them: a handler that derives a cancelable context
	// from it pays here what it pays behind a real server.
	conn, closeConn := context.WithCancel(context.Background())
	b.Cleanup(closeConn)
	post := func(h http.Handler, body string, hd map[string]string) *httptest.ResponseRecorder {
		ctx, cancel := context.WithCancel(conn)
		defer cancel()
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hd {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(deadlines{w}, r)
		return w
	}
	// A 2025-11-25 session on mcpgen's handler.
	w := post(mcpgen, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`, nil)
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" {
		b.Fatalf("initialize: %d %s", w.Code, w.Body.Bytes())
	}
	session := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	if w := post(mcpgen, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); w.Code != http.StatusAccepted {
		b.Fatalf("initialized: %d %s", w.Code, w.Body.Bytes())
	}
	stateless := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
	for _, tc := range []struct {
		name string
		h    http.Handler
		body string
		hd   map[string]string
	}{
		{"mcpgen-2025", mcpgen, call(""), session},
		{"plain-2025", echo.PlainHTTP(), call(""), nil},
		{"mcpgen-2026", mcpgen, call(meta26), stateless},
		{"plain-2026", echo.PlainHTTP(), call(meta26), stateless},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if w := post(tc.h, tc.body, tc.hd); w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"text":"`+benchText+`"`)) {
				b.Fatalf("%d %s", w.Code, w.Body.Bytes())
			}
			b.SetBytes(int64(len(tc.body)))
			b.ReportAllocs()
			for b.Loop() {
				if w := post(tc.h, tc.body, tc.hd); w.Code != http.StatusOK {
					b.Fatal(strconv.Itoa(w.Code) + " " + w.Body.String())
				}
			}
		})
	}
}
