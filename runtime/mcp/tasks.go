package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Tasks let a tools/call answer at once with a handle the client polls,
// while the work goes on. Two designs exist and the runtime serves both
// from one store:
//
//   - 2025-11-25 (core, experimental): the client asks for a task with
//     params.task; the answer is CreateTaskResult {task: {...}}; tasks/get,
//     tasks/result (blocks until the task ends), tasks/list and
//     tasks/cancel, scoped to the session.
//   - 2026-07-28 (the io.modelcontextprotocol/tasks extension, SEP-2663):
//     the client declares the extension per request and the server decides;
//     the answer is the flat CreateTaskResult {resultType: "task", taskId,
//     ...}; tasks/get (with the result, error or input requests inlined),
//     tasks/update (answers to input requests) and tasks/cancel.
//
// A handler starts a task with Request.StartTask and returns what it
// returns; the task's function runs in the background with its own
// context, and may ask the client for input with Task.Input.

// TasksExtension identifies the 2026 tasks extension.
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskOptions enable tasks on a server.
type TaskOptions struct {
	// TTL is how long a task is kept after it is created (default 1h).
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients (default
	// 200ms).
	PollInterval time.Duration
	// MaxTasks bounds the tasks kept at once (default 10000); the oldest
	// finished ones are dropped first.
	MaxTasks int
}

// TaskStatus is the state of a task.
type TaskStatus string

// The task states; completed, failed and cancelled are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

func (s TaskStatus) terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is one task.
type Task struct {
	ID      string
	store   *taskStore
	owner   *Session // 2025: the session that created it
	cancel  context.CancelFunc
	created time.Time

	mu        sync.Mutex
	status    TaskStatus
	message   string
	updated   time.Time
	result    wire.Raw
	err       *jsonrpc.Error
	inputs    map[string]*taskInput // outstanding input requests, by key
	inputKeys []string              // their order
	done      chan struct{}
}

type taskInput struct {
	request wire.Raw
	reply   chan wire.Raw
}

type taskStore struct {
	srv  *Server
	opts TaskOptions
	mu   sync.Mutex
	byID map[string]*Task
}

func (s *Server) taskStore() *taskStore {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		o := TaskOptions{}
		if s.opts.Tasks != nil {
			o = *s.opts.Tasks
		}
		if o.TTL == 0 {
			o.TTL = time.Hour
		}
		if o.PollInterval == 0 {
			o.PollInterval = 200 * time.Millisecond
		}
		if o.MaxTasks == 0 {
			o.MaxTasks = 10000
		}
		s.tasks = &taskStore{srv: s, opts: o, byID: map[string]*Task{}}
	}
	return s.tasks
}

// TasksRequested reports whether the request may be answered with a task:
// 2025-11-25 when its params carry task; 2026 when the client declared the
// tasks extension on it.
func (r *Request) TasksRequested() bool {
	if r.server.opts.Tasks == nil {
		return false
	}
	if r.session != nil {
		return r.taskParam
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
	if r.session != nil && r.taskParam {
		return false, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: this tool cannot be invoked as a task"}
	}
	return false, nil
}

// AnswerWith is an error a handler returns to answer with a result its
// generated signature cannot express (a task handle): the runtime sends
// Result as the result.
type AnswerWith struct{ Result wire.Marshaler }

func (a *AnswerWith) Error() string { return "mcp: answered with another result" }

// StartTask starts run as a task and returns the error value the handler
// returns, which answers the request with the task's CreateTaskResult. The
// task is durable before the answer goes out (tasks/get finds it at once).
// run's context is cancelled by tasks/cancel, and ends when the task does.
func (r *Request) StartTask(run func(ctx context.Context, t *Task) (wire.Marshaler, error)) error {
	if !r.TasksRequested() {
		return r.RequireTasks()
	}
	st := r.server.taskStore()
	now := r.server.opts.Now()
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.ctx))
	t := &Task{ID: newTaskID(), store: st, owner: r.session, cancel: cancel, created: now, updated: now, status: TaskWorking, done: make(chan struct{})}
	st.add(t)
	stateless := r.session == nil
	go func() {
		defer cancel()
		res, err := run(ctx, t)
		t.finish(res, err, stateless)
	}()
	return &AnswerWith{Result: encoderFunc(func(e *wire.Encoder) { t.encodeCreate(e, stateless) })}
}

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (st *taskStore) add(t *Task) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.expire()
	st.byID[t.ID] = t
	if len(st.byID) > st.opts.MaxTasks {
		// Drop the oldest finished task.
		var oldest *Task
		for _, x := range st.byID {
			if x.terminal() && (oldest == nil || x.created.Before(oldest.created)) {
				oldest = x
			}
		}
		if oldest != nil {
			delete(st.byID, oldest.ID)
		}
	}
}

