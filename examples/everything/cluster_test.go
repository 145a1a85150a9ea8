package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/examples/everything/internal/rrproxy"
	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// TestSessionsAcrossInstances: three bin/everything instances sharing a
// real redis-server behind a round-robin proxy. A stateful session opened
// through the proxy is served by all three; an instance killed with
// SIGKILL mid-session leaves the client carrying on through the others;
// DELETE ends the session everywhere; while redis-server is down a new
// session is refused with a clear error, and it works again after the
// restart.
func TestSessionsAcrossInstances(t *testing.T) {
	redis := redistest.Start(t)
	store := "EVERYTHING_REDIS=redis://" + redis.Addr + "/0"
	var urls []string
	var procs []*exec.Cmd
	for range 3 {
		cmd, u, _ := launchHTTP(t, store)
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		urls, procs = append(urls, u), append(procs, cmd)
	}
	proxy := rrproxy.New(urls, nil)
	ps := serveProxy(t, proxy)

	ctx := testContext(t)
	cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateful}, v25.Mount(clientHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close() // a step that fails leaves it open; closed again below is fine
	c := v25.NewClient(cs)
	echo := func(text string) error {
		res, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"` + text + `"}`)})
		if err != nil {
			return err
		}
		b, _ := wire.Marshal(res)
		if !strings.Contains(string(b), text) {
			return errors.New("echo answered " + string(b))
		}
		return nil
	}
	for i := range 9 {
		if err := echo("call " + string(rune('a'+i))); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	served := proxy.Served()
	for _, u := range urls {
		if served[u] < 3 {
			t.Errorf("instance %s answered %d requests of the session; round robin gives each about a third", u, served[u])
		}
	}

	// A request to the client crossing instances: the tool asks the
	// client's model on one instance's stream, and the client's answer is
	// POSTed to the next instance, which relays it.
	for i := range 3 {
		res, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "test_sampling", Arguments: v25.CallToolRequestParamsArguments(`{"prompt":"hi"}`)})
		if err != nil {
			t.Fatalf("sampling %d: %v", i, err)
		}
		if b, _ := wire.Marshal(res); !strings.Contains(string(b), "LLM response:") {
			t.Fatalf("sampling %d: %s", i, b)
		}
	}

	// One instance dies in the middle of a call; the client's transport
	// carries that call on through another instance (or reports its
	// failure), and the session carries on through the others.
	before := proxy.Served()
	inflight := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "slow", Arguments: v25.CallToolRequestParamsArguments(`{"seconds":1}`)})
		inflight <- err
	}()
	victim := -1
	for deadline := time.Now().Add(30 * time.Second); victim < 0; time.Sleep(10 * time.Millisecond) {
		after := proxy.Served()
		for i, u := range urls {
			if after[u] > before[u] {
				victim = i
			}
		}
		if victim < 0 && time.Now().After(deadline) {
			t.Fatalf("the slow call reached no instance (it ended with %v)", func() error {
				select {
				case err := <-inflight:
					return err
				default:
					return errors.New("nothing yet")
				}
			}())
		}
	}
	time.Sleep(100 * time.Millisecond) // the call is running there
	if err := procs[victim].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Kill only sends the signal: until the process is gone its listening
	// socket still accepts connections, and a request the proxy sends
	// there is reset after it was written (502, not sent on: it may have
	// reached a live process). Once Wait returns the port refuses, and
	// the proxy moves on to the next instance, as it does for a dead one.
	_ = procs[victim].Wait()
	select {
	case err := <-inflight:
		t.Logf("the call in flight on the killed instance: %v (nil: carried on elsewhere)", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight on the killed instance neither failed nor answered")
	}
	for i := range 6 {
		if err := echo("after kill " + string(rune('a'+i))); err != nil {
			t.Fatalf("call %d after SIGKILL: %v", i, err)
		}
	}

	// DELETE through the proxy ends the session on every instance.
	sid := proxy.LastSession()
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	for i, u := range urls {
		if i == victim {
			continue
		}
		req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after DELETE: %d, want 404", u, resp.StatusCode)
		}
	}

	// Redis down: a new session is refused, clearly; after the restart it
	// opens.
	redis.Stop()
	_, err = rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateful}, v25.Mount(clientHandler{}))
	if err == nil || !strings.Contains(err.Error(), "session store unavailable") {
		t.Errorf("initialize with redis down: %v", err)
	}
	redis.Restart()
	// The instances' store clients find the restarted server again within
	// their reconnection backoff; tries are spaced, not counted.
	var cs2 *rt.ClientSession
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if cs2, err = rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateful}, v25.Mount(clientHandler{})); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("initialize 30 s after the restart: %v", err)
	}
	defer cs2.Close()
	if _, err := v25.NewClient(cs2).Ping(ctx, nil); err != nil {
		t.Errorf("ping after the restart: %v", err)
	}
}

// TestStreamResumedElsewhere: a POST stream of a call on instance A
// breaks after its first event; the client resumes it with Last-Event-ID
// on instance B (sharing Redis) and gets every event that followed —
// progress and the response — exactly once.
func TestStreamResumedElsewhere(t *testing.T) {
	a, b, sid := twoInstances(t)

	// The call's stream on A: read up to the first event with data, then
	// break the connection.
	resp := postSession(t, a, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"p"}}}`)
	events := sseEvents(resp.Body, 1)
	resp.Body.Close()
	if len(events) != 1 || !strings.Contains(events[0].data, `"progress":0`) {
		t.Fatalf("first event on A: %+v", events)
	}
	last := events[0].id
	var got []string
	for range 200 {
		req, _ := http.NewRequest(http.MethodGet, b, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Last-Event-ID", last)
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("resume on B: %d", resp.StatusCode)
		}
		for _, ev := range sseEvents(resp.Body, 0) {
			if ev.data != "" {
				got = append(got, ev.data)
			}
			if ev.id != "" {
				last = ev.id
			}
		}
		resp.Body.Close()
		if len(got) > 0 && strings.Contains(got[len(got)-1], `"id":2`) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the call is still running on A
	}
	all := strings.Join(got, "\n")
	if strings.Count(all, `"progress":50`) != 1 || strings.Count(all, `"progress":100`) != 1 || strings.Count(all, `"id":2`) != 1 || strings.Contains(all, `"progress":0,`) {
		t.Errorf("events resumed on B (want progress 50 and 100 and the response, each once):\n%s", all)
	}
}

