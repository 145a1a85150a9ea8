package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// connectCaps connects with the given client capabilities, over stdio or,
// with url set, Streamable HTTP.
func connectCaps(t *testing.T, url string, era protocol.Era, caps string) *rt.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	var tr rt.ClientTransport = &stdio.CommandTransport{Path: binary}
	if url != "" {
		tr = &streamhttp.ClientTransport{URL: url}
	}
	cs, err := rt.Connect(ctx, tr, rt.ClientOptions{Name: "everything-test", Version: "1", Era: era, Capabilities: wire.Raw(caps)},
		v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call sends a request with JSON params and returns the result as a map.
func call(t *testing.T, cs *rt.ClientSession, method, params string) (map[string]any, error) {
	t.Helper()
	var raw wire.Raw
	if err := cs.Call(testContext(t), method, wire.Raw(params), &raw); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v: %s", method, err, raw)
	}
	return m, nil
}

func code(err error) int64 {
	if je, ok := err.(*jsonrpc.Error); ok {
		return je.Code
	}
	return 0
}

// poll gets the task until it leaves working (and input_required unless
// stopAtInput).
func poll(t *testing.T, cs *rt.ClientSession, id string, stopAtInput bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		got, err := call(t, cs, "tasks/get", `{"taskId":"`+id+`"}`)
		if err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
		st, _ := got["status"].(string)
		if st != "working" && (st != "input_required" || stopAtInput) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("task %s did not settle", id)
	return nil
}

const tasksCaps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// overBoth runs f over stdio and over Streamable HTTP (where the task
// methods carry Mcp-Name: the task id).
func overBoth(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("stdio", func(t *testing.T) { f(t, "") })
	t.Run("http", func(t *testing.T) { f(t, startHTTP(t)) })
}

func TestModernTasks(t *testing.T) { overBoth(t, testModernTasks) }

func testModernTasks(t *testing.T, url string) {
	cs := connectCaps(t, url, rt.Stateless, tasksCaps)

	// Discovery names the extension and no core tasks capability.
	disc := map[string]any{}
	_ = json.Unmarshal(cs.ServerResult(), &disc)
	caps, _ := disc["capabilities"].(map[string]any)
	if ext, _ := caps["extensions"].(map[string]any); ext == nil || ext[protocol.TasksExtension] == nil || caps["tasks"] != nil {
		t.Errorf("discover capabilities: %v", caps)
	}

	// A sync tool stays sync.
	got, err := call(t, cs, "tools/call", `{"name":"greet","arguments":{"name":"sep-2243"},"task":{"ttl":60000}}`)
	if err != nil || got["resultType"] != "complete" || got["taskId"] != nil || !strings.Contains(mustJSON(got), "Hello, sep-2243!") {
		t.Errorf("greet: %v %v", got, err)
	}

	// A task: flat CreateTaskResult, then the inlined result.
	got, err = call(t, cs, "tools/call", `{"name":"slow_compute","arguments":{"seconds":0.3,"label":"x"}}`)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := got["taskId"].(string)
	for _, k := range []string{"createdAt", "lastUpdatedAt", "status", "ttlMs", "pollIntervalMs"} {
		if _, ok := got[k]; !ok {
			t.Errorf("CreateTaskResult lacks %s: %v", k, got)
		}
	}
	if got["resultType"] != "task" || id == "" || got["task"] != nil || got["requestState"] != nil {
		t.Fatalf("slow_compute: %v", got)
	}
	fin := poll(t, cs, id, false)
	res, _ := fin["result"].(map[string]any)
	if fin["status"] != "completed" || res == nil || res["resultType"] != "complete" || fin["resultType"] != "complete" {
		t.Errorf("completed task: %v", fin)
	}

	// Tool execution errors complete the task; protocol errors fail it.
	got, _ = call(t, cs, "tools/call", `{"name":"failing_job"}`)
	fin = poll(t, cs, got["taskId"].(string), false)
	if res, _ := fin["result"].(map[string]any); fin["status"] != "completed" || res["isError"] != true {
		t.Errorf("failing_job: %v", fin)
	}
	got, _ = call(t, cs, "tools/call", `{"name":"protocol_error_job"}`)
	fin = poll(t, cs, got["taskId"].(string), false)
	if e, _ := fin["error"].(map[string]any); fin["status"] != "failed" || e["code"] == nil || fin["result"] != nil {
		t.Errorf("protocol_error_job: %v", fin)
	}

	// Cancel: an empty ack, then cancelled; again on the ended task.
	got, _ = call(t, cs, "tools/call", `{"name":"slow_compute","arguments":{"seconds":60,"label":"long"}}`)
	id = got["taskId"].(string)
	for range 2 {
		ack, err := call(t, cs, "tasks/cancel", `{"taskId":"`+id+`"}`)
		if err != nil || len(ack) != 1 || ack["resultType"] != "complete" {
			t.Errorf("cancel ack: %v %v", ack, err)
		}
	}
	if fin = poll(t, cs, id, false); fin["status"] != "cancelled" {
		t.Errorf("cancelled: %v", fin)
	}

	// Input during the task: both requests outstanding, answered one at a time.
	got, _ = call(t, cs, "tools/call", `{"name":"multi_input"}`)
	id = got["taskId"].(string)
	var pending map[string]any
	for range 100 {
		fin = poll(t, cs, id, true)
		if pending, _ = fin["inputRequests"].(map[string]any); len(pending) == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fin["status"] != "input_required" || len(pending) != 2 {
		t.Fatalf("multi_input: %v", fin)
	}
	if _, err := call(t, cs, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}},"nope":{}}}`); err != nil {
		t.Fatal(err)
	}
	fin = poll(t, cs, id, true)
	if pending, _ = fin["inputRequests"].(map[string]any); fin["status"] != "input_required" || len(pending) != 1 || pending["color"] == nil {
		t.Errorf("after one answer: %v", fin)
	}
	_, _ = call(t, cs, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"color":{"action":"accept","content":{"color":"green"}}}}`)
	if fin = poll(t, cs, id, false); !strings.Contains(mustJSON(fin), "Ada likes green.") {
		t.Errorf("multi_input result: %v", fin)
	}

	// Input first (multi round-trip), then the task.
	got, _ = call(t, cs, "tools/call", `{"name":"test_tool_with_task"}`)
	if got["resultType"] != "input_required" || got["taskId"] != nil {
		t.Fatalf("r1: %v", got)
	}
	got, _ = call(t, cs, "tools/call", `{"name":"test_tool_with_task","inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}}`)
	if got["resultType"] != "task" || got["inputRequests"] != nil || got["requestState"] != nil {
		t.Fatalf("r2: %v", got)
	}
	if fin = poll(t, cs, got["taskId"].(string), false); !strings.Contains(mustJSON(fin), "Alice") {
		t.Errorf("composition: %v", fin)
	}

	// Removed and unknown.
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if _, err := call(t, cs, m, `{"taskId":"`+id+`"}`); code(err) != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: %v", m, err)
		}
	}
	if _, err := call(t, cs, "tasks/get", `{"taskId":"nope"}`); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown task: %v", err)
	}
}

