// Package tasks lets a request answer at once with a handle the
// requestor polls, while the work goes on. Plug it into a server with
// Feature (mcp.ServerOptions.Features), into a client with Client
// (mcp.ClientOptions.Tasks). Two designs exist and the package serves both
// from one store:
//
//   - 2025-11-25 (core, experimental): the requestor asks for a task with
//     params.task; the answer is CreateTaskResult {task: {...}}; tasks/get,
//     tasks/result (blocks until the task ends, then answers exactly what
//     the request would have), tasks/list (paginated) and tasks/cancel,
//     scoped to the session; notifications/tasks/status on every change;
//     progress keeps flowing under the request's progress token until the
//     task ends; input the task needs is asked for with ordinary requests
//     to the requestor tagged with the related-task _meta. Servers host
//     tasks for tools/call; clients (Client) for sampling/createMessage
//     and elicitation/create.
//   - 2026-07-28 (the io.modelcontextprotocol/tasks extension, SEP-2663):
//     the client declares the extension per request and the server decides;
//     the answer is the flat CreateTaskResult {resultType: "task", taskId,
//     ...}; tasks/get (with the result, error or input requests inlined),
//     tasks/update (answers to input requests) and tasks/cancel.
//
// A handler starts a task with Start and returns what it returns (Mode
// says whether the request should be answered with one); the task's
// function runs in the background with its own context, and may ask for
// input with Task.Input and report progress with Task.Progress.
//
// Tasks are bounded: Options.MaxTasks in all (the oldest finished go
// first) and Options.MaxTasksPerOwner for one owner (its principal, else
// its session or address), so that one client cannot take every place.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// MetaRelatedTask is the _meta key that ties a message to a task
// (2025-11-25).
const MetaRelatedTask = "io.modelcontextprotocol/related-task"

