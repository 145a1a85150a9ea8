package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// revBatch is the one revision with JSON-RPC batches.
const revBatch = "2025-03-26"

// protoBatch is a stateful 2025-03-26 revision, built as the other test
// revisions are, with batches.
var protoBatch = func() *protocol.Protocol {
	p := testProtocol(revBatch, false)
	p.Batches = true
	return p
}()

// newBatchFixture serves 2025-11-25, 2025-03-26 and 2026-07-28.
func newBatchFixture(t *testing.T, o Options, wrap ...func(http.Handler) http.Handler) *fixture {
	t.Helper()
	return newFixtureOf(t, []*protocol.Protocol{protoOld, protoBatch, protoNew}, o, wrap...)
}

// initRev opens a session of revision rev and returns the headers of its
// requests.
func (f *fixture) initRev(rev string) map[string]string {
	f.t.Helper()
	resp := f.do(context.Background(), http.MethodPost, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+rev+`","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" || !strings.Contains(string(b), `"protocolVersion":"`+rev+`"`) {
		f.t.Fatalf("initialize %s: %d %s", rev, resp.StatusCode, b)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": rev}
	resp = f.do(context.Background(), http.MethodPost, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		f.t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return hdr
}

// toolCall is a tools/call request; token, when set, is its progressToken.
func toolCall(id, tool, args, token string) string {
	params := `"name":` + quote(tool)
	if args != "" {
		params += `,"arguments":` + args
	}
	if token != "" {
		params += `,"_meta":{"progressToken":` + quote(token) + `}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `}}`
}

func batchOf(elems ...string) string { return "[" + strings.Join(elems, ",") + "]" }

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

const (
	progressNote = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody","progress":1}}`
	acceptJSON   = "application/json"
	acceptSSE    = "text/event-stream"
	acceptBoth   = "application/json, text/event-stream"
)

// batchAnswer is what a batch POST got back.
type batchAnswer struct {
	status    int
	ct        string
	raw       []byte
	events    []sseEvent
	responses []rpc // every response, in order
	related   []rpc // every request and notification of the server
}

// decodeMessages decodes one message or a batch of them.
func decodeMessages(t *testing.T, b []byte) []rpc {
	t.Helper()
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		var ms []rpc
		if err := json.Unmarshal(b, &ms); err != nil {
			t.Fatalf("not a JSON-RPC batch: %v: %s", err, b)
		}
		return ms
	}
	return []rpc{decodeRPC(t, b)}
}

// readAnswer reads a whole response; an SSE stream is checked as every SSE
// response is, and each of its events must have a unique id of one stream.
func readAnswer(t *testing.T, resp *http.Response) batchAnswer {
	t.Helper()
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	a := batchAnswer{status: resp.StatusCode, ct: resp.Header.Get("Content-Type"), raw: raw}
	var data [][]byte
	switch {
	case a.ct == "text/event-stream":
		checkSSE(t, resp, raw)
		a.events = readEvents(t, &http.Response{Body: io.NopCloser(bytes.NewReader(raw))}, -1)
		ids, stream := map[string]bool{}, ""
		for i, ev := range a.events {
			if !ev.hasID || ids[ev.id] {
				t.Fatalf("event %d: id %q missing or repeated:\n%s", i, ev.id, raw)
			}
			ids[ev.id] = true
			s, _, _ := strings.Cut(ev.id, "_")
			if stream != "" && s != stream {
				t.Fatalf("event ids name different streams: %q, %q", stream, s)
			}
			stream = s
			if len(ev.data) > 0 {
				data = append(data, ev.data)
			}
		}
	case len(raw) > 0:
		data = append(data, raw)
	}
	for _, d := range data {
		for _, m := range decodeMessages(t, d) {
			if m.Method != "" {
				a.related = append(a.related, m)
			} else {
				a.responses = append(a.responses, m)
			}
		}
	}
	return a
}