func TestModernTasksNeedTheExtension(t *testing.T) { overBoth(t, testModernTasksNeedTheExtension) }

func testModernTasksNeedTheExtension(t *testing.T, url string) {
	cs := connectCaps(t, url, rt.Stateless, `{}`)
	got, err := call(t, cs, "tools/call", `{"name":"slow_compute","arguments":{"seconds":0}}`)
	if err != nil || got["resultType"] != "complete" {
		t.Errorf("sync slow_compute: %v %v", got, err)
	}
	_, err = call(t, cs, "tools/call", `{"name":"failing_job"}`)
	je, _ := err.(*jsonrpc.Error)
	if je == nil || je.Code != rt.CodeMissingRequiredClientCapability || !strings.Contains(string(je.Data), protocol.TasksExtension) {
		t.Errorf("failing_job without tasks: %v", err)
	}
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if _, err := call(t, cs, m, `{"taskId":"x","inputResponses":{}}`); code(err) != rt.CodeMissingRequiredClientCapability {
			t.Errorf("%s: %v", m, err)
		}
	}
	// The per-request declaration is enough.
	got, err = call(t, cs, "tools/call", `{"name":"slow_compute","arguments":{"seconds":0.1},"_meta":{"io.modelcontextprotocol/clientCapabilities":`+tasksCaps+`}}`)
	if err != nil || got["resultType"] != "task" {
		t.Errorf("per-request opt-in: %v %v", got, err)
	}
}

func TestLegacyTasks(t *testing.T) { overBoth(t, testLegacyTasks) }