// Options configure the tasks of a server (Feature) or a client (Client).
type Options struct {
	// TTL is how long a task is kept after it is created (default 1h); a
	// 2025-11-25 requestor may ask for less with params.task.ttl.
	TTL time.Duration
	// PollInterval is the polling interval suggested to requestors
	// (default 200ms).
	PollInterval time.Duration
	// MaxTasks bounds the tasks kept at once (default 10000); the oldest
	// finished ones are dropped first, and a request that would exceed it
	// while every task is running is refused.
	MaxTasks int
	// MaxTasksPerOwner bounds the tasks one owner (a principal, else a
	// session or a client address) keeps running at once (default 1000);
	// one more is refused while other owners are served.
	MaxTasksPerOwner int
	// PageSize is the number of tasks per tasks/list page (default 100).
	PageSize int
	// Owner names, besides the request's principal (see WithPrincipal), a
	// further authorization context of a stateless request ("" for none).
	// Tasks are bound to both: another principal's or owner's tasks/get,
	// tasks/update or tasks/cancel finds no such task. Stateful tasks are
	// bound to their session, which is bound to its principal. Without a
	// principal or Owner, stateless tasks are reachable by anyone who
	// knows the id, which is 128 random bits.
	Owner func(ctx context.Context) string
	// NoStatusNotifications turns off notifications/tasks/status
	// (2025-11-25), which are otherwise sent on every status change.
	NoStatusNotifications bool
	// Store shares stateless tasks with the other instances of the
	// server (nil: this process only); with mcp.ServerOptions.Broadcast,
	// tasks/update and tasks/cancel reach the instance running the task.
	Store Store
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 200 * time.Millisecond
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = 10000
	}
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.MaxTasksPerOwner <= 0 {
		o.MaxTasksPerOwner = 1000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Status is the state of a task.
type Status string

// The task states; completed, failed and cancelled are terminal.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

func (s Status) terminal() bool {
	return s == Completed || s == Failed || s == Cancelled
}

// ErrCancelled is the error of a call whose task was cancelled (the
// typed calls of a client that accepts tasks wait for them).
var ErrCancelled = protocol.ErrTaskCancelled

// ErrEnded is returned by Task.Input and Task.Progress once the task
// was cancelled or has ended.
var ErrEnded = errors.New("tasks: the task ended")

// Task is one task, as its function sees it.
type Task struct {
	// ID is the task id.
	ID string

	host *host
	// persistMu orders the task's saves: each takes its snapshot and
	// saves it under the lock, so an older snapshot never lands after a
	// newer one (a stale "working" over "input_required", say).
	persistMu sync.Mutex
	owner     any           // *mcp.Session, *mcp.ClientSession, or a statelessOwner
	design    design        // its shapes and rules
	role      protocol.Role // of the request that created it
	ttl       time.Duration
	created   time.Time
	cancel    context.CancelFunc
	// requestor reaches the other side for status notifications, progress
	// and input requests (2025); nil when stateless.
	requestor requestor
	progress  wire.StringOrInt
	hasToken  bool
	// clientCaps are the capabilities the creating request declared
	// (stateless): Input asks only for what they allow.
	clientCaps wire.Raw
	proto      *protocol.Protocol

	mu           sync.Mutex
	status       Status
	message      string
	updated      time.Time
	result       wire.Raw       // completed, or failed with a result (2025 isError)
	err          *jsonrpc.Error // failed with a protocol error
	lastProgress float64
	progressSent bool
	// Outstanding input requests: 2026 by key, answered by tasks/update;
	// 2025 a count of requests in flight to the requestor.
	inputs    map[string]*input
	inputKeys []string
	pending   int
	ended     chan struct{} // closed when the task reaches a terminal status
	endOnce   sync.Once

	// remote reports a task another instance runs (Options.Store); its
	// updates and cancellation reach that instance through the host's
	// publish.
	remote bool
}

type input struct {
	request wire.Raw
	reply   chan wire.Raw
}

// requestor is how a stateful task reaches its requestor.
type requestor interface {
	// notify sends the notification in role r, if the negotiated revision
	// has one.
	notify(ctx context.Context, r protocol.Role, params wire.Marshaler)
	// call sends a request and waits for its result.
	call(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error
}

// host keeps the tasks of a server or of a client.
type host struct {
	opts Options
	now  func() time.Time
	log  *slog.Logger
	// publish hands an announcement (a tasks/update or tasks/cancel of a
	// task another instance runs) to the other instances; nil on a
	// client.
	publish func(ctx context.Context, kind, arg string)

	mu      sync.Mutex
	byID    map[string]*Task
	running map[any]int // running tasks by owner key (MaxTasksPerOwner)
}

func newHost(o Options, log *slog.Logger) *host {
	o = o.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &host{opts: o, now: o.Now, log: log, byID: map[string]*Task{}, running: map[any]int{}}
}

// errTooManyTasks refuses a task when the store is full of running ones;
// errTooManyOwned when its owner runs MaxTasksPerOwner.
var (
	errTooManyTasks = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many tasks in progress; try again later"}
	errTooManyOwned = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many tasks in progress for this client: wait for some to end, or cancel them"}
)

// start creates a task running run in the background and returns it once
// it is stored (durable: tasks/get finds it at once).
func (h *host) start(parent context.Context, t *Task, run func(ctx context.Context, t *Task) (wire.Marshaler, error)) (*Task, error) {
	now := h.now()
	t.ID, t.host, t.created, t.updated, t.status = newTaskID(), h, now, now, Working
	t.ended = make(chan struct{})
	if t.ttl <= 0 || t.ttl > h.opts.TTL {
		t.ttl = h.opts.TTL
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	t.cancel = cancel
	if err := h.add(t); err != nil {
		cancel()
		return nil, err
	}
	t.persist()
	go func() {
		defer cancel()
		res, err := run(ctx, t)
		t.finish(ctx, res, err)
	}()
	return t, nil
}

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// add stores t, making room by dropping the oldest finished task; an
// error when every stored task is still running, or t's owner runs
// MaxTasksPerOwner.
func (h *host) add(t *Task) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire()
	k := ownerOf(t.owner)
	if h.running[k] >= h.opts.MaxTasksPerOwner {
		return errTooManyOwned
	}
	if len(h.byID) >= h.opts.MaxTasks {
		var oldest *Task
		for _, x := range h.byID {
			if x.terminal() && (oldest == nil || x.created.Before(oldest.created)) {
				oldest = x
			}
		}
		if oldest == nil {
			return errTooManyTasks
		}
		delete(h.byID, oldest.ID)
	}
	h.byID[t.ID] = t
	h.running[k]++
	return nil
}

// done counts a task of owner that stopped running.
func (h *host) done(owner any) {
	k := ownerOf(owner)
	h.mu.Lock()
	if n := h.running[k] - 1; n > 0 {
		h.running[k] = n
	} else {
		delete(h.running, k)
	}
	h.mu.Unlock()
}

// ownerOf is the key of owner in the bounds: a stateless task's principal
// (else its owner's name, else the address it came from), or its session.
func ownerOf(owner any) any {
	if o, ok := owner.(statelessOwner); ok && o.principal != "" {
		return "principal " + o.principal
	}
	return owner
}

// expire drops tasks past their TTL, stopping those still running (called
// with h.mu held).
func (h *host) expire() {
	now := h.now()
	for id, t := range h.byID {
		if now.Sub(t.created) > t.ttl {
			t.cancel()
			delete(h.byID, id)
		}
	}
}

// get finds the task id of owner.
func (h *host) get(id string, owner any) *Task {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire()
	t := h.byID[id]
	if t == nil || t.owner != owner {
		return nil
	}
	return t
}

func (t *Task) terminal() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status.terminal()
}

// Status returns the task's status.
func (t *Task) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
}

