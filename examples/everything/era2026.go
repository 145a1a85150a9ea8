package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// modern serves revision 2026-07-28: stateless, and the server asks for
// input with InputRequiredResult instead of requests to the client.
type modern struct{ f *fixtures }

var _ mcp.Server = (*modern)(nil)

func (m *modern) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	list := m.f.toolList(true)
	// The input-required tools exist only in this era.
	var defs []string
	for _, name := range mrtrTools {
		defs = append(defs, `{"name":"`+name+`","description":"Asks for input with InputRequiredResult first.","inputSchema":`+noArgsSchema()+`}`)
	}
	defs = append(defs, taskInputTools...)
	defs = append(defs, `{"name":"test_streaming_elicitation","description":"Needs elicitation: asks for input first.","inputSchema":`+noArgsSchema()+`}`)
	list = strings.TrimSuffix(list, "]}") + "," + strings.Join(defs, ",") + "]}"
	return decode[mcp.ListToolsResult](list)
}

var mrtrTools = []string{
	"test_input_required_result_elicitation",
	"test_input_required_result_sampling",
	"test_input_required_result_list_roots",
	"test_input_required_result_request_state",
	"test_input_required_result_multiple_inputs",
	"test_input_required_result_multi_round",
	"test_input_required_result_tampered_state",
	"test_input_required_result_capabilities",
}

func (m *modern) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolReply, error) {
	if p.Name == "echo" {
		if s, ok := echoText(wire.Raw(p.Arguments)); ok {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: s}}}, nil
		}
	}
	if p.Name == "count_to" {
		page, next, err := countTo(ctx, m.f.resume, p, p.ResumeToken.Or(""), wire.Raw(p.Arguments))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: page}}, NextResumeToken: optional(next)}, nil
	}
	if reply, ok, err := m.inputRequired(ctx, p); ok || err != nil {
		return reply, err
	}
	if reply, ok, err := m.taskTool(ctx, p); ok || err != nil {
		return reply, err
	}
	out, err := m.f.callTool(ctx, true, &exchange{server: m.f}, p.Name, wire.Raw(p.Arguments))
	if err != nil {
		return nil, err
	}
	return decode[mcp.CallToolResult](out)
}

// ask is one input request: the key, the method and its params JSON.
type ask struct{ key, method, params string }

func elicitAsk(key, message, property, typ string) ask {
	msg, _ := json.Marshal(message)
	return ask{key, "elicitation/create", `{"message":` + string(msg) + `,"requestedSchema":{"type":"object","properties":{"` + property + `":{"type":"` + typ + `"}},"required":["` + property + `"]}}`}
}

func samplingAsk(key, prompt string, maxTokens int) ask {
	msg, _ := json.Marshal(prompt)
	return ask{key, "sampling/createMessage", fmt.Sprintf(`{"messages":[{"role":"user","content":{"type":"text","text":%s}}],"maxTokens":%d}`, msg, maxTokens)}
}

var rootsAsk = func(key string) ask { return ask{key, "roots/list", `{}`} }

// inputRequiredResult builds an InputRequiredResult asking for asks, with
// state sealed for the retry when state is not nil.
func inputRequiredResult(ctx context.Context, state []byte, asks ...ask) (*mcp.InputRequiredResult, error) {
	return sealedInputRequired(ctx, state, rt.RequestFrom(ctx).SealState, asks...)
}

// sealedInputRequired is inputRequiredResult with the state sealed by seal.
func sealedInputRequired(ctx context.Context, state []byte, seal func([]byte) string, asks ...ask) (*mcp.InputRequiredResult, error) {
	var entries []string
	for _, a := range asks {
		entries = append(entries, `"`+a.key+`":{"method":"`+a.method+`","params":`+a.params+`}`)
	}
	js := `{"resultType":"input_required","inputRequests":{` + strings.Join(entries, ",") + `}`
	if state != nil {
		sealed, _ := json.Marshal(seal(state))
		js += `,"requestState":` + string(sealed)
	}
	return decode[mcp.InputRequiredResult](js + "}")
}

// answer returns the response to key as JSON, if the retry carries one.
func answer(p interface{ responses() mcp.InputResponses }, key string) (string, bool) {
	r, ok := p.responses()[key]
	if !ok || r == nil {
		return "", false
	}
	b, _ := wire.Marshal(r)
	return string(b), true
}

type callParams struct{ *mcp.CallToolRequestParams }

func (c callParams) responses() mcp.InputResponses { return c.InputResponses }

// elicited returns the string value of property in an accepted
// elicitation response.
func elicited(resp, property string) (string, bool) {
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal([]byte(resp), &r) != nil || r.Action != "accept" {
		return "", false
	}
	v, ok := r.Content[property]
	if !ok {
		return "", false
	}
	return fmt.Sprint(v), true
}

func done(text string) (mcp.CallToolReply, bool, error) {
	r, err := decode[mcp.CallToolResult](content(textBlock(text)))
	return r, true, err
}

func textBlock(s string) string { return text(s) }

