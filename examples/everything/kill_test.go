package main

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"

	"github.com/mcpgen/mcpgen/examples/everything/internal/rrproxy"
)

// TestKilledMidCall: four bin/everything instances sharing a real
// redis-server (request lease 3s) behind rrproxy; instances are killed
// with SIGKILL in the middle of calls.
//
//   - A call answered as JSON whose instance dies is not sent to another
//     instance by the proxy (502: it reached a backend, which may have
//     acted on it), so it ran once; sent again by the client with the
//     same id it is not run again: -32600 while the dead instance's lease
//     lasts, then -32603 saying it was lost.
//   - A call's SSE stream cut by its instance's death, resumed with
//     Last-Event-ID on another instance, ends with an error saying the
//     call was lost — not with silence.
//   - A request answered before and sent again gets the same answer.
//   - A stream whose connection broke while its instance lives, resumed on
//     another instance, follows the call there to its response.
func TestKilledMidCall(t *testing.T) {
	redis := redistest.Start(t)
	env := []string{"EVERYTHING_REDIS=redis://" + redis.Addr + "/0", "EVERYTHING_REQUEST_LEASE=3s"}
	var urls []string
	var procs []*os.Process
	for range 4 {
		cmd, u, _ := launchHTTP(t, env...)
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		urls, procs = append(urls, u), append(procs, cmd.Process)
	}
	proxy := rrproxy.New(urls, nil)
	ps := serveProxy(t, proxy)
	resp := postSession(t, ps.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	postSession(t, ps.URL, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	// killWhereSent kills the instance the next request goes to, once it
	// has had it for a second (time to note it in the ledger, on a loaded
	// machine too). The lease (3s, renewed every second) then outlasts
	// the kill by 2-3 s: time enough to send the call again.
	killWhereSent := func(before map[string]int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			after := proxy.Sent()
			for i, u := range urls {
				if after[u] > before[u] {
					time.Sleep(time.Second)
					if err := procs[i].Kill(); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
		}
		t.Fatal("the request reached no instance")
	}
	body := func(resp *http.Response) string {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	slowCall := func(id string, seconds string, progress bool) string {
		meta := ""
		if progress {
			meta = `,"_meta":{"progressToken":"p` + id + `"}`
		}
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":` + seconds + `}` + meta + `}}`
	}

	// 1. JSON: killed mid-call.
	before := proxy.Sent()
	answered := make(chan *http.Response, 1)
	go func() { answered <- postSession(t, ps.URL, sid, slowCall("10", "4", false)) }()
	killWhereSent(before)
	resp = <-answered
	if b := body(resp); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("a call whose instance died: %d %s; want 502 (not run again on another instance)", resp.StatusCode, b)
	}
	sent := proxy.Sent()
	total := 0
	for _, u := range urls {
		total += sent[u] - before[u]
	}
	if total != 1 {
		t.Errorf("the call was sent to %d instances, want 1", total)
	}
	if b := body(postSession(t, ps.URL, sid, slowCall("10", "4", false))); !strings.Contains(b, `"code":-32600`) || !strings.Contains(b, "another instance") {
		t.Errorf("id 10 sent again within the dead instance's lease: %s; want -32600 (in progress elsewhere)", b)
	}
	time.Sleep(3500 * time.Millisecond)
	if b := body(postSession(t, ps.URL, sid, slowCall("10", "4", false))); !strings.Contains(b, `"code":-32603`) || !strings.Contains(b, "lost") {
		t.Errorf("id 10 sent again after the lease: %s; want -32603 (lost)", b)
	}

	// 2. SSE: the stream cut by its instance's death, resumed elsewhere.
	before = proxy.Sent()
	streamed := make(chan []sseEvent, 1)
	go func() {
		resp := postSession(t, ps.URL, sid, slowCall("11", "3", true))
		streamed <- sseEvents(resp.Body, 0)
		resp.Body.Close()
	}()
	killWhereSent(before)
	events := <-streamed
	if len(events) == 0 || events[len(events)-1].id == "" {
		t.Fatalf("the stream before the kill: %+v", events)
	}
	got := resumeAll(t, ps.URL, sid, events[len(events)-1].id, 10*time.Second)
	if !strings.Contains(got, `"id":11`) || !strings.Contains(got, "lost") {
		t.Errorf("the stream resumed elsewhere after its instance died: %q; want an error for id 11 saying it was lost", got)
	}

	// 3. Answered, then sent again: the same answer.
	first := body(postSession(t, ps.URL, sid, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"once"}}}`))
	again := body(postSession(t, ps.URL, sid, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"twice"}}}`))
	if !strings.Contains(first, "once") || again != first {
		t.Errorf("an answered request sent again: %s, then %s; want the first answer again", first, again)
	}

	// 4. A broken connection, its instance alive: resumed elsewhere, the
	// stream follows the call to its response.
	resp = postSession(t, ps.URL, sid, slowCall("13", "1", true))
	events = sseEvents(resp.Body, 1)
	resp.Body.Close()
	if len(events) != 1 {
		t.Fatalf("first event of id 13: %+v", events)
	}
	got = resumeAll(t, ps.URL, sid, events[0].id, 10*time.Second)
	if !strings.Contains(got, `"id":13`) || !strings.Contains(got, "slept 1s") {
		t.Errorf("the stream resumed elsewhere while its call runs: %q; want its response", got)
	}
}

// resumeAll resumes a stream once with Last-Event-ID last and returns the
// data of every event until the stream ends (or within).
func resumeAll(t *testing.T, url, sid, last string, within time.Duration) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", last)
	c := &http.Client{Timeout: within}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resume: %d", resp.StatusCode)
	}
	var data []string
	for _, ev := range sseEvents(resp.Body, 0) {
		if ev.data != "" {
			data = append(data, ev.data)
		}
	}
	return strings.Join(data, "\n")
}
