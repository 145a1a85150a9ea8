package main

import (
	"context"
	"encoding/json"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
)

// sample asks the client's model, with the client's task support when it
// has it (the stateful era's sampling/createMessage).
func sample(ctx context.Context, prompt string, maxTokens int64) (string, error) {
	params := &mcp.CreateMessageRequestParams{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: maxTokens,
	}
	if rt.RequestFrom(ctx).HasClientCapability("tasks", "requests", "sampling", "createMessage") {
		// The client runs sampling as a task; CreateMessage waits for it.
		params.Task = &mcp.TaskMetadata{TTL: wire.Some[int64](60000)}
	}
	r, err := mcp.PeerFrom(ctx).CreateMessage(ctx, params)
	if err != nil {
		return "", err
	}
	if t, ok := r.Content.(*mcp.TextContent); ok {
		return t.Text, nil
	}
	out, _ := wire.Marshal(r.Content)
	return string(out), nil
}

// elicit asks the client's user (the stateful era's elicitation/create)
// and returns the action and the content as JSON.
func elicit(ctx context.Context, message, schema string) (string, string, error) {
	msg, _ := json.Marshal(message)
	params, err := decode[mcp.ElicitRequestFormParams](`{"message":` + string(msg) + `,"requestedSchema":` + schema + `}`)
	if err != nil {
		return "", "", err
	}
	r, err := mcp.PeerFrom(ctx).Elicit(ctx, params)
	if err != nil {
		return "", "", err
	}
	got := "{}"
	if r.Content != nil {
		b, _ := wire.Marshal(r.Content)
		got = string(b)
	}
	return string(r.Action), got, nil
}
