package protocol

import (
	"context"
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TaskInfo is a task as the runtime reports it; a TaskCodec writes it in
// its revision's task types.
type TaskInfo struct {
	// ID is the task id; Status its status; Message its status message
	// ("" for none).
	ID, Status, Message string
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps.
	CreatedAt, LastUpdatedAt string
	// TTLMs is how long the task is kept after it was created, and
	// PollIntervalMs the polling interval suggested, in milliseconds.
	TTLMs, PollIntervalMs int64
}

// TaskCodec writes the runtime's tasks in the task types of one revision:
// generated code builds it from the revision's definitions (2025-11-25:
// Task, CreateTaskResult, GetTaskResult, CancelTaskResult,
// TaskStatusNotificationParams).
type TaskCodec struct {
	// Task is one task (an entry of tasks/list).
	Task func(t *TaskInfo) wire.Marshaler
	// Create is the CreateTaskResult answering a task-augmented request.
	Create func(t *TaskInfo) wire.Marshaler
	// Get and Cancel are the results of tasks/get and tasks/cancel.
	Get    func(t *TaskInfo) wire.Marshaler
	Cancel func(t *TaskInfo) wire.Marshaler
	// Status is the params of the task status notification.
	Status func(t *TaskInfo) wire.Marshaler
}

// The requestor's side of tasks: generated typed calls that get a task
// handle back wait for the task here and return its result, so a caller
// that opted into tasks (params.task in 2025-11-25; ClientOptions.Tasks in
// 2026) still gets the method's standard result.

// ErrTaskCancelled is the error of a call whose task was cancelled.
var ErrTaskCancelled = errors.New("mcp: the task was cancelled")

// cancelGrace bounds the tasks/cancel sent when the caller gives up.
const cancelGrace = 5 * time.Second

// AwaitTaskResult waits for the 2025-11-25 task id at c to end and returns
// what its request would have answered: the revision p's tasks/result
// blocks until then. If ctx ends first, the task is cancelled
// (tasks/cancel) and ctx's error returned.
func AwaitTaskResult(ctx context.Context, c Caller, p *Protocol, id string) (wire.Raw, error) {
	result := p.RoleName(RoleTaskResult)
	if result == "" {
		return nil, errors.New("mcp: revision " + p.Revision + " has no request for a task's result")
	}
	var raw wire.Raw
	err := c.CallInto(ctx, result, taskIDParams{id: id}, raw.Into())
	if err != nil && ctx.Err() != nil {
		cancelTask(ctx, c, p.RoleName(RoleTaskCancel), id)
		return nil, ctx.Err()
	}
	return raw, err
}

// TaskAnswerer answers the input requests of a 2026 task: requests is the
// inputRequests object of tasks/get; it returns the inputResponses object.
type TaskAnswerer func(ctx context.Context, c Caller, requests wire.Raw) (wire.Marshaler, error)

// tasksAccepted is implemented by callers that may be answered with tasks.
type tasksAccepted interface{ AcceptsTasks() bool }

// AwaitTask returns raw unless it is a 2026 CreateTaskResult (resultType
// "task") answering a caller that accepts tasks; then it polls tasks/get
// at the interval the server suggests until the task ends, answering
// input requests with answer (tasks/update), and returns the task's
// result. A failed task is its *jsonrpc.Error, a cancelled one
// ErrTaskCancelled. If ctx ends first, the task is cancelled.
func AwaitTask(ctx context.Context, c Caller, raw wire.Raw, answer TaskAnswerer) (wire.Raw, error) {
	if a, ok := c.(tasksAccepted); !ok || !a.AcceptsTasks() {
		return raw, nil
	}
	st := parseTaskState(raw)
	if st.resultType != "task" {
		return raw, nil
	}
	id := st.id
	if id == "" {
		return nil, errors.New("mcp: a CreateTaskResult without taskId")
	}
	answered := map[string]bool{}
	for {
		switch st.status {
		case "completed":
			if st.result == nil {
				break // the CreateTaskResult itself: poll for the result
			}
			return st.result, nil
		case "failed":
			if st.err != nil {
				return nil, st.err
			}
			return nil, errors.New("mcp: the task failed without saying why")
		case "cancelled":
			return nil, ErrTaskCancelled
		case "input_required":
			if responses, err := answerNew(ctx, c, st.inputs, answered, answer); err != nil {
				return nil, err
			} else if responses != nil {
				if err := c.CallInto(ctx, extTaskUpdate.Name, taskIDParams{id: id, responses: responses}, wire.Into{}); err != nil {
					return nil, giveUp(ctx, c, id, err)
				}
			}
		}
		select {
		case <-time.After(st.interval()):
		case <-ctx.Done():
			return nil, giveUp(ctx, c, id, ctx.Err())
		}
		var got wire.Raw
		if err := c.CallInto(ctx, extTaskGet.Name, taskIDParams{id: id}, got.Into()); err != nil {
			return nil, giveUp(ctx, c, id, err)
		}
		st = parseTaskState(got)
	}
}

// answerNew answers the input requests not answered before; nil when there
// are none.
func answerNew(ctx context.Context, c Caller, requests wire.Raw, answered map[string]bool, answer TaskAnswerer) (wire.Marshaler, error) {
	if len(requests) == 0 {
		return nil, nil
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	n := 0
	d := wire.NewDecoder(requests)
	err := d.Object(func(key []byte) error {
		r, err := d.Raw()
		if err != nil || answered[string(key)] {
			return err
		}
		answered[string(key)] = true
		e.Field(string(key))
		e.Raw(r)
		n++
		return nil
	})
	e.ObjectEnd()
	if err != nil || n == 0 {
		return nil, err
	}
	if answer == nil {
		return nil, errors.New("mcp: the task asks for input and this revision has no way to answer it")
	}
	return answer(ctx, c, append(wire.Raw(nil), e.Bytes()...))
}

// giveUp cancels the (2026 extension) task when ctx ended, and returns
// err.
func giveUp(ctx context.Context, c Caller, id string, err error) error {
	if ctx.Err() != nil {
		cancelTask(ctx, c, extTaskCancel.Name, id)
		return ctx.Err()
	}
	return err
}

// cancelTask asks to cancel task id with the request method.
func cancelTask(ctx context.Context, c Caller, method, id string) {
	if method == "" {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	defer cancel()
	_ = c.Call(cctx, method, taskIDParams{id: id}, nil)
}

// taskIDParams are the params of tasks/get, tasks/result, tasks/cancel and
// tasks/update.
type taskIDParams struct {
	id        string
	responses wire.Marshaler
}

func (p taskIDParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"taskId":`)
	e.Str(p.id)
	if p.responses != nil {
		e.FieldRaw(`"inputResponses":`)
		p.responses.EncodeJSON(e)
	}
	e.ObjectEnd()
}

// taskState is what a requestor reads from a 2026 CreateTaskResult or
// tasks/get result.
type taskState struct {
	resultType string
	id         string
	status     string
	pollMs     float64
	result     wire.Raw
	err        *jsonrpc.Error
	inputs     wire.Raw
}

func parseTaskState(raw wire.Raw) taskState {
	var st taskState
	d := wire.NewDecoder(raw)
	_ = d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "resultType", "taskId", "status":
			if d.Peek() != wire.String {
				return d.Skip()
			}
			var s string
			s, err = d.Str()
			switch string(key) {
			case "resultType":
				st.resultType = s
			case "taskId":
				st.id = s
			default:
				st.status = s
			}
		case "pollIntervalMs":
			if d.Peek() != wire.Number {
				return d.Skip()
			}
			st.pollMs, err = d.Float64()
		case "result":
			st.result, err = d.Raw()
			st.result = append(wire.Raw(nil), st.result...)
		case "inputRequests":
			st.inputs, err = d.Raw()
			st.inputs = append(wire.Raw(nil), st.inputs...)
		case "error":
			if d.Peek() != wire.Object {
				return d.Skip()
			}
			st.err = new(jsonrpc.Error)
			err = st.err.DecodeJSON(d)
		default:
			err = d.Skip()
		}
		return err
	})
	return st
}

// interval is the polling interval the server suggested, within sane
// bounds (default 200ms).
func (st taskState) interval() time.Duration {
	d := time.Duration(st.pollMs * float64(time.Millisecond))
	switch {
	case st.pollMs <= 0:
		return 200 * time.Millisecond
	case d < 10*time.Millisecond:
		return 10 * time.Millisecond
	case d > 10*time.Second:
		return 10 * time.Second
	}
	return d
}
