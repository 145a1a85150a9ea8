package gateway_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
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
