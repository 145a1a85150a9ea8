package spectest_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20241105"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20250326"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20250618"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20251125"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20260728"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcpdraft"
)

// TestRuntimeData checks what each official revision's generated method
// table gives the runtime against what its schema says: how an error that
// cannot name its request writes its id (JSONRPCError requires a string or
// integer id up to 2025-06-18, so only JSON-RPC's null is left;
// JSONRPCErrorResponse makes it optional from 2025-11-25 on, and it is
// left out), the code of a missing client capability, the task encoders,
// the tool error, the roles the runtime finds methods by, and that
// NewServer has a route for every method the table gives the runtime.
func TestRuntimeData(t *testing.T) {
	for _, tc := range []struct {
		p       *protocol.Protocol
		era     protocol.Era
		noID    jsonrpc.NoID
		capCode int64
		tasks   bool
		// The dated rules (schema/facts.txt): arguments that break a
		// tool's inputSchema are a tool execution error, a closing SSE
		// stream sends its retry interval.
		toolError, retry bool
	}{
		{mcp20241105.Protocol(), protocol.Stateful, jsonrpc.NullID, 0, false, false, false},
		{mcp20250326.Protocol(), protocol.Stateful, jsonrpc.NullID, 0, false, false, false},
		{mcp20250618.Protocol(), protocol.Stateful, jsonrpc.NullID, 0, false, false, false},
		{mcp20251125.Protocol(), protocol.Stateful, jsonrpc.OmitID, 0, true, true, true},
		{mcp20260728.Protocol(), protocol.Stateless, jsonrpc.OmitID, mcp.CodeMissingRequiredClientCapability, false, true, false},
		{mcpdraft.Protocol(), protocol.Stateless, jsonrpc.OmitID, mcp.CodeMissingRequiredClientCapability, false, true, false},
	} {
		t.Run(tc.p.Revision, func(t *testing.T) {
			p := tc.p
			if p.NoID != tc.noID {
				t.Errorf("NoID = %d, want %d", p.NoID, tc.noID)
			}
			if p.MissingCapabilityCode != tc.capCode {
				t.Errorf("MissingCapabilityCode = %d, want %d", p.MissingCapabilityCode, tc.capCode)
			}
			if (p.Tasks != nil) != tc.tasks {
				t.Errorf("task encoders: %v, want %v", p.Tasks != nil, tc.tasks)
			}
			if p.Era != tc.era {
				t.Errorf("Era = %s, want %s", p.Era, tc.era)
			}
			if (p.ToolError != nil) != tc.toolError {
				t.Errorf("tool error: %v, want %v", p.ToolError != nil, tc.toolError)
			}
			if p.RetryOnClose != tc.retry {
				t.Errorf("RetryOnClose = %v, want %v", p.RetryOnClose, tc.retry)
			}
			// The dated rule of resources not found: -32602 from 2026-07-28.
			if want := map[protocol.Era]int64{protocol.Stateful: mcp.CodeResourceNotFound, protocol.Stateless: jsonrpc.CodeInvalidParams}[tc.era]; p.ResourceNotFoundCode != want {
				t.Errorf("ResourceNotFoundCode = %d, want %d", p.ResourceNotFoundCode, want)
			}
			for role, name := range map[protocol.Role]string{protocol.RoleToolsCall: "tools/call", protocol.RoleToolsList: "tools/list", protocol.RoleProgress: "notifications/progress", protocol.RoleCancelled: "notifications/cancelled"} {
				if got := p.RoleName(role); got != name {
					t.Errorf("role %d is %q, want %q", role, got, name)
				}
			}
			owned := 0
			for _, m := range p.Methods {
				if m.Feature != protocol.FeatureNone {
					owned++
					if m.Serve != nil || m.HandlerType != nil {
						t.Errorf("%s is the runtime's (%s) and a handler's", m.Name, m.Feature)
					}
				}
			}
			if owned == 0 {
				t.Error("no method is the runtime's")
			}
			if _, err := mcp.NewServer(mcp.ServerOptions{Name: "t", Version: "1", Features: []mcp.Feature{tasks.Feature(tasks.Options{}), listen.Feature(listen.Options{})}}, mcp.Mount{Protocol: p, Handler: struct{}{}}); err != nil {
				t.Errorf("NewServer: %v", err)
			}
		})
	}
}

