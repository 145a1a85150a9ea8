package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// fakeRequestor records what a stateful task sends its requestor and
// answers its input requests.
type fakeRequestor struct {
	mu     sync.Mutex
	notes  []string
	calls  []string
	answer wire.Raw
}

func (f *fakeRequestor) notify(_ context.Context, r protocol.Role, params wire.Marshaler) {
	method := map[protocol.Role]string{protocol.RoleProgress: "notifications/progress", protocol.RoleTaskStatus: "notifications/tasks/status"}[r]
	b, _ := wire.Marshal(params)
	f.mu.Lock()
	f.notes = append(f.notes, method+" "+string(b))
	f.mu.Unlock()
}

func (f *fakeRequestor) call(_ context.Context, method string, params wire.Marshaler, result wire.Into) error {
	b, _ := wire.Marshal(params)
	f.mu.Lock()
	f.calls = append(f.calls, method+" "+string(b))
	f.mu.Unlock()
	return wire.UnmarshalWith(f.answer, result.Decode)
}

func (f *fakeRequestor) all() ([]string, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.notes...), append([]string(nil), f.calls...)
}

// testCore is the core design of tasks with the shapes of 2025-11-25, as
// a generated package's TaskCodec writes them.
var testCore = coreDesign{&protocol.TaskCodec{
	Task:   func(t *protocol.TaskInfo) wire.Marshaler { return testTask(t, "", "") },
	Create: func(t *protocol.TaskInfo) wire.Marshaler { return testTask(t, `{"task":`, "}") },
	Get:    func(t *protocol.TaskInfo) wire.Marshaler { return testTask(t, "", "") },
	Cancel: func(t *protocol.TaskInfo) wire.Marshaler { return testTask(t, "", "") },
	Status: func(t *protocol.TaskInfo) wire.Marshaler { return testTask(t, "", "") },
}}

