package tasks

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file serves tasks: the Feature that plugs them into a server, what
// a handler calls to start one, the tasks/* methods in both eras and both
// roles (a server's tasks for tools/call, a client's for sampling and
// elicitation), and their wire shapes.

// The tasks' announcements on a Broadcast: the task id, then (for an
// update) a newline and the responses.
const (
	announceCancel = "task-cancel"
	announceUpdate = "task-update"
)

// server is the tasks of one server: its host, and the design of each
// mounted revision that has tasks.
type server struct {
	h       *host
	designs map[*protocol.Protocol]design
	// extension marks the revisions served with the 2026 extension,
	// declared in their capabilities.
	extension map[*protocol.Protocol]bool
}

// hostKey is the key of a server's tasks (mcp.Registry.Provide).
type hostKey struct{}

// Feature serves tasks on a server: tools/call answered with a task
// where its handler starts one (Start), and the tasks methods — those of
// revisions that define tasks (2025-11-25), and the
// io.modelcontextprotocol/tasks extension on revisions with capability
// extensions and no tasks of their own (2026-07-28), which the server
// then declares.
func Feature(o Options) mcp.Feature {
	return mcp.FeatureFunc(func(reg *mcp.Registry) error {
		srv := &server{h: newHost(o, reg.Logger()), designs: map[*protocol.Protocol]design{}, extension: map[*protocol.Protocol]bool{}}
		for _, p := range reg.Revisions() {
			hasTasks := p.Role(protocol.RoleTaskGet) != nil
			switch {
			case hasTasks && p.Tasks == nil:
				return fmt.Errorf("tasks: revision %s has tasks but its generated package has no task encoders (TaskCodec): generate it again, or leave tasks out", p.Revision)
			case hasTasks:
				srv.designs[p] = coreDesign{p.Tasks}
			case p.Knows("extensions"):
				srv.designs[p], srv.extension[p] = extensionDesign{}, true
			}
		}
		reg.Provide(hostKey{}, srv)
		publish := map[string]func(context.Context, string){}
		for _, kind := range []string{announceCancel, announceUpdate} {
			publish[kind] = reg.Broadcast(kind, func(ctx context.Context, arg string) { srv.h.apply(ctx, kind, arg) })
		}
		srv.h.publish = func(ctx context.Context, kind, arg string) { publish[kind](ctx, arg) }
		on := func(p *protocol.Protocol) bool { return srv.designs[p] != nil }
		for _, r := range []protocol.Role{protocol.RoleTaskGet, protocol.RoleTaskResult, protocol.RoleTaskList, protocol.RoleTaskCancel, protocol.RoleTaskUpdate, protocol.RoleTaskStatus} {
			reg.Route(mcp.Route{Role: r, On: on, Step: srv.serveRoute})
		}
		for _, md := range protocol.TasksExtensionMethods() {
			reg.Route(mcp.Route{Method: md, On: func(p *protocol.Protocol) bool { return srv.extension[p] }, Step: srv.serveRoute})
		}
		reg.Capabilities(func(p *protocol.Protocol, serves func(protocol.Role) bool, c *mcp.Capabilities) {
			switch {
			case srv.extension[p]:
				c.Extensions[protocol.TasksExtension] = wire.Raw(`{}`)
			case srv.designs[p] != nil && serves(protocol.RoleToolsCall):
				c.Members["tasks"] = wire.Raw(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
			}
		})
		return nil
	})
}

// of is the tasks of the server serving r, and the design of r's
// revision; nil when the server serves no tasks on it.
func of(r *mcp.Request) (*server, design) {
	if r == nil {
		return nil, nil
	}
	srv, _ := r.Server().Feature(hostKey{}).(*server)
	if srv == nil {
		return nil, nil
	}
	d := srv.designs[r.Protocol]
	if d == nil {
		return nil, nil
	}
	return srv, d
}

// Requested reports whether the request of ctx may be answered with a
// task: 2025-11-25 when its params carry task; 2026 when the client
// declared the tasks extension on it.
func Requested(ctx context.Context) bool {
	r := mcp.RequestFrom(ctx)
	_, d := of(r)
	return d != nil && d.requested(r)
}

// Served reports whether the revision of the request of ctx can carry
// tasks at all on this server: the server serves them (Feature) and the
// revision has them (2025-11-25) or serves the tasks extension (2026). A
// list handler leaves out what only a task can answer when it is false,
// since no client of that revision could call it (2024-11-05 …
// 2025-06-18 would get -32601).
func Served(ctx context.Context) bool {
	_, d := of(mcp.RequestFrom(ctx))
	return d != nil
}

// Require is the -32021 for a request that can only be served as a task,
// from a client that did not declare the tasks extension (nil when it may
// be).
func Require(ctx context.Context) error {
	if Requested(ctx) {
		return nil
	}
	r := mcp.RequestFrom(ctx)
	var p *protocol.Protocol
	if r != nil {
		p = r.Protocol
	}
	return mcp.MissingCapability(p, "extensions", protocol.TasksExtension)
}

// Mode checks a tools/call against the tool's task support and reports
// whether to answer it with a task (Start). The errors are the designs'
// own: 2025-11-25 answers -32601 to a task request for a tool that forbids
// tasks and to a plain request for one that requires them; 2026 answers
// -32021 naming the tasks extension to a client that did not declare it
// for a tool that requires tasks, and serves the rest at once. Without
// tasks on the request's revision, a tool that requires them is -32601.
func Mode(ctx context.Context, support mcp.TaskSupport) (bool, error) {
	r := mcp.RequestFrom(ctx)
	_, d := of(r)
	if d == nil {
		d = coreDesign{}
	}
	asked := r != nil && d.requested(r)
	switch support {
	case mcp.TaskOptional:
		return asked, nil
	case mcp.TaskRequired:
		if asked {
			return true, nil
		}
		return false, d.mustBeTask(r)
	}
	return false, d.cannotBeTask(r)
}

// Start starts run as a task and returns the error value the handler
// returns, which answers the request of ctx with the task's
// CreateTaskResult (an mcp.AnswerWith). The task is durable before the
// answer goes out (tasks/get finds it at once). run's context keeps the
// request's values, is cancelled by tasks/cancel (or the task's TTL), and
// ends when the task does.
func Start(ctx context.Context, run func(ctx context.Context, t *Task) (wire.Marshaler, error)) error {
	if !Requested(ctx) {
		return Require(ctx)
	}
	r := mcp.RequestFrom(ctx)
	srv, d := of(r)
	t := &Task{design: d, role: r.Role()}
	d.begin(ctx, r, t, srv.h.opts)
	t, err := srv.h.start(ctx, t, run)
	if err != nil {
		return err
	}
	return &mcp.AnswerWith{Result: encoderFunc(func(e *wire.Encoder) { d.create(t).EncodeJSON(e) })}
}

// requestedTTL reads params.task.ttl (milliseconds).
func requestedTTL(task wire.Raw) time.Duration {
	if len(task) == 0 {
		return 0
	}
	var ttl time.Duration
	d := wire.NewDecoder(task)
	_ = d.Object(func(key []byte) error {
		if string(key) == "ttl" && d.Peek() == wire.Number {
			ms, err := d.Float64()
			if ms > 0 {
				ttl = time.Duration(ms * float64(time.Millisecond))
			}
			return err
		}
		return d.Skip()
	})
	return ttl
}

// sessionRequestor reaches the client of a server's session.
type sessionRequestor struct{ sess *mcp.Session }

func (s sessionRequestor) notify(ctx context.Context, r protocol.Role, params wire.Marshaler) {
	p := s.sess.Protocol()
	if p == nil {
		return
	}
	if name := p.RoleName(r); name != "" {
		_ = s.sess.Peer().Notify(ctx, name, params)
	}
}

func (s sessionRequestor) call(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	return s.sess.Peer().CallInto(ctx, method, params, result)
}

// serveRoute is the route of the tasks methods, in either era: the
// revision's design answers them.
func (srv *server) serveRoute(ctx context.Context, r *mcp.Request, _ mcp.Next) (wire.Marshaler, error) {
	d := srv.designs[r.Protocol]
	if r.Role() == protocol.RoleTaskStatus {
		return nil, nil // a requestor's own status notifications: nothing to do
	}
	owner, err := d.owner(ctx, r, srv.h.opts)
	if err != nil {
		return nil, err
	}
	res, err, _ := srv.h.serve(ctx, r.Role(), r.Params(), owner, d)
	return res, err
}

// statelessOwner is who a stateless task belongs to: the request's
// principal and what Options.Owner names. (A stateful task belongs to its
// session, which belongs to its principal.)
type statelessOwner struct{ principal, owner string }

func ownerOfRequest(ctx context.Context, r *mcp.Request, o Options) statelessOwner {
	so := statelessOwner{principal: r.Principal()}
	if o.Owner != nil {
		so.owner = o.Owner(ctx)
	}
	return so
}

// design is one of the two designs of tasks (see the top of tasks.go):
// what a requestor sees of its tasks and who may reach them. A mounted
// revision is served with one, chosen from its method table when the
// server is built.
type design interface {
	// requested reports whether r may be answered with a task.
	requested(r *mcp.Request) bool
	// mustBeTask and cannotBeTask are the errors of a request for a tool
	// that requires tasks without asking for one, and of one asking for a
	// task of a tool that forbids them (nil: served at once).
	mustBeTask(r *mcp.Request) error
	cannotBeTask(r *mcp.Request) error
	// begin completes a task r starts: who owns it and, where the
	// requestor hears of it, how to reach it.
	begin(ctx context.Context, r *mcp.Request, t *Task, o Options)
	// owner is who a tasks request acts for; an error refuses it.
	owner(ctx context.Context, r *mcp.Request, o Options) (any, error)
	// create, get and cancelled are the results of the request that
	// started t, of tasks/get and of tasks/cancel; list is a tasks/list
	// page and status the params of a status notification (nil where the
	// design has none).
	create(t *Task) wire.Marshaler
	get(t *Task) wire.Marshaler
	cancelled(t *Task) wire.Marshaler
	list(ts []*Task, next string) wire.Marshaler
	status(t *Task) wire.Marshaler
	// cancelEnded is the answer to tasks/cancel of a task that has ended:
	// an error, or nil to acknowledge it again.
	cancelEnded(t *Task) error
	// outcome is how a completed task's result is kept: the result
	// (completed with what the design adds), and whether it fails the task.
	outcome(t *Task, result wire.Raw) (wire.Raw, bool)
}

// coreDesign is the design of 2025-11-25 (core, experimental): the
// requestor asks with params.task; tasks belong to the session, report
// their status to it and keep its progress token; tasks/result answers
// what the request would have; a tool result with isError fails the task.
// The shapes are the revision's own (its generated TaskCodec).
type coreDesign struct{ codec *protocol.TaskCodec }

func (coreDesign) requested(r *mcp.Request) bool { return r != nil && r.Task() != nil }

func (coreDesign) mustBeTask(*mcp.Request) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: this tool must be invoked as a task"}
}