// expire drops tasks past their TTL (called with st.mu held).
func (st *taskStore) expire() {
	now := st.srv.opts.Now()
	for id, t := range st.byID {
		if now.Sub(t.created) > st.opts.TTL {
			t.cancel()
			delete(st.byID, id)
		}
	}
}

func (st *taskStore) get(id string, sess *Session) *Task {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.expire()
	t := st.byID[id]
	if t == nil || (sess != nil && t.owner != sess) {
		return nil
	}
	return t
}

func (t *Task) terminal() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status.terminal()
}

// SetMessage sets the task's status message.
func (t *Task) SetMessage(msg string) {
	t.mu.Lock()
	t.message = msg
	t.updated = t.store.srv.opts.Now()
	t.mu.Unlock()
}

// ErrTaskEnded is returned by Input when the task was cancelled.
var ErrTaskEnded = errors.New("mcp: the task ended")

// Input asks the client for input: request is the input request, the JSON
// {"method":..., "params":...} of an InputRequest (elicitation/create,
// sampling/createMessage, roots/list). The task shows input_required with
// the request under key until the client answers it (tasks/update); Input
// returns the answer's JSON. Keys must be unique over the task's life.
func (t *Task) Input(ctx context.Context, key string, request wire.Raw) (wire.Raw, error) {
	in := &taskInput{request: request, reply: make(chan wire.Raw, 1)}
	t.mu.Lock()
	if t.inputs == nil {
		t.inputs = map[string]*taskInput{}
	}
	t.inputs[key] = in
	t.inputKeys = append(t.inputKeys, key)
	t.status = TaskInputRequired
	t.updated = t.store.srv.opts.Now()
	t.mu.Unlock()
	select {
	case r := <-in.reply:
		return r, nil
	case <-ctx.Done():
		return nil, ErrTaskEnded
	}
}

// respond delivers answers to outstanding input requests; unknown keys and
// keys already answered are ignored.
func (t *Task) respond(responses map[string]wire.Raw) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, r := range responses {
		in := t.inputs[key]
		if in == nil {
			continue
		}
		delete(t.inputs, key)
		for i, k := range t.inputKeys {
			if k == key {
				t.inputKeys = append(t.inputKeys[:i], t.inputKeys[i+1:]...)
				break
			}
		}
		in.reply <- r
	}
	if len(t.inputs) == 0 && t.status == TaskInputRequired {
		t.status = TaskWorking
	}
	t.updated = t.store.srv.opts.Now()
}

func (t *Task) finish(res wire.Marshaler, err error, stateless bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer close(t.done)
	if t.status == TaskCancelled {
		return
	}
	t.updated = t.store.srv.opts.Now()
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.store.srv.log.Error("mcp: task failed", "task", t.ID, "err", err)
			je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
		}
		t.status, t.err = TaskFailed, je
		return
	}
	b, merr := wire.Marshal(res)
	if merr != nil {
		t.status, t.err = TaskFailed, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
		return
	}
	if stateless {
		b = withResultType(b)
	}
	t.status, t.result = TaskCompleted, b
}

// withResultType gives a 2026 result object its resultType when the
// handler's value left it out: the inlined result of a task is the
// request's standard result, which carries one.
func withResultType(b wire.Raw) wire.Raw {
	d := wire.NewDecoder(b)
	if k, _, err := d.PeekMember("resultType"); err != nil || k != wire.Invalid || len(b) < 2 || b[0] != '{' {
		return b
	}
	rest := b[1:]
	sep := ","
	if t := bytes.TrimLeft(rest, " \t\r\n"); len(t) > 0 && t[0] == '}' {
		sep = ""
	}
	out := make(wire.Raw, 0, len(b)+26)
	out = append(out, `{"resultType":"complete"`...)
	out = append(out, sep...)
	return append(out, rest...)
}

// cancelTask moves a running task to cancelled (a terminal task stays).
func (t *Task) cancelTask() {
	t.mu.Lock()
	if !t.status.terminal() {
		t.status = TaskCancelled
		t.updated = t.store.srv.opts.Now()
	}
	t.mu.Unlock()
	t.cancel()
}

func iso(tm time.Time) string { return tm.UTC().Format(time.RFC3339Nano) }