// inputRequired serves the multi round-trip tools; ok is false for the
// others.
func (m *modern) inputRequired(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolReply, bool, error) {
	req := rt.RequestFrom(ctx)
	cp := callParams{p}
	state := func() ([]byte, error) {
		if !p.RequestState.Set {
			return nil, nil
		}
		return req.OpenState(p.RequestState.Value)
	}
	irr := func(st []byte, asks ...ask) (mcp.CallToolReply, bool, error) {
		r, err := inputRequiredResult(ctx, st, asks...)
		return r, true, err
	}
	switch p.Name {
	case "test_input_required_result_elicitation":
		if resp, ok := answer(cp, "user_name"); ok {
			if name, ok := elicited(resp, "name"); ok {
				return done("Hello, " + name + "!")
			}
		}
		return irr(nil, elicitAsk("user_name", "What is your name?", "name", "string"))
	case "test_input_required_result_sampling":
		if resp, ok := answer(cp, "capital_question"); ok {
			return done("The model said: " + resp)
		}
		return irr(nil, samplingAsk("capital_question", "What is the capital of France?", 100))
	case "test_input_required_result_list_roots":
		if resp, ok := answer(cp, "client_roots"); ok {
			return done("The client's roots: " + resp)
		}
		return irr(nil, rootsAsk("client_roots"))
	case "test_input_required_result_request_state", "test_input_required_result_tampered_state":
		st, err := state()
		if err != nil {
			return nil, true, err
		}
		if resp, ok := answer(cp, "confirm"); ok && string(st) == "awaiting-confirm" {
			if _, ok := elicited(resp, "ok"); ok {
				return done("Confirmed: state-ok")
			}
		}
		// A confirmation completes once: its state is single-use.
		r, err := sealedInputRequired(ctx, []byte("awaiting-confirm"), req.SealStateOnce, elicitAsk("confirm", "Please confirm", "ok", "boolean"))
		return r, true, err
	case "test_input_required_result_multiple_inputs":
		if _, err := state(); err != nil {
			return nil, true, err
		}
		_, a := answer(cp, "user_name")
		_, b := answer(cp, "greeting")
		_, c := answer(cp, "client_roots")
		if a && b && c {
			return done("All three inputs received.")
		}
		return irr([]byte("multi"), elicitAsk("user_name", "What is your name?", "name", "string"),
			samplingAsk("greeting", "Generate a greeting", 50), rootsAsk("client_roots"))
	case "test_input_required_result_multi_round":
		st, err := state()
		if err != nil {
			return nil, true, err
		}
		switch string(st) {
		case "":
			return irr([]byte("round-1"), elicitAsk("step1", "Step 1: What is your name?", "name", "string"))
		case "round-1":
			resp, ok := answer(cp, "step1")
			name, ok2 := elicited(resp, "name")
			if !ok || !ok2 {
				return irr([]byte("round-1"), elicitAsk("step1", "Step 1: What is your name?", "name", "string"))
			}
			return irr([]byte("round-2:"+name), elicitAsk("step2", "Step 2: What is your favorite color?", "color", "string"))
		default:
			resp, ok := answer(cp, "step2")
			color, ok2 := elicited(resp, "color")
			if !ok || !ok2 {
				return irr(st, elicitAsk("step2", "Step 2: What is your favorite color?", "color", "string"))
			}
			return done(strings.TrimPrefix(string(st), "round-2:") + " likes " + color + ".")
		}
	case "test_input_required_result_capabilities":
		var asks []ask
		if req.HasClientCapability("sampling") {
			asks = append(asks, samplingAsk("sample", "Say hello", 20))
		}
		if req.HasClientCapability("elicitation") {
			asks = append(asks, elicitAsk("ask", "Say hello", "text", "string"))
		}
		if req.HasClientCapability("roots") {
			asks = append(asks, rootsAsk("roots"))
		}
		if len(asks) == 0 || len(p.InputResponses) > 0 {
			return done("Asked only for what the client can do.")
		}
		return irr(nil, asks...)
	case "test_streaming_elicitation":
		if err := req.RequireClientCapability("elicitation"); err != nil {
			return nil, true, err
		}
		if resp, ok := answer(cp, "stream"); ok {
			return done("Streamed: " + resp)
		}
		return irr(nil, elicitAsk("stream", "Anything to add?", "note", "string"))
	}
	return nil, false, nil
}

func (m *modern) ListResources(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	return decode[mcp.ListResourcesResult](resourceList)
}

func (m *modern) ListResourceTemplates(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	return decode[mcp.ListResourceTemplatesResult](templateList)
}

func (m *modern) ReadResource(_ context.Context, p *mcp.ReadResourceRequestParams) (mcp.ReadResourceReply, error) {
	out, err := readResource(p.URI, true)
	if err != nil {
		return nil, err
	}
	return decode[mcp.ReadResourceResult](out)
}

func (m *modern) ListPrompts(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	return decode[mcp.ListPromptsResult](m.f.promptList(true))
}

func (m *modern) GetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (mcp.GetPromptReply, error) {
	if p.Name == "test_input_required_result_prompt" {
		if r, ok := p.InputResponses["user_context"]; ok && r != nil {
			b, _ := wire.Marshal(r)
			c, _ := elicited(string(b), "context")
			return decode[mcp.GetPromptResult](`{"messages":[{"role":"user","content":` + text("Use this context: "+c) + `}]}`)
		}
		return inputRequiredResult(ctx, nil, elicitAsk("user_context", "What context should the prompt use?", "context", "string"))
	}
	out, err := getPrompt(p.Name, p.Arguments)
	if err != nil {
		return nil, err
	}
	return decode[mcp.GetPromptResult](out)
}

func (m *modern) Complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	if p.Argument == nil {
		return nil, fmt.Errorf("no argument")
	}
	return decode[mcp.CompleteResult](completion(p.Argument.Name, p.Argument.Value))
}
