package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"

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
// A backend whose newest revision is 2025-11-25 and declares tasks
// (capabilities.tasks, the core design) has them declared to 2025-11-25
// clients: a tools/call with params.task goes to the backend as it is,
// and its CreateTaskResult back; tasks/get, tasks/result, tasks/list
// (each principal's tasks only) and tasks/cancel go to the backend
// session serving the client; what the backend asks for a task
// (elicitation, sampling, tagged with the related-task _meta) is asked of
// the client session that made it or last asked of it, and its
// notifications/tasks/status reach that session. Progress of a task is
// not carried (poll tasks/get).
//
// The gateway remembers whose each task is: another principal naming it is
// told it is unknown (without principals, another session). Tasks of one
// design are not carried to clients of the other: the two share no
// handle, nor methods.

// maxTasks bounds the tasks whose owner the gateway remembers; a
// principal's are a quarter of them at most. Past its bound, a
// principal's oldest task is forgotten (its next tasks/* on it is
// refused); past the whole bound, the oldest of the principal holding
// the most: no one principal's tasks push out another's.
const maxTasks = 16384

// taskOwners remembers whose each task is.
type taskOwners struct {
	mu      sync.Mutex
	owner   map[taskKey]*taskOwner
	order   map[string][]taskKey      // by principal, oldest first
	pending map[*rt.ClientSession]int // calls that may make a task, in progress
	changed chan struct{}             // closed (and replaced) when owner or pending change
}

// taskOwner is whose a task is: the principal of the request that made
// it, and the session that last asked of it (nil for a stateless
// request), which hears what the backend asks and tells of the task
// (the core design).
type taskOwner struct {
	principal string
	sess      *rt.Session
}

// taskKey names a task: the backend session whose it is — two backends,
// or two lives of one, may give the same id — and its id.
type taskKey struct {
	cs *rt.ClientSession
	id string
}

// changedLocked wakes those waiting for an owner (wait).
func (o *taskOwners) changedLocked() {
	if o.changed != nil {
		close(o.changed)
		o.changed = nil
	}
}

// note records that the request r (nil: none) made task k.
func (o *taskOwners) note(k taskKey, r *rt.Request) {
	who := &taskOwner{}
	if r != nil {
		who = &taskOwner{r.Principal(), r.Session()}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	defer o.changedLocked()
	if o.owner == nil {
		o.owner, o.order = map[taskKey]*taskOwner{}, map[string][]taskKey{}
	}
	if prev, ok := o.owner[k]; ok {
		o.dropLocked(k, prev.principal)
	}
	o.owner[k] = who
	o.order[who.principal] = append(o.order[who.principal], k)
	if len(o.order[who.principal]) > maxTasks/4 {
		o.dropLocked(o.order[who.principal][0], who.principal)
	}
	for len(o.owner) > maxTasks {
		most := ""
		for p, keys := range o.order {
			if len(keys) > len(o.order[most]) {
				most = p
			}
		}
		o.dropLocked(o.order[most][0], most)
	}
}

// dropLocked forgets task k of principal.
func (o *taskOwners) dropLocked(k taskKey, principal string) {
	if _, ok := o.owner[k]; !ok {
		return
	}
	delete(o.owner, k)
	keys := o.order[principal]
	if i := slices.Index(keys, k); i >= 0 {
		keys = slices.Delete(keys, i, i+1)
	}
	if len(keys) == 0 {
		delete(o.order, principal)
	} else {
		o.order[principal] = keys
	}
}

// owns reports whether the request r's principal made task k — its
// session, when neither has a principal. With claim, r's session (one of
// the principal's, asking of the task) hears of it from then on.
func (o *taskOwners) owns(k taskKey, r *rt.Request, claim bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	who, ok := o.owner[k]
	if !ok || who.principal != r.Principal() {
		return false
	}
	if who.principal == "" && who.sess != nil && who.sess != r.Session() {
		return false
	}
	if sess := r.Session(); claim && sess != nil {
		who.sess = sess
	}
	return true
}

// begin and end bracket a call on the backend session cs that may make
// a task: a question of the backend's for a task not yet noted waits for
// it.
func (o *taskOwners) begin(cs *rt.ClientSession) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending == nil {
		o.pending = map[*rt.ClientSession]int{}
	}
	o.pending[cs]++
}

