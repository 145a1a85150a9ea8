package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/gateway"
	v25 "github.com/mcpgen/mcpgen/gateway/mcp/v20251125"
	v25via "github.com/mcpgen/mcpgen/gateway/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// TestTasksThroughGateway: a 2026-07-28 backend's tasks reach a client
// that declares the tasks extension: a call answered with a task, polled
// (tasks/get) through the gateway to its result; a client that does not
// declare it is answered at once, or, for a tool that requires a task,
// refused naming the extension; and another principal cannot reach a
// task it did not make.
func TestTasksThroughGateway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := gateway.New(ctx, gateway.Options{Backend: &stdio.CommandTransport{Path: everything(t), Args: []string{"--revisions", "2026-07-28"}, Stderr: os.Stderr}, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	open := func(withTasks bool) *v26.Client {
		o := rt.ClientOptions{Name: "front", Version: "1", Era: rt.Stateless, ProtocolVersion: "2026-07-28"}
		if withTasks {
			o.Tasks = tasks.Client(tasks.Options{})
		}
		cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: g.Server()}, o, v26.Mount(&clientHandler{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if ext, _ := wire.MemberOf(cs.ServerCapabilities(), "extensions"); !strings.Contains(string(ext), "io.modelcontextprotocol/tasks") {
			t.Errorf("the gateway does not declare the tasks extension: %s", cs.ServerCapabilities())
		}
		return v26.NewClient(cs)
	}
	call := func(c *v26.Client, name, args string) (string, error) {
		r, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: name, Arguments: v26.CallToolRequestParamsArguments(args)})
		if err != nil {
			return "", err
		}
		return text(r), nil
	}
	withTasks, without := open(true), open(false)
	if got, err := call(withTasks, "slow_compute", `{"seconds":0.2,"label":"through"}`); err != nil || !strings.Contains(got, "through") {
		t.Errorf("slow_compute as a task through the gateway: %s %v", got, err)
	}
	if got, err := call(without, "slow_compute", `{"seconds":0.01,"label":"at once"}`); err != nil || !strings.Contains(got, "at once") {
		t.Errorf("slow_compute without tasks: %s %v", got, err)
	}
	var je *jsonrpc.Error
	if _, err := call(without, "test_tool_with_task", `{}`); !errors.As(err, &je) || !strings.Contains(je.Message, "io.modelcontextprotocol/tasks") {
		t.Errorf("a task-only tool from a client without the extension: %v; want it refused naming the extension", err)
	}

	// Whose a task is: over HTTP, alice's task is hers alone.
	sh := streamhttp.NewHandler(g.Server(), streamhttp.Options{Auth: func(r *http.Request) (context.Context, error) {
		return rt.WithPrincipal(r.Context(), r.Header.Get("X-User")), nil
	}})
	srv := httptest.NewServer(sh)
	defer func() { srv.Close(); sh.Close() }()
	as := func(user string) *rt.ClientSession {
		cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: srv.URL, Header: http.Header{"X-User": {user}}},
			rt.ClientOptions{Name: "front", Version: "1", Era: rt.Stateless, ProtocolVersion: "2026-07-28", Tasks: tasks.Client(tasks.Options{})}, v26.Mount(&clientHandler{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice, bob := as("alice"), as("bob")
	var handle wire.Raw // the raw call waits for no task
	if err := alice.Call(ctx, "tools/call", wire.Raw(`{"name":"slow_compute","arguments":{"seconds":0.05}}`), &handle); err != nil {
		t.Fatal(err)
	}
	id, _ := wire.MemberOf(handle, "taskId")
	if len(id) == 0 {
		t.Fatalf("no task handle: %s", handle)
	}
	get := wire.Raw(`{"taskId":` + string(id) + `}`)
	var got wire.Raw
	if err := alice.Call(ctx, "tasks/get", get, &got); err != nil {
		t.Errorf("alice's tasks/get of her task: %v", err)
	}
	if err := bob.Call(ctx, "tasks/get", get, &got); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "unknown task") {
		t.Errorf("bob's tasks/get of alice's task: %v; want -32602 unknown task", err)
	}
}

// TestParkedBoundPerPrincipal: calls parked between input rounds are
// bounded per principal (a quarter of MaxParked): a principal over it is
// refused naming the bound, and another principal is not.
func TestParkedBoundPerPrincipal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := gateway.New(ctx, gateway.Options{Backend: &stdio.CommandTransport{Path: everything(t), Args: []string{"--revisions", "2025-11-25"}, Stderr: os.Stderr}, Logger: testLogger(t), MaxParked: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sh := streamhttp.NewHandler(g.Server(), streamhttp.Options{Auth: func(r *http.Request) (context.Context, error) {
		return rt.WithPrincipal(r.Context(), r.Header.Get("X-User")), nil
	}})
	srv := httptest.NewServer(sh)
	defer func() { srv.Close(); sh.Close() }()
	as := func(user string) *rt.ClientSession {
		cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: srv.URL, Header: http.Header{"X-User": {user}}},
			rt.ClientOptions{Name: "front", Version: "1", Era: rt.Stateless, ProtocolVersion: "2026-07-28"}, v26.Mount(&clientHandler{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	// The backend asks for sampling mid-call: the call parks, and the
	// raw call returns the input round unanswered.
	sample := func(cs *rt.ClientSession) error {
		var out wire.Raw
		err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"test_sampling","arguments":{"prompt":"hi"}}`), &out)
		if err == nil && !strings.Contains(string(out), "input_required") {
			t.Errorf("test_sampling through the gateway: %s; want an input round", out)
		}
		return err
	}
	alice, bob := as("alice"), as("bob")
	if err := sample(alice); err != nil {
		t.Fatalf("alice's first call: %v", err)
	}
	var je *jsonrpc.Error
	if err := sample(alice); !errors.As(err, &je) || !strings.Contains(je.Message, "its bound per principal") {
		t.Errorf("alice's second parked call (MaxParked 4: one each): %v; want the per-principal bound named", err)
	}
	if err := sample(bob); err != nil {
		t.Errorf("bob's call while alice is at her bound: %v", err)
	}
}

// TestCoreTasksThroughGateway: a 2025-11-25 backend's tasks (the core
// design) reach its 2025-11-25 clients: the capability and the tools'
// execution.taskSupport through; a call with params.task answered with
// the backend's CreateTaskResult, polled with tasks/get, listed,
// finished with tasks/result; over HTTP, another principal's tasks/get
// refused and its tasks/list without the task; and (an in-process
// backend) what a task asks is asked of the session whose task it is,
// and a question for a task the gateway does not know is refused.
func TestCoreTasksThroughGateway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g := start(t, "2025-11-25")
	cs := connect(t, g, "stdio", "2025-11-25", &clientHandler{})
	if tc, _ := wire.MemberOf(cs.ServerCapabilities(), "tasks"); !strings.Contains(string(tc), `"tools"`) {
		t.Fatalf("the gateway does not declare the backend's tasks to a 2025-11-25 client: %s", cs.ServerCapabilities())
	}
	var tools wire.Raw
	if err := cs.Call(ctx, "tools/list", wire.Raw(`{}`), &tools); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tools), `"taskSupport"`) {
		t.Errorf("tools/list through the gateway lost execution.taskSupport: %.300s", tools)
	}
	call := func(cs *rt.ClientSession, method, params string) (wire.Raw, error) {
		var out wire.Raw
		err := cs.Call(ctx, method, wire.Raw(params), &out)
		return out, err
	}
	handle, err := call(cs, "tools/call", `{"name":"slow_compute","arguments":{"seconds":0.2,"label":"core"},"task":{"ttl":60000}}`)
	if err != nil {
		t.Fatal(err)
	}
	task, _ := wire.MemberOf(handle, "task")
	id, _ := wire.MemberOf(task, "taskId")
	if len(id) == 0 {
		t.Fatalf("a call with params.task through the gateway: %s; want a CreateTaskResult", handle)
	}
	byID := `{"taskId":` + string(id) + `}`
	if got, err := call(cs, "tasks/get", byID); err != nil || !strings.Contains(string(got), `"status"`) {
		t.Errorf("tasks/get: %s %v", got, err)
	}
	if got, err := call(cs, "tasks/list", `{}`); err != nil || !strings.Contains(string(got), string(id)) {
		t.Errorf("tasks/list: %s %v; want the task listed", got, err)
	}
	if got, err := call(cs, "tasks/result", byID); err != nil || !strings.Contains(string(got), "core") {
		t.Errorf("tasks/result: %s %v; want the tool's result", got, err)
	}

	// Whose a task is: over HTTP, alice's task is hers alone.
	sh := streamhttp.NewHandler(g.Server(), streamhttp.Options{Auth: func(r *http.Request) (context.Context, error) {
		return rt.WithPrincipal(r.Context(), r.Header.Get("X-User")), nil
	}})
	srv := httptest.NewServer(sh)
	t.Cleanup(func() { srv.Close(); sh.Close() }) // after the sessions close
	as := func(user string) *rt.ClientSession {
		cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: srv.URL, Header: http.Header{"X-User": {user}}},
			rt.ClientOptions{Name: "front", Version: "1", Era: rt.Stateful, ProtocolVersion: "2025-11-25"}, v25via.Mount(&clientHandler{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice, bob := as("alice"), as("bob")
	handle, err = call(alice, "tools/call", `{"name":"slow_compute","arguments":{"seconds":5},"task":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	task, _ = wire.MemberOf(handle, "task")
	id, _ = wire.MemberOf(task, "taskId")
	byID = `{"taskId":` + string(id) + `}`
	var je *jsonrpc.Error
	if _, err := call(bob, "tasks/get", byID); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "unknown task") {
		t.Errorf("bob's tasks/get of alice's task: %v; want -32602 unknown task", err)
	}
	if got, err := call(bob, "tasks/list", `{}`); err != nil || strings.Contains(string(got), string(id)) {
		t.Errorf("bob's tasks/list: %s %v; want alice's task left out", got, err)
	}
	if got, err := call(alice, "tasks/cancel", byID); err != nil || !strings.Contains(string(got), "cancelled") {
		t.Errorf("alice's tasks/cancel of her task: %s %v", got, err)
	}

	t.Run("input", func(t *testing.T) {
		// A task that asks for input: the backend's elicitation/create,
		// tagged with the related-task _meta, reaches the client whose
		// task it is, and its answer the task.
		backend, err := rt.NewServer(rt.ServerOptions{Name: "asker", Version: "1", Features: []rt.Feature{tasks.Feature(tasks.Options{})}}, v25.Mount(asker{}))
		if err != nil {
			t.Fatal(err)
		}
		defer backend.Close()
		g, err := gateway.New(ctx, gateway.Options{Backend: &stdio.InProcessTransport{Server: backend}, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		h := &clientHandler{}
		cs := connect(t, g, "stdio", "2025-11-25", h)
		handle, err := call(cs, "tools/call", `{"name":"ask","arguments":{},"task":{}}`)
		if err != nil {
			t.Fatal(err)
		}
		task, _ := wire.MemberOf(handle, "task")
		id, _ := wire.MemberOf(task, "taskId")
		if got, err := call(cs, "tasks/result", `{"taskId":`+string(id)+`}`); err != nil || !strings.Contains(string(got), "gw@example.com") {
			t.Errorf("tasks/result of a task that asked: %s %v; want the client's answer in it", got, err)
		}
		if !slices.Contains(h.asked, "elicitation") {
			t.Errorf("the client was not asked: %v", h.asked)
		}
		h2 := &clientHandler{}
		cs2 := connect(t, g, "stdio", "2025-11-25", h2)
		if got, err := call(cs2, "tools/call", `{"name":"stray","arguments":{}}`); err != nil || !strings.Contains(string(got), "did not pass on") {
			t.Errorf("a question for a task the gateway does not know: %s %v; want it refused", got, err)
		}
		if len(h2.asked) > 0 {
			t.Errorf("a question for an unknown task reached a client: %v", h2.asked)
		}
	})
}

// asker is a 2025-11-25 server whose tool "ask" runs as a task that
// asks its client for input (elicitation) and answers with the reply.
type asker struct{}

func (asker) ListTools(context.Context, *v25.PaginatedRequestParams) (*v25.ListToolsResult, error) {
	var r v25.ListToolsResult
	err := wire.Unmarshal([]byte(`{"tools":[{"name":"ask","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"stray","inputSchema":{"type":"object"}}]}`), &r)
	return &r, err
}

// CallTool: "ask" runs as a task that asks for an email; "stray" asks a
// question tagged with a task no one made.
func (asker) CallTool(ctx context.Context, p *v25.CallToolRequestParams) (v25.CallToolReply, error) {
	if p.Name == "stray" {
		// A question tagged with a task the gateway never passed on.
		var out wire.Raw
		err := rt.RequestFrom(ctx).Session().Peer().Call(ctx, "elicitation/create", wire.Raw(`{"message":"?","requestedSchema":{"type":"object","properties":{}},"_meta":{"`+tasks.MetaRelatedTask+`":{"taskId":"nope"}}}`), &out)
		b, _ := json.Marshal(fmt.Sprint(err))
		var r v25.CallToolResult
		return &r, wire.Unmarshal([]byte(`{"content":[{"type":"text","text":`+string(b)+`}]}`), &r)
	}
	return nil, tasks.Start(ctx, func(ctx context.Context, tk *tasks.Task) (wire.Marshaler, error) {
		resp, err := tk.Input(ctx, "email", wire.Raw(`{"method":"elicitation/create","params":{"message":"Your email?","requestedSchema":{"type":"object","properties":{"email":{"type":"string"}}}}}`))
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(string(resp))
		return wire.Raw(`{"content":[{"type":"text","text":` + string(b) + `}]}`), nil
	})
}