func (coreDesign) cannotBeTask(r *mcp.Request) error {
	if r != nil && r.Task() != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: this tool cannot be invoked as a task"}
	}
	return nil
}

func (coreDesign) begin(_ context.Context, r *mcp.Request, t *Task, _ Options) {
	t.owner, t.requestor = r.Session(), sessionRequestor{r.Session()}
	t.progress, t.hasToken = r.ProgressToken()
	t.ttl = requestedTTL(r.Task())
}

func (coreDesign) owner(_ context.Context, r *mcp.Request, _ Options) (any, error) {
	return r.Session(), nil
}

func (c coreDesign) create(t *Task) wire.Marshaler    { return c.codec.Create(t.info()) }
func (c coreDesign) get(t *Task) wire.Marshaler       { return c.codec.Get(t.info()) }
func (c coreDesign) cancelled(t *Task) wire.Marshaler { return c.codec.Cancel(t.info()) }
func (c coreDesign) status(t *Task) wire.Marshaler    { return c.codec.Status(t.info()) }

// list writes a tasks/list page: the tasks in the revision's Task shape.
func (c coreDesign) list(ts []*Task, next string) wire.Marshaler {
	return encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"tasks":`)
		e.ArrayStart()
		for _, t := range ts {
			c.codec.Task(t.info()).EncodeJSON(e)
		}
		e.ArrayEnd()
		if next != "" {
			e.FieldRaw(`"nextCursor":`)
			e.Str(next)
		}
		e.ObjectEnd()
	})
}

func (coreDesign) cancelEnded(t *Task) error {
	return mcp.InvalidParams("/params/taskId", "the task has already ended ("+string(t.Status())+")")
}

func (coreDesign) outcome(t *Task, result wire.Raw) (wire.Raw, bool) {
	return result, t.role == protocol.RoleToolsCall && mcp.ToolResultFailed(result)
}

// extensionDesign is the design of the 2026 io.modelcontextprotocol/tasks
// extension (SEP-2663): the client declares the extension per request and
// the server decides; tasks belong to the request's principal (and
// Options.Owner); requestors poll tasks/get, which inlines the result,
// error or input requests, and answer input with tasks/update. No schema
// defines its shapes: they are the extension's, written here.
type extensionDesign struct{}

func (extensionDesign) requested(r *mcp.Request) bool {
	return r != nil && r.HasClientCapability("extensions", protocol.TasksExtension)
}

func (extensionDesign) mustBeTask(r *mcp.Request) error {
	return mcp.MissingCapability(r.Protocol, "extensions", protocol.TasksExtension)
}
func (extensionDesign) cannotBeTask(*mcp.Request) error     { return nil }
func (extensionDesign) list([]*Task, string) wire.Marshaler { return nil }
func (extensionDesign) status(*Task) wire.Marshaler         { return nil }
func (extensionDesign) cancelEnded(*Task) error             { return nil } // idempotent: the same ack

func (extensionDesign) begin(ctx context.Context, r *mcp.Request, t *Task, o Options) {
	t.owner = ownerOfRequest(ctx, r, o)
	t.clientCaps, t.proto = r.ClientCapabilities(), r.Protocol
}

func (extensionDesign) owner(ctx context.Context, r *mcp.Request, o Options) (any, error) {
	if !r.HasClientCapability("extensions", protocol.TasksExtension) {
		return nil, mcp.MissingCapability(r.Protocol, "extensions", protocol.TasksExtension)
	}
	return ownerOfRequest(ctx, r, o), nil
}

func (extensionDesign) create(t *Task) wire.Marshaler {
	return encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"resultType":`)
		e.Str("task")
		extensionFields(e, t.info())
		e.ObjectEnd()
	})
}

