package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// handlers serve what the declared set (declared.go) cannot declare, for
// every revision: they are written for 2026-07-28 and mounted for the
// older revisions through the generated bridges (mcp/v*via20260728). They
// ask for input with InputRequiredResult; a bridge asks a client of the
// stateful era with requests of its own instead.
type handlers struct{ f *fixtures }

// ListTools lists the tools served here; the declared ones come first. A
// tool only a task answers is listed only where the revision has tasks.
func (m *handlers) ListTools(ctx context.Context, _ *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	defs := []string{countToDef, jsonSchemaToolDef, regionalLookupDef,
		`{"name":"test_trigger_tool_change","description":"Adds or removes a tool and announces it.","inputSchema":` + noArgsSchema() + `}`,
		`{"name":"test_trigger_prompt_change","description":"Adds or removes a prompt and announces it.","inputSchema":` + noArgsSchema() + `}`,
	}
	// The input-required tools exist only in this era.
	for _, name := range mrtrTools {
		defs = append(defs, `{"name":"`+name+`","description":"Asks for input with InputRequiredResult first.","inputSchema":`+noArgsSchema()+`}`)
	}
	for _, def := range taskInputTools {
		if !strings.Contains(def, `"name":"`+taskOnlyTool+`"`) || rt.RequestFrom(ctx) == nil || tasks.Served(ctx) {
			defs = append(defs, def)
		}
	}
	defs = append(defs, `{"name":"test_streaming_elicitation","description":"Needs elicitation: asks for input first.","inputSchema":`+noArgsSchema()+`}`)
	return decode[mcp.ListToolsResult](toolList(defs...))
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

func (m *handlers) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolReply, error) {
	switch p.Name {
	case "count_to":
		page, next, err := countTo(ctx, m.f.resume, p, p.ResumeToken.Or(""), wire.Raw(p.Arguments))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: page}}, NextResumeToken: optional(next)}, nil
	case "test_trigger_tool_change":
		m.f.toggle(rt.ToolsList)
		r, _, err := done("The tool list changed.")
		return r, err
	case "test_trigger_prompt_change":
		m.f.toggle(rt.PromptsList)
		r, _, err := done("The prompt list changed.")
		return r, err
	}
	if reply, ok, err := m.inputRequired(ctx, p); ok || err != nil {
		return reply, err
	}
	if reply, ok, err := m.taskTool(ctx, p); ok || err != nil {
		return reply, err
	}
	if out, ok, err := handlerTool(p.Name, wire.Raw(p.Arguments)); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return decode[mcp.CallToolResult](out)
	}
	return nil, rt.InvalidParams("/params/name", "unknown tool "+p.Name)
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
	r, ok := p.responses().Get(key)
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
func (m *handlers) inputRequired(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolReply, bool, error) {
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

// ListPrompts lists the prompt served here: the one that asks for input
// first.
func (m *handlers) ListPrompts(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	return decode[mcp.ListPromptsResult](`{"prompts":[{"name":"test_input_required_result_prompt","description":"A prompt that asks for context first"}]}`)
}

func (m *handlers) GetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (mcp.GetPromptReply, error) {
	if p.Name == "test_input_required_result_prompt" {
		if r, ok := p.InputResponses.Get("user_context"); ok && r != nil {
			b, _ := wire.Marshal(r)
			c, _ := elicited(string(b), "context")
			return decode[mcp.GetPromptResult](`{"messages":[{"role":"user","content":` + text("Use this context: "+c) + `}]}`)
		}
		return inputRequiredResult(ctx, nil, elicitAsk("user_context", "What context should the prompt use?", "context", "string"))
	}
	return nil, rt.InvalidParams("/params/name", "unknown prompt "+p.Name)
}

func (m *handlers) Complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	if p.Argument == nil {
		return nil, fmt.Errorf("no argument")
	}
	return decode[mcp.CompleteResult](completion(p.Argument.Name, p.Argument.Value))
}