type sseEvent struct{ id, data string }

// sseEvents reads SSE events from r until it ends, or until n events with
// data were read (n > 0).
func sseEvents(r io.Reader, n int) []sseEvent {
	var out []sseEvent
	var ev sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id:"):
			ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			ev.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		case line == "":
			if ev.id != "" || ev.data != "" {
				if ev.data != "" || n == 0 {
					out = append(out, ev)
				}
				if n > 0 && len(out) == n {
					return out
				}
			}
			ev = sseEvent{}
		}
	}
	return out
}

// TestAnnouncementsAcrossInstances: a client subscribed to a resource in
// a session on instance A hears of an update announced on instance B (a
// stateless call of touch_resource there), on its GET stream.
func TestAnnouncementsAcrossInstances(t *testing.T) {
	a, b, sid := twoInstances(t)
	postSession(t, a, sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}`).Body.Close()

	req, _ := http.NewRequest(http.MethodGet, a, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	stream, err := testHTTP.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream on A: %v %v", stream, err)
	}
	defer stream.Body.Close()
	got := make(chan []sseEvent, 1)
	go func() { got <- sseEvents(stream.Body, 1) }()

	// B announces, statelessly (2026-07-28: no session there).
	resp, err := touch(b)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Announced an update") {
		t.Fatalf("touch_resource on B: %s", body)
	}
	select {
	case events := <-got:
		if len(events) != 1 || !strings.Contains(events[0].data, `"method":"notifications/resources/updated"`) || !strings.Contains(events[0].data, `test://watched-resource`) {
			t.Errorf("A's stream got %+v", events)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("A's stream heard nothing of B's announcement")
	}

	// The same for a 2026-07-28 client: a subscriptions/listen stream on
	// A hears of the update announced on B.
	listen, err := postStateless(a, "subscriptions/listen", "", `"notifications":{"resourceSubscriptions":["test://watched-resource"]}`)
	if err != nil || listen.StatusCode != http.StatusOK {
		t.Fatalf("listen on A: %v %v", listen, err)
	}
	defer listen.Body.Close()
	heard := make(chan []sseEvent, 1)
	go func() { heard <- sseEvents(listen.Body, 2) }() // the acknowledgement, then the update
	// Touch until the listen stream has been set up and hears it.
	deadline := time.After(20 * time.Second)
	for {
		if resp, err := touch(b); err == nil {
			resp.Body.Close()
		}
		select {
		case events := <-heard:
			if len(events) != 2 || !strings.Contains(events[1].data, `notifications/resources/updated`) {
				t.Errorf("A's listen stream got %+v", events)
			}
			return
		case <-deadline:
			t.Fatal("A's listen stream heard nothing of B's announcement")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// postSession POSTs a message of a 2025-11-25 session (sid "" before
// initialize).
func postSession(t *testing.T, url, sid, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// postStateless POSTs a 2026-07-28 request of method (name: the tool, for
// the Mcp-Name header) whose params are members plus the _meta.
func postStateless(url, method, name, members string) (*http.Response, error) {
	return postStatelessAs(url, method, name, members, "{}")
}

// postStatelessAs is postStateless from a client with capabilities caps.
func postStatelessAs(url, method, name, members, caps string) (*http.Response, error) {
	if members != "" {
		members += ","
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + members +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method} {
		req.Header.Set(k, v)
	}
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	return testHTTP.Do(req)
}

// touch announces an update of test://watched-resource on the instance at url.
func touch(url string) (*http.Response, error) {
	return postStateless(url, "tools/call", "touch_resource", `"name":"touch_resource","arguments":{"uri":"test://watched-resource"}`)
}

// twoInstances starts two instances sharing a real redis-server and opens
// a 2025-11-25 session on the first; it returns both endpoints and the
// session id.
func twoInstances(t *testing.T) (a, b, sid string) {
	t.Helper()
	redis := redistest.Start(t)
	store := "EVERYTHING_REDIS=redis://" + redis.Addr + "/0"
	a, b = startHTTP(t, store), startHTTP(t, store)
	resp := postSession(t, a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid = resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	postSession(t, a, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	return a, b, sid
}

// TestTasksAcrossInstances: a 2026 task created on instance A is polled to
// its result on instance B; a task on A asking for input is answered with
// tasks/update on B; a task created on A is cancelled from B (A stops it;
// both then say cancelled); a 2025-11-25 session's task created on A gets
// its result through the session on B.
func TestTasksAcrossInstances(t *testing.T) {
	a, b, sid := twoInstances(t)
	call := func(url, method, name, members string) map[string]any {
		t.Helper()
		resp, err := postStatelessAs(url, method, name, members, tasksCaps)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var msg struct {
			Result map[string]any
			Error  map[string]any
		}
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || msg.Error != nil {
			t.Fatalf("%s on %s: %v %v", method, url, msg.Error, err)
		}
		return msg.Result
	}
	taskOn := func(url, args string) string {
		t.Helper()
		got := call(url, "tools/call", "slow_compute", `"name":"slow_compute","arguments":`+args)
		id, _ := got["taskId"].(string)
		if got["resultType"] != "task" || id == "" {
			t.Fatalf("slow_compute on %s: %v", url, got)
		}
		return id
	}
	status := func(url, id string) map[string]any {
		return call(url, "tasks/get", id, `"taskId":"`+id+`"`)
	}

	id := taskOn(a, `{"seconds":0.3,"label":"shared"}`)
	var fin map[string]any
	for range 200 {
		if fin = status(b, id); fin["status"] == "completed" {
			break
		}
		time.Sleep(20 * time.Millisecond) // the task runs on A
	}
	if fin["status"] != "completed" || !strings.Contains(fmt.Sprint(fin["result"]), "Computed") {
		t.Fatalf("task of A polled on B: %v", fin)
	}

	// A task on A asks for input; the answer, sent to B, reaches it.
	got := call(a, "tools/call", "confirm_delete", `"name":"confirm_delete","arguments":{"filename":"x.txt"}`)
	id, _ = got["taskId"].(string)
	if id == "" {
		t.Fatalf("confirm_delete on A: %v", got)
	}
	for range 200 {
		if fin = status(b, id); fin["status"] == "input_required" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fin["status"] != "input_required" || !strings.Contains(fmt.Sprint(fin["inputRequests"]), "confirm") {
		t.Fatalf("the input request of A's task, on B: %v", fin)
	}
	call(b, "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	for range 200 {
		if fin = status(b, id); fin["status"] == "completed" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(fmt.Sprint(fin["result"]), "Deleted x.txt.") {
		t.Fatalf("A's task after the answer sent to B: %v", fin)
	}

	// 2025-11-25: a task of a session, created on A, is polled and its
	// result fetched through the same session on B.
	sessionCall := func(url, body string) map[string]any {
		t.Helper()
		resp := postSession(t, url, sid, body)
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		text := string(raw)
		if i := strings.Index(text, "data: "); i >= 0 { // an SSE answer
			text = strings.TrimSpace(strings.SplitN(text[i+6:], "\n", 2)[0])
		}
		var msg struct {
			Result map[string]any
			Error  map[string]any
		}
		if err := json.Unmarshal([]byte(text), &msg); err != nil || msg.Error != nil {
			t.Fatalf("%s on %s: %s", body, url, raw)
		}
		return msg.Result
	}
	created := sessionCall(a, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":0.3,"label":"session"},"task":{"ttl":60000}}}`)
	task, _ := created["task"].(map[string]any)
	sessionTask, _ := task["taskId"].(string)
	if sessionTask == "" {
		t.Fatalf("a task in the session on A: %v", created)
	}
	res := sessionCall(b, `{"jsonrpc":"2.0","id":11,"method":"tasks/result","params":{"taskId":"`+sessionTask+`"}}`)
	if !strings.Contains(fmt.Sprint(res), "Computed") {
		t.Errorf("tasks/result on B of the session's task on A: %v", res)
	}
	if got := sessionCall(b, `{"jsonrpc":"2.0","id":12,"method":"tasks/get","params":{"taskId":"`+sessionTask+`"}}`); got["status"] != "completed" {
		t.Errorf("tasks/get on B: %v", got)
	}

	id = taskOn(a, `{"seconds":30}`)
	if got := call(b, "tasks/cancel", id, `"taskId":"`+id+`"`); got["resultType"] != "complete" {
		t.Errorf("tasks/cancel on B: %v", got)
	}
	for _, url := range []string{a, b} {
		for range 200 {
			if fin = status(url, id); fin["status"] == "cancelled" {
				break
			}
			time.Sleep(20 * time.Millisecond) // the cancellation travels to A
		}
		if fin["status"] != "cancelled" {
			t.Errorf("%s after the cancellation on B: %v", url, fin)
		}
	}
}

// TestInputRoundsAcrossInstances: 2026-07-28 calls whose tools ask for
// input in rounds (InputRequiredResult with a sealed requestState: two
// elicitation rounds; elicitation, sampling and roots at once; a
// single-use state), through a round-robin proxy in front of three
// bin/everything instances, so that each retry reaches another instance
// than the round before. Instances sharing --state-keys open each other's
// states: 9/9 calls complete. Without a shared key (each instance's
// random one) the retry is refused -32602 naming requestState — what every
// such call got before --state-keys (0/9).
func TestInputRoundsAcrossInstances(t *testing.T) {
	old := "EVERYTHING_STATE_KEYS=" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("o", 32)))
	oldThenNew := old + "," + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("n", 32)))
	newThenOld := "EVERYTHING_STATE_KEYS=" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("n", 32))) + "," + strings.TrimPrefix(old, "EVERYTHING_STATE_KEYS=")
	for _, tc := range []struct {
		name   string
		envs   [3]string // each instance's
		shared bool
	}{
		{"shared key", [3]string{old, old, old}, true},
		// A rotation rolling out: every instance opens both keys, one
		// still seals with the old one, two with the new one.
		{"rotation", [3]string{oldThenNew, newThenOld, newThenOld}, true},
		{"a key each", [3]string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var urls []string
			for _, env := range tc.envs {
				if env == "" {
					urls = append(urls, startHTTP(t))
				} else {
					urls = append(urls, startHTTP(t, env))
				}
			}
			ps := serveProxy(t, rrproxy.New(urls, nil))
			ctx := testContext(t)
			cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateless}, v26.Mount(modernHandler{}))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			c := v26.NewClient(cs)
			want := map[string]string{
				"test_input_required_result_multi_round":     "Alice likes Alice.",
				"test_input_required_result_multiple_inputs": "All three inputs received.",
				"test_input_required_result_request_state":   "Confirmed: state-ok",
			}
			done := 0
			for i := range 9 {
				name := []string{"test_input_required_result_multi_round", "test_input_required_result_multiple_inputs", "test_input_required_result_request_state"}[i%3]
				res, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: name, Arguments: v26.CallToolRequestParamsArguments(`{}`)})
				if !tc.shared {
					var je *jsonrpc.Error
					if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "requestState") {
						t.Errorf("%s with a key per instance: %v, want -32602 naming requestState", name, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if got := textOf(t, res); !strings.Contains(got, want[name]) {
					t.Errorf("%s: %s, want %q", name, got, want[name])
					continue
				}
				done++
			}
			if tc.shared && done != 9 {
				t.Errorf("%d of 9 calls with input rounds completed through the proxy", done)
			}
			t.Logf("%s: %d/9 calls with input rounds completed", tc.name, done)
		})
	}
}