// testTask writes a 2025-11-25 Task between before and after.
func testTask(t *protocol.TaskInfo, before, after string) wire.Marshaler {
	msg := ""
	if t.Message != "" {
		msg = `"statusMessage":` + strconv.Quote(t.Message) + `,`
	}
	return wire.Raw(fmt.Sprintf(`%s{"taskId":%q,"status":%q,%s"createdAt":%q,"lastUpdatedAt":%q,"ttl":%d,"pollInterval":%d}%s`,
		before, t.ID, t.Status, msg, t.CreatedAt, t.LastUpdatedAt, t.TTLMs, t.PollIntervalMs, after))
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestHost(o Options) (*host, *clock) {
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	o.Now = c.now
	return newHost(o, slog.New(slog.DiscardHandler)), c
}

func encode(t *testing.T, m wire.Marshaler) string {
	t.Helper()
	b, err := wire.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decodeMap(t *testing.T, m wire.Marshaler) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(encode(t, m)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func wait(t *testing.T, task *Task) {
	t.Helper()
	select {
	case <-task.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("task did not end")
	}
}

func TestTaskListPages(t *testing.T) {
	h, clk := newTestHost(Options{PageSize: 2})
	var ids []string
	for range 5 {
		task, err := h.start(context.Background(), &Task{design: testCore, owner: "a"}, func(context.Context, *Task) (wire.Marshaler, error) { return wire.Raw(`{}`), nil })
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
		clk.add(time.Millisecond)
	}
	_, _ = h.start(context.Background(), &Task{design: testCore, owner: "b"}, func(context.Context, *Task) (wire.Marshaler, error) { return wire.Raw(`{}`), nil })
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("no end to the pages")
		}
		res, err := h.list("a", cursor, testCore)
		if err != nil {
			t.Fatal(err)
		}
		page := decodeMap(t, res)
		for _, x := range page["tasks"].([]any) {
			got = append(got, x.(map[string]any)["taskId"].(string))
		}
		next, _ := page["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Errorf("listed %v, want %v (oldest first, only the owner's)", got, ids)
	}
	if _, err := h.list("a", "garbage!", testCore); err == nil || !strings.Contains(err.Error(), "/params/cursor") {
		t.Errorf("bad cursor: %v", err)
	}
}

func TestTaskTTLAndBounds(t *testing.T) {
	h, clk := newTestHost(Options{TTL: time.Minute, MaxTasks: 2})
	block := make(chan struct{})
	defer close(block)
	run := func(ctx context.Context, _ *Task) (wire.Marshaler, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return wire.Raw(`{}`), nil
	}
	a, _ := h.start(context.Background(), &Task{design: testCore, owner: "", ttl: 10 * time.Second}, run)
	if a.ttl != 10*time.Second {
		t.Errorf("requested TTL not honoured: %v", a.ttl)
	}
	b, _ := h.start(context.Background(), &Task{design: testCore, owner: "", ttl: time.Hour}, run)
	if b.ttl != time.Minute {
		t.Errorf("TTL above the maximum: %v", b.ttl)
	}
	if _, err := h.start(context.Background(), &Task{design: testCore, owner: ""}, run); !errors.Is(err, errTooManyTasks) {
		t.Errorf("a third running task with MaxTasks 2: %v", err)
	}
	clk.add(11 * time.Second)
	if h.get(a.ID, "") != nil || h.get(b.ID, "") == nil {
		t.Error("expiry: the short task should be gone, the other kept")
	}
	if h.get(b.ID, "someone else") != nil {
		t.Error("a task found by another owner")
	}
}

func TestStatefulTaskTalksToItsRequestor(t *testing.T) {
	h, _ := newTestHost(Options{})
	fr := &fakeRequestor{answer: wire.Raw(`{"action":"accept","content":{"ok":true}}`)}
	task, err := h.start(context.Background(), &Task{design: testCore, owner: "s", role: protocol.RoleToolsCall, requestor: fr, progress: wire.StringValue("tok"), hasToken: true},
		func(ctx context.Context, task *Task) (wire.Marshaler, error) {
			if err := task.Progress(ctx, 1, 2, "half"); err != nil {
				return nil, err
			}
			resp, err := task.Input(ctx, "", wire.Raw(`{"method":"elicitation/create","params":{"message":"ok?","_meta":{"x":1}}}`))
			if err != nil {
				return nil, err
			}
			return wire.Raw(`{"content":[],"isError":true,"answer":` + string(resp) + `}`), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, task)
	notes, calls := fr.all()
	if len(calls) != 1 || !strings.Contains(calls[0], `"_meta":{"x":1,"io.modelcontextprotocol/related-task":{"taskId":"`+task.ID+`"}}`) {
		t.Errorf("input request: %v", calls)
	}
	var seen []string
	for _, n := range notes {
		method, params, _ := strings.Cut(n, " ")
		switch method {
		case "notifications/progress":
			if !strings.Contains(params, `"progressToken":"tok"`) {
				t.Errorf("progress without the request's token: %s", params)
			}
			seen = append(seen, "progress")
		case "notifications/tasks/status":
			var p struct{ Status string }
			_ = json.Unmarshal([]byte(params), &p)
			seen = append(seen, p.Status)
		}
	}
	if strings.Join(seen, ",") != "progress,input_required,working,failed" {
		t.Errorf("notifications: %v", seen)
	}
	// isError fails a 2025 tool task; tasks/result answers the result with
	// the related task.
	res, err := task.await(context.Background())
	if err != nil || !strings.Contains(encode(t, res), `"io.modelcontextprotocol/related-task":{"taskId":"`+task.ID+`"}`) {
		t.Errorf("tasks/result: %s %v", encode(t, res), err)
	}
	if err := task.Progress(context.Background(), 2, 2, ""); !errors.Is(err, ErrEnded) {
		t.Errorf("progress after the end: %v", err)
	}
}

func TestTaskCancelAndFailure(t *testing.T) {
	h, _ := newTestHost(Options{})
	started := make(chan struct{})
	task, _ := h.start(context.Background(), &Task{design: testCore, owner: "s"}, func(ctx context.Context, _ *Task) (wire.Marshaler, error) {
		close(started)
		<-ctx.Done()
		return wire.Raw(`{"late":true}`), nil
	})
	<-started
	if _, err, _ := h.serve(context.Background(), protocol.RoleTaskCancel, wire.Raw(`{"taskId":"`+task.ID+`"}`), "s", testCore); err != nil {
		t.Fatal(err)
	}
	wait(t, task)
	time.Sleep(10 * time.Millisecond) // the function's late result must not win
	if task.Status() != Cancelled {
		t.Errorf("status %s after cancel", task.Status())
	}
	if _, err, _ := h.serve(context.Background(), protocol.RoleTaskCancel, wire.Raw(`{"taskId":"`+task.ID+`"}`), "s", testCore); err == nil || err.(*jsonrpc.Error).Code != jsonrpc.CodeInvalidParams {
		t.Errorf("cancelling an ended 2025 task: %v", err)
	}
	if _, err := task.await(context.Background()); err == nil {
		t.Error("tasks/result of a cancelled task answered a result")
	}

	failed, _ := h.start(context.Background(), &Task{design: extensionDesign{}, owner: "s"}, func(context.Context, *Task) (wire.Marshaler, error) {
		return nil, &jsonrpc.Error{Code: -32000, Message: "boom"}
	})
	wait(t, failed)
	got := decodeMap(t, extensionDesign{}.get(failed))
	if got["status"] != "failed" || got["error"].(map[string]any)["message"] != "boom" || got["result"] != nil {
		t.Errorf("failed task: %v", got)
	}
	other, _ := h.start(context.Background(), &Task{design: extensionDesign{}, owner: "s"}, func(context.Context, *Task) (wire.Marshaler, error) {
		return nil, errors.New("a secret")
	})
	wait(t, other)
	if b := encode(t, extensionDesign{}.get(other)); strings.Contains(b, "secret") || !strings.Contains(b, `"code":-32603`) {
		t.Errorf("an internal error leaks or is not -32603: %s", b)
	}
}

func TestTaskWireHelpers(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{}`, `{"resultType":"complete"}`},
		{`{"content":[]}`, `{"resultType":"complete","content":[]}`},
		{`{"resultType":"input_required"}`, `{"resultType":"input_required"}`},
	}
	for _, tt := range tests {
		if got := string(withResultType(wire.Raw(tt.in))); got != tt.want {
			t.Errorf("withResultType(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := string(withRelatedTask(wire.Raw(`{"a":1,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"old"},"k":"v"}}`), "new")); got != `{"a":1,"_meta":{"k":"v","io.modelcontextprotocol/related-task":{"taskId":"new"}}}` {
		t.Errorf("withRelatedTask: %s", got)
	}
	for in, want := range map[string]bool{`{"isError":true}`: true, `{"isError":false}`: false, `{"isError":"true"}`: false, `{}`: false} {
		if mcp.ToolResultFailed(wire.Raw(in)) != want {
			t.Errorf("ToolResultFailed(%s) != %v", in, want)
		}
	}
	if _, _, err := mcp.SplitRequest(wire.Raw(`{"params":{}}`)); err == nil {
		t.Error("an input request without method accepted")
	}
}
