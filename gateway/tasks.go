package gateway

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Tasks. A 2026-07-28 backend that declares the tasks extension
// (io.modelcontextprotocol/tasks) answers a call its client asked to run
// as a task with a task handle (CreateTaskResult, resultType "task"); the
// gateway declares the extension to its 2026-07-28 clients, passes the
// handle on as it is (nativeCall), and carries the client's tasks/get,
// tasks/update and tasks/cancel to the backend session serving it, and
// their answers back, as they are — input requests of a task included.
// The gateway remembers whose each task is: another principal naming it is
// told it is unknown. Tasks of a backend of another revision (2025-11-25
// has tasks of another design) are not carried: the extension is not
// declared, and such a backend's calls run without tasks.

// maxTasks bounds the tasks whose owner the gateway remembers (the oldest
// is forgotten first: its owner's next tasks/* on it is refused).
const maxTasks = 16384

// taskOwners remembers whose each task is.
type taskOwners struct {
	mu    sync.Mutex
	owner map[taskKey]string
	order []taskKey // oldest first
}

// taskKey names a task: the backend (slot) whose it is — two backends
// may give the same id — and its id.
type taskKey struct {
	sl *slot
	id string
}

// note records that principal's request made task k.
func (o *taskOwners) note(k taskKey, principal string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owner == nil {
		o.owner = map[taskKey]string{}
	}
	if _, ok := o.owner[k]; !ok {
		o.order = append(o.order, k)
	}
	o.owner[k] = principal
	for len(o.order) > maxTasks {
		delete(o.owner, o.order[0])
		o.order = o.order[1:]
	}
}

// owns reports whether principal made task k.
func (o *taskOwners) owns(k taskKey, principal string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, ok := o.owner[k]
	return ok && p == principal
}

// tasksFeature declares the tasks extension (the backend's declaration,
// ext) to 2026-07-28 clients and carries its methods to the backend.
func (g *Gateway) tasksFeature(ext wire.Raw) rt.Feature {
	return rt.FeatureFunc(func(reg *rt.Registry) error {
		on := func(p *protocol.Protocol) bool { return p.Revision == g.first.ProtocolVersion() }
		for _, md := range protocol.TasksExtensionMethods() {
			reg.Route(rt.Route{Method: md, On: on, Step: g.forwardTask})
		}
		reg.Capabilities(func(p *protocol.Protocol, _ func(protocol.Role) bool, c *rt.Capabilities) {
			if on(p) {
				c.Extensions[protocol.TasksExtension] = ext
			}
		})
		return nil
	})
}

// forwardTask carries a tasks/* request of the extension to the backend
// session serving its client, if the task is the client's principal's.
func (g *Gateway) forwardTask(ctx context.Context, r *rt.Request, _ rt.Next) (wire.Marshaler, error) {
	if !r.HasClientCapability("extensions", protocol.TasksExtension) {
		return nil, rt.MissingCapability(r.Protocol, "extensions", protocol.TasksExtension)
	}
	params := members(r.Params())
	var id string
	if raw, ok := params["taskId"]; !ok || json.Unmarshal(raw, &id) != nil {
		return nil, rt.InvalidParams("/params/taskId", "taskId is required, a string")
	}
	sl, err := g.slotFor(r)
	if err != nil {
		return nil, err
	}
	if !g.tasks.owns(taskKey{sl, id}, r.Principal()) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown task %q", id)
	}
	return through(g, ctx, func(b *backend) (wire.Marshaler, error) {
		// The front hop's _meta is the front client's: the backend
		// session states its own version; the client's capabilities
		// (which declare the extension) and log level go on. Unlike
		// nativeHop, no other member does: tasks/* carry no more.
		if meta := members(params["_meta"]); len(meta) > 0 {
			keep := map[string]wire.Raw{}
			for _, k := range []string{rt.MetaClientCapabilities, rt.MetaLogLevel} {
				if v, ok := meta[k]; ok {
					keep[k] = v
				}
			}
			b, err := json.Marshal(keep)
			if err != nil {
				return nil, err
			}
			params["_meta"] = b
		}
		body, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		var out wire.Raw
		if err := b.cs.Call(g.backendCtx(ctx), r.Method, wire.Raw(body), &out); err != nil {
			return nil, err
		}
		return out, nil
	})
}

// taskHandle is b's result when it is a task handle
// (resultType "task"): noted as the front request's principal's, and
// passed on as it is (an AnswerWith). nil for any other result.
func (g *Gateway) taskHandle(ctx context.Context, b *backend, raw wire.Raw) error {
	kind, _ := wire.MemberOf(raw, "resultType")
	if string(kind) != `"task"` {
		return nil
	}
	var id string
	if v, ok := wire.MemberOf(raw, "taskId"); ok {
		_ = json.Unmarshal(v, &id)
	}
	if id == "" {
		if task, ok := wire.MemberOf(raw, "task"); ok {
			if v, ok := wire.MemberOf(task, "taskId"); ok {
				_ = json.Unmarshal(v, &id)
			}
		}
	}
	if id == "" {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "the backend answered with a task handle without taskId")
	}
	principal := ""
	if r := rt.RequestFrom(ctx); r != nil {
		principal = r.Principal()
	}
	g.tasks.note(taskKey{b.in.sl, id}, principal)
	return &rt.AnswerWith{Result: raw}
}
