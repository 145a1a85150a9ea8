package streamhttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/listen"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func mustServer(t *testing.T) *mcp.Server {
	t.Helper()
	ts := newTestServer()
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "test", Version: "1", ListChanged: true, Features: []mcp.Feature{listen.Feature(listen.Options{})}},
		mcp.Mount{Protocol: protoOld, Handler: ts}, mcp.Mount{Protocol: protoNew, Handler: ts})
	if err != nil {
		t.Fatal(err)
	}
	ts.srv = srv
	return srv
}

func sessHeaders(sid string) map[string]string {
	return map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}
}

// checkSSE checks what every SSE response must be: its type, and each data
// field one line of JSON.
func checkSSE(t *testing.T, resp *http.Response, raw []byte) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && d != "" && !json.Valid([]byte(d)) {
			t.Fatalf("data line is not one JSON value: %q", line)
		}
	}
}

func TestStatefulSSE(t *testing.T) {
	f := newFixture(t, Options{RetryInterval: 250 * time.Millisecond})
	sid := f.initSession()
	tests := []struct {
		name     string
		accept   string
		wantSSE  bool
		progress int
	}{
		{"SSE when related messages come first", "application/json, text/event-stream", true, 3},
		{"JSON for a client without SSE", "application/json", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hdr := sessHeaders(sid)
			hdr["Accept"] = tc.accept
			resp := f.do(context.Background(), http.MethodPost, hdr, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"tok"}}}`)
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !tc.wantSSE {
				if m := decodeRPC(t, raw); resp.Header.Get("Content-Type") != "application/json" || m.Error != nil || !strings.Contains(string(m.Result), "done") {
					t.Fatalf("%s", raw)
				}
				return
			}
			checkSSE(t, resp, raw)
			evs := readEvents(t, &http.Response{Body: io.NopCloser(bytes.NewReader(raw))}, -1)
			if len(evs) != 1+tc.progress+2 {
				t.Fatalf("%d events: %s", len(evs), raw)
			}
			prime := evs[0]
			if !prime.hasID || len(prime.data) != 0 || !prime.hasRetry || prime.retry != 250*time.Millisecond {
				t.Fatalf("priming event %+v", prime)
			}
			seen := map[string]bool{}
			stream := ""
			for i, ev := range evs {
				if !ev.hasID || seen[ev.id] {
					t.Fatalf("event %d: id %q missing or repeated", i, ev.id)
				}
				seen[ev.id] = true
				s, _, _ := strings.Cut(ev.id, "_")
				if stream != "" && s != stream {
					t.Fatalf("event ids name different streams: %q, %q", stream, s)
				}
				stream = s
			}
			for i := 1; i <= tc.progress; i++ {
				if m := decodeRPC(t, evs[i].data); m.Method != "notifications/progress" {
					t.Fatalf("event %d: %s", i, evs[i].data)
				}
			}
			if m := decodeRPC(t, evs[len(evs)-2].data); m.Method != "notifications/message" {
				t.Fatalf("log: %s", evs[len(evs)-2].data)
			}
			if m := decodeRPC(t, evs[len(evs)-1].data); string(m.ID) != `"c1"` || !strings.Contains(string(m.Result), "done") {
				t.Fatalf("last event: %s", evs[len(evs)-1].data)
			}
		})
	}
}

// cutAfter reads an SSE response up to and including the event with data
// whose JSON contains marker, then cuts the connection. It returns the ids
// of the events read.
func cutAfter(t *testing.T, resp *http.Response, cancel context.CancelFunc, marker string) []sseEvent {
	t.Helper()
	rd := newSSEReader(resp.Body, 1<<20)
	var evs []sseEvent
	for {
		ev, err := rd.next()
		if err != nil {
			t.Fatalf("stream ended before %q: %v", marker, err)
		}
		evs = append(evs, ev)
		if bytes.Contains(ev.data, []byte(marker)) {
			break
		}
	}
	cancel()
	resp.Body.Close()
	return evs
}

func TestResume(t *testing.T) {
	tests := []struct {
		name string
		// releaseFirst: the call finishes while no client is attached
		// (its later events go only to the store); otherwise the GET
		// attaches first and gets them live.
		releaseFirst bool
	}{
		{"events stored while detached", true},
		{"events delivered live after the replay", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			sid := f.initSession()
			key := strings.ReplaceAll(tc.name, " ", "-")
			ctx, cancel := context.WithCancel(context.Background())
			resp := f.do(ctx, http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"gate","arguments":{"key":"`+key+`"},"_meta":{"progressToken":"g"}}}`)
			first := cutAfter(t, resp, cancel, `"progress":1`)
			<-f.ts.started
			last := first[len(first)-1].id
			// The disconnection does not cancel the call.
			select {
			case k := <-f.ts.cancelled:
				t.Fatalf("call %s cancelled by a disconnection", k)
			case <-time.After(50 * time.Millisecond):
			}
			if tc.releaseFirst {
				close(f.ts.gate(key))
				// Wait until the call is done: its stream leaves the session.
				waitFor(t, func() bool {
					s := f.session(sid)
					s.mu.Lock()
					defer s.mu.Unlock()
					return len(s.streams) == 0
				})
			}
			hdr := sessHeaders(sid)
			hdr["Accept"] = "text/event-stream"
			hdr["Last-Event-ID"] = last
			get := f.do(context.Background(), http.MethodGet, hdr, "")
			if get.StatusCode != 200 {
				b, _ := io.ReadAll(get.Body)
				t.Fatalf("resume: %d %s", get.StatusCode, b)
			}
			if !tc.releaseFirst {
				go func() {
					time.Sleep(50 * time.Millisecond)
					close(f.ts.gate(key))
				}()
			}
			raw, _ := io.ReadAll(get.Body)
			get.Body.Close()
			checkSSE(t, get, raw)
			rest := readEvents(t, &http.Response{Body: io.NopCloser(bytes.NewReader(raw))}, -1)
			var data []string
			ids := map[string]bool{}
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
			if len(data) != 3 || !strings.Contains(data[0], `"progress":1`) || !strings.Contains(data[1], `"progress":2`) || !strings.Contains(data[2], `"opened `+key) {
				t.Fatalf("events:\n%s", strings.Join(data, "\n"))
			}
			// Resuming again from the end gets nothing more.
			hdr["Last-Event-ID"] = rest[len(rest)-1].id
			again := f.do(context.Background(), http.MethodGet, hdr, "")
			raw, _ = io.ReadAll(again.Body)
			again.Body.Close()
			if again.StatusCode != 200 || bytes.Contains(raw, []byte("data: {")) {
				t.Fatalf("second resume: %d %s", again.StatusCode, raw)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServerToClientRequest(t *testing.T) {
	f := newFixture(t, Options{})
	sid := f.initSession()
	resp := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}}`)
	defer resp.Body.Close()
	rd := newSSEReader(resp.Body, 1<<20)
	var req rpc
	for req.Method == "" {
		ev, err := rd.next()
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.data) > 0 {
			req = decodeRPC(t, ev.data)
		}
	}
	if req.Method != "sampling/createMessage" || len(req.ID) == 0 {
		t.Fatalf("request %+v", req)
	}
	answer := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}}`)
	answer.Body.Close()
	if answer.StatusCode != 202 {
		t.Fatalf("response POST: %d", answer.StatusCode)
	}
	for {
		ev, err := rd.next()
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.data) == 0 {
			continue
		}
		m := decodeRPC(t, ev.data)
		if string(m.ID) != "1" || !strings.Contains(string(m.Result), `sampled {\"role\":\"assistant\"`) {
			t.Fatalf("result %s", ev.data)
		}
		return
	}
}

