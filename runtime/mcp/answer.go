package mcp

import (
	"errors"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// What the engine knows of tasks (runtime/tasks serves them): how a tool
// declares it takes them, how a handler answers with a task handle, and
// how a client hosts the tasks a server asks it to run.

// TaskSupport is how a tool takes tasks: the execution.taskSupport of
// 2025-11-25 tool definitions, and what a 2026 server decides per call
// (runtime/tasks.Mode).
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

// ResultJSON returns a result's JSON when the result is JSON already (a
// wire.Raw, or what a feature wrote: Request.Written), for middleware
// that reads a result without encoding it; ok is false for other results.
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
