package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// The bad-input catalogue: what a clumsy or hostile client sends, over
// stdio and Streamable HTTP, in both eras, each answered with exactly the
// error its revision asks for, and the server still serving the same
// connection (or session) right after.

const (
	initLegacy = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"catalogue","version":"1"}}}`
	initDone   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	// meta26 is the _meta of a stateless request; caps26 its capabilities.
	meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// reply is one JSON-RPC response.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// outcome is what a case expects: an error code, a tool result with
// isError, or no answer at all (a notification).
type outcome struct {
	code    int64
	isError bool
	nothing bool
	// data, when set, must appear in the error's data; text in the
	// isError result.
	data, text string
}

func (o outcome) String() string {
	switch {
	case o.nothing:
		return "no answer"
	case o.isError:
		return "a tool result with isError"
	}
	return fmt.Sprint("error ", o.code)
}

func (o outcome) check(t *testing.T, r *reply) {
	t.Helper()
	switch {
	case o.nothing:
		t.Errorf("want no answer, got %s", show(r))
	case o.isError:
		if r.Error != nil || !strings.Contains(string(r.Result), `"isError":true`) || !strings.Contains(string(r.Result), o.text) {
			t.Errorf("want %s with %q, got %s", o, o.text, show(r))
		}
	case r.Error == nil || r.Error.Code != o.code:
		t.Errorf("want %s, got %s", o, show(r))
	case o.data != "" && !strings.Contains(string(r.Error.Data), o.data):
		t.Errorf("want data with %s, got %s", o.data, show(r))
	}
}

func show(r *reply) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// fullServer is the server bin/everything runs, in process, validating
// its results (as a test binary does by default).
func fullServer(t *testing.T) *rt.Server {
	srv, err := newEverything(slog.New(slog.DiscardHandler), rt.ValidateResultsAuto, nil, sharedState{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// stdioPeer talks to a server over in-process pipes carrying the stdio
// framing.
type stdioPeer struct {
	t   *testing.T
	w   io.WriteCloser
	out chan string
}

func newStdioPeer(t *testing.T, srv *rt.Server) *stdioPeer {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- stdio.Serve(context.Background(), srv, sr, sw, stdio.Options{MaxMessageSize: 64 << 10})
		sw.Close()
	}()
	p := &stdioPeer{t: t, w: cw, out: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(cr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.out <- sc.Text()
		}
		close(p.out)
	}()
	t.Cleanup(func() {
		cw.Close()
		if err := <-served; err != nil {
			t.Errorf("stdio.Serve: %v", err)
		}
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *stdioPeer) recv() *reply {
	p.t.Helper()
	select {
	case line, ok := <-p.out:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			p.t.Fatalf("not JSON-RPC: %s", line)
		}
		return &r
	case <-time.After(10 * time.Second):
		p.t.Fatal("no answer")
		return nil
	}
}

// alive checks that the connection still serves: the answer to a probe
// (ping, or server/discover statelessly) is the next message.
func (p *stdioPeer) alive(stateless bool) {
	p.t.Helper()
	probe := `{"jsonrpc":"2.0","id":"alive","method":"ping"}`
	if stateless {
		probe = `{"jsonrpc":"2.0","id":"alive","method":"server/discover","params":{` + meta26 + `}}`
	}
	p.send(probe)
	r := p.recv()
	if string(r.ID) != `"alive"` || r.Error != nil {
		p.t.Fatalf("after the bad input the probe got %s", show(r))
	}
}

var longLine = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 70<<10) + `"}}`