func TestGetStream(t *testing.T) {
	f := newFixture(t, Options{KeepAlive: 20 * time.Millisecond})
	sid := f.initSession()
	hdr := sessHeaders(sid)
	hdr["Accept"] = "text/event-stream"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	get := f.do(ctx, http.MethodGet, hdr, "")
	defer get.Body.Close()
	if get.StatusCode != 200 || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	br := bufio.NewReader(get.Body)
	rd := &sseReader{r: br, max: 1 << 20}
	prime, err := rd.next()
	if err != nil || !prime.hasID || !prime.hasRetry || len(prime.data) != 0 {
		t.Fatalf("priming %+v %v", prime, err)
	}
	second := f.do(context.Background(), http.MethodGet, hdr, "")
	second.Body.Close()
	if second.StatusCode != 409 {
		t.Fatalf("second GET: %d", second.StatusCode)
	}
	// Keep-alive comments arrive while idle.
	line, err := br.ReadString('\n')
	if err != nil || line != ":\n" {
		t.Fatalf("keep-alive %q %v", line, err)
	}
	// A notification outside any request goes on the GET stream.
	f.srv.NotifyListChanged(context.Background(), mcp.ToolsList)
	ev, err := rd.next()
	if err != nil || !strings.Contains(string(ev.data), "notifications/tools/list_changed") || !ev.hasID {
		t.Fatalf("event %+v %v", ev, err)
	}
	// A request to the client outside a request goes there too.
	done := make(chan error, 1)
	go func() {
		var res wire.Raw
		done <- f.session(sid).ms.Peer().Call(context.Background(), "ping", nil, &res)
	}()
	ev, err = rd.next()
	if err != nil {
		t.Fatal(err)
	}
	m := decodeRPC(t, ev.data)
	if m.Method != "ping" {
		t.Fatalf("%s", ev.data)
	}
	answer := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
	answer.Body.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// DELETE ends the stream.
	del := f.do(context.Background(), http.MethodDelete, sessHeaders(sid), "")
	del.Body.Close()
	for {
		if _, err := rd.next(); err != nil {
			break
		}
	}
}

