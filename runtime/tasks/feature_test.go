package tasks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/protocol/protocoltest"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// server serves the stateless test revision with tasks: its tools/call
// "task" starts a task that runs until cancelled, "ask" a task that asks
// for input (sampling), anything else answers at once.
func server(t *testing.T, o tasks.Options) *mcp.Server {
	t.Helper()
	_, p := protocoltest.Revisions(func(ctx context.Context, _ any, params wire.Raw) (wire.Marshaler, error) {
		name := mcp.RequestFrom(ctx).Name()
		switch name {
		case "task":
			return nil, tasks.Start(ctx, func(ctx context.Context, _ *tasks.Task) (wire.Marshaler, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
		case "ask":
			return nil, tasks.Start(ctx, func(ctx context.Context, tk *tasks.Task) (wire.Marshaler, error) {
				_, err := tk.Input(ctx, "k", wire.Raw(`{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`))
				return nil, err
			})
		}
		return wire.Raw(`{"content":[]}`), nil
	})
	s, err := mcp.NewServer(mcp.ServerOptions{Name: "t", Version: "1", Features: []mcp.Feature{tasks.Feature(o)}}, mcp.Mount{Protocol: p, Handler: struct{}{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const tasksCaps = `{"extensions":{"` + protocol.TasksExtension + `":{}}}`

type discard struct{}

func (discard) Notify(context.Context, string, wire.Marshaler) error { return nil }

// call serves method with params members (besides _meta) as principal,
// the client declaring caps.
func call(s *mcp.Server, principal, method, members, caps string) (string, error) {
	params := `{` + members + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}`
	x := s.Accept(protocoltest.Request(method, params), mcp.Via{})
	res, err := x.Serve(mcp.WithPrincipal(context.Background(), principal), nil, discard{})
	if err != nil {
		return "", err
	}
	b, err := wire.Marshal(res)
	return string(b), err
}

func code(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

func taskID(t *testing.T, out string) string {
	t.Helper()
	v, ok := wire.MemberOf(wire.Raw(out), "taskId")
	if !ok {
		t.Fatalf("no taskId in %s", out)
	}
	return strings.Trim(string(v), `"`)
}

// TestTasksBoundToPrincipal: a stateless task is found only by the
// principal that created it.
func TestTasksBoundToPrincipal(t *testing.T) {
	s := server(t, tasks.Options{})
	out, err := call(s, "alice", "tools/call", `"name":"task"`, tasksCaps)
	if err != nil {
		t.Fatal(err)
	}
	id := taskID(t, out)
	for _, tc := range []struct {
		principal, method string
		code              int64
	}{
		{"bob", "tasks/get", jsonrpc.CodeInvalidParams},
		{"bob", "tasks/cancel", jsonrpc.CodeInvalidParams},
		{"", "tasks/get", jsonrpc.CodeInvalidParams},
		{"alice", "tasks/get", 0},
		{"alice", "tasks/cancel", 0},
	} {
		_, err := call(s, tc.principal, tc.method, `"taskId":"`+id+`"`, tasksCaps)
		if code(err) != tc.code {
			t.Errorf("%s by %q: %v, want code %d", tc.method, tc.principal, err, tc.code)
		}
	}
}

// TestTaskInputNeedsCapability: a task asks only for the input the client
// declared it can give (-32021 naming the capability).
func TestTaskInputNeedsCapability(t *testing.T) {
	s := server(t, tasks.Options{})
	out, err := call(s, "alice", "tools/call", `"name":"ask"`, `{"extensions":{"`+protocol.TasksExtension+`":{}},"elicitation":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	id := taskID(t, out)
	// The task fails as soon as it asks; tasks/get shows it then.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		got, err := call(s, "alice", "tasks/get", `"taskId":"`+id+`"`, tasksCaps)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, `"status":"failed"`) {
			if !strings.Contains(got, "-32021") || !strings.Contains(got, "sampling") {
				t.Errorf("the task asking for sampling: %s, want -32021 naming sampling", got)
			}
			return
		}
	}
	t.Fatal("the task asking for input the client cannot give did not fail")
}

// TestTasksPerOwner: an owner running MaxTasksPerOwner tasks is refused
// one more, saying so, while another owner starts its own; once one of its
// tasks ends, it may start another.
func TestTasksPerOwner(t *testing.T) {
	s := server(t, tasks.Options{MaxTasksPerOwner: 2})
	var ids []string
	for range 2 {
		out, err := call(s, "alice", "tools/call", `"name":"task"`, tasksCaps)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, taskID(t, out))
	}
	_, err := call(s, "alice", "tools/call", `"name":"task"`, tasksCaps)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || !strings.Contains(je.Message, "for this client") {
		t.Fatalf("alice's third task: %v", err)
	}
	if _, err := call(s, "bob", "tools/call", `"name":"task"`, tasksCaps); err != nil {
		t.Fatalf("bob's task while alice is at her bound: %v", err)
	}
	if _, err := call(s, "alice", "tasks/cancel", `"taskId":"`+ids[0]+`"`, tasksCaps); err != nil {
		t.Fatal(err)
	}
	if _, err := call(s, "alice", "tools/call", `"name":"task"`, tasksCaps); err != nil {
		t.Fatalf("alice's task once one ended: %v", err)
	}
}

// TestFeatureRefusesTablesWithoutEncoders: a revision with tasks whose
// generated package has no task encoders is refused, naming it.
func TestFeatureRefusesTablesWithoutEncoders(t *testing.T) {
	p, _ := protocoltest.Revisions(nil)
	p.Methods["tasks/get"] = &protocol.Method{Name: "tasks/get", FromClient: true, Role: protocol.RoleTaskGet, Feature: protocol.FeatureTasks}
	_, err := mcp.NewServer(mcp.ServerOptions{Name: "t", Version: "1", Features: []mcp.Feature{tasks.Feature(tasks.Options{})}}, mcp.Mount{Protocol: p})
	if err == nil || !strings.Contains(err.Error(), "no task encoders") {
		t.Errorf("NewServer: %v", err)
	}
}