// TestClusterFailover: three bin/everything instances on a Redis Cluster
// of three masters, each with a replica (--redis-cluster), behind the
// round-robin proxy. A stateful session with a task and an answered
// request runs through the proxy; the master holding the session's slot
// is killed with SIGKILL while calls go on. Every call meanwhile is
// answered or fails with an error that says why (never a hang, never a
// bare 500); once the replica took over, the session goes on, the task
// answers, and the request answered before — sent again with other
// arguments — gets its first answer again: nothing ran twice. (What a
// master acknowledged and had not yet replicated when it died is lost:
// Redis replicates asynchronously; the test syncs the replicas before the
// kill. See docs/instances.md.)
func TestClusterFailover(t *testing.T) {
	cluster := redistest.StartClusterWithReplicas(t, 3, 1)
	env := []string{"EVERYTHING_REDIS_CLUSTER=" + cluster.URL(), "EVERYTHING_REQUEST_LEASE=1s",
		"EVERYTHING_STATE_KEYS=" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("f", 32)))}
	var urls []string
	for range 3 {
		urls = append(urls, startHTTP(t, env...))
	}
	proxy := rrproxy.New(urls, nil)
	ps := serveProxy(t, proxy)
	ctx := testContext(t)

	cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateful}, v25.Mount(clientHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	echo := func(text string) error {
		res, err := v25.NewClient(cs).CallTool(ctx, &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"` + text + `"}`)})
		if err != nil {
			return err
		}
		if b, _ := wire.Marshal(res); !strings.Contains(string(b), text) {
			return errors.New("echo answered " + string(b))
		}
		return nil
	}
	for i := range 6 {
		if err := echo(fmt.Sprint("before ", i)); err != nil {
			t.Fatalf("call %d before the failover: %v", i, err)
		}
	}
	got, err := call(t, cs, "tools/call", `{"name":"slow_compute","arguments":{"seconds":0.1},"task":{"ttl":600000}}`)
	if err != nil {
		t.Fatal(err)
	}
	taskID, _ := got["task"].(map[string]any)["taskId"].(string)
	if taskID == "" {
		t.Fatalf("CreateTaskResult: %v", got)
	}
	// A request answered once, by raw HTTP in the same session.
	sid := proxy.LastSession()
	answered := postSession(t, ps.URL, sid, `{"jsonrpc":"2.0","id":"once","method":"tools/call","params":{"name":"echo","arguments":{"text":"first time"}}}`)
	first, _ := io.ReadAll(answered.Body)
	answered.Body.Close()
	if !strings.Contains(string(first), "first time") {
		t.Fatalf("the request to send again: %s", first)
	}

	cluster.Sync()
	victim := cluster.MasterOf("mcpgen:session:{" + sid + "}")
	type outcome struct {
		err error
		at  time.Duration
	}
	outcomes := make(chan outcome, 1000)
	stop := make(chan struct{})
	var traffic sync.WaitGroup
	start := time.Now()
	traffic.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			outcomes <- outcome{echo(fmt.Sprint("during ", i)), time.Since(start)}
			time.Sleep(20 * time.Millisecond)
		}
	})
	time.Sleep(200 * time.Millisecond)
	victim.Kill()
	cluster.AwaitFailover(victim)
	failedOver := time.Since(start)
	// The instances' cluster clients learn the new master (a MOVED, or
	// their periodic reload of the slots); calls go on meanwhile.
	var after error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if after = echo("after the failover"); after == nil || time.Now().After(deadline) {
			break
		}
	}
	close(stop)
	traffic.Wait()
	close(outcomes)
	served, failed := 0, 0
	for o := range outcomes {
		if o.err == nil {
			served++
			continue
		}
		failed++
		if msg := o.err.Error(); !strings.Contains(msg, "session store unavailable") && !strings.Contains(msg, "try again") {
			t.Errorf("a call at %v during the failover failed without saying why: %v", o.at.Round(time.Millisecond), o.err)
		}
	}
	t.Logf("the master of the session's slot killed at 200ms; failed over at %v; calls meanwhile: %d served, %d failed saying why", failedOver.Round(time.Millisecond), served, failed)
	if after != nil {
		t.Fatalf("the session 30 s after the failover: %v", after)
	}
	if res, err := call(t, cs, "tasks/result", `{"taskId":"`+taskID+`"}`); err != nil || !strings.Contains(mustJSON(res), "Computed") {
		t.Errorf("the task after the failover: %v %v", res, err)
	}
	again := postSession(t, ps.URL, sid, `{"jsonrpc":"2.0","id":"once","method":"tools/call","params":{"name":"echo","arguments":{"text":"second time"}}}`)
	b, _ := io.ReadAll(again.Body)
	again.Body.Close()
	if strings.Contains(string(b), "second time") || !strings.Contains(string(b), "first time") {
		t.Errorf("a request answered before the failover, sent again after it: %s; want its first answer (it must not run twice)", b)
	}
}