func TestStatefulCancel(t *testing.T) {
	f := newFixture(t, Options{})
	sid := f.initSession()
	type result struct {
		status int
		body   []byte
	}
	res := make(chan result, 1)
	go func() {
		resp := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block","arguments":{"key":"sc"}}}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		res <- result{resp.StatusCode, b}
	}()
	<-f.ts.started
	// A second request with the same id while it runs is refused.
	dup := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":"b","method":"tools/list"}`)
	dup.Body.Close()
	if dup.StatusCode != 400 {
		t.Fatalf("duplicate id: %d", dup.StatusCode)
	}
	c := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b","reason":"test"}}`)
	c.Body.Close()
	if c.StatusCode != 202 {
		t.Fatalf("cancelled: %d", c.StatusCode)
	}
	if k := <-f.ts.cancelled; k != "sc" {
		t.Fatal(k)
	}
	r := <-res
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Fatalf("cancelled request answered: %d %s", r.status, r.body)
	}
}

// TestSessionEndCancels: the end of a session cancels the handlers of its
// requests in flight — by DELETE, and by Handler.Close — and their POSTs
// end without an answer.
func TestSessionEndCancels(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(f *fixture, sid string)
	}{
		{"DELETE", func(f *fixture, sid string) {
			resp := f.do(context.Background(), http.MethodDelete, sessHeaders(sid), "")
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("DELETE: %d", resp.StatusCode)
			}
		}},
		{"Handler.Close", func(f *fixture, _ string) { go f.h.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			sid := f.initSession()
			done := make(chan int, 1)
			go func() {
				resp := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block","arguments":{"key":"end"}}}`)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				done <- resp.StatusCode
			}()
			<-f.ts.started
			tc.end(f, sid)
			select {
			case k := <-f.ts.cancelled:
				if k != "end" {
					t.Fatal(k)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the handler of the request in flight was not cancelled when its session ended")
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the POST of the cancelled request did not end")
			}
		})
	}
}

// TestAnsweredWhileHandlerRuns: the handler of a stateful request runs on
// its POST's goroutine, yet the POST is answered the moment the session
// ends or a drain expires, while a handler that does not heed cancellation
// still runs.
func TestAnsweredWhileHandlerRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(f *fixture, sid string)
		want string
	}{
		{"DELETE", func(f *fixture, sid string) {
			resp := f.do(context.Background(), http.MethodDelete, sessHeaders(sid), "")
			resp.Body.Close()
		}, "session ended"},
		{"drain expires", func(f *fixture, _ string) {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				_ = f.h.Shutdown(ctx)
			}()
		}, "shut down before the request finished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			sid := f.initSession()
			key := strings.ReplaceAll(tc.name, " ", "-")
			defer close(f.ts.gate(key)) // before the fixture's cleanup waits for the handler
			got := make(chan string, 1)
			go func() {
				resp := f.do(context.Background(), http.MethodPost, sessHeaders(sid), `{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"deaf","arguments":{"key":"`+key+`"}}}`)
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			}()
			<-f.ts.started
			tc.end(f, sid)
			select {
			case g := <-got:
				if !strings.Contains(g, tc.want) {
					t.Errorf("the POST got %s, want %q", g, tc.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the POST was not answered while its handler ran on")
			}
		})
	}
}