func testLegacyTasks(t *testing.T, url string) {
	cs := connectCaps(t, url, rt.Stateful, `{}`)
	init := map[string]any{}
	_ = json.Unmarshal(cs.ServerResult(), &init)
	if caps, _ := init["capabilities"].(map[string]any); caps["tasks"] == nil {
		t.Errorf("no tasks capability: %v", caps)
	}
	got, err := call(t, cs, "tools/call", `{"name":"slow_compute","arguments":{"seconds":0.2},"task":{"ttl":60000}}`)
	if err != nil {
		t.Fatal(err)
	}
	task, _ := got["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("CreateTaskResult: %v", got)
	}
	res, err := call(t, cs, "tasks/result", `{"taskId":"`+id+`"}`)
	if err != nil || !strings.Contains(mustJSON(res), "Computed") {
		t.Errorf("tasks/result: %v %v", res, err)
	}
	list, _ := call(t, cs, "tasks/list", `{}`)
	if ts, _ := list["tasks"].([]any); len(ts) != 1 {
		t.Errorf("tasks/list: %v", list)
	}
	if _, err := call(t, cs, "tools/call", `{"name":"failing_job"}`); code(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("required task without task: %v", err)
	}
	if _, err := call(t, cs, "tools/call", `{"name":"greet","arguments":{"name":"x"},"task":{}}`); code(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("forbidden task: %v", err)
	}
	tools, _ := call(t, cs, "tools/list", `{}`)
	if !strings.Contains(mustJSON(tools), `"taskSupport":"required"`) {
		t.Errorf("tools/list lacks execution.taskSupport")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// connectTasks connects with ClientOptions.Tasks: the client hosts tasks
// (2025) and its typed calls wait for task handles (both eras).
func connectTasks(t *testing.T, url string, era protocol.Era) *rt.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	var tr rt.ClientTransport = &stdio.CommandTransport{Path: binary}
	if url != "" {
		tr = &streamhttp.ClientTransport{URL: url}
	}
	cs, err := rt.Connect(ctx, tr, rt.ClientOptions{Name: "everything-test", Version: "1", Era: era, Tasks: tasks.Client(tasks.Options{})},
		v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestTypedCallsWaitForTasks(t *testing.T) { overBoth(t, testTypedCallsWaitForTasks) }

func testTypedCallsWaitForTasks(t *testing.T, url string) {
	ctx := testContext(t)
	t.Run("2026", func(t *testing.T) {
		c := v26.NewClient(connectTasks(t, url, rt.Stateless))
		res, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "slow_compute", Arguments: v26.CallToolRequestParamsArguments(`{"seconds":0.2,"label":"typed"}`)})
		if err != nil || !strings.Contains(textOf(t, res), `Computed \"typed\"`) {
			t.Errorf("slow_compute: %v %v", err, res)
		}
		// Input during the task, answered by the client's handler.
		res, err = c.CallTool(ctx, &v26.CallToolRequestParams{Name: "confirm_delete", Arguments: v26.CallToolRequestParamsArguments(`{"filename":"a.txt"}`)})
		if err != nil || !strings.Contains(textOf(t, res), "Deleted a.txt.") {
			t.Errorf("confirm_delete: %v %v", err, res)
		}
		if _, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "protocol_error_job"}); code(err) != jsonrpc.CodeInternalError {
			t.Errorf("protocol_error_job: %v", err)
		}
		// Giving up cancels the task.
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if _, err := c.CallTool(short, &v26.CallToolRequestParams{Name: "slow_compute", Arguments: v26.CallToolRequestParamsArguments(`{"seconds":30}`)}); err != context.DeadlineExceeded {
			t.Errorf("abandoned task: %v", err)
		}
	})
	t.Run("2025", func(t *testing.T) {
		cs := connectTasks(t, url, rt.Stateful)
		c := v25.NewClient(cs)
		var mu sync.Mutex
		var statuses []string
		cs.OnNotification(func(_ context.Context, method string, params wire.Raw) {
			if method == "notifications/tasks/status" {
				var p struct{ Status string }
				_ = json.Unmarshal(params, &p)
				mu.Lock()
				statuses = append(statuses, p.Status)
				mu.Unlock()
			}
		})
		res, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "slow_compute", Arguments: v25.CallToolRequestParamsArguments(`{"seconds":0.2,"label":"typed"}`), Task: &v25.TaskMetadata{}})
		if err != nil || !strings.Contains(textOf(t, res), `Computed \"typed\"`) {
			t.Errorf("slow_compute: %v %v", err, res)
		}
		// The server's sampling request runs as a task the client hosts.
		res, err = c.CallTool(ctx, &v25.CallToolRequestParams{Name: "test_sampling", Arguments: v25.CallToolRequestParamsArguments(`{"prompt":"hi"}`)})
		if err != nil || !strings.Contains(textOf(t, res), "LLM response: This is a test response from the client") {
			t.Errorf("sampling as a task: %v %v", err, res)
		}
		// isError fails a 2025 task, and tasks/result still answers the result.
		res, err = c.CallTool(ctx, &v25.CallToolRequestParams{Name: "failing_job", Task: &v25.TaskMetadata{}})
		if err != nil || !res.IsError.Value {
			t.Errorf("failing_job: %v %v", err, res)
		}
		// The status notifications come outside any request (on HTTP's
		// GET stream): the test waits for them.
		both := func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Contains(statuses, "completed") && slices.Contains(statuses, "failed")
		}
		for deadline := time.Now().Add(10 * time.Second); !both() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(statuses, "completed") || !slices.Contains(statuses, "failed") {
			t.Errorf("status notifications: %v", statuses)
		}
	})
}