// get writes the task with its result, error or input requests inlined.
func (extensionDesign) get(t *Task) wire.Marshaler {
	return encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"resultType":`)
		e.Str("complete")
		extensionFields(e, t.info())
		t.mu.Lock()
		switch t.status {
		case Completed:
			e.FieldRaw(`"result":`)
			e.Raw(t.result)
		case Failed:
			e.FieldRaw(`"error":`)
			t.err.EncodeJSON(e)
		case InputRequired:
			e.FieldRaw(`"inputRequests":`)
			e.ObjectStart()
			for _, k := range t.inputKeys {
				e.Field(k)
				e.Raw(t.inputs[k].request)
			}
			e.ObjectEnd()
		}
		t.mu.Unlock()
		e.ObjectEnd()
	})
}

func (extensionDesign) cancelled(*Task) wire.Marshaler { return ackComplete }

// outcome gives the inlined result its resultType: it is the request's
// standard result, which carries one.
func (extensionDesign) outcome(_ *Task, result wire.Raw) (wire.Raw, bool) {
	return withResultType(result), false
}

// extensionFields writes the members of an extension task.
func extensionFields(e *wire.Encoder, t *protocol.TaskInfo) {
	e.FieldRaw(`"taskId":`)
	e.Str(t.ID)
	e.FieldRaw(`"status":`)
	e.Str(t.Status)
	if t.Message != "" {
		e.FieldRaw(`"statusMessage":`)
		e.Str(t.Message)
	}
	e.FieldRaw(`"createdAt":`)
	e.Str(t.CreatedAt)
	e.FieldRaw(`"lastUpdatedAt":`)
	e.Str(t.LastUpdatedAt)
	e.FieldRaw(`"ttlMs":`)
	e.Int64(t.TTLMs)
	e.FieldRaw(`"pollIntervalMs":`)
	e.Int64(t.PollIntervalMs)
}

// serve answers one tasks request (role r) of owner, in design d; ok is
// false for roles that are not the tasks methods.
func (h *host) serve(ctx context.Context, r protocol.Role, params wire.Raw, owner any, d design) (wire.Marshaler, error, bool) {
	q := parseTaskParams(params)
	switch r {
	case protocol.RoleTaskList:
		res, err := h.list(owner, q.cursor, d)
		return res, err, true
	case protocol.RoleTaskGet, protocol.RoleTaskUpdate, protocol.RoleTaskCancel, protocol.RoleTaskResult:
	default:
		return nil, nil, false
	}
	t := h.get(q.id, owner)
	if t == nil {
		// Created on another instance, maybe.
		var err error
		if t, err = h.remoteTask(ctx, q.id, owner, d); err != nil {
			return nil, fmt.Errorf("tasks: loading task %s: %w", q.id, err), true
		}
	}
	if t == nil {
		return nil, mcp.InvalidParams("/params/taskId", "no task "+strconv.Quote(q.id)), true
	}
	switch r {
	case protocol.RoleTaskGet:
		return d.get(t), nil, true
	case protocol.RoleTaskUpdate:
		t.respond(q.responses)
		return ackComplete, nil, true
	case protocol.RoleTaskCancel:
		if t.terminal() {
			if err := d.cancelEnded(t); err != nil {
				return nil, err, true
			}
		}
		t.cancelTask(ctx)
		return d.cancelled(t), nil, true
	}
	res, err := t.await(ctx)
	return res, err, true
}

var ackComplete = wire.Raw(`{"resultType":"complete"}`)

// await serves tasks/result (2025): it waits for the task to end and
// answers what the request would have, tagged with the related task.
func (t *Task) await(ctx context.Context) (wire.Marshaler, error) {
	if t.remote {
		if err := t.awaitRemote(ctx); err != nil {
			return nil, err
		}
	}
	select {
	case <-t.ended:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.result != nil:
		return withRelatedTask(t.result, t.ID), nil
	case t.err != nil:
		return nil, t.err
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/taskId: the task was cancelled; it has no result"}
}

// list serves tasks/list (2025): owner's tasks, oldest first, a page at a
// time.
func (h *host) list(owner any, cursor string, d design) (wire.Marshaler, error) {
	after, err := parseTaskCursor(cursor)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.expire()
	var ts []*Task
	for _, t := range h.byID {
		if t.owner == owner && (cursor == "" || after.before(t)) {
			ts = append(ts, t)
		}
	}
	h.mu.Unlock()
	sort.Slice(ts, func(i, j int) bool { return taskOrder(ts[i]).before(ts[j]) })
	next := ""
	if len(ts) > h.opts.PageSize {
		ts = ts[:h.opts.PageSize]
		next = taskOrder(ts[len(ts)-1]).cursor()
	}
	return encoderFunc(func(e *wire.Encoder) { d.list(ts, next).EncodeJSON(e) }), nil
}

// taskPos is a position in the listing order: creation time, then id.
type taskPos struct {
	created int64
	id      string
}

func taskOrder(t *Task) taskPos { return taskPos{t.created.UnixNano(), t.ID} }

// before reports whether p sorts before t.
func (p taskPos) before(t *Task) bool {
	q := taskOrder(t)
	return p.created < q.created || (p.created == q.created && p.id < q.id)
}

func (p taskPos) cursor() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.created, 10) + ":" + p.id))
}

func parseTaskCursor(c string) (taskPos, error) {
	if c == "" {
		return taskPos{}, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		if at, id, ok := strings.Cut(string(b), ":"); ok {
			if n, err := strconv.ParseInt(at, 10, 64); err == nil {
				return taskPos{n, id}, nil
			}
		}
	}
	return taskPos{}, mcp.InvalidParams("/params/cursor", "not a cursor this server gave")
}

// taskParams are the params of the tasks/* requests.
type taskParams struct {
	id        string
	cursor    string
	responses map[string]wire.Raw
}

func parseTaskParams(params wire.Raw) taskParams {
	var q taskParams
	if len(params) == 0 {
		return q
	}
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "taskId", "cursor":
			if d.Peek() != wire.String {
				return d.Skip()
			}
			var s string
			s, err = d.Str()
			if string(key) == "taskId" {
				q.id = s
			} else {
				q.cursor = s
			}
			return err
		case "inputResponses":
			if d.Peek() != wire.Object {
				return d.Skip()
			}
			q.responses = map[string]wire.Raw{}
			return d.Object(func(k []byte) error {
				r, err := d.Raw()
				q.responses[string(k)] = r
				return err
			})
		}
		return d.Skip()
	})
	return q
}

func iso(tm time.Time) string { return tm.UTC().Format(time.RFC3339Nano) }

// info is the task as a TaskCodec writes it.
func (t *Task) info() *protocol.TaskInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return &protocol.TaskInfo{ID: t.ID, Status: string(t.status), Message: t.message, CreatedAt: iso(t.created), LastUpdatedAt: iso(t.updated),
		TTLMs: t.ttl.Milliseconds(), PollIntervalMs: t.host.opts.PollInterval.Milliseconds()}
}

// withResultType gives a 2026 result object its resultType when the
// handler's value left it out: the inlined result of a task is the
// request's standard result, which carries one.
func withResultType(b wire.Raw) wire.Raw {
	d := wire.NewDecoder(b)
	if k, _, err := d.PeekMember("resultType"); err != nil || k != wire.Invalid || len(b) < 2 || b[0] != '{' {
		return b
	}
	return prependMember(b, `"resultType":"complete"`)
}

// prependMember writes member ("key":value) first into the object b.
func prependMember(b wire.Raw, member string) wire.Raw {
	rest := b[1:]
	sep := ","
	if t := bytes.TrimLeft(rest, " \t\r\n"); len(t) > 0 && t[0] == '}' {
		sep = ""
	}
	out := make(wire.Raw, 0, len(b)+len(member)+2)
	out = append(out, '{')
	out = append(out, member...)
	out = append(out, sep...)
	return append(out, rest...)
}

// withRelatedTask returns the object b with _meta[MetaRelatedTask] set to
// {taskId: id}, keeping its other _meta keys.
func withRelatedTask(b wire.Raw, id string) wire.Raw {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"taskId":`)
	e.Str(id)
	e.ObjectEnd()
	related := append(wire.Raw(nil), e.Bytes()...)
	e.Reset()
	e.ObjectStart()
	meta, err := wire.CopyMembers(e, b, "_meta")
	if err != nil {
		return b
	}
	e.FieldRaw(`"_meta":`)
	e.ObjectStart()
	if len(meta) > 0 {
		_, _ = wire.CopyMembers(e, meta, MetaRelatedTask)
	}
	e.Field(MetaRelatedTask)
	e.Raw(related)
	e.ObjectEnd()
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...)
}

// encoderFunc adapts a function to wire.Marshaler.
type encoderFunc func(*wire.Encoder)

// EncodeJSON implements wire.Marshaler.
func (f encoderFunc) EncodeJSON(e *wire.Encoder) { f(e) }