var deepLine = `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001) + `}`

func call25(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

func call26(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + meta26 + `}}`
}

// TestBadInputStdio: the catalogue over stdio. era is the state of the
// connection the line arrives on: "fresh" (nothing sent yet), "legacy" (an
// initialized 2025-11-25 session) or "modern" (stateless requests).
func TestBadInputStdio(t *testing.T) {
	tests := []struct {
		name, era, line string
		want            outcome
	}{
		// Framing and JSON-RPC, whatever the era.
		{"malformed JSON", "fresh", `{"jsonrpc":"2.0","id":1,"method":`, outcome{code: -32700}},
		{"a string, not an object", "fresh", `"hello"`, outcome{code: -32600}},
		{"an empty batch", "fresh", `[]`, outcome{code: -32600}},
		{"a batch before any revision with batches", "legacy", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, outcome{code: -32600}},
		{"jsonrpc 1.0", "fresh", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, outcome{code: -32600}},
		{"no jsonrpc member", "fresh", `{"id":1,"method":"ping"}`, outcome{code: -32600}},
		{"a fractional id", "fresh", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, outcome{code: -32600}},
		{"a null id", "fresh", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, outcome{code: -32600}},
		{"an object id", "fresh", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, outcome{code: -32600}},
		{"a numeric method", "fresh", `{"jsonrpc":"2.0","id":1,"method":5}`, outcome{code: -32600}},
		{"scalar params", "fresh", `{"jsonrpc":"2.0","id":1,"method":"ping","params":5}`, outcome{code: -32600}},
		{"neither method nor result", "fresh", `{"jsonrpc":"2.0","id":1}`, outcome{code: -32600}},
		{"method and result", "fresh", `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, outcome{code: -32600}},
		{"nesting beyond the limit", "fresh", deepLine, outcome{code: -32700}},
		{"invalid UTF-8", "fresh", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", outcome{code: -32700}},
		{"a line over MaxMessageSize", "fresh", longLine, outcome{code: -32600}},
		{"a response nobody asked for", "fresh", `{"jsonrpc":"2.0","id":99,"result":{}}`, outcome{nothing: true}},
		// Before initialize.
		{"tools/list before initialize", "fresh", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, outcome{code: -32600}},
		{"initialize with a numeric protocolVersion", "fresh", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, outcome{code: -32602}},
		{"initialize without clientInfo", "fresh", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, outcome{code: -32602}},
		// A 2025-11-25 session.
		{"initialize twice", "legacy", initLegacy, outcome{code: -32600}},
		{"an unknown method", "legacy", `{"jsonrpc":"2.0","id":1,"method":"tools/frobnicate"}`, outcome{code: -32601}},
		{"a server-to-client method", "legacy", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`, outcome{code: -32601}},
		{"notifications/initialized with an id", "legacy", `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`, outcome{code: -32600}},
		{"notifications/cancelled with an id", "legacy", `{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":7}}`, outcome{code: -32600}},
		{"notifications/progress with an id", "legacy", `{"jsonrpc":"2.0","id":1,"method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, outcome{code: -32600}},
		{"tools/call as a notification", "legacy", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, outcome{nothing: true}},
		{"ping with array params", "legacy", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}`, outcome{code: -32602}},
		{"tools/call without params", "legacy", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, outcome{code: -32602}},
		{"tools/call with a numeric name", "legacy", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, outcome{code: -32602}},
		{"tools/call with string arguments", "legacy", call25("1", "echo", `"text"`), outcome{code: -32602}},
		{"tools/call with array arguments", "legacy", call25("1", "echo", `["text"]`), outcome{code: -32602}},
		{"tools/call with null arguments", "legacy", call25("1", "echo", `null`), outcome{code: -32602}},
		{"tools/call with arguments breaking the inputSchema", "legacy", call25("1", "slow", `{"seconds":"soon"}`), outcome{isError: true}},
		{"tools/call with an object progressToken", "legacy", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":{"a":1}}}}`, outcome{code: -32602, data: `/params/_meta/progressToken`}},
		{"tools/call with a fractional progressToken", "legacy", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":1.5}}}`, outcome{code: -32602}},
		{"tools/call of a task-only tool without a task", "legacy", call25("1", "failing_job", `{}`), outcome{code: -32601}},
		{"logging/setLevel to an unknown level", "legacy", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`, outcome{code: -32602}},
		{"resources/read of an unknown resource", "legacy", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://nope"}}`, outcome{code: -32002}},
		{"prompts/get without a name", "legacy", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{}}`, outcome{code: -32602}},
		{"tasks/get of an unknown task", "legacy", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"nope"}}`, outcome{code: -32602}},
		{"a request id already in flight", "legacy", "", outcome{code: -32600}}, // see below
		// Stateless requests (2026-07-28).
		{"an unsupported _meta protocolVersion", "modern", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, outcome{code: -32022, data: `"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`}},
		{"no clientCapabilities", "modern", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, outcome{code: -32602}},
		{"ping, which 2026-07-28 removed", "modern", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta26 + `}}`, outcome{code: -32601}},
		{"initialize, which 2026-07-28 removed", "modern", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"},` + meta26 + `}}`, outcome{code: -32601}},
		{"an unknown method", "modern", `{"jsonrpc":"2.0","id":1,"method":"tools/frobnicate","params":{` + meta26 + `}}`, outcome{code: -32601}},
		{"notifications/cancelled with an id", "modern", `{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":7,` + meta26 + `}}`, outcome{code: -32600}},
		{"tools/call with string arguments", "modern", call26("1", "echo", `"text"`), outcome{code: -32602}},
		// Every violation is shown, not the first: the misnamed argument
		// and the one it should have been.
		{"tools/call with a misnamed argument", "modern", call26("1", "echo", `{"message":"hi"}`), outcome{isError: true, text: "/message: unknown member; /text: required"}},
		{"tools/call with a fractional progressToken", "modern", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":1.5,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, outcome{code: -32602}},
		{"tools/call with a null progressToken", "modern", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":null,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, outcome{code: -32602}},
		{"tools/call without a name", "modern", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta26 + `}}`, outcome{code: -32602}},
		{"tools/call with arguments breaking the inputSchema", "modern", call26("1", "slow", `{"seconds":"soon"}`), outcome{isError: true}},
		{"resources/read of an unknown resource", "modern", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://nope",` + meta26 + `}}`, outcome{code: -32602}},
		{"a tampered requestState", "modern", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_input_required_result_request_state","arguments":{},"requestState":"AAAA",` + meta26 + `}}`, outcome{code: -32602}},
		{"a tool needing elicitation, undeclared", "modern", call26("1", "test_streaming_elicitation", `{}`), outcome{code: -32021}},
		{"tasks/get without the tasks extension", "modern", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"nope",` + meta26 + `}}`, outcome{code: -32021}},
	}
	for _, tt := range tests {
		t.Run(tt.era+"/"+tt.name, func(t *testing.T) {
			p := newStdioPeer(t, fullServer(t))
			if tt.era == "legacy" {
				p.send(initLegacy)
				if r := p.recv(); r.Error != nil {
					t.Fatalf("initialize: %s", show(r))
				}
				p.send(initDone)
			}
			line := tt.line
			if line == "" { // a duplicate id: the first call still runs
				p.send(call25("7", "slow", `{"seconds":0.3}`))
				line = call25("7", "echo", `{"text":"x"}`)
				defer func() {
					if r := p.recv(); string(r.ID) != "7" || r.Error != nil {
						t.Errorf("the first request: %s", show(r))
					}
				}()
			}
			p.send(line)
			if tt.want.nothing {
				p.alive(tt.era == "modern")
				return
			}
			tt.want.check(t, p.recv())
			p.alive(tt.era == "modern")
		})
	}
}

// httpPeer talks to the server over Streamable HTTP, in process.
type httpPeer struct {
	t   *testing.T
	url string
	sid string // the session of the legacy cases
}

func newHTTPPeer(t *testing.T) *httpPeer {
	h := streamhttp.NewHandler(fullServer(t), streamhttp.Options{MaxBodyBytes: 64 << 10})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		hs.Close()
	})
	return &httpPeer{t: t, url: hs.URL + "/mcp"}
}

// post sends body with the headers of hdr (a "" value deletes a default
// one) and returns the status and the JSON-RPC reply (nil without one).
func (p *httpPeer) post(method, body string, hdr map[string]string) (int, *reply) {
	p.t.Helper()
	req, err := http.NewRequest(method, p.url, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		p.sid = sid
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The last data line is the response.
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if d, ok := strings.CutPrefix(lines[i], "data: "); ok && d != "" {
				b = []byte(d)
				break
			}
		}
	}
	var r reply
	if json.Unmarshal(b, &r) != nil || (r.Result == nil && r.Error == nil) {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, &r
}

func headers26(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func (p *httpPeer) sessionHeaders() map[string]string {
	return map[string]string{"Mcp-Session-Id": p.sid, "MCP-Protocol-Version": "2025-11-25"}
}

// alive checks both eras still serve: a stateless server/discover and, in
// the session, tools/list.
func (p *httpPeer) alive() {
	p.t.Helper()
	if st, r := p.post(http.MethodPost, `{"jsonrpc":"2.0","id":"alive","method":"server/discover","params":{`+meta26+`}}`, headers26("server/discover", "")); st != 200 || r == nil || r.Error != nil {
		p.t.Fatalf("stateless probe after the bad input: %d %s", st, show(r))
	}
	if st, r := p.post(http.MethodPost, `{"jsonrpc":"2.0","id":"alive","method":"tools/list"}`, p.sessionHeaders()); st != 200 || r == nil || r.Error != nil {
		p.t.Fatalf("session probe after the bad input: %d %s", st, show(r))
	}
}

// TestBadInputHTTP: the catalogue over Streamable HTTP. Every case runs on
// a server with an initialized 2025-11-25 session; "session" marks a POST
// that names it.
func TestBadInputHTTP(t *testing.T) {
	list26 := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta26 + `}}`
	tests := []struct {
		name    string
		method  string // HTTP method, default POST
		body    string
		hdr     map[string]string
		session bool
		status  int
		want    outcome // code 0 with !nothing: any body, or none
	}{
		// HTTP rules.
		{name: "a foreign Origin", body: list26, hdr: map[string]string{"Origin": "https://evil.example.com", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, status: 403, want: outcome{code: -32600}},
		{name: "a foreign Host", body: list26, hdr: map[string]string{"Host": "evil.example.com", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, status: 403, want: outcome{code: -32600}},
		{name: "Content-Type text/plain", body: list26, hdr: map[string]string{"Content-Type": "text/plain", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, status: 415, want: outcome{code: -32600}},
		{name: "Accept text/html only", body: list26, hdr: map[string]string{"Accept": "text/html", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, status: 406, want: outcome{code: -32600}},
		{name: "a body over MaxBodyBytes", body: longLine, hdr: headers26("ping", ""), status: 413, want: outcome{code: -32600}},
		{name: "PUT", method: http.MethodPut, body: list26, status: 405, want: outcome{code: -32600}},
		{name: "GET on the stateless era", method: http.MethodGet, hdr: map[string]string{"MCP-Protocol-Version": "2026-07-28", "Accept": "text/event-stream"}, status: 405, want: outcome{code: -32600}},
		{name: "DELETE on the stateless era", method: http.MethodDelete, hdr: map[string]string{"MCP-Protocol-Version": "2026-07-28"}, status: 405, want: outcome{code: -32600}},
		// JSON-RPC.
		{name: "malformed JSON", body: `{"jsonrpc":"2.0",`, hdr: headers26("tools/list", ""), status: 400, want: outcome{code: -32700}},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":1,"method":"tools/list","params":{` + meta26 + `}}`, hdr: headers26("tools/list", ""), status: 400, want: outcome{code: -32600}},
		{name: "a batch on the stateless era", body: `[` + list26 + `]`, hdr: headers26("tools/list", ""), status: 400, want: outcome{code: -32600}},
		{name: "a response POSTed statelessly", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, hdr: headers26("", ""), status: 400, want: outcome{code: -32600}},
		// Stateless rules.
		{name: "no MCP-Protocol-Version header", body: list26, hdr: map[string]string{"Mcp-Method": "tools/list"}, status: 400, want: outcome{code: -32020}},
		{name: "MCP-Protocol-Version unlike _meta", body: list26, hdr: map[string]string{"MCP-Protocol-Version": "2026-07-29", "Mcp-Method": "tools/list"}, status: 400, want: outcome{code: -32020}},
		{name: "no Mcp-Method header", body: list26, hdr: map[string]string{"MCP-Protocol-Version": "2026-07-28"}, status: 400, want: outcome{code: -32020}},
		{name: "Mcp-Method unlike the method", body: list26, hdr: headers26("prompts/list", ""), status: 400, want: outcome{code: -32020}},
		{name: "Mcp-Name unlike params.name", body: call26("1", "echo", `{"text":"x"}`), hdr: headers26("tools/call", "other"), status: 400, want: outcome{code: -32020}},
		{name: "MCP-Protocol-Version 1999-01-01 and no _meta", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, hdr: map[string]string{"MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/list"}, status: 400, want: outcome{code: -32022, data: `"requested":"1999-01-01"`}},
		{name: "an unsupported _meta version", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, hdr: map[string]string{"MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/list"}, status: 400, want: outcome{code: -32022, data: `"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`}},
		{name: "ping on 2026-07-28 without _meta", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, hdr: headers26("ping", ""), status: 404, want: outcome{code: -32601}},
		{name: "ping on 2026-07-28 with _meta", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta26 + `}}`, hdr: headers26("ping", ""), status: 404, want: outcome{code: -32601}},
		{name: "an unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"tools/frobnicate","params":{` + meta26 + `}}`, hdr: headers26("tools/frobnicate", ""), status: 404, want: outcome{code: -32601}},
		{name: "notifications/cancelled with an id", body: `{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":1,` + meta26 + `}}`, hdr: headers26("notifications/cancelled", ""), status: 400, want: outcome{code: -32600}},
		{name: "no _meta", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, hdr: headers26("tools/list", ""), status: 400, want: outcome{code: -32602}},
		{name: "tools/call with string arguments", body: call26("1", "echo", `"text"`), hdr: headers26("tools/call", "echo"), status: 400, want: outcome{code: -32602}},
		{name: "tools/call with arguments breaking the inputSchema", body: call26("1", "slow", `{"seconds":"soon"}`), hdr: headers26("tools/call", "slow"), status: 200, want: outcome{isError: true}},
		{name: "a tool needing elicitation, undeclared", body: call26("1", "test_streaming_elicitation", `{}`), hdr: headers26("tools/call", "test_streaming_elicitation"), status: 400, want: outcome{code: -32021}},
		{name: "a stateless notification", body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,` + meta26 + `}}`, hdr: headers26("notifications/cancelled", ""), status: 202, want: outcome{nothing: true}},
		// The stateful era.
		{name: "no Mcp-Session-Id", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, hdr: map[string]string{"MCP-Protocol-Version": "2025-11-25"}, status: 400, want: outcome{code: -32600}},
		{name: "an unknown Mcp-Session-Id", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, hdr: map[string]string{"Mcp-Session-Id": "nope", "MCP-Protocol-Version": "2025-11-25"}, status: 404, want: outcome{code: -32600}},
		{name: "a session with MCP-Protocol-Version 2024-10-07 (not a revision)", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, session: true, hdr: map[string]string{"MCP-Protocol-Version": "2024-10-07"}, status: 400, want: outcome{code: -32600}},
		{name: "notifications/initialized with an id", body: `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`, session: true, status: 200, want: outcome{code: -32600}},
		{name: "an unknown method in a session", body: `{"jsonrpc":"2.0","id":1,"method":"tools/frobnicate"}`, session: true, status: 200, want: outcome{code: -32601}},
		{name: "tools/call with array arguments in a session", body: call25("1", "echo", `[1]`), session: true, status: 200, want: outcome{code: -32602}},
		{name: "a batch in a 2025-11-25 session", body: `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, session: true, status: 400, want: outcome{code: -32600}},
		{name: "initialize in a session", body: initLegacy, session: true, status: 200, want: outcome{code: -32600}},
		{name: "GET without Accept text/event-stream", method: http.MethodGet, session: true, hdr: map[string]string{"Accept": "application/json"}, status: 406, want: outcome{code: -32600}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newHTTPPeer(t)
			if st, r := p.post(http.MethodPost, initLegacy, nil); st != 200 || r == nil || r.Error != nil {
				t.Fatalf("initialize: %d %s", st, show(r))
			}
			p.post(http.MethodPost, initDone, p.sessionHeaders())
			hdr := map[string]string{}
			if tt.session {
				hdr = p.sessionHeaders()
			}
			for k, v := range tt.hdr {
				hdr[k] = v
			}
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			st, r := p.post(method, tt.body, hdr)
			if st != tt.status {
				t.Errorf("status %d, want %d (%s)", st, tt.status, show(r))
			}
			switch {
			case tt.want.nothing:
				if r != nil {
					t.Errorf("want no answer, got %s", show(r))
				}
			case r == nil:
				t.Errorf("want %s, got no JSON-RPC answer", tt.want)
			default:
				tt.want.check(t, r)
			}
			p.alive()
		})
	}
}