// SetMessage sets the task's status message, which tasks/get shows.
func (t *Task) SetMessage(msg string) {
	t.mu.Lock()
	t.message = msg
	t.updated = t.host.now()
	t.mu.Unlock()
	t.persist()
}

// setStatus moves a running task to status and tells a 2025 requestor.
// It reports false when the task has ended.
func (t *Task) setStatus(ctx context.Context, status Status) bool {
	t.mu.Lock()
	if t.status.terminal() {
		t.mu.Unlock()
		return false
	}
	changed := t.status != status
	t.status = status
	t.updated = t.host.now()
	t.mu.Unlock()
	if changed {
		t.persist()
		t.announce(ctx)
	}
	return true
}

// announce sends notifications/tasks/status with the task's state
// (2025-11-25; optional for receivers, so it can be turned off).
func (t *Task) announce(ctx context.Context) {
	if t.requestor == nil || t.host.opts.NoStatusNotifications {
		return
	}
	if params := t.design.status(t); params != nil {
		t.requestor.notify(context.WithoutCancel(ctx), protocol.RoleTaskStatus, params)
	}
}

// Progress reports progress of a 2025-11-25 task under the progress token
// of the request that created it, which stays valid until the task ends.
// Values must increase strictly; total < 0 and message "" are left out. It
// is a no-op when that request asked for no progress, and for 2026 tasks,
// whose requestor polls (SetMessage is seen by tasks/get).
func (t *Task) Progress(ctx context.Context, progress, total float64, message string) error {
	if t.requestor == nil || !t.hasToken {
		return nil
	}
	t.mu.Lock()
	if t.status.terminal() {
		t.mu.Unlock()
		return ErrEnded
	}
	if t.progressSent && progress <= t.lastProgress {
		t.mu.Unlock()
		return mcp.ErrProgress
	}
	t.lastProgress, t.progressSent = progress, true
	t.mu.Unlock()
	t.requestor.notify(ctx, protocol.RoleProgress, mcp.ProgressParams(t.progress, progress, total, message))
	return nil
}

