package streamhttp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

// initSession opens a stateful session and returns its id.
func (f *fixture) initSession() string {
	f.t.Helper()
	resp := f.do(context.Background(), http.MethodPost, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+revOld+`","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		f.t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		f.t.Fatal("initialize: no Mcp-Session-Id")
	}
	for _, c := range []byte(sid) {
		if c < 0x21 || c > 0x7e {
			f.t.Fatalf("session id %q is not visible ASCII", sid)
		}
	}
	resp = f.do(context.Background(), http.MethodPost, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		f.t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return sid
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 4096})
	sid := f.initSession()
	sess := func(extra map[string]string) map[string]string {
		h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	with := func(h map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	call := func(id int, name, args string) string {
		return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":` + quote(name) + `,"arguments":` + args + `,` + meta("") + `}}`
	}
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + meta("") + `}}`
	hl := statelessHeaders("tools/list", "")
	hc := func(name string, kv ...string) map[string]string {
		return with(statelessHeaders("tools/call", name), kv...)
	}
	hdrs := func(kv ...string) map[string]string { return hc("headers", kv...) }
	const region = `{"region":"Hello"}`

	tests := []struct {
		name     string
		method   string
		hdr      map[string]string
		body     string
		status   int
		code     int64 // 0: no JSON-RPC error expected
		wantID   bool  // the error echoes the request id
		wantAllw string
	}{
		// Both eras: the HTTP layer.
		{name: "wrong content type", hdr: with(hl, "Content-Type", "text/plain"), body: list, status: 415, code: -32600, wantID: true},
		{name: "missing content type", hdr: with(hl, "Content-Type", ""), body: list, status: 415, code: -32600, wantID: true},
		{name: "content type with charset", hdr: with(hl, "Content-Type", "application/json; charset=utf-8"), body: list, status: 200},
		{name: "oversized body", hdr: hl, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, status: 413, code: -32600},
		{name: "bad JSON", hdr: hl, body: `{"jsonrpc":"2.0","id":1,`, status: 400, code: -32700},
		{name: "batch", hdr: hl, body: `[` + list + `]`, status: 400, code: -32600},
		{name: "not an object", hdr: hl, body: `"hello"`, status: 400, code: -32600},
		{name: "wrong jsonrpc version", hdr: hl, body: `{"jsonrpc":"1.0","id":3,"method":"tools/list"}`, status: 400, code: -32600, wantID: true},
		{name: "null id", hdr: hl, body: `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, status: 400, code: -32600},
		{name: "fractional id", hdr: hl, body: `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, status: 400, code: -32600},
		{name: "Accept refuses both", hdr: with(hl, "Accept", "text/html"), body: list, status: 406, code: -32600, wantID: true},
		{name: "no Accept is fine", hdr: with(hl, "Accept", ""), body: list, status: 200},
		{name: "invalid Origin", hdr: with(hl, "Origin", "http://evil.example.com"), body: list, status: 403, code: -32600},
		{name: "null Origin", hdr: with(hl, "Origin", "null"), body: list, status: 403, code: -32600},
		{name: "loopback Origin", hdr: with(hl, "Origin", "http://localhost:1234"), body: list, status: 200},
		{name: "invalid Host", hdr: with(hl, "Host", "evil.example.com"), body: list, status: 403, code: -32600},
		{name: "rebinding Host and Origin", hdr: with(hl, "Host", "evil.example.com", "Origin", "http://evil.example.com"), body: list, status: 403, code: -32600},
		{name: "localhost Host", hdr: with(hl, "Host", "localhost:9"), body: list, status: 200},
		{name: "PUT", method: http.MethodPut, status: 405, code: -32600, wantAllw: "GET, POST, DELETE"},

		// Stateless: header rules (-32020) and the version rules.
		{name: "missing MCP-Protocol-Version", hdr: with(hl, "MCP-Protocol-Version", ""), body: list, status: 400, code: -32020, wantID: true},
		{name: "header version differs from _meta", hdr: with(hl, "MCP-Protocol-Version", "2099-01-01"), body: list, status: 400, code: -32020, wantID: true},
		{name: "_meta without protocolVersion", hdr: hl, body: `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, status: 400, code: -32602, wantID: true},
		{name: "no _meta at all", hdr: hl, body: `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}}`, status: 400, code: -32602, wantID: true},
		{name: "unsupported version", hdr: with(hl, "MCP-Protocol-Version", "v999.0.0"), body: strings.ReplaceAll(list, revNew, "v999.0.0"), status: 400, code: -32022, wantID: true},
		{name: "missing Mcp-Method", hdr: with(hl, "Mcp-Method", ""), body: list, status: 400, code: -32020, wantID: true},
		{name: "Mcp-Method mismatch", hdr: with(hl, "Mcp-Method", "tools/call"), body: list, status: 400, code: -32020, wantID: true},
		{name: "Mcp-Method case differs", hdr: with(hl, "Mcp-Method", "TOOLS/LIST"), body: list, status: 400, code: -32020, wantID: true},
		{name: "lower-case header names", hdr: map[string]string{"mcp-protocol-version": revNew, "mcp-method": "tools/list"}, body: list, status: 200},
		{name: "upper-case header names", hdr: map[string]string{"MCP-PROTOCOL-VERSION": revNew, "MCP-METHOD": "tools/list"}, body: list, status: 200},
		{name: "missing Mcp-Name", hdr: with(hc(""), "Mcp-Name", ""), body: call(9, "echo", `{}`), status: 400, code: -32020, wantID: true},
		{name: "Mcp-Name mismatch", hdr: hc("other"), body: call(9, "echo", `{}`), status: 400, code: -32020, wantID: true},
		{name: "Mcp-Name case differs", hdr: hc("ECHO"), body: call(9, "echo", `{}`), status: 400, code: -32020, wantID: true},
		{name: "Mcp-Name surrounding whitespace", hdr: hc("  echo  "), body: call(9, "echo", `{}`), status: 200},
		{name: "Mcp-Name base64", hdr: hc("=?base64?ZWNobw==?="), body: call(9, "echo", `{}`), status: 200},
		{name: "Mcp-Name bad base64", hdr: hc("=?base64?ZWNob?="), body: call(9, "echo", `{}`), status: 400, code: -32020, wantID: true},
		{name: "Mcp-Name for prompts/get", hdr: with(statelessHeaders("prompts/get", "p1")), body: `{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"p1",` + meta("") + `}}`, status: 200},
		{name: "Mcp-Name uri for resources/read", hdr: statelessHeaders("resources/read", "file:///a%20b"), body: `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"file:///a%20b",` + meta("") + `}}`, status: 200},
		{name: "Mcp-Name uri mismatch", hdr: statelessHeaders("resources/read", "file:///c"), body: `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"file:///a",` + meta("") + `}}`, status: 400, code: -32020, wantID: true},
		{name: "Mcp-Name taskId mismatch on tasks/get", hdr: statelessHeaders("tasks/get", "t2"), body: `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"t1",` + meta("") + `}}`, status: 400, code: -32020, wantID: true},
		{name: "missing Mcp-Name on tasks/cancel", hdr: with(statelessHeaders("tasks/cancel", "t1"), "Mcp-Name", ""), body: `{"jsonrpc":"2.0","id":9,"method":"tasks/cancel","params":{"taskId":"t1",` + meta("") + `}}`, status: 400, code: -32020, wantID: true},
		{name: "Mcp-Name non-ASCII via base64", hdr: statelessHeaders("resources/read", mcpheader.EncodeValue("file:///世界")), body: `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"file:///世界",` + meta("") + `}}`, status: 200},

		// Stateless: Mcp-Param-* (REPORT §2.6 cases first).
		{name: "param base64 accepted", hdr: hdrs("Mcp-Param-Region", "=?base64?SGVsbG8=?="), body: call(10, "headers", region), status: 200},
		{name: "param bad padding", hdr: hdrs("Mcp-Param-Region", "=?base64?SGVsbG8?="), body: call(10, "headers", region), status: 400, code: -32020, wantID: true},
		{name: "param bad characters", hdr: hdrs("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), body: call(10, "headers", region), status: 400, code: -32020, wantID: true},
		{name: "param literal that looks like base64", hdr: hdrs("Mcp-Param-Region", "SGVsbG8="), body: call(10, "headers", `{"region":"SGVsbG8="}`), status: 200},
		{name: "param prefix without suffix is literal", hdr: hdrs("Mcp-Param-Region", "=?base64?SGVsbG8="), body: call(10, "headers", `{"region":"=?base64?SGVsbG8="}`), status: 200},
		{name: "param header omitted", hdr: hdrs(), body: call(10, "headers", `{"region":"test-value"}`), status: 400, code: -32020, wantID: true},
		{name: "param mismatch", hdr: hdrs("Mcp-Param-Region", "us-east1"), body: call(10, "headers", `{"region":"us-west1"}`), status: 400, code: -32020, wantID: true},
		{name: "param header name case-insensitive", hdr: hdrs("mcp-param-region", "us-west1"), body: call(10, "headers", `{"region":"us-west1"}`), status: 200},
		{name: "param raw non-ASCII", hdr: hdrs("Mcp-Param-Region", "h\u00e9llo"), body: call(10, "headers", `{"region":"h\u00e9llo"}`), status: 400, code: -32020, wantID: true},
		{name: "param non-ASCII via base64", hdr: hdrs("Mcp-Param-Region", mcpheader.EncodeValue("h\u00e9llo")), body: call(10, "headers", `{"region":"h\u00e9llo"}`), status: 200},
		{name: "param padded via base64", hdr: hdrs("Mcp-Param-Region", mcpheader.EncodeValue(" x ")), body: call(10, "headers", `{"region":" x "}`), status: 200},
		{name: "param integer numerically", hdr: hdrs("Mcp-Param-Priority", "42.0"), body: call(10, "headers", `{"priority":42}`), status: 200},
		{name: "param integer mismatch", hdr: hdrs("Mcp-Param-Priority", "43"), body: call(10, "headers", `{"priority":42}`), status: 400, code: -32020, wantID: true},
		{name: "param integer not a number", hdr: hdrs("Mcp-Param-Priority", "0x2a"), body: call(10, "headers", `{"priority":42}`), status: 400, code: -32020, wantID: true},
		{name: "param boolean", hdr: hdrs("Mcp-Param-Verbose", "true"), body: call(10, "headers", `{"verbose":true}`), status: 200},
		{name: "param boolean spelled otherwise", hdr: hdrs("Mcp-Param-Verbose", "TRUE"), body: call(10, "headers", `{"verbose":true}`), status: 400, code: -32020, wantID: true},
		{name: "param null with no header", hdr: hdrs(), body: call(10, "headers", `{"config":{"zone":null}}`), status: 200},
		{name: "param null with a header", hdr: hdrs("Mcp-Param-Zone", "z"), body: call(10, "headers", `{"config":{"zone":null}}`), status: 400, code: -32020, wantID: true},
		{name: "param absent with a header", hdr: hdrs("Mcp-Param-Region", "x"), body: call(10, "headers", `{}`), status: 400, code: -32020, wantID: true},
		{name: "param nested path", hdr: hdrs("Mcp-Param-Zone", "eu"), body: call(10, "headers", `{"config":{"zone":"eu"}}`), status: 200},
		{name: "param unannotated is not mirrored", hdr: hdrs(), body: call(10, "headers", `{"query":"SELECT 1"}`), status: 200},
		{name: "param unknown header ignored", hdr: hdrs("Mcp-Param-Other", "x"), body: call(10, "headers", `{}`), status: 200},

		// Stateless: dispatch.
		{name: "unknown method", hdr: statelessHeaders("nope/nope", ""), body: `{"jsonrpc":"2.0","id":11,"method":"nope/nope","params":{` + meta("") + `}}`, status: 404, code: -32601, wantID: true},
		{name: "stateful-only method", hdr: statelessHeaders("ping", ""), body: `{"jsonrpc":"2.0","id":11,"method":"ping","params":{` + meta("") + `}}`, status: 404, code: -32601, wantID: true},
		{name: "invalid params", hdr: hc("nope"), body: call(12, "nope", `{}`), status: 400, code: -32602, wantID: true},
		{name: "stateless notification", hdr: statelessHeaders("notifications/cancelled", ""), body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,` + meta("") + `}}`, status: 202},
		{name: "stateless response refused", hdr: hl, body: `{"jsonrpc":"2.0","id":5,"result":{}}`, status: 400, code: -32600, wantID: true},
		{name: "session id ignored", hdr: with(hl, "Mcp-Session-Id", "nonsense"), body: list, status: 200},
		{name: "GET stateless", method: http.MethodGet, hdr: map[string]string{"MCP-Protocol-Version": revNew, "Accept": "text/event-stream"}, status: 405, code: -32600, wantAllw: "POST"},
		{name: "DELETE stateless", method: http.MethodDelete, hdr: map[string]string{"MCP-Protocol-Version": revNew, "Mcp-Session-Id": sid}, status: 405, code: -32600, wantAllw: "POST"},

		// Stateful: sessions.
		{name: "missing session", body: `{"jsonrpc":"2.0","id":20,"method":"tools/list"}`, status: 400, code: -32600, wantID: true},
		{name: "unknown session", hdr: map[string]string{"Mcp-Session-Id": "nope"}, body: `{"jsonrpc":"2.0","id":21,"method":"tools/list"}`, status: 404, code: -32600, wantID: true},
		{name: "session, no version header", hdr: map[string]string{"Mcp-Session-Id": sid}, body: `{"jsonrpc":"2.0","id":22,"method":"tools/list"}`, status: 200},
		{name: "session, unmounted stateful version", hdr: sess(map[string]string{"MCP-Protocol-Version": "2025-06-18"}), body: `{"jsonrpc":"2.0","id":23,"method":"tools/list"}`, status: 400, code: -32600, wantID: true},
		{name: "session request", hdr: sess(nil), body: `{"jsonrpc":"2.0","id":24,"method":"tools/list"}`, status: 200},
		{name: "session notification", hdr: sess(nil), body: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, status: 202},
		{name: "session response to nothing", hdr: sess(nil), body: `{"jsonrpc":"2.0","id":99,"result":{}}`, status: 202},
		{name: "session unknown method", hdr: sess(nil), body: `{"jsonrpc":"2.0","id":25,"method":"nope"}`, status: 200, code: -32601, wantID: true},
		{name: "second initialize on the session", hdr: sess(nil), body: `{"jsonrpc":"2.0","id":26,"method":"initialize","params":{"protocolVersion":"` + revOld + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, status: 200, code: -32600, wantID: true},
		{name: "GET without session", method: http.MethodGet, hdr: map[string]string{"Accept": "text/event-stream"}, status: 400, code: -32600},
		{name: "GET unknown session", method: http.MethodGet, hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "nope"}, status: 404, code: -32600},
		{name: "GET not accepting SSE", method: http.MethodGet, hdr: map[string]string{"Accept": "application/json", "Mcp-Session-Id": sid}, status: 406, code: -32600},
		{name: "GET bad Last-Event-ID", method: http.MethodGet, hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": "p9_9"}, status: 400, code: -32600},
		{name: "DELETE without session", method: http.MethodDelete, status: 400, code: -32600},
		{name: "DELETE unknown session", method: http.MethodDelete, hdr: map[string]string{"Mcp-Session-Id": "nope"}, status: 404, code: -32600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.method
			if m == "" {
				m = http.MethodPost
			}
			resp := f.do(context.Background(), m, tc.hdr, tc.body)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
			}
			if tc.wantAllw != "" && resp.Header.Get("Allow") != tc.wantAllw {
				t.Errorf("Allow %q, want %q", resp.Header.Get("Allow"), tc.wantAllw)
			}
			if tc.status == 202 {
				if len(b) != 0 {
					t.Errorf("202 with a body: %s", b)
				}
				return
			}
			msg := decodeRPC(t, b)
			switch {
			case tc.code == 0 && msg.Error != nil:
				t.Fatalf("unexpected error %d %s", msg.Error.Code, msg.Error.Message)
			case tc.code != 0 && msg.Error == nil:
				t.Fatalf("no error, want %d: %s", tc.code, b)
			case tc.code != 0 && msg.Error.Code != tc.code:
				t.Fatalf("error %d %q, want %d", msg.Error.Code, msg.Error.Message, tc.code)
			}
			if tc.code != 0 {
				if hasID := len(msg.ID) > 0; hasID != tc.wantID {
					t.Errorf("id %s, want echoed: %v", msg.ID, tc.wantID)
				}
				if string(msg.ID) == "null" {
					t.Errorf("error with a null id")
				}
				if tc.code == -32020 && !strings.Contains(strings.ToLower(msg.Error.Message), "header") {
					t.Errorf("-32020 does not name the header: %s", msg.Error.Message)
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestUnsupportedVersionData: -32022 names the version asked for and
// every revision served, those of both eras, newest first.
func TestUnsupportedVersionData(t *testing.T) {
	f := newFixture(t, Options{})
	body := `{"jsonrpc":"2.0","id":301,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp := f.do(context.Background(), http.MethodPost, map[string]string{"MCP-Protocol-Version": "v999.0.0", "Mcp-Method": "server/discover"}, body)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	msg := decodeRPC(t, b)
	if resp.StatusCode != 400 || msg.Error == nil || msg.Error.Code != -32022 || string(msg.ID) != "301" {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if err := json.Unmarshal(msg.Error.Data, &data); err != nil || !slices.Equal(data.Supported, []string{revNew, revOld}) || data.Requested != "v999.0.0" {
		t.Fatalf("data %s", msg.Error.Data)
	}
}

func TestAllowLists(t *testing.T) {
	h := NewHandler(mustServer(t), Options{AllowedOrigins: []string{"https://app.example.com"}, AllowedHosts: []string{"mcp.example.com", "127.0.0.1:8080"}})
	defer h.Close()
	for _, tc := range []struct {
		origin string
		ok     bool
	}{{"", true}, {"https://app.example.com", true}, {"HTTPS://APP.EXAMPLE.COM", true}, {"http://app.example.com", false}, {"http://localhost", false}} {
		if got := h.originOK(tc.origin); got != tc.ok {
			t.Errorf("origin %q: %v", tc.origin, got)
		}
	}
	for _, tc := range []struct {
		host string
		ok   bool
	}{{"mcp.example.com", true}, {"mcp.example.com:443", true}, {"127.0.0.1:8080", true}, {"127.0.0.1:8081", false}, {"localhost", false}, {"", false}} {
		if got := h.hostOK(tc.host); got != tc.ok {
			t.Errorf("host %q: %v", tc.host, got)
		}
	}
	d := NewHandler(mustServer(t), Options{})
	defer d.Close()
	for _, tc := range []struct {
		host string
		ok   bool
	}{{"localhost", true}, {"127.0.0.1:1", true}, {"[::1]:80", true}, {"::1", true}, {"127.0.0.2", true}, {"[::ffff:127.0.0.1]:80", true},
		{"evil.example.com", false}, {"127.0.0.1.evil.com", false}, {"[fe80::1%eth0]:80", false}, {"[::1%lo]", false}, {"10.0.0.1:80", false}, {"127.0.0.1:", true}} {
		if got := d.hostOK(tc.host); got != tc.ok {
			t.Errorf("default host %q: %v", tc.host, got)
		}
	}
}

// TestParseAccept covers the media types an Accept header lists, with
// parameters, odd spacing and case, across repeated headers.
func TestParseAccept(t *testing.T) {
	for _, tc := range []struct {
		vals []string
		want accept
	}{
		{nil, accept{json: true, sse: true}},
		{[]string{""}, accept{json: true, sse: true}},
		{[]string{" , "}, accept{json: true, sse: true}},
		{[]string{"application/json, text/event-stream"}, accept{json: true, sse: true}},
		{[]string{"application/json"}, accept{json: true, sse: false}},
		{[]string{"TEXT/Event-Stream;q=0.5"}, accept{json: false, sse: true}},
		{[]string{"text/html", "application/*"}, accept{json: true, sse: false}},
		{[]string{"*/*;q=0.1"}, accept{json: true, sse: true}},
		{[]string{"text/html,"}, accept{json: false, sse: false}},
		{[]string{"text/html ,text/*"}, accept{json: false, sse: true}},
	} {
		if got := parseAccept(tc.vals); got != tc.want {
			t.Errorf("parseAccept(%q) = %+v, want %+v", tc.vals, got, tc.want)
		}
	}
}

func TestAuth(t *testing.T) {
	o := Options{
		Auth: func(r *http.Request) (context.Context, error) {
			tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			switch {
			case !ok:
				return nil, &AuthError{}
			case tok == "good":
				return context.WithValue(r.Context(), authKey{}, "alice"), nil
			case tok == "weak":
				return nil, &AuthError{Status: 403, Code: "insufficient_scope", Scope: "tools:call"}
			}
			return nil, &AuthError{Code: "invalid_token", Description: "unknown token"}
		},
		ResourceMetadata: &ProtectedResourceMetadata{AuthorizationServers: []string{"https://as.example.com"}, ScopesSupported: []string{"tools:call"}},
	}
	f := newFixture(t, o)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami",` + meta("") + `}}`
	prm := f.hs.URL + "/.well-known/oauth-protected-resource/mcp"
	for _, tc := range []struct {
		token, status, challenge string
	}{
		{"", "401", `Bearer resource_metadata="` + prm + `"`},
		{"bad", "401", `Bearer resource_metadata="` + prm + `", error="invalid_token", error_description="unknown token"`},
		{"weak", "403", `Bearer resource_metadata="` + prm + `", error="insufficient_scope", scope="tools:call"`},
		{"good", "200", ""},
	} {
		hdr := statelessHeaders("tools/call", "whoami")
		if tc.token != "" {
			hdr["Authorization"] = "Bearer " + tc.token
		}
		resp := f.do(context.Background(), http.MethodPost, hdr, body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if itoa(resp.StatusCode) != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("token %q: %d %q %s", tc.token, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b)
		}
		if tc.token == "good" && !strings.Contains(string(b), `"alice"`) {
			t.Errorf("the auth context did not reach the handler: %s", b)
		}
	}
	resp, err := f.c.Get(prm)
	if err != nil {
		t.Fatal(err)
	}
	var md ProtectedResourceMetadata
	err = json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if err != nil || md.Resource != f.url || md.AuthorizationServers[0] != "https://as.example.com" {
		t.Fatalf("metadata %+v %v", md, err)
	}
}

func TestSessionLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	sid := f.initSession()
	hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}
	resp := f.do(context.Background(), http.MethodPost, hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(b), `"echo"`) {
		t.Fatalf("tools/list: %d %s", resp.StatusCode, b)
	}
	if n := f.h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions", n)
	}
	resp = f.do(context.Background(), http.MethodDelete, hdr, "")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	resp = f.do(context.Background(), http.MethodPost, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || decodeRPC(t, b).Error == nil {
		t.Fatalf("after DELETE: %d %s", resp.StatusCode, b)
	}
	if n := f.h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions after DELETE", n)
	}
}

