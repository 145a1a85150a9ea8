// Package protocoltest has hand-written method tables for the runtime's
// tests: a stateful "2025-11-25" and a stateless "2026-07-28" with what
// generated tables give the runtime (roles, the features the runtime
// answers, the id rule of errors, the code of a missing capability, the
// tool error), so that the runtime and the features above it are tested
// without a generated package. The generated packages are exercised end to
// end in examples/everything and spectest.
package protocoltest

import (
	"context"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Serve answers one method of a table (protocol.Method.Serve).
type Serve = func(ctx context.Context, handler any, params wire.Raw) (wire.Marshaler, error)

// Always reports every method implemented (protocol.Method.Implemented).
func Always(any) bool { return true }

// Revisions returns the two tables; call answers tools/call.
func Revisions(call Serve) (stateful, stateless *protocol.Protocol) {
	methods := func(stateless bool) map[string]*protocol.Method {
		ms := map[string]*protocol.Method{
			"tools/call":             {Name: "tools/call", FromClient: true, Implemented: Always, Serve: call, ValidateParams: protocol.NoParams, NameParam: "name", Role: protocol.RoleToolsCall},
			"tools/list":             {Name: "tools/list", FromClient: true, Implemented: Always, Serve: func(context.Context, any, wire.Raw) (wire.Marshaler, error) { return wire.Raw(`{"tools":[]}`), nil }, ValidateParams: protocol.NoParams, Cacheable: stateless, Role: protocol.RoleToolsList},
			"prompts/get":            {Name: "prompts/get", FromClient: true, Implemented: func(any) bool { return false }, ValidateParams: protocol.NoParams},
			"sampling/createMessage": {Name: "sampling/createMessage", FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleSampling},
			"elicitation/create":     {Name: "elicitation/create", FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleElicitation},
			"roots/list":             {Name: "roots/list", FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleRoots},
		}
		for n, r := range map[string]protocol.Role{"notifications/progress": protocol.RoleProgress, "notifications/message": protocol.RoleLog, "notifications/tools/list_changed": protocol.RoleToolsListChanged,
			"notifications/prompts/list_changed": protocol.RolePromptsListChanged, "notifications/cancelled": protocol.RoleCancelled} {
			ms[n] = &protocol.Method{Name: n, Notification: true, FromServer: true, FromClient: r == protocol.RoleProgress || r == protocol.RoleCancelled, ValidateParams: protocol.NoParams, Role: r}
			if r == protocol.RoleProgress || r == protocol.RoleCancelled {
				ms[n].Feature = protocol.FeatureLifecycle
			}
		}
		if stateless {
			ms["server/discover"] = &protocol.Method{Name: "server/discover", FromClient: true, ValidateParams: protocol.NoParams, Role: protocol.RoleDiscover, Feature: protocol.FeatureDiscover}
			ms["subscriptions/listen"] = &protocol.Method{Name: "subscriptions/listen", FromClient: true, ValidateParams: protocol.NoParams, Role: protocol.RoleListen, Feature: protocol.FeatureListen}
			ms["notifications/subscriptions/acknowledged"] = &protocol.Method{Name: "notifications/subscriptions/acknowledged", Notification: true, FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleListenAcknowledged}
		} else {
			for n, r := range map[string]protocol.Role{"initialize": protocol.RoleInitialize, "ping": protocol.RolePing, "logging/setLevel": protocol.RoleSetLevel, "notifications/initialized": protocol.RoleInitialized} {
				f := protocol.FeatureLifecycle
				if r == protocol.RoleSetLevel {
					f = protocol.FeatureLogging
				}
				ms[n] = &protocol.Method{Name: n, FromClient: true, ValidateParams: protocol.NoParams, Notification: strings.HasPrefix(n, "notifications/"), Role: r, Feature: f}
			}
		}
		return ms
	}
	caps := []string{"tools", "prompts", "logging", "resources", "completions"}
	return &protocol.Protocol{Revision: "2025-11-25", Era: protocol.Stateful, Methods: methods(false), ServerCapabilities: caps, NoID: jsonrpc.OmitID, ToolError: toolError(false)},
		&protocol.Protocol{Revision: "2026-07-28", Era: protocol.Stateless, Methods: methods(true), ServerCapabilities: append(caps, "extensions"),
			NoID: jsonrpc.OmitID, MissingCapabilityCode: -32021, ToolError: toolError(true),
			// It asks a stamp of every result (features that write their
			// results write it), and leaves its results as they are.
			Stamp: func(res wire.Marshaler, _ *protocol.Stamp) wire.Marshaler { return res }}
}

// toolError is a revision's CallToolResult of a tool execution error.
func toolError(resultType bool) func(string) wire.Marshaler {
	return func(text string) wire.Marshaler {
		var e wire.Encoder
		e.Str(text)
		prefix := `{"content":[{"type":"text","text":`
		if resultType {
			prefix = `{"resultType":"complete","content":[{"type":"text","text":`
		}
		return wire.Raw(prefix + string(e.Bytes()) + `}],"isError":true}`)
	}
}

// Meta is the _meta member of a stateless request of the stateless table
// from a client declaring sampling (without its closing brace: append
// more members, or "}").
const Meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}`

// Request is a request with id 1 of method with params (none when "").
func Request(method, params string) *jsonrpc.Request {
	r := &jsonrpc.Request{ID: wire.IntValue(1), Method: method}
	if params != "" {
		r.Params = wire.Raw(params)
	}
	return r
}