func TestStatelessSSE(t *testing.T) {
	f := newFixture(t, Options{})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress",` + meta(`"progressToken":"p","io.modelcontextprotocol/logLevel":"debug"`) + `}}`
	resp := f.do(context.Background(), http.MethodPost, statelessHeaders("tools/call", "progress"), body)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	checkSSE(t, resp, raw)
	if resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Error("no X-Accel-Buffering: no")
	}
	evs := readEvents(t, &http.Response{Body: io.NopCloser(bytes.NewReader(raw))}, -1)
	if len(evs) != 5 {
		t.Fatalf("%d events: %s", len(evs), raw)
	}
	for i, ev := range evs {
		if ev.hasID || ev.hasRetry {
			t.Errorf("event %d has an id or retry in the stateless era", i)
		}
	}
	for i := range 3 {
		if m := decodeRPC(t, evs[i].data); m.Method != "notifications/progress" {
			t.Fatalf("%s", evs[i].data)
		}
	}
	if m := decodeRPC(t, evs[4].data); string(m.ID) != "1" || !strings.Contains(string(m.Result), `"resultType":"complete"`) {
		t.Fatalf("%s", evs[4].data)
	}
	// Without logLevel: no log message, and without progressToken: JSON.
	body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress",` + meta("") + `}}`
	resp = f.do(context.Background(), http.MethodPost, statelessHeaders("tools/call", "progress"), body)
	raw, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "application/json" || decodeRPC(t, raw).Error != nil {
		t.Fatalf("%s", raw)
	}
}

func TestStatelessCancel(t *testing.T) {
	f := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{"key":"sl"},`+meta("")+`}}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range statelessHeaders("tools/call", "block") {
			req.Header.Set(k, v)
		}
		if resp, err := f.c.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-f.ts.started
	cancel()
	select {
	case k := <-f.ts.cancelled:
		if k != "sl" {
			t.Fatal(k)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("closing the request did not cancel the handler")
	}
	<-done
}

func TestListenStream(t *testing.T) {
	f := newFixture(t, Options{})
	body := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true},` + meta("") + `}}`
	resp := f.do(context.Background(), http.MethodPost, statelessHeaders("subscriptions/listen", ""), body)
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("listen: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rd := newSSEReader(resp.Body, 1<<20)
	next := func() rpc {
		t.Helper()
		ev, err := rd.next()
		if err != nil {
			t.Fatal(err)
		}
		return decodeRPC(t, ev.data)
	}
	subID := func(m rpc) string {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		src := m.Params
		if src == nil {
			src = m.Result
		}
		_ = json.Unmarshal(src, &p)
		return string(p.Meta[mcp.MetaSubscriptionID])
	}
	ack := next()
	if ack.Method != "notifications/subscriptions/acknowledged" || subID(ack) != `"L"` {
		t.Fatalf("ack %+v", ack)
	}
	// mcp.Server.listen acknowledges before it registers the stream, so
	// the first triggers may come too early: trigger until one arrives.
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trigger",`+meta("")+`}}`))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range statelessHeaders("tools/call", "trigger") {
				req.Header.Set(k, v)
			}
			if resp, err := f.c.Do(req); err == nil {
				resp.Body.Close()
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	n := next()
	close(stop)
	<-stopped
	if n.Method != "notifications/tools/list_changed" || subID(n) != `"L"` {
		t.Fatalf("notification %+v", n)
	}
	f.srv.EndStreams()
	end := next()
	for end.Method == "notifications/tools/list_changed" {
		end = next()
	}
	if string(end.ID) != `"L"` || !strings.Contains(string(end.Result), `"resultType":"complete"`) || subID(end) != `"L"` {
		t.Fatalf("end %+v", end)
	}
	if _, err := rd.next(); err != io.EOF {
		t.Fatalf("stream not ended: %v", err)
	}
}

// session returns a live session.
func (f *fixture) session(sid string) *session {
	f.h.mu.Lock()
	defer f.h.mu.Unlock()
	return f.h.sessions[sid]
}