// Input asks the requestor for input and returns its answer's JSON.
// request is the {"method":..., "params":...} of the request to make:
// elicitation/create, sampling/createMessage or roots/list (of a server's
// task). The task shows input_required until it is answered:
//
//   - 2026: the request is listed under key in tasks/get's inputRequests
//     until a tasks/update answers it (keys must be unique over the
//     task's life);
//   - 2025: the request is sent to the requestor at once, tagged with the
//     related-task _meta (key is unused), and its result returned; a
//     JSON-RPC error answer is returned as a *jsonrpc.Error.
//
// Several Inputs may run at once.
func (t *Task) Input(ctx context.Context, key string, request wire.Raw) (wire.Raw, error) {
	if t.requestor != nil {
		return t.ask(ctx, request)
	}
	if t.proto != nil {
		// The spec's rule for input requests: only what the client declared.
		if err := mcp.InputAllowed(t.proto, t.clientCaps, request); err != nil {
			return nil, err
		}
	}
	in := &input{request: request, reply: make(chan wire.Raw, 1)}
	t.mu.Lock()
	if t.status.terminal() {
		t.mu.Unlock()
		return nil, ErrEnded
	}
	if t.inputs == nil {
		t.inputs = map[string]*input{}
	}
	t.inputs[key] = in
	t.inputKeys = append(t.inputKeys, key)
	t.status = InputRequired
	t.updated = t.host.now()
	t.mu.Unlock()
	t.persist()
	select {
	case r := <-in.reply:
		return r, nil
	case <-ctx.Done():
		return nil, ErrEnded
	}
}

// ask sends one input request of a 2025 task to the requestor.
func (t *Task) ask(ctx context.Context, request wire.Raw) (wire.Raw, error) {
	method, params, err := mcp.SplitRequest(request)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.pending++
	t.mu.Unlock()
	if !t.setStatus(ctx, InputRequired) {
		return nil, ErrEnded
	}
	var out wire.Raw
	err = t.requestor.call(ctx, method, withRelatedTask(params, t.ID), out.Into())
	t.mu.Lock()
	t.pending--
	back := t.pending == 0
	t.mu.Unlock()
	if back {
		t.setStatus(ctx, Working)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrEnded
		}
		return nil, err
	}
	return out, nil
}

// respond delivers tasks/update answers to outstanding input requests;
// unknown keys and keys already answered are ignored.
func (t *Task) respond(responses map[string]wire.Raw) {
	if t.remote {
		b, _ := json.Marshal(responses)
		t.forward(context.Background(), announceUpdate, b)
		return
	}
	defer t.persist()
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
	if len(t.inputs) == 0 && t.status == InputRequired {
		t.status = Working
	}
	t.updated = t.host.now()
}

// end marks the task terminal for whoever waits on it (tasks/result).
func (t *Task) end() {
	t.endOnce.Do(func() {
		close(t.ended)
		if !t.remote {
			t.host.done(t.owner)
		}
	})
}

// finish records the outcome of the task's function.
func (t *Task) finish(ctx context.Context, res wire.Marshaler, err error) {
	var result wire.Raw
	var je *jsonrpc.Error
	failed := false
	if err == nil {
		if result, err = wire.Marshal(res); err == nil {
			result, failed = t.design.outcome(t, result)
		}
	}
	t.mu.Lock()
	if t.status == Cancelled {
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	if err != nil && !errors.As(err, &je) {
		t.host.log.Error("tasks: task failed", "task", t.ID, "err", err)
		je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
	}
	t.mu.Lock()
	if t.status == Cancelled {
		t.mu.Unlock()
		return
	}
	t.updated = t.host.now()
	switch {
	case je != nil:
		t.status, t.err = Failed, je
		if t.message == "" {
			t.message = je.Message
		}
	case failed:
		// 2025-11-25: a tool result with isError fails the task; tasks/result
		// still answers the result itself.
		t.status, t.result = Failed, result
		if t.message == "" {
			t.message = "the tool reported an error"
		}
	default:
		t.status, t.result = Completed, result
	}
	t.mu.Unlock()
	t.persist()
	// Announced before whoever waits learns of it: the status notification
	// precedes a tasks/result answer.
	t.announce(ctx)
	t.end()
}

// cancelTask moves a running task to cancelled (a terminal task stays) and
// stops its function.
func (t *Task) cancelTask(ctx context.Context) {
	if t.remote {
		t.forward(ctx, announceCancel, nil)
	}
	t.mu.Lock()
	changed := !t.status.terminal()
	if changed {
		t.status = Cancelled
		t.updated = t.host.now()
	}
	t.mu.Unlock()
	t.cancel()
	if changed {
		t.persist()
		t.announce(ctx)
	}
	t.end()
}