func (o *taskOwners) end(cs *rt.ClientSession) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending[cs]--; o.pending[cs] <= 0 {
		delete(o.pending, cs)
	}
	o.changedLocked()
}

// session is the session that hears of task k: nil when the task is
// unknown — with wait, after waiting while calls that may make it are in
// progress on its backend session, until ctx ends — or its owner has no
// session.
func (o *taskOwners) session(ctx context.Context, k taskKey, wait bool) (sess *rt.Session, known bool) {
	for {
		o.mu.Lock()
		if who, ok := o.owner[k]; ok {
			sess := who.sess
			o.mu.Unlock()
			return sess, true
		}
		if !wait || o.pending[k.cs] == 0 {
			o.mu.Unlock()
			return nil, false
		}
		if o.changed == nil {
			o.changed = make(chan struct{})
		}
		ch := o.changed
		o.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// forget drops the tasks of the backend session cs (it ended: the
// next one knows none of them), or, with cs nil, those of the session
// sess that has no principal (no one else may reach them).
func (o *taskOwners) forget(cs *rt.ClientSession, sess *rt.Session) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.owner) == 0 {
		return
	}
	for k, who := range o.owner {
		switch {
		case cs != nil:
			if k.cs == cs {
				o.dropLocked(k, who.principal)
			}
		case who.sess != sess:
		case who.principal == "":
			o.dropLocked(k, who.principal)
		default:
			who.sess = nil // its principal's next tasks/* names the session that hears
		}
	}
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
	return through(g, ctx, func(b *backend) (wire.Marshaler, error) {
		if !g.tasks.owns(taskKey{b.cs, id}, r, true) {
			return nil, errUnknownTask(id)
		}
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
	g.tasks.note(taskKey{b.cs, id}, rt.RequestFrom(ctx))
	return &rt.AnswerWith{Result: raw}
}

// coreTasks is the tasks capability of the backend's first session, if
// it is of 2025-11-25 (the newest revision the backend speaks) and
// declares one. A backend whose newest revision is 2026-07-28 has its
// 2025-11-25 tasks, if any, undeclared: learning them would take a
// session of that revision (a process, over stdio) at every start.
func (g *Gateway) coreTasks() (wire.Raw, bool) {
	if g.first.ProtocolVersion() != v25.Protocol().Revision {
		return nil, false
	}
	return wire.MemberOf(g.first.ServerCapabilities(), "tasks")
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
// caller's; any other call goes on to the front handler. The call is
// not given the front request's progress: a task outlives it.
func (g *Gateway) coreTaskCall(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
	params := r.Params()
	if _, ok := wire.MemberOf(params, "task"); !ok {
		return next.Serve()
	}
	return through(g, ctx, func(b *backend) (wire.Marshaler, error) {
		if b.cs.ProtocolVersion() != r.ProtocolVersion() {
			return nil, errNotCoreTasks(r)
		}
		body, err := withoutProgress(params)
		if err != nil {
			return nil, err
		}
		g.tasks.begin(b.cs)
		defer g.tasks.end(b.cs)
		var out wire.Raw
		if err := b.cs.Call(ctx, r.Method, body, &out); err != nil {
			return nil, err
		}
		task, _ := wire.MemberOf(out, "task")
		var id string
		if v, ok := wire.MemberOf(task, "taskId"); ok {
			_ = json.Unmarshal(v, &id)
		}
		if id != "" {
			g.tasks.note(taskKey{b.cs, id}, r)
		} // else the backend ran the call at once: its result, as it is
		return nil, &rt.AnswerWith{Result: out}
	})
}

// errUnknownTask answers a tasks/* request for a task the client's
// principal did not make through this backend session (or its backend
// has ended since: the next knows none of its tasks).
func errUnknownTask(id string) error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown task %q", id)
}

// errNotCoreTasks answers a request for tasks of r's revision when the
// backend session serving it is of another (it restarted speaking
// another).
func errNotCoreTasks(r *rt.Request) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "the backend no longer speaks %s, whose tasks these are", r.ProtocolVersion())
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
	list := r.Role() == protocol.RoleTaskList
	var id string
	if !list {
		if raw, ok := wire.MemberOf(r.Params(), "taskId"); !ok || json.Unmarshal(raw, &id) != nil {
			return nil, rt.InvalidParams("/params/taskId", "taskId is required, a string")
		}
	}
	return through(g, ctx, func(b *backend) (wire.Marshaler, error) {
		if b.cs.ProtocolVersion() != r.ProtocolVersion() {
			return nil, errNotCoreTasks(r)
		}
		if list {
			return g.ownTasks(ctx, b, r)
		}
		if !g.tasks.owns(taskKey{b.cs, id}, r, true) {
			return nil, errUnknownTask(id)
		}
		var out wire.Raw
		if err := b.cs.Call(g.backendCtx(ctx), r.Method, r.Params(), &out); err != nil {
			return nil, err
		}
		return out, nil
	})
}