// byID indexes responses by their id ("" for none), failing on repeats.
func byID(t *testing.T, ms []rpc) map[string]rpc {
	t.Helper()
	out := map[string]rpc{}
	for _, m := range ms {
		id := string(m.ID)
		if id == "null" {
			t.Fatalf("a response with a null id")
		}
		if _, dup := out[id]; dup && id != "" {
			t.Fatalf("two responses with id %s", id)
		}
		out[id] = m
	}
	return out
}

func TestBatch(t *testing.T) {
	f := newBatchFixture(t, Options{MaxBatchMessages: 4, MaxBodyBytes: 8192})
	sess := f.initRev(revBatch)
	old := f.initRev(revOld)
	stateless := statelessHeaders("tools/list", "")
	list := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + meta("") + `}}`
	}
	cancelled := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"test"}}`
	}
	tests := []struct {
		name   string
		hdr    map[string]string
		accept string
		body   string

		status int
		ct     string // the Content-Type of a 200
		// The error of a refused POST, which has no id.
		code int64
		msg  string
		// The responses of a 200: results by id (a substring of each),
		// errors by id ("" for none).
		results  map[string]string
		errs     map[string]int64
		noID     int // errors without an id
		progress int // notifications/progress on the stream
		// after runs once the POST is answered.
		after func(t *testing.T)
	}{
		{
			name: "two requests and a notification, SSE", hdr: sess, accept: acceptBoth,
			body:   batchOf(toolCall("1", "echo", `{"text":"one"}`, ""), progressNote, toolCall(`"p"`, "progress", "", "tok")),
			status: 200, ct: "text/event-stream", results: map[string]string{"1": "one", `"p"`: "done"}, progress: 3,
		},
		{
			name: "two requests and a notification, JSON only", hdr: sess, accept: acceptJSON,
			body:   batchOf(toolCall("1", "echo", `{"text":"one"}`, ""), progressNote, toolCall(`"p"`, "progress", "", "tok")),
			status: 200, ct: "application/json", results: map[string]string{"1": "one", `"p"`: "done"},
		},
		{
			name: "requests, SSE only", hdr: sess, accept: acceptSSE,
			body:   batchOf(toolCall("1", "echo", `{"text":"a"}`, ""), toolCall("2", "echo", `{"text":"b"}`, "")),
			status: 200, ct: "text/event-stream", results: map[string]string{"1": `"a"`, "2": `"b"`},
		},
		{
			name: "one request", hdr: sess, accept: acceptJSON,
			body:   batchOf(toolCall("1", "echo", `{"text":"a"}`, "")),
			status: 200, ct: "application/json", results: map[string]string{"1": `"a"`},
		},
		{
			name: "unknown method among requests", hdr: sess, accept: acceptJSON,
			body:   batchOf(`{"jsonrpc":"2.0","id":3,"method":"nope"}`, toolCall("4", "echo", `{"text":"x"}`, "")),
			status: 200, ct: "application/json", results: map[string]string{"4": `"x"`}, errs: map[string]int64{"3": -32601},
		},
		{name: "notifications only", hdr: sess, accept: acceptBoth, body: batchOf(progressNote, cancelled("999")), status: 202},
		{name: "responses only", hdr: sess, accept: acceptBoth, body: batchOf(`{"jsonrpc":"2.0","id":98,"result":{}}`, `{"jsonrpc":"2.0","id":99,"error":{"code":-1,"message":"no"}}`), status: 202},
		{name: "at the element limit", hdr: sess, accept: acceptBoth, body: batchOf(progressNote, progressNote, progressNote, progressNote), status: 202},
		{
			name: "every request cancelled, JSON only", hdr: sess, accept: acceptJSON,
			body:   batchOf(toolCall(`"c1"`, "block", `{"key":"c1"}`, ""), cancelled(`"c1"`)),
			status: 202,
			after:  func(t *testing.T) { <-f.ts.started; <-f.ts.cancelled },
		},
		{
			name: "every request cancelled, SSE", hdr: sess, accept: acceptBoth,
			body:   batchOf(toolCall(`"c2"`, "block", `{"key":"c2"}`, ""), cancelled(`"c2"`)),
			status: 202,
			after:  func(t *testing.T) { <-f.ts.started; <-f.ts.cancelled },
		},
		{
			name: "malformed elements among valid ones, JSON only", hdr: sess, accept: acceptJSON,
			body:   batchOf(toolCall("1", "echo", `{"text":"ok"}`, ""), `42`, `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, progressNote),
			status: 200, ct: "application/json", results: map[string]string{"1": `"ok"`}, errs: map[string]int64{"7": -32600, "": -32600}, noID: 1,
		},
		{
			name: "malformed elements among valid ones, SSE", hdr: sess, accept: acceptBoth,
			body:   batchOf(`[]`, toolCall("1", "echo", `{"text":"ok"}`, ""), `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`),
			status: 200, ct: "text/event-stream", results: map[string]string{"1": `"ok"`}, errs: map[string]int64{"": -32600}, noID: 2,
		},
		{
			name: "malformed elements only", hdr: sess, accept: acceptJSON,
			body:   batchOf(`"x"`, `{"jsonrpc":"2.0"}`),
			status: 200, ct: "application/json", errs: map[string]int64{"": -32600}, noID: 2,
		},
		{name: "empty batch", hdr: sess, accept: acceptBoth, body: `[]`, status: 400, code: -32600, msg: "empty batch"},
		{name: "empty batch, whitespace", hdr: sess, accept: acceptBoth, body: " [ \n ] ", status: 400, code: -32600, msg: "empty batch"},
		{name: "malformed JSON", hdr: sess, accept: acceptBoth, body: `[{"jsonrpc":"2.0",`, status: 400, code: -32700},
		{name: "over the body limit", hdr: sess, accept: acceptBoth, body: batchOf(toolCall("1", "echo", `{"text":"`+strings.Repeat("x", 5000)+`"}`, ""), toolCall("2", "echo", `{"text":"`+strings.Repeat("x", 5000)+`"}`, "")), status: 413, code: -32600, msg: "exceeds"},
		{name: "over the element limit", hdr: sess, accept: acceptBoth, body: batchOf(progressNote, progressNote, progressNote, progressNote, progressNote), status: 400, code: -32600, msg: "at most 4"},
		{
			name: "initialize in a batch", hdr: sess, accept: acceptBoth,
			body:   batchOf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+revBatch+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, toolCall("1", "echo", "", "")),
			status: 400, code: -32600, msg: "initialize must not be batched",
		},
		{
			name: "initialize in a batch without a session", accept: acceptBoth,
			body:   batchOf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + revBatch + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`),
			status: 400, code: -32600, msg: "initialize must not be batched",
		},
		{name: "on a 2025-11-25 session", hdr: old, accept: acceptBoth, body: batchOf(toolCall("1", "echo", "", "")), status: 400, code: -32600, msg: revOld},
		{name: "notifications on a 2025-11-25 session", hdr: old, accept: acceptBoth, body: batchOf(progressNote), status: 400, code: -32600, msg: "not supported"},
		{name: "stateless request", hdr: stateless, accept: acceptBoth, body: batchOf(list("1"), list("2")), status: 400, code: -32600, msg: "stateless"},
		{name: "stateless by _meta, with a session", hdr: sess, accept: acceptBoth, body: batchOf(list("1")), status: 400, code: -32600, msg: "stateless"},
		{name: "without a session", accept: acceptBoth, body: batchOf(toolCall("1", "echo", "", "")), status: 400, code: -32600, msg: "Mcp-Session-Id"},
		{name: "unknown session", hdr: map[string]string{"Mcp-Session-Id": "nope"}, accept: acceptBoth, body: batchOf(toolCall("1", "echo", "", "")), status: 404, code: -32600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := readAnswer(t, f.do(context.Background(), http.MethodPost, with(tc.hdr, "Accept", tc.accept), tc.body))
			if a.status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
			}
			if tc.after != nil {
				tc.after(t)
			}
			switch {
			case tc.status == 202:
				if len(a.raw) != 0 {
					t.Fatalf("202 with a body: %s", a.raw)
				}
				return
			case tc.code != 0:
				m := decodeRPC(t, a.raw)
				if m.Error == nil || m.Error.Code != tc.code || !strings.Contains(m.Error.Message, tc.msg) || len(m.ID) != 0 {
					t.Fatalf("want error %d %q without id: %s", tc.code, tc.msg, a.raw)
				}
				return
			}
			if a.ct != tc.ct {
				t.Fatalf("Content-Type %q, want %q", a.ct, tc.ct)
			}
			if tc.ct == "application/json" && !bytes.HasPrefix(a.raw, []byte("[")) {
				t.Fatalf("not a batch response: %s", a.raw)
			}
			if tc.ct == "text/event-stream" {
				if prime := a.events[0]; len(prime.data) != 0 || !prime.hasRetry {
					t.Fatalf("no priming event: %s", a.raw)
				}
			}
			if n := len(tc.results) + len(tc.errs) + max(tc.noID-1, 0); len(a.responses) != n {
				t.Fatalf("%d responses, want %d:\n%s", len(a.responses), n, a.raw)
			}
			noID := 0
			for _, m := range a.responses {
				if len(m.ID) == 0 {
					noID++
				}
			}
			if noID != tc.noID {
				t.Fatalf("%d errors without id, want %d:\n%s", noID, tc.noID, a.raw)
			}
			got := byID(t, a.responses)
			for id, want := range tc.results {
				if m, ok := got[id]; !ok || m.Error != nil || !strings.Contains(string(m.Result), want) {
					t.Errorf("response %s: %+v, want a result with %q", id, m, want)
				}
			}
			for id, code := range tc.errs {
				if m, ok := got[id]; !ok || m.Error == nil || m.Error.Code != code {
					t.Errorf("response %q: %+v, want error %d", id, m, code)
				}
			}
			progress := 0
			for _, m := range a.related {
				if m.Method == "notifications/progress" {
					progress++
				}
			}
			if progress != tc.progress {
				t.Errorf("%d progress notifications, want %d:\n%s", progress, tc.progress, a.raw)
			}
		})
	}
}

// TestBatchDuplicateID: a request whose id is in flight is refused in the
// batch's answer, and the request in flight is still answered.
func TestBatchDuplicateID(t *testing.T) {
	f := newBatchFixture(t, Options{})
	sess := f.initRev(revBatch)
	resp := f.do(context.Background(), http.MethodPost, sess, batchOf(toolCall("5", "gate", `{"key":"dup"}`, ""), `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`))
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	<-f.ts.started
	rd := newSSEReader(resp.Body, 1<<20)
	next := func() rpc {
		t.Helper()
		for {
			ev, err := rd.next()
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.data) > 0 {
				return decodeRPC(t, ev.data)
			}
		}
	}
	if m := next(); string(m.ID) != "5" || m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "duplicate") {
		t.Fatalf("duplicate: %+v", m)
	}
	close(f.ts.gate("dup"))
	if m := next(); string(m.ID) != "5" || !strings.Contains(string(m.Result), "opened dup") {
		t.Fatalf("result: %+v", m)
	}
	if _, err := rd.next(); err != io.EOF {
		t.Fatalf("the stream goes on after every response: %v", err)
	}
}

// TestBatchCancel: notifications/cancelled POSTed on its own cancels one
// request of a batch (it gets no response); the others are answered.
func TestBatchCancel(t *testing.T) {
	for _, accept := range []string{acceptJSON, acceptBoth} {
		t.Run(accept, func(t *testing.T) {
			f := newBatchFixture(t, Options{})
			sess := f.initRev(revBatch)
			res := make(chan *http.Response, 1)
			go func() {
				res <- f.do(context.Background(), http.MethodPost, with(sess, "Accept", accept), batchOf(
					toolCall(`"b"`, "block", `{"key":"b"}`, ""), toolCall(`"g"`, "gate", `{"key":"g"}`, "")))
			}()
			<-f.ts.started
			<-f.ts.started
			c := f.do(context.Background(), http.MethodPost, sess, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b","reason":"test"}}`)
			c.Body.Close()
			if c.StatusCode != 202 {
				t.Fatalf("cancelled: %d", c.StatusCode)
			}
			if k := <-f.ts.cancelled; k != "b" {
				t.Fatal(k)
			}
			close(f.ts.gate("g"))
			a := readAnswer(t, <-res)
			if a.status != 200 || len(a.responses) != 1 || string(a.responses[0].ID) != `"g"` || !strings.Contains(string(a.responses[0].Result), "opened g") {
				t.Fatalf("%d %s", a.status, a.raw)
			}
		})
	}
}

