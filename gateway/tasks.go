package gateway

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/gateway/mcp/v20251125"
)

// Tasks. A 2026-07-28 backend that declares the tasks extension
// (io.modelcontextprotocol/tasks) answers a call its client asked to run
// as a task with a task handle (CreateTaskResult, resultType "task"); the
// gateway declares the extension to its 2026-07-28 clients, passes the
// handle on as it is (nativeCall), and carries the client's tasks/get,
// tasks/update and tasks/cancel to the backend session serving it, and
// their answers back, as they are — input requests of a task included.
//
// A backend whose 2025-11-25 sessions declare tasks (capabilities.tasks,
// the core design) has them declared to 2025-11-25 clients: a tools/call with
// params.task goes to the backend as it is, and its CreateTaskResult
// back; tasks/get, tasks/result, tasks/list (each principal's tasks
// only) and tasks/cancel go to the backend session serving the client;
// what the backend asks for a task (elicitation, sampling, tagged with
// the related-task _meta) is asked of the client session whose task it
// is, and its notifications/tasks/status reach that session. Progress of
// a task is not carried (poll tasks/get).
//
// The gateway remembers whose each task is: another principal naming it is
// told it is unknown (without principals, another session). Tasks of one
// design are not carried to clients of the other: the two share no
// handle, nor methods.

// maxTasks bounds the tasks whose owner the gateway remembers (the oldest
// is forgotten first: its owner's next tasks/* on it is refused).
const maxTasks = 16384

// taskOwners remembers whose each task is.
type taskOwners struct {
	mu    sync.Mutex
	owner map[taskKey]taskOwner
	order []taskKey // oldest first
}

// taskOwner is whose a task is: the principal of the request that made
// it, and its session (nil for a stateless request), which hears what
// the backend asks and tells of the task (the core design).
type taskOwner struct {
	principal string
	sess      *rt.Session
}

// taskKey names a task: the backend (slot) whose it is — two backends
// may give the same id — and its id.
type taskKey struct {
	sl *slot
	id string
}

// note records that the request r (nil: none) made task k.
func (o *taskOwners) note(k taskKey, r *rt.Request) {
	var who taskOwner
	if r != nil {
		who = taskOwner{r.Principal(), r.Session()}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owner == nil {
		o.owner = map[taskKey]taskOwner{}
	}
	if _, ok := o.owner[k]; !ok {
		o.order = append(o.order, k)
	}
	o.owner[k] = who
	for len(o.order) > maxTasks {
		delete(o.owner, o.order[0])
		o.order = o.order[1:]
	}
}

// owns reports whether the request r's principal made task k — its
// session, when neither has a principal.
func (o *taskOwners) owns(k taskKey, r *rt.Request) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	who, ok := o.owner[k]
	if !ok || who.principal != r.Principal() {
		return false
	}
	return who.principal != "" || who.sess == nil || who.sess == r.Session()
}

// session is the session that made task k (nil: unknown, or stateless).
func (o *taskOwners) session(k taskKey) *rt.Session {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.owner[k].sess
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
	if !g.tasks.owns(taskKey{sl, id}, r) {
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
	g.tasks.note(taskKey{b.in.sl, id}, rt.RequestFrom(ctx))
	return &rt.AnswerWith{Result: raw}
}

// coreTasks is the tasks capability of the backend's 2025-11-25 sessions,
// if they declare one: that of its first session (in's), when the
// newest revision both speak is 2025-11-25; else, when that is
// 2026-07-28 and declares the tasks extension (the backend has tasks), of
// a 2025-11-25 session opened to learn it — it serves the 2025-11-25
// clients then.
func (g *Gateway) coreTasks(ctx context.Context, in *instance) (wire.Raw, bool) {
	rev := v25.Protocol().Revision
	cs := g.first
	if cs.ProtocolVersion() != rev {
		ext, _ := wire.MemberOf(cs.ServerCapabilities(), "extensions")
		if _, ok := wire.MemberOf(ext, protocol.TasksExtension); !ok {
			return nil, false
		}
		if cs = in.session(ctx, rev).cs; cs.ProtocolVersion() != rev {
			return nil, false
		}
	}
	return wire.MemberOf(cs.ServerCapabilities(), "tasks")
}

// coreTasksFeature declares the tasks of a 2025-11-25 backend (caps, its
// capabilities.tasks) to the clients of that revision and carries them.
func (g *Gateway) coreTasksFeature(caps wire.Raw) rt.Feature {
	rev := v25.Protocol().Revision
	on := func(p *protocol.Protocol) bool { return p.Revision == rev }
	return rt.FeatureFunc(func(reg *rt.Registry) error {
		reg.Route(rt.Route{Role: protocol.RoleToolsCall, On: on, Step: g.coreTaskCall})
		for _, role := range []protocol.Role{protocol.RoleTaskGet, protocol.RoleTaskResult, protocol.RoleTaskList, protocol.RoleTaskCancel} {
			reg.Route(rt.Route{Role: role, On: on, Step: g.forwardCoreTask})
		}
		reg.Capabilities(func(p *protocol.Protocol, _ func(protocol.Role) bool, c *rt.Capabilities) {
			if on(p) {
				c.Members["tasks"] = caps
			}
		})
		return nil
	})
}

// coreTaskCall carries a tools/call that asks for a task (params.task) to
// the backend as it is, and the task it makes back, noted as the
// caller's; any other call goes on to the front handler.
func (g *Gateway) coreTaskCall(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
	params := r.Params()
	if _, ok := wire.MemberOf(params, "task"); !ok {
		return next.Serve()
	}
	return through(g, ctx, func(b *backend) (wire.Marshaler, error) {
		if b.cs.ProtocolVersion() != r.ProtocolVersion() {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "params.task: the backend no longer speaks %s, whose tasks these are", r.ProtocolVersion())
		}
		body, err := withoutProgress(params)
		if err != nil {
			return nil, err
		}
		var out wire.Raw
		if err := b.cs.Call(g.backendCtx(ctx), r.Method, body, &out); err != nil {
			return nil, err
		}
		task, _ := wire.MemberOf(out, "task")
		var id string
		if v, ok := wire.MemberOf(task, "taskId"); ok {
			_ = json.Unmarshal(v, &id)
		}
		if id == "" {
			// The backend ran the call at once: its result, as it is.
			return nil, &rt.AnswerWith{Result: out}
		}
		g.tasks.note(taskKey{b.in.sl, id}, r)
		return nil, &rt.AnswerWith{Result: out}
	})
}

