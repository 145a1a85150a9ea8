package main

import (
	"context"
	"encoding/json"
	"fmt"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
)

// legacy serves what revision 2025-11-25 has beyond the declared set: the
// stateful era, with sampling and elicitation as requests to the client.
type legacy struct{ f *fixtures }

// legacy implements only methods of the revision's Server.
var _ interface {
	ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error)
	CallTool(context.Context, *mcp.CallToolRequestParams) (mcp.CallToolReply, error)
	Complete(context.Context, *mcp.CompleteRequestParams) (*mcp.CompleteResult, error)
} = (*legacy)(nil)

// ListTools lists the tools served here; the declared ones come first.
func (l *legacy) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return decode[mcp.ListToolsResult](toolList(countToDef, jsonSchemaToolDef))
}

func (l *legacy) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolReply, error) {
	if p.Name == "count_to" {
		page, next, err := countTo(ctx, l.f.resume, p, p.ResumeToken.Or(""), wire.Raw(p.Arguments))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: page}}, NextResumeToken: optional(next)}, nil
	}
	if out, ok, err := handlerTool(p.Name, wire.Raw(p.Arguments)); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return decode[mcp.CallToolResult](out)
	}
	return nil, rt.InvalidParams("/params/name", "unknown tool "+p.Name)
}

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

func (l *legacy) Complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	if p.Argument == nil {
		return nil, fmt.Errorf("no argument")
	}
	return decode[mcp.CompleteResult](completion(p.Argument.Name, p.Argument.Value))
}

func (l *legacy) RootsListChanged(context.Context, *mcp.NotificationParams) error { return nil }