// TestBatchServerRequests: the requests of a batch call the client, whose
// responses come back as a batch of responses.
func TestBatchServerRequests(t *testing.T) {
	f := newBatchFixture(t, Options{})
	sess := f.initRev(revBatch)
	resp := f.do(context.Background(), http.MethodPost, sess, batchOf(toolCall("1", "sample", "", ""), toolCall("2", "sample", "", "")))
	defer resp.Body.Close()
	rd := newSSEReader(resp.Body, 1<<20)
	var calls []rpc
	for len(calls) < 2 {
		ev, err := rd.next()
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.data) > 0 {
			calls = append(calls, decodeRPC(t, ev.data))
		}
	}
	var answers []string
	for _, c := range calls {
		if c.Method != "sampling/createMessage" || len(c.ID) == 0 {
			t.Fatalf("not a request to the client: %+v", c)
		}
		answers = append(answers, `{"jsonrpc":"2.0","id":`+string(c.ID)+`,"result":{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}}`)
	}
	a := readAnswer(t, f.do(context.Background(), http.MethodPost, sess, batchOf(answers...)))
	if a.status != 202 || len(a.raw) != 0 {
		t.Fatalf("responses: %d %s", a.status, a.raw)
	}
	var ids []string
	for {
		ev, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.data) == 0 {
			continue
		}
		m := decodeRPC(t, ev.data)
		if !strings.Contains(string(m.Result), `sampled {\"role\":\"assistant\"`) {
			t.Fatalf("result %s", ev.data)
		}
		ids = append(ids, string(m.ID))
	}
	sort.Strings(ids)
	if strings.Join(ids, ",") != "1,2" {
		t.Fatalf("responses to %v", ids)
	}
}