// maxListPages bounds the pages of the backend's tasks/list one front
// tasks/list reads.
const maxListPages = 64

// ownTasks answers tasks/list with the tasks of r's principal: the
// backend lists every task of the gateway's session with it, in pages
// whose cursors name tasks of others too, so the gateway reads the pages
// itself (maxListPages at most) and answers with one, without a cursor.
func (g *Gateway) ownTasks(ctx context.Context, b *backend, r *rt.Request) (wire.Raw, error) {
	own := []json.RawMessage{}
	cursor := ""
	for range maxListPages {
		params := wire.Raw(`{}`)
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params = wire.Raw(`{"cursor":` + string(c) + `}`)
		}
		var out wire.Raw
		if err := b.cs.Call(ctx, r.Method, params, &out); err != nil {
			return nil, err
		}
		m := members(out)
		var page []json.RawMessage
		if err := json.Unmarshal(m["tasks"], &page); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the backend's tasks/list result: tasks: %v", err)
		}
		for _, t := range page {
			var id string
			if v, ok := wire.MemberOf(wire.Raw(t), "taskId"); ok && json.Unmarshal(v, &id) == nil && g.tasks.owns(taskKey{b.cs, id}, r, false) {
				own = append(own, t)
			}
		}
		cursor = ""
		if c, ok := m["nextCursor"]; !ok || json.Unmarshal(c, &cursor) != nil || cursor == "" {
			break
		}
	}
	body, err := json.Marshal(map[string]any{"tasks": own})
	return wire.Raw(body), err
}

// taskMessages is the middleware of a backend session (session, once
// connected) that carries what a 2025-11-25 backend sends for a task to
// the front session that hears of it (the one that made it, or last
// asked of it): a request tagged with the related-task _meta
// (elicitation, sampling: asked of that client, for ParkedTTL at most,
// its answer the backend's), and notifications/tasks/status. A message
// for a task the gateway does not know of — once the calls that may have
// made it are over — is refused (a request) or dropped (a notification),
// never asked of another client.
func (g *Gateway) taskMessages(session *atomic.Pointer[rt.ClientSession]) rt.Middleware {
	rev := v25.Protocol().Revision
	return func(next rt.MessageHandler) rt.MessageHandler {
		return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) {
			cs := session.Load()
			if m.Outgoing() || m.Revision() != rev || cs == nil {
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
			if len(idRaw) == 0 {
				return next(ctx, m)
			}
			var id string
			_ = json.Unmarshal(idRaw, &id)
			// A question runs on its own goroutine: it may wait for the
			// call that makes its task to be answered. A notification
			// runs on the session's reader, which reads that answer: it
			// does not wait (one for a task not yet noted is dropped).
			wctx, cancel := context.WithTimeout(ctx, startTimeout)
			sess, known := g.tasks.session(wctx, taskKey{cs, id}, !m.IsNotification())
			cancel()
			switch {
			case m.IsNotification() && sess == nil:
				return nil, nil
			case m.IsNotification():
				return nil, sess.Peer().Notify(ctx, m.Method(), m.Params())
			case !known:
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "%s for task %q, which the gateway did not pass on to a client", m.Method(), id)
			case sess == nil:
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "%s for task %q: no session of its client is open to ask", m.Method(), id)
			}
			actx, cancel := context.WithTimeout(ctx, g.o.ParkedTTL)
			defer cancel()
			var out wire.Raw
			if err := sess.Peer().Call(actx, m.Method(), m.Params(), &out); err != nil {
				return nil, err
			}
			return out, nil
		}
	}
}
