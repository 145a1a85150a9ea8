package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

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
	if r.server.opts.Tasks == nil {
		return false
	}
	if r.session != nil {
		return r.task != nil
	}
	return r.HasClientCapability("extensions", TasksExtension)
}

// RequireTasks is the -32021 for a request that can only be served as a
// task, from a client that did not declare the tasks extension.
func (r *Request) RequireTasks() error {
	if r.TasksRequested() {
		return nil
	}
	return MissingCapability(r.Protocol, "extensions", TasksExtension)
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
// eras' own: 2025-11-25 answers -32601 to a task request for a tool that
// forbids tasks and to a plain request for one that requires them; 2026
// answers -32021 naming the tasks extension to a client that did not
// declare it for a tool that requires tasks, and serves the rest at once.
func (r *Request) TaskMode(support TaskSupport) (bool, error) {
	asked := r.TasksRequested()
	switch support {
	case TaskOptional:
		return asked, nil
	case TaskRequired:
		if asked {
			return true, nil
		}
		if r.session != nil {
			return false, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: this tool must be invoked as a task"}
		}
		return false, r.RequireTasks()
	}
	if r.session != nil && r.task != nil {
		return false, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: this tool cannot be invoked as a task"}
	}
	return false, nil
}

// AnswerWith is an error a handler returns to answer with a result its
// generated signature cannot express (a task handle): the runtime sends
// Result as the result.
type AnswerWith struct{ Result wire.Marshaler }

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
	t := &Task{method: r.Method, stateless: r.session == nil}
	if r.session != nil {
		t.owner, t.requestor = r.session, sessionRequestor{r.session}
		t.progress, t.hasToken = r.meta.progressToken, r.meta.hasProgress
		t.ttl = requestedTTL(r.task)
	} else {
		t.owner = r.server.statelessOwner(r.ctx, r)
		t.clientCaps, t.proto = r.ClientCapabilities(), r.Protocol
	}
	t, err := r.server.taskHost().start(r.ctx, t, run)
	if err != nil {
		return err
	}
	return &AnswerWith{Result: encoderFunc(t.encodeCreate)}
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

func (s sessionRequestor) notify(ctx context.Context, method string, params wire.Marshaler) {
	s.sess.notify(ctx, method, params)
}

func (s sessionRequestor) call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return s.sess.call(ctx, method, params, result)
}

// taskMethod answers tasks/* for a server in either era; ok is false for
// other methods.
func (s *Server) taskMethod(ctx context.Context, r *Request, method string, params wire.Raw) (res wire.Marshaler, err error, ok bool) {
	if s.opts.Tasks == nil || !strings.HasPrefix(method, "tasks/") {
		return nil, nil, false
	}
	stateless := r.session == nil
	var owner any = r.session
	if stateless {
		switch method {
		case "tasks/get", "tasks/update", "tasks/cancel":
		default:
			return nil, nil, false // tasks/result and tasks/list are gone: -32601
		}
		if !r.HasClientCapability("extensions", TasksExtension) {
			return nil, MissingCapability(r.Protocol, "extensions", TasksExtension), true
		}
		owner = s.statelessOwner(ctx, r)
	}
	return s.taskHost().serve(ctx, method, params, owner)
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

// serve answers one tasks/* request of owner; ok is false for methods
// that are not the tasks methods.
func (h *taskHost) serve(ctx context.Context, method string, params wire.Raw, owner any) (wire.Marshaler, error, bool) {
	q := parseTaskParams(params)
	if method == "tasks/list" {
		res, err := h.list(owner, q.cursor)
		return res, err, true
	}
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel", "tasks/result":
	default:
		return nil, nil, false
	}
	t := h.get(q.id, owner)
	if t == nil {
		return nil, InvalidParams("/params/taskId", "no task "+strconv.Quote(q.id)), true
	}
	switch method {
	case "tasks/get":
		return encoderFunc(t.encodeDetailed), nil, true
	case "tasks/update":
		t.respond(q.responses)
		return ackComplete, nil, true
	case "tasks/cancel":
		if t.stateless {
			t.cancelTask(ctx) // idempotent: the same ack for an ended task
			return ackComplete, nil, true
		}
		if st := t.Status(); st.terminal() {
			return nil, InvalidParams("/params/taskId", "the task has already ended ("+string(st)+")"), true
		}
		t.cancelTask(ctx)
		return encoderFunc(t.encodeDetailed), nil, true
	}
	res, err := t.await(ctx)
	return res, err, true
}

