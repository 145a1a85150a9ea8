package tasks

import (
	"context"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Client hosts tasks on a client (mcp.ClientOptions.Tasks): in
// 2025-11-25 a server may ask for sampling/createMessage and
// elicitation/create as tasks, which run the handler in the background
// while the server polls with tasks/*; and the client declares that its
// typed calls wait for the task handles servers answer with.
func Client(o Options) mcp.ClientTasks {
	return &clientTasks{h: newHost(o, slog.New(slog.DiscardHandler))}
}

// clientTasks are the tasks a client hosts.
type clientTasks struct{ h *host }

// Host implements mcp.ClientTasks.
func (c *clientTasks) Host(ctx context.Context, cs *mcp.ClientSession, md *protocol.Method, req *jsonrpc.Request, serve func(ctx context.Context, params wire.Raw) (wire.Marshaler, error)) (wire.Marshaler, error, bool) {
	p := cs.Protocol()
	if req.IsNotification || p == nil || p.Tasks == nil {
		// Hosted tasks are the core design's (2025-11-25), whose revisions
		// have task types.
		return nil, nil, false
	}
	d := coreDesign{p.Tasks}
	switch md.Role {
	case protocol.RoleSampling, protocol.RoleElicitation:
	default:
		return c.h.serve(ctx, md.Role, req.Params, cs, d)
	}
	task, _ := wire.MemberOf(req.Params, "task")
	if task == nil || serve == nil {
		return nil, nil, false
	}
	// The task outlives this call: its params must not alias the read
	// buffer.
	params := append(wire.Raw(nil), req.Params...)
	t := &Task{design: d, role: md.Role, owner: cs, requestor: clientRequestor{cs}, ttl: requestedTTL(task)}
	t.progress, t.hasToken = progressToken(params)
	t, err := c.h.start(ctx, t, func(ctx context.Context, _ *Task) (wire.Marshaler, error) {
		return serve(ctx, params)
	})
	if err != nil {
		return nil, err, true
	}
	return encoderFunc(func(e *wire.Encoder) { d.create(t).EncodeJSON(e) }), nil, true
}

// progressToken is params._meta.progressToken, if a string or an integer.
func progressToken(params wire.Raw) (wire.StringOrInt, bool) {
	var tok wire.StringOrInt
	meta, _ := wire.MemberOf(params, "_meta")
	v, ok := wire.MemberOf(meta, "progressToken")
	if !ok || wire.UnmarshalWith(v, tok.DecodeJSON) != nil {
		return tok, false
	}
	return tok, true
}

// clientRequestor reaches the server from a client's task.
type clientRequestor struct{ cs *mcp.ClientSession }

func (c clientRequestor) notify(ctx context.Context, r protocol.Role, params wire.Marshaler) {
	p := c.cs.Protocol()
	if p == nil {
		return
	}
	if method := p.RoleName(r); method != "" {
		_ = c.cs.Notify(ctx, method, params)
	}
}

func (c clientRequestor) call(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	return c.cs.CallInto(ctx, method, params, result)
}
