package mcp

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// hostTask serves the server's task requests to a client that hosts tasks
// (ClientOptions.Tasks, 2025-11-25): sampling/createMessage and
// elicitation/create with params.task become tasks running the handler;
// tasks/* are answered from the client's store. ok is false for other
// requests.
func (cs *ClientSession) hostTask(ctx context.Context, m *Mount, md *protocol.Method, req *jsonrpc.Request) (wire.Marshaler, error, bool) {
	if req.IsNotification || m.Protocol.Tasks == nil {
		// Hosted tasks are the core design's (2025-11-25), whose revisions
		// have task types.
		return nil, nil, false
	}
	design := coreTasks{m.Protocol.Tasks}
	switch md.Role {
	case protocol.RoleSampling, protocol.RoleElicitation:
	default:
		return cs.tasks.serve(ctx, nil, md.Role, req.Params, cs, design)
	}
	task := memberRaw(req.Params, "task")
	if task == nil || md.Serve == nil || !md.Implemented(m.Handler) {
		return nil, nil, false
	}
	// The task outlives this call: its params must not alias the read
	// buffer.
	params := append(wire.Raw(nil), req.Params...)
	meta := parseMeta(params)
	t := &Task{design: design, role: md.Role, owner: cs, requestor: clientRequestor{cs}, ttl: requestedTTL(task),
		progress: meta.progressToken, hasToken: meta.hasProgress}
	t, err := cs.tasks.start(ctx, t, func(ctx context.Context, _ *Task) (wire.Marshaler, error) {
		return md.Serve(ctx, m.Handler, params)
	})
	if err != nil {
		return nil, err, true
	}
	return encoderFunc(func(e *wire.Encoder) { design.create(t).EncodeJSON(e) }), nil, true
}

// clientRequestor reaches the server from a client's task.
type clientRequestor struct{ cs *ClientSession }

func (c clientRequestor) notify(ctx context.Context, r protocol.Role, params wire.Marshaler) {
	m := c.cs.mount
	if m == nil {
		return
	}
	method := m.Protocol.RoleName(r)
	if method == "" {
		return
	}
	if err := c.cs.Notify(ctx, method, params); err != nil {
		c.cs.log.Debug("mcp: notification not delivered", "method", method, "err", err)
	}
}

func (c clientRequestor) call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return c.cs.Call(ctx, method, params, result)
}