// TestBatchResume: the SSE stream of a batch is cut; resuming it with
// Last-Event-ID delivers what is left, every event exactly once. The two
// requests of the batch run together (both wait on their gates).
func TestBatchResume(t *testing.T) {
	for _, tc := range []struct {
		name string
		// releaseFirst: the batch finishes while no client is attached;
		// otherwise the GET attaches first and gets the rest live.
		releaseFirst bool
	}{
		{"events stored while detached", true},
		{"events delivered live after the replay", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newBatchFixture(t, Options{})
			sess := f.initRev(revBatch)
			k1, k2 := tc.name+"-1", tc.name+"-2"
			ctx, cancel := context.WithCancel(context.Background())
			resp := f.do(ctx, http.MethodPost, sess, batchOf(
				toolCall("1", "gate", `{"key":`+quote(k1)+`}`, "g1"),
				toolCall("2", "gate", `{"key":`+quote(k2)+`}`, "g2")))
			first := cutAfter(t, resp, cancel, `"progress":1`)
			<-f.ts.started
			<-f.ts.started
			release := func() {
				close(f.ts.gate(k1))
				close(f.ts.gate(k2))
			}
			if tc.releaseFirst {
				release()
				waitFor(t, func() bool {
					s := f.session(sess["Mcp-Session-Id"])
					s.mu.Lock()
					defer s.mu.Unlock()
					return len(s.streams) == 0
				})
			}
			hdr := with(sess, "Accept", "text/event-stream", "Last-Event-ID", first[len(first)-1].id)
			get := f.do(context.Background(), http.MethodGet, hdr, "")
			if get.StatusCode != 200 {
				b, _ := io.ReadAll(get.Body)
				t.Fatalf("resume: %d %s", get.StatusCode, b)
			}
			if !tc.releaseFirst {
				// The GET is attached once its headers are out.
				release()
			}
			raw, _ := io.ReadAll(get.Body)
			get.Body.Close()
			checkSSE(t, get, raw)
			rest := readEvents(t, &http.Response{Body: io.NopCloser(bytes.NewReader(raw))}, -1)
			ids := map[string]bool{}
			var data []string
			for _, ev := range append(first, rest...) {
				if ev.hasID {
					if ids[ev.id] {
						t.Fatalf("event %s delivered twice", ev.id)
					}
					ids[ev.id] = true
				}
				if len(ev.data) > 0 {
					data = append(data, string(ev.data))
				}
			}
			want := []string{
				`"progressToken":"g1","progress":1`, `"progressToken":"g1","progress":2`,
				`"progressToken":"g2","progress":1`, `"progressToken":"g2","progress":2`,
				`"id":1,"result":{"content":[{"type":"text","text":"opened ` + k1,
				`"id":2,"result":{"content":[{"type":"text","text":"opened ` + k2,
			}
			if len(data) != len(want) {
				t.Fatalf("%d events, want %d:\n%s", len(data), len(want), strings.Join(data, "\n"))
			}
			for _, w := range want {
				n := 0
				for _, d := range data {
					if strings.Contains(d, w) {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("%q in %d events:\n%s", w, n, strings.Join(data, "\n"))
				}
			}
		})
	}
}