func TestSessionExpiry(t *testing.T) {
	f := newFixture(t, Options{SessionIdleTimeout: 50 * time.Millisecond})
	// A session with an open GET stream does not expire. On a loaded
	// machine a session may expire before its GET arrives: then another is
	// tried, so the test does not depend on how fast it runs. (f.open
	// initializes only: initSession would fail if the session expired
	// before its notifications/initialized.)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var get *http.Response
	for {
		get = f.do(ctx, http.MethodGet, map[string]string{"Mcp-Session-Id": f.open(nil), "Accept": "text/event-stream"}, "")
		if get.StatusCode == http.StatusOK {
			break
		}
		get.Body.Close()
	}
	defer get.Body.Close()
	idle := f.open(nil)
	waitFor(t, func() bool { return f.h.SessionCount() == 1 })
	resp := f.do(context.Background(), http.MethodPost, map[string]string{"Mcp-Session-Id": idle}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("expired session: %d", resp.StatusCode)
	}
	cancel()
	waitFor(t, func() bool { return f.h.SessionCount() == 0 })
	// close takes the session out of the table before it forgets its
	// events: the store empties a moment later.
	waitFor(t, func() bool { return f.h.store.(*MemoryEventStore).sessionCount() == 0 })
}

func TestMaxSessions(t *testing.T) {
	f := newFixture(t, Options{MaxSessions: 2})
	f.initSession()
	f.initSession()
	resp := f.do(context.Background(), http.MethodPost, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+revOld+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("third session: %d", resp.StatusCode)
	}
}