// withoutProgress is params without _meta.progressToken: the progress of
// a task outlives the request that started it, and the gateway's session
// with the backend knows nothing of the token.
func withoutProgress(params wire.Raw) (wire.Raw, error) {
	meta, ok := wire.MemberOf(params, "_meta")
	if !ok {
		return params, nil
	}
	if _, ok := wire.MemberOf(meta, "progressToken"); !ok {
		return params, nil
	}
	m, mm := members(params), members(meta)
	delete(mm, "progressToken")
	b, err := json.Marshal(mm)
	if err != nil {
		return nil, err
	}
	m["_meta"] = b
	b, err = json.Marshal(m)
	return wire.Raw(b), err
}

// forwardCoreTask carries tasks/get, tasks/result, tasks/cancel (of a
// task the client's principal made) and tasks/list (answered with that
// principal's tasks only) to the backend session serving the client.
func (g *Gateway) forwardCoreTask(ctx context.Context, r *rt.Request, _ rt.Next) (wire.Marshaler, error) {
	sl, err := g.slotFor(r)
	if err != nil {
		return nil, err
	}
	list := r.Role() == protocol.RoleTaskList
	if !list {
		var id string
		if raw, ok := wire.MemberOf(r.Params(), "taskId"); !ok || json.Unmarshal(raw, &id) != nil {
			return nil, rt.InvalidParams("/params/taskId", "taskId is required, a string")
		}
		if !g.tasks.owns(taskKey{sl, id}, r) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown task %q", id)
		}
	}
	return through(g, ctx, func(b *backend) (wire.Marshaler, error) {
		if b.cs.ProtocolVersion() != r.ProtocolVersion() {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "the backend no longer speaks %s, whose tasks these are", r.ProtocolVersion())
		}
		params := r.Params()
		if len(params) == 0 {
			params = wire.Raw(`{}`)
		}
		var out wire.Raw
		if err := b.cs.Call(g.backendCtx(ctx), r.Method, params, &out); err != nil {
			return nil, err
		}
		if list {
			return g.ownTasks(b.in.sl, r, out)
		}
		return out, nil
	})
}

// ownTasks is the tasks/list result res with only the tasks of r's
// principal (its cursor kept: a page may come out shorter).
func (g *Gateway) ownTasks(sl *slot, r *rt.Request, res wire.Raw) (wire.Raw, error) {
	m := members(res)
	var all []json.RawMessage
	if err := json.Unmarshal(m["tasks"], &all); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the backend's tasks/list result: tasks: %v", err)
	}
	own := make([]json.RawMessage, 0, len(all))
	for _, t := range all {
		var id string
		if v, ok := wire.MemberOf(wire.Raw(t), "taskId"); ok && json.Unmarshal(v, &id) == nil && g.tasks.owns(taskKey{sl, id}, r) {
			own = append(own, t)
		}
	}
	b, err := json.Marshal(own)
	if err != nil {
		return nil, err
	}
	m["tasks"] = b
	b, err = json.Marshal(m)
	return wire.Raw(b), err
}

// taskMessages is the middleware of a backend session of sl that carries
// what the backend sends for a task of the core design to the session
// whose task it is: a request tagged with the related-task _meta
// (elicitation, sampling: asked of that client, its answer the
// backend's), and notifications/tasks/status. Other messages go on.
func (g *Gateway) taskMessages(sl *slot) rt.Middleware {
	return func(next rt.MessageHandler) rt.MessageHandler {
		return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) {
			if m.Outgoing() {
				return next(ctx, m)
			}
			var idRaw wire.Raw
			switch {
			case m.Method() == "notifications/tasks/status":
				idRaw, _ = wire.MemberOf(m.Params(), "taskId")
			case !m.IsNotification():
				meta, _ := wire.MemberOf(m.Params(), "_meta")
				related, _ := wire.MemberOf(meta, tasks.MetaRelatedTask)
				idRaw, _ = wire.MemberOf(related, "taskId")
			}
			var id string
			if len(idRaw) == 0 || json.Unmarshal(idRaw, &id) != nil {
				return next(ctx, m)
			}
			sess := g.tasks.session(taskKey{sl, id})
			if sess == nil {
				return next(ctx, m)
			}
			if m.IsNotification() {
				return nil, sess.Peer().Notify(ctx, m.Method(), m.Params())
			}
			var out wire.Raw
			if err := sess.Peer().Call(ctx, m.Method(), m.Params(), &out); err != nil {
				return nil, err
			}
			return out, nil
		}
	}
}