// TestClientBatchedMessages: the client takes a server's batch, in a JSON
// body and in an SSE event: each element is dispatched (the notification
// to the handler, the request to the handler with its response POSTed
// back, the response to the call); invalid elements are ignored.
func TestClientBatchedMessages(t *testing.T) {
	for _, tc := range []struct {
		name string
		sse  bool
	}{{"JSON body", false}, {"SSE event", true}} {
		t.Run(tc.name, func(t *testing.T) {
			posted := make(chan string, 1)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var m rpc
				if err := json.Unmarshal(body, &m); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				if m.Method == "" {
					posted <- string(body) // the client's response
					w.WriteHeader(http.StatusAccepted)
					return
				}
				batch := batchOf(
					`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"batched"}}`,
					`{"jsonrpc":"2.0","id":"s1","method":"ping"}`,
					`42`,
					`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"ok":true}}`)
				if tc.sse {
					sseHeaders(w)
					_, _ = w.Write([]byte("data: " + batch + "\n\n"))
					return
				}
				writeJSON(w, http.StatusOK, []byte(batch))
			}))
			defer hs.Close()
			var mu sync.Mutex
			var seen []string
			h := jsonrpc.HandlerFunc(func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
				mu.Lock()
				seen = append(seen, r.Method)
				mu.Unlock()
				if r.Method == "ping" {
					return wire.Raw(`{}`), nil
				}
				return nil, nil
			})
			conn, err := (&ClientTransport{URL: hs.URL + "/mcp"}).Dial(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			var res wire.Raw
			if err := conn.CallWithID(context.Background(), "tools/list", nil, res.Into(), nil); err != nil || string(res) != `{"ok":true}` {
				t.Fatalf("call: %v %s", err, res)
			}
			if got := decodeRPC(t, []byte(<-posted)); string(got.ID) != `"s1"` || string(got.Result) != `{}` {
				t.Fatalf("the client's response: %+v", got)
			}
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			sort.Strings(seen)
			if strings.Join(seen, ",") != "notifications/message,ping" {
				t.Fatalf("handled %v", seen)
			}
		})
	}
}
