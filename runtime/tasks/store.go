package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Store keeps the state of stateless tasks (2026-07-28) where every
// instance of a server sees it, so that a task created on one instance is
// polled, answered (tasks/update) and cancelled on any: the instance that
// runs it saves its state on every change; another loads it to answer
// tasks/get, and hands tasks/update and tasks/cancel to the running one
// over mcp.ServerOptions.Broadcast. Implementations must be safe for
// concurrent use (runtime/store/redis has one).
type Store interface {
	// Save stores rec, to expire when the task does (rec.Expires).
	Save(ctx context.Context, rec Record) error
	// Load returns the record of task id; ok is false when there is none.
	Load(ctx context.Context, id string) (rec Record, ok bool, err error)
}

// Record is a stateless task as instances share it.
type Record struct {
	ID string `json:"id"`
	// Principal and Owner are who the task belongs to.
	Principal string `json:"principal,omitempty"`
	Owner     string `json:"owner,omitempty"`
	// Status, Message, Created, Updated and TTL are what tasks/get shows.
	Status  Status        `json:"status"`
	Message string        `json:"message,omitempty"`
	Created time.Time     `json:"created"`
	Updated time.Time     `json:"updated"`
	TTL     time.Duration `json:"ttl"`
	// Result is the outcome of a completed task, Error of a failed one.
	Result wire.Raw       `json:"result,omitempty"`
	Error  *jsonrpc.Error `json:"error,omitempty"`
	// Inputs are the outstanding input requests, in the order asked.
	Inputs []RecordInput `json:"inputs,omitempty"`
}

// RecordInput is one outstanding input request of a task.
type RecordInput struct {
	Key     string   `json:"key"`
	Request wire.Raw `json:"request"`
}

// Expires is when the task is dropped.
func (r Record) Expires() time.Time { return r.Created.Add(r.TTL) }

// persist saves a stateless task's state in the Store, if any.
func (t *Task) persist() {
	store := t.host.opts.Store
	principal, key, ok := ownerKey(t.owner)
	if store == nil || !ok || t.remote {
		return
	}
	t.persistMu.Lock()
	defer t.persistMu.Unlock()
	t.mu.Lock()
	rec := Record{ID: t.ID, Principal: principal, Owner: key, Status: t.status, Message: t.message,
		Created: t.created, Updated: t.updated, TTL: t.ttl, Result: t.result, Error: t.err}
	for _, k := range t.inputKeys {
		if in := t.inputs[k]; in != nil {
			rec.Inputs = append(rec.Inputs, RecordInput{Key: k, Request: in.request})
		}
	}
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := store.Save(ctx, rec); err != nil {
		t.host.log.Error("tasks: saving a task failed", "task", t.ID, "err", err)
	}
}

// remoteTask loads a stateless task another instance runs, for owner:
// a Task that answers tasks/get from the record and hands updates and
// cancellations to the running instance; nil when there is none.
func (h *host) remoteTask(ctx context.Context, id string, owner any, d design) (*Task, error) {
	principal, key, ok := ownerKey(owner)
	if h.opts.Store == nil || !ok {
		return nil, nil
	}
	rec, found, err := h.opts.Store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if !found || rec.Principal != principal || rec.Owner != key || h.now().After(rec.Expires()) {
		return nil, nil
	}
	t := &Task{ID: rec.ID, host: h, owner: owner, design: d, created: rec.Created, ttl: rec.TTL,
		status: rec.Status, message: rec.Message, updated: rec.Updated, result: rec.Result, err: rec.Error,
		remote: true, ended: make(chan struct{}), cancel: func() {}}
	for _, in := range rec.Inputs {
		if t.inputs == nil {
			t.inputs = map[string]*input{}
		}
		t.inputs[in.Key] = &input{request: in.Request}
		t.inputKeys = append(t.inputKeys, in.Key)
	}
	if rec.Status.terminal() {
		t.end()
	}
	return t, nil
}

// ownerKey names who a task belongs to, as instances share it: a
// stateless task's principal and owner, or a stateful session's principal
// and id (a session without one shares none of its tasks).
func ownerKey(owner any) (principal, key string, ok bool) {
	switch o := owner.(type) {
	case statelessOwner:
		return o.principal, o.owner, true
	case *mcp.Session:
		if id := o.ID(); id != "" {
			return o.Principal(), "session:" + id, true
		}
	}
	return "", "", false
}

// awaitRemote waits for a remote task to end, reading its record every
// poll interval (tasks/result of a task another instance runs).
func (t *Task) awaitRemote(ctx context.Context) error {
	for {
		rec, found, err := t.host.opts.Store.Load(ctx, t.ID)
		if err != nil {
			return err
		}
		if !found {
			return mcp.InvalidParams("/params/taskId", "the task expired")
		}
		if rec.Status.terminal() {
			t.mu.Lock()
			t.status, t.message, t.updated, t.result, t.err = rec.Status, rec.Message, rec.Updated, rec.Result, rec.Error
			t.mu.Unlock()
			t.end()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(t.host.opts.PollInterval):
		}
	}
}

// forward hands a tasks/update or tasks/cancel of a remote task to the
// instance that runs it.
func (t *Task) forward(ctx context.Context, kind string, payload []byte) {
	arg := t.ID
	if payload != nil {
		arg += "\n" + string(payload)
	}
	if t.host.publish != nil {
		t.host.publish(ctx, kind, arg)
	}
}

// apply applies a tasks/update or tasks/cancel another instance received
// for a task this one runs.
func (h *host) apply(ctx context.Context, kind, arg string) {
	id, payload, _ := strings.Cut(arg, "\n")
	h.mu.Lock()
	t := h.byID[id]
	h.mu.Unlock()
	if t == nil {
		return
	}
	switch kind {
	case announceCancel:
		t.cancelTask(ctx)
	case announceUpdate:
		var responses map[string]wire.Raw
		if json.Unmarshal([]byte(payload), &responses) == nil {
			t.respond(responses)
		}
	}
}
