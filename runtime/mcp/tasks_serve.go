package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file serves tasks: starting them from handlers, the tasks/* methods
// in both eras and both roles (a server's tasks for tools/call, a client's
// for sampling and elicitation), and their wire shapes.

// TasksRequested reports whether the request may be answered with a task:
// 2025-11-25 when its params carry task; 2026 when the client declared the
// tasks extension on it.
func (r *Request) TasksRequested() bool {
	if r.server.opts.Tasks == nil || r.mount == nil || !r.mount.tasksOn {
		return false
	}
	return r.mount.tasks.requested(r)
}

// TasksServed reports whether the request's revision can carry tasks at
// all on this server: the server serves them (ServerOptions.Tasks) and the
// revision has them (2025-11-25) or serves the tasks extension (2026). A
// list handler leaves out what only a task can answer when it is false,
// since no client of that revision could call it (2024-11-05 … 2025-06-18
// would get -32601).
func (r *Request) TasksServed() bool {
	return r.server.opts.Tasks != nil && r.mount != nil && r.mount.tasksOn
}

// RequireTasks is the -32021 for a request that can only be served as a
// task, from a client that did not declare the tasks extension.
func (r *Request) RequireTasks() error {
	if r.TasksRequested() {
		return nil
	}
	return MissingCapability(r.Protocol, "extensions", protocol.TasksExtension)
}

// TaskSupport is how a tool takes tasks: the execution.taskSupport of
// 2025-11-25 tool definitions, and what a 2026 server decides per call.
type TaskSupport int

// The task support levels.
const (
	// TaskForbidden tools always answer at once.
	TaskForbidden TaskSupport = iota
	// TaskOptional tools answer with a task when the client asked for one.
	TaskOptional
	// TaskRequired tools answer only with a task.
	TaskRequired
)

// String returns the execution.taskSupport value of s.
func (s TaskSupport) String() string {
	switch s {
	case TaskOptional:
		return "optional"
	case TaskRequired:
		return "required"
	}
	return "forbidden"
}

// TaskMode checks a tools/call against the tool's task support and reports
// whether to answer it with a task (Request.StartTask). The errors are the
// designs' own: 2025-11-25 answers -32601 to a task request for a tool that
// forbids tasks and to a plain request for one that requires them; 2026
// answers -32021 naming the tasks extension to a client that did not
// declare it for a tool that requires tasks, and serves the rest at once.
func (r *Request) TaskMode(support TaskSupport) (bool, error) {
	asked := r.TasksRequested()
	d := r.mount.tasks
	switch support {
	case TaskOptional:
		return asked, nil
	case TaskRequired:
		if asked {
			return true, nil
		}
		return false, d.mustBeTask(r)
	}
	return false, d.cannotBeTask(r)
}

// AnswerWith is an error a handler returns to answer with a result its
// generated signature cannot express (a task handle): the runtime sends
// Result as the result.
type AnswerWith struct{ Result wire.Marshaler }

// Error implements error.
func (a *AnswerWith) Error() string { return "mcp: answered with another result" }

// answerWith finds the AnswerWith in err's chain, or nil.
func answerWith(err error) *AnswerWith {
	var aw *AnswerWith
	if errors.As(err, &aw) {
		return aw
	}
	return nil
}

// StartTask starts run as a task and returns the error value the handler
// returns, which answers the request with the task's CreateTaskResult. The
// task is durable before the answer goes out (tasks/get finds it at once).
// run's context keeps the request's values, is cancelled by tasks/cancel
// (or the task's TTL), and ends when the task does.
func (r *Request) StartTask(run func(ctx context.Context, t *Task) (wire.Marshaler, error)) error {
	if !r.TasksRequested() {
		return r.RequireTasks()
	}
	d := r.mount.tasks
	t := &Task{design: d, role: r.route.method.Role}
	d.begin(r, t)
	t, err := r.server.taskHost().start(r.ctx, t, run)
	if err != nil {
		return err
	}
	return &AnswerWith{Result: encoderFunc(func(e *wire.Encoder) { d.create(t).EncodeJSON(e) })}
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
type sessionRequestor struct{ sess *Session }

func (s sessionRequestor) notify(ctx context.Context, r protocol.Role, params wire.Marshaler) {
	s.sess.notify(ctx, r, params)
}

func (s sessionRequestor) call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return s.sess.call(ctx, method, params, result)
}

// serveTask is the route of the tasks methods, in either era: the mount's
// design of tasks answers them; without one (tasks off) they are not
// served.
func serveTask(rc *reqCtx) (wire.Marshaler, error) {
	r := &rc.r
	if r.mount == nil || !r.mount.tasksOn {
		return nil, jsonrpc.MethodNotFound(r.Method)
	}
	d := r.mount.tasks
	owner, err := d.owner(r)
	if err != nil {
		return nil, err
	}
	res, err, _ := r.server.taskHost().serve(rc, r.server, r.route.method.Role, r.in.req.Params, owner, d)
	return res, err
}

// taskOwner is who a stateless task belongs to: the request's principal
// and what TaskOptions.Owner names. (A stateful task belongs to its
// session, which belongs to its principal.)
type taskOwner struct{ principal, owner string }

func (s *Server) statelessOwner(ctx context.Context, r *Request) taskOwner {
	o := taskOwner{principal: r.Principal()}
	if f := s.opts.Tasks.Owner; f != nil {
		o.owner = f(ctx)
	}
	return o
}

// taskDesign is one of the two designs of tasks (see the top of tasks.go):
// what a requestor sees of its tasks and who may reach them. A mounted
// revision is served with one, chosen from its method table when the
// server is built.
type taskDesign interface {
	// requested reports whether r may be answered with a task.
	requested(r *Request) bool
	// mustBeTask and cannotBeTask are the errors of a request for a tool
	// that requires tasks without asking for one, and of one asking for a
	// task of a tool that forbids them (nil: served at once).
	mustBeTask(r *Request) error
	cannotBeTask(r *Request) error
	// begin completes a task r starts: who owns it and, where the
	// requestor hears of it, how to reach it.
	begin(r *Request, t *Task)
	// owner is who a tasks request acts for; an error refuses it.
	owner(r *Request) (any, error)
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

// coreTasks is the design of 2025-11-25 (core, experimental): the
// requestor asks with params.task; tasks belong to the session, report
// their status to it and keep its progress token; tasks/result answers
// what the request would have; a tool result with isError fails the task.
// The shapes are the revision's own (its generated TaskCodec).
type coreTasks struct{ codec *protocol.TaskCodec }

func (coreTasks) requested(r *Request) bool { return r.in.task != nil }

func (coreTasks) mustBeTask(*Request) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: this tool must be invoked as a task"}
}

func (coreTasks) cannotBeTask(r *Request) error {
	if r.in.task != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: this tool cannot be invoked as a task"}
	}
	return nil
}

func (coreTasks) begin(r *Request, t *Task) {
	t.owner, t.requestor = r.session(), sessionRequestor{r.session()}
	t.progress, t.hasToken = r.in.meta.progressToken, r.in.meta.hasProgress
	t.ttl = requestedTTL(r.in.task)
}

func (coreTasks) owner(r *Request) (any, error) { return r.session(), nil }

func (c coreTasks) create(t *Task) wire.Marshaler    { return c.codec.Create(t.info()) }
func (c coreTasks) get(t *Task) wire.Marshaler       { return c.codec.Get(t.info()) }
func (c coreTasks) cancelled(t *Task) wire.Marshaler { return c.codec.Cancel(t.info()) }
func (c coreTasks) status(t *Task) wire.Marshaler    { return c.codec.Status(t.info()) }

// list writes a tasks/list page: the tasks in the revision's Task shape.
func (c coreTasks) list(ts []*Task, next string) wire.Marshaler {
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

func (coreTasks) cancelEnded(t *Task) error {
	return InvalidParams("/params/taskId", "the task has already ended ("+string(t.Status())+")")
}

func (coreTasks) outcome(t *Task, result wire.Raw) (wire.Raw, bool) {
	return result, t.role == protocol.RoleToolsCall && ToolResultFailed(result)
}

// extensionTasks is the design of the 2026 io.modelcontextprotocol/tasks
// extension (SEP-2663): the client declares the extension per request and
// the server decides; tasks belong to the request's principal (and
// TaskOptions.Owner); requestors poll tasks/get, which inlines the result,
// error or input requests, and answer input with tasks/update. No schema
// defines its shapes: they are the extension's, written here.
type extensionTasks struct{}

func (extensionTasks) requested(r *Request) bool {
	return r.HasClientCapability("extensions", protocol.TasksExtension)
}

func (extensionTasks) mustBeTask(r *Request) error         { return r.RequireTasks() }
func (extensionTasks) cannotBeTask(*Request) error         { return nil }
func (extensionTasks) list([]*Task, string) wire.Marshaler { return nil }
func (extensionTasks) status(*Task) wire.Marshaler         { return nil }
func (extensionTasks) cancelEnded(*Task) error             { return nil } // idempotent: the same ack

func (extensionTasks) begin(r *Request, t *Task) {
	t.owner = r.server.statelessOwner(r.ctx, r)
	t.clientCaps, t.proto = r.ClientCapabilities(), r.Protocol
}

func (extensionTasks) owner(r *Request) (any, error) {
	if !r.HasClientCapability("extensions", protocol.TasksExtension) {
		return nil, MissingCapability(r.Protocol, "extensions", protocol.TasksExtension)
	}
	return r.server.statelessOwner(r.ctx, r), nil
}

func (extensionTasks) create(t *Task) wire.Marshaler {
	return encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"resultType":`)
		e.Str("task")
		extensionFields(e, t.info())
		e.ObjectEnd()
	})
}

// get writes the task with its result, error or input requests inlined.
func (extensionTasks) get(t *Task) wire.Marshaler {
	return encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"resultType":`)
		e.Str("complete")
		extensionFields(e, t.info())
		t.mu.Lock()
		switch t.status {
		case TaskCompleted:
			e.FieldRaw(`"result":`)
			e.Raw(t.result)
		case TaskFailed:
			e.FieldRaw(`"error":`)
			t.err.EncodeJSON(e)
		case TaskInputRequired:
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

func (extensionTasks) cancelled(*Task) wire.Marshaler { return ackComplete }

// outcome gives the inlined result its resultType: it is the request's
// standard result, which carries one.
func (extensionTasks) outcome(_ *Task, result wire.Raw) (wire.Raw, bool) {
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
func (h *taskHost) serve(ctx context.Context, srv *Server, r protocol.Role, params wire.Raw, owner any, d taskDesign) (wire.Marshaler, error, bool) {
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
		if t, err = h.remoteTask(ctx, srv, q.id, owner, d); err != nil {
			return nil, fmt.Errorf("mcp: loading task %s: %w", q.id, err), true
		}
	}
	if t == nil {
		return nil, InvalidParams("/params/taskId", "no task "+strconv.Quote(q.id)), true
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
func (h *taskHost) list(owner any, cursor string, d taskDesign) (wire.Marshaler, error) {
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
	return taskPos{}, InvalidParams("/params/cursor", "not a cursor this server gave")
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

// ResultJSON returns a result's JSON when the result is JSON already (a
// wire.Raw, or what the runtime wrote from a Catalog), for middleware that
// reads a result without encoding it; ok is false for other results.
func ResultJSON(res wire.Marshaler) (raw wire.Raw, ok bool) {
	switch r := res.(type) {
	case wire.Raw:
		return r, true
	case *wire.Raw:
		if r != nil {
			return *r, true
		}
	case *writtenResult:
		if r != nil {
			return r.raw, true
		}
	}
	return nil, false
}

// ToolResultFailed reports a tools/call result (as JSON) whose isError is
// true: a tool execution error.
func ToolResultFailed(b wire.Raw) bool {
	isErr := false
	d := wire.NewDecoder(b)
	_ = d.Object(func(key []byte) error {
		if string(key) == "isError" && d.Peek() == wire.Bool {
			v, err := d.Bool()
			isErr = v
			return err
		}
		return d.Skip()
	})
	return isErr
}

// memberRaw returns the raw value of params' member name, or nil.
func memberRaw(params wire.Raw, name string) wire.Raw {
	if len(params) == 0 {
		return nil
	}
	var out wire.Raw
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		if out == nil && string(key) == name {
			r, err := d.Raw()
			out = r
			return err
		}
		return d.Skip()
	})
	return out
}