// TestGeneratedTaskShapes pins what the generated task encoders of
// 2025-11-25 write: the bytes the runtime wrote by hand before they were
// generated.
func TestGeneratedTaskShapes(t *testing.T) {
	c := mcp20251125.Protocol().Tasks
	info := &protocol.TaskInfo{ID: "t1", Status: "working", CreatedAt: "2026-01-02T03:04:05Z", LastUpdatedAt: "2026-01-02T03:04:06Z", TTLMs: 60000, PollIntervalMs: 200}
	task := `{"taskId":"t1","status":"working","createdAt":"2026-01-02T03:04:05Z","lastUpdatedAt":"2026-01-02T03:04:06Z","ttl":60000,"pollInterval":200}`
	withMessage := *info
	withMessage.Message = "half way"
	for _, tc := range []struct {
		name string
		got  wire.Marshaler
		want string
	}{
		{"Task", c.Task(info), task},
		{"CreateTaskResult", c.Create(info), `{"task":` + task + `}`},
		{"GetTaskResult", c.Get(info), task},
		{"CancelTaskResult", c.Cancel(info), task},
		{"TaskStatusNotificationParams", c.Status(info), task},
		{"statusMessage", c.Task(&withMessage), `{"taskId":"t1","status":"working","statusMessage":"half way","createdAt":"2026-01-02T03:04:05Z","lastUpdatedAt":"2026-01-02T03:04:06Z","ttl":60000,"pollInterval":200}`},
	} {
		b, err := wire.Marshal(tc.got)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s %v\nwant %s", tc.name, b, err, tc.want)
		}
		if v, ok := tc.got.(interface{ Validate() error }); !ok || v.Validate() != nil {
			t.Errorf("%s does not validate", tc.name)
		}
	}
}

// TestGeneratedToolError pins the tool execution error of each era: the
// bytes the runtime wrote by hand before it was generated.
func TestGeneratedToolError(t *testing.T) {
	for _, tc := range []struct {
		p    *protocol.Protocol
		want string
	}{
		{mcp20251125.Protocol(), `{"content":[{"type":"text","text":"bad \"x\""}],"isError":true}`},
		{mcp20260728.Protocol(), `{"resultType":"complete","content":[{"type":"text","text":"bad \"x\""}],"isError":true}`},
	} {
		if b, err := wire.Marshal(tc.p.ToolError(`bad "x"`)); err != nil || string(b) != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.p.Revision, b, err, tc.want)
		}
	}
}

// TestStampCacheFields: the server's cache defaults fill only what a
// handler left unset — a handler's TTL survives an empty scope, and a
// handler that chose its scope keeps its TTL, zero included.
func TestStampCacheFields(t *testing.T) {
	defaults := &protocol.Stamp{Method: "tools/list", TTLMs: 60000, CacheScope: "public"}
	for _, tc := range []struct {
		name  string
		in    *mcp20260728.ListToolsResult
		ttl   int64
		scope string
	}{
		{"nothing set: both defaults", &mcp20260728.ListToolsResult{}, 60000, "public"},
		{"TTL without scope: the handler's TTL", &mcp20260728.ListToolsResult{TTLMs: 5000}, 5000, "public"},
		{"both set: the handler's", &mcp20260728.ListToolsResult{TTLMs: 5000, CacheScope: "private"}, 5000, "private"},
		{"scope with a zero TTL: immediately stale", &mcp20260728.ListToolsResult{CacheScope: "private"}, 0, "private"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := *tc.in
			got, ok := mcp20260728.Protocol().Stamp(tc.in, defaults).(*mcp20260728.ListToolsResult)
			if !ok {
				t.Fatalf("stamped %T", got)
			}
			if got.TTLMs != tc.ttl || string(got.CacheScope) != tc.scope {
				t.Errorf("ttlMs %d, cacheScope %q; want %d, %q", got.TTLMs, got.CacheScope, tc.ttl, tc.scope)
			}
			if tc.in.TTLMs != orig.TTLMs || tc.in.CacheScope != orig.CacheScope {
				t.Error("the handler's value was changed (stamping works on a copy)")
			}
			if err := got.Validate(); err != nil {
				t.Errorf("stamped result invalid: %v", err)
			}
		})
	}
}