var ackComplete = wire.Raw(`{"resultType":"complete"}`)

// await serves tasks/result (2025): it waits for the task to end and
// answers what the request would have, tagged with the related task.
func (t *Task) await(ctx context.Context) (wire.Marshaler, error) {
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
func (h *taskHost) list(owner any, cursor string) (wire.Marshaler, error) {
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
	return encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"tasks":`)
		e.ArrayStart()
		for _, t := range ts {
			e.ObjectStart()
			t.encodeFields(e)
			e.ObjectEnd()
		}
		e.ArrayEnd()
		if next != "" {
			e.FieldRaw(`"nextCursor":`)
			e.Str(next)
		}
		e.ObjectEnd()
	}), nil
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

// encodeFields writes the Task members.
func (t *Task) encodeFields(e *wire.Encoder) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.FieldRaw(`"taskId":`)
	e.Str(t.ID)
	e.FieldRaw(`"status":`)
	e.Str(string(t.status))
	if t.message != "" {
		e.FieldRaw(`"statusMessage":`)
		e.Str(t.message)
	}
	e.FieldRaw(`"createdAt":`)
	e.Str(iso(t.created))
	e.FieldRaw(`"lastUpdatedAt":`)
	e.Str(iso(t.updated))
	if t.stateless {
		e.FieldRaw(`"ttlMs":`)
		e.Int64(t.ttl.Milliseconds())
		e.FieldRaw(`"pollIntervalMs":`)
	} else {
		e.FieldRaw(`"ttl":`)
		e.Int64(t.ttl.Milliseconds())
		e.FieldRaw(`"pollInterval":`)
	}
	e.Int64(t.host.opts.PollInterval.Milliseconds())
}

// encodeCreate writes the CreateTaskResult: flat with resultType "task"
// (2026), or the task under task (2025).
func (t *Task) encodeCreate(e *wire.Encoder) {
	e.ObjectStart()
	if t.stateless {
		e.FieldRaw(`"resultType":`)
		e.Str("task")
		t.encodeFields(e)
	} else {
		e.FieldRaw(`"task":`)
		e.ObjectStart()
		t.encodeFields(e)
		e.ObjectEnd()
	}
	e.ObjectEnd()
}

// encodeDetailed writes the tasks/get result: the task with its result,
// error or input requests inlined (2026), or the plain task (2025).
func (t *Task) encodeDetailed(e *wire.Encoder) {
	e.ObjectStart()
	if t.stateless {
		e.FieldRaw(`"resultType":`)
		e.Str("complete")
	}
	t.encodeFields(e)
	if t.stateless {
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
	}
	e.ObjectEnd()
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

// isErrorResult reports a tool result with isError true.
func isErrorResult(b wire.Raw) bool {
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

// splitRequest reads the method and params of {"method":..., "params":...}.
func splitRequest(request wire.Raw) (string, wire.Raw, error) {
	var method string
	params := wire.Raw(`{}`)
	d := wire.NewDecoder(request)
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "method":
			s, err := d.Str()
			method = s
			return err
		case "params":
			r, err := d.Raw()
			params = r
			return err
		}
		return d.Skip()
	})
	if err == nil && method == "" {
		err = errors.New("no method")
	}
	if err != nil {
		return "", nil, errors.New("mcp: a task's input request must be {\"method\": ..., \"params\": {...}}: " + err.Error())
	}
	return method, params, nil
}

// NameParam returns the params member the Mcp-Name header mirrors for a
// request of method on the stateless revision p: the method table's
// (tools/call name, resources/read uri, ...), or taskId for tasks/get,
// tasks/update and tasks/cancel of the tasks extension, which no schema
// lists. It is "" for methods without one.
func NameParam(p *Protocol, method string) string {
	if md := p.Method(method); md != nil && md.NameParam != "" {
		return md.NameParam
	}
	if p.Stateless {
		switch method {
		case "tasks/get", "tasks/update", "tasks/cancel":
			return "taskId"
		}
	}
	return ""
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
