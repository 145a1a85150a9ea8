package main

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// The task tools that ask the client for input (the conformance suite's
// tasks scenarios, 2026-07-28); those that need no input are declared
// (declared.go) and served in 2025-11-25 too.

// taskInputTools are the 2026 task tools that ask the client for input:
// during the task with Task.Input, or, for a client without tasks, with
// InputRequiredResult.
var taskInputTools = []string{
	`{"name":"confirm_delete","description":"Deletes a file after the user confirms.","inputSchema":{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}}`,
	`{"name":"multi_input","description":"Asks two questions at once.","inputSchema":` + noArgsSchema() + `}`,
	`{"name":"test_tool_with_task","description":"Asks for a name, then greets as a task.","inputSchema":` + noArgsSchema() + `}`,
}

// taskOnlyTool is the task tool only a task answers (TaskRequired).
const taskOnlyTool = "test_tool_with_task"

// elicitation is the {"method","params"} of an elicitation/create asking
// for one property.
func elicitation(a ask) wire.Raw {
	return wire.Raw(`{"method":"` + a.method + `","params":` + a.params + `}`)
}

// taskTool serves the task tools that ask for input; ok is false for other
// tools.
func (m *handlers) taskTool(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolReply, bool, error) {
	cp := callParams{p}
	switch p.Name {
	case "confirm_delete":
		var args struct{ Filename string }
		_ = json.Unmarshal(p.Arguments, &args)
		confirm := elicitAsk("confirm", "Delete "+args.Filename+"?", "confirm", "boolean")
		outcome := func(resp string) string {
			if v, ok := elicited(resp, "confirm"); ok && v == "true" {
				return "Deleted " + args.Filename + "."
			}
			return "Kept " + args.Filename + "."
		}
		asTask, err := tasks.Mode(ctx, rt.TaskOptional)
		if err != nil {
			return nil, true, err
		}
		if asTask {
			return nil, true, tasks.Start(ctx, func(ctx context.Context, t *tasks.Task) (wire.Marshaler, error) {
				resp, err := t.Input(ctx, confirm.key, elicitation(confirm))
				if err != nil {
					return nil, err
				}
				return wire.Raw(content(text(outcome(string(resp))))), nil
			})
		}
		if resp, ok := answer(cp, confirm.key); ok {
			return done(outcome(resp))
		}
		r, err := inputRequiredResult(ctx, nil, confirm)
		return r, true, err
	case "multi_input":
		asks := []ask{
			elicitAsk("name", "What is your name?", "name", "string"),
			elicitAsk("color", "What is your favorite color?", "color", "string"),
		}
		summary := func(answers []string) string {
			name, _ := elicited(answers[0], "name")
			color, _ := elicited(answers[1], "color")
			return name + " likes " + color + "."
		}
		asTask, err := tasks.Mode(ctx, rt.TaskOptional)
		if err != nil {
			return nil, true, err
		}
		if asTask {
			return nil, true, tasks.Start(ctx, func(ctx context.Context, t *tasks.Task) (wire.Marshaler, error) {
				// Both questions are outstanding at once: the client may
				// answer them in one tasks/update or in two.
				answers := make([]string, len(asks))
				errs := make([]error, len(asks))
				var wg sync.WaitGroup
				for i, a := range asks {
					wg.Add(1)
					go func() {
						defer wg.Done()
						resp, err := t.Input(ctx, a.key, elicitation(a))
						answers[i], errs[i] = string(resp), err
					}()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						return nil, err
					}
				}
				return wire.Raw(content(text(summary(answers)))), nil
			})
		}
		a, okA := answer(cp, asks[0].key)
		b, okB := answer(cp, asks[1].key)
		if okA && okB {
			return done(summary([]string{a, b}))
		}
		r, err := inputRequiredResult(ctx, nil, asks...)
		return r, true, err
	case taskOnlyTool:
		// Input first, with InputRequiredResult on the original request;
		// then the task, which needs nothing more from the client.
		if _, err := tasks.Mode(ctx, rt.TaskRequired); err != nil {
			return nil, true, err
		}
		resp, ok := answer(cp, "user_name")
		name, ok2 := elicited(resp, "name")
		if !ok || !ok2 {
			r, err := inputRequiredResult(ctx, nil, elicitAsk("user_name", "What is your name?", "name", "string"))
			return r, true, err
		}
		return nil, true, tasks.Start(ctx, func(ctx context.Context, _ *tasks.Task) (wire.Marshaler, error) {
			sleep(ctx, 200*time.Millisecond)
			return wire.Raw(content(text("Hello, " + name + ", from a task."))), nil
		})
	}
	return nil, false, nil
}
