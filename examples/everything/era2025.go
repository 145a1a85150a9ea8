package main

import (
	"context"
	"encoding/json"
	"fmt"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
)

// legacy serves revision 2025-11-25: the stateful era, with sampling and
// elicitation as requests to the client.
type legacy struct{ f *fixtures }

// legacy implements every method the revision leaves to server code.
var _ mcp.Server = (*legacy)(nil)

func (l *legacy) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return decode[mcp.ListToolsResult](l.f.toolList(false))
}

func (l *legacy) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolReply, error) {
	if p.Name == "echo" {
		if s, ok := echoText(wire.Raw(p.Arguments)); ok {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: s}}}, nil
		}
	}
	if p.Name == "count_to" {
		page, next, err := countTo(ctx, l.f.resume, p, p.ResumeToken.Or(""), wire.Raw(p.Arguments))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: page}}, NextResumeToken: optional(next)}, nil
	}
	x := &exchange{server: l.f, sample: l.sample, elicit: l.elicit}
	out, err := l.f.callTool(ctx, false, x, p.Name, wire.Raw(p.Arguments))
	if err != nil {
		return nil, err
	}
	return decode[mcp.CallToolResult](out)
}

func (l *legacy) sample(ctx context.Context, prompt string, maxTokens int64) (string, error) {
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

func (l *legacy) elicit(ctx context.Context, message, schema string) (string, string, error) {
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

func (l *legacy) ListResources(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	return decode[mcp.ListResourcesResult](resourceList)
}

func (l *legacy) ListResourceTemplates(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	return decode[mcp.ListResourceTemplatesResult](templateList)
}

func (l *legacy) ReadResource(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	out, err := readResource(p.URI, false)
	if err != nil {
		return nil, err
	}
	return decode[mcp.ReadResourceResult](out)
}

func (l *legacy) ListPrompts(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	return decode[mcp.ListPromptsResult](l.f.promptList(false))
}

func (l *legacy) GetPrompt(_ context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	out, err := getPrompt(p.Name, p.Arguments)
	if err != nil {
		return nil, err
	}
	return decode[mcp.GetPromptResult](out)
}

func (l *legacy) Complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	if p.Argument == nil {
		return nil, fmt.Errorf("no argument")
	}
	return decode[mcp.CompleteResult](completion(p.Argument.Name, p.Argument.Value))
}

func (l *legacy) RootsListChanged(context.Context, *mcp.NotificationParams) error { return nil }