// encodeTask writes the task's members (2026: flat; 2025: inside task).
func (t *Task) encodeFields(e *wire.Encoder, stateless bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.store
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
	if stateless {
		e.FieldRaw(`"ttlMs":`)
		e.Int64(st.opts.TTL.Milliseconds())
		e.FieldRaw(`"pollIntervalMs":`)
		e.Int64(st.opts.PollInterval.Milliseconds())
	} else {
		e.FieldRaw(`"ttl":`)
		e.Int64(st.opts.TTL.Milliseconds())
		e.FieldRaw(`"pollInterval":`)
		e.Int64(st.opts.PollInterval.Milliseconds())
	}
}

// encodeCreate writes the CreateTaskResult.
func (t *Task) encodeCreate(e *wire.Encoder, stateless bool) {
	e.ObjectStart()
	if stateless {
		e.FieldRaw(`"resultType":`)
		e.Str("task")
		t.encodeFields(e, true)
	} else {
		e.FieldRaw(`"task":`)
		e.ObjectStart()
		t.encodeFields(e, false)
		e.ObjectEnd()
	}
	e.ObjectEnd()
}

// encodeDetailed writes the tasks/get result: the task with its result,
// error or input requests inlined (2026), or the plain task (2025).
func (t *Task) encodeDetailed(e *wire.Encoder, stateless bool) {
	e.ObjectStart()
	if stateless {
		e.FieldRaw(`"resultType":`)
		e.Str("complete")
	}
	t.encodeFields(e, stateless)
	if stateless {
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

var ackComplete = wire.Raw(`{"resultType":"complete"}`)

// taskMethod answers tasks/* in either era; ok is false for other methods.
func (s *Server) taskMethod(ctx context.Context, r *Request, method string, params wire.Raw) (res wire.Marshaler, err error, ok bool) {
	if s.opts.Tasks == nil {
		return nil, nil, false
	}
	stateless := r.session == nil
	switch method {
	case "tasks/get", "tasks/cancel", "tasks/update", "tasks/result", "tasks/list":
	default:
		return nil, nil, false
	}
	if stateless {
		if method == "tasks/result" || method == "tasks/list" {
			return nil, nil, false // removed by the extension: -32601
		}
		if !r.HasClientCapability("extensions", TasksExtension) {
			return nil, MissingCapability(r.Protocol, "extensions", TasksExtension), true
		}
	}
	st := s.taskStore()
	if method == "tasks/list" {
		return s.listTasks(r.session), nil, true
	}
	id, responses := taskParams(params)
	t := st.get(id, r.session)
	if t == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/taskId: unknown task " + id}, true
	}
	switch method {
	case "tasks/get":
		return encoderFunc(func(e *wire.Encoder) { t.encodeDetailed(e, stateless) }), nil, true
	case "tasks/update":
		t.respond(responses)
		return ackComplete, nil, true
	case "tasks/cancel":
		if !stateless && t.terminal() {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/taskId: the task has already ended"}, true
		}
		t.cancelTask()
		if stateless {
			return ackComplete, nil, true
		}
		return encoderFunc(func(e *wire.Encoder) { t.encodeDetailed(e, false) }), nil, true
	case "tasks/result":
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, ctx.Err(), true
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		switch t.status {
		case TaskCompleted:
			return t.result, nil, true
		case TaskFailed:
			return nil, t.err, true
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/taskId: the task was cancelled"}, true
	}
	return nil, nil, false
}

func (s *Server) listTasks(sess *Session) wire.Marshaler {
	st := s.taskStore()
	st.mu.Lock()
	var ts []*Task
	for _, t := range st.byID {
		if t.owner == sess {
			ts = append(ts, t)
		}
	}
	st.mu.Unlock()
	sort.Slice(ts, func(i, j int) bool { return ts[i].created.Before(ts[j].created) })
	return encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"tasks":`)
		e.ArrayStart()
		for _, t := range ts {
			e.ObjectStart()
			t.encodeFields(e, false)
			e.ObjectEnd()
		}
		e.ArrayEnd()
		e.ObjectEnd()
	})
}

// taskParams reads taskId and inputResponses.
func taskParams(params wire.Raw) (string, map[string]wire.Raw) {
	var id string
	var responses map[string]wire.Raw
	if len(params) == 0 {
		return "", nil
	}
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "taskId":
			if d.Peek() == wire.String {
				id, err = d.Str()
				return err
			}
			return d.Skip()
		case "inputResponses":
			if d.Peek() != wire.Object {
				return d.Skip()
			}
			responses = map[string]wire.Raw{}
			return d.Object(func(k []byte) error {
				r, err := d.Raw()
				responses[string(k)] = r
				return err
			})
		}
		return d.Skip()
	})
	return id, responses
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
