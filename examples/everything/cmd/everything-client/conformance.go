package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/skills"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// The client side of the official conformance suite: the harness starts a
// mock server, runs this program with the scenario in
// $MCP_CONFORMANCE_SCENARIO, the wire version in
// $MCP_CONFORMANCE_PROTOCOL_VERSION and the mock's URL as the last
// argument, and checks what it sees on the wire. Each scenario is plain
// use of the generated clients over runtime/streamhttp: what a scenario
// checks (headers, _meta, retries, resumption, MRTR) is done by the
// runtime, not here.

// runScenario acts the conformance scenario against the server at url.
func runScenario(scenario, url string) error {
	if isAuthScenario(scenario) {
		return runAuthScenario(scenario, url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	cs, err := dialScenario(ctx, url)
	if err != nil {
		return err
	}
	defer cs.Close()
	switch scenario {
	case "sep-2640-client-no-prefetch":
		// Listing skills reads none of their files (either era).
		_, err := skills.List(ctx, cs)
		return err
	case "sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter":
		return loadSkills(ctx, cs)
	}
	if cs.Stateless() {
		return modernScenario(ctx, scenario, cs)
	}
	return legacyScenario(ctx, scenario, cs)
}

// dialScenario connects in the era of $MCP_CONFORMANCE_PROTOCOL_VERSION.
func dialScenario(ctx context.Context, url string) (*rt.ClientSession, error) {
	version := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	era := rt.Stateful
	if version >= "2026-07-28" {
		era = rt.Stateless
	}
	return rt.Connect(ctx, &streamhttp.ClientTransport{URL: url, Logger: warnings()},
		rt.ClientOptions{Name: "everything-client", Version: "0.1.0", Era: era},
		v25.Mount(conformanceLegacy{}), v26.Mount(modernHandler{}))
}

func legacyScenario(ctx context.Context, scenario string, cs *rt.ClientSession) error {
	c := v25.NewClient(cs)
	call := func(name, args string) error {
		_, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: name, Arguments: v25.CallToolRequestParamsArguments(args)})
		return err
	}
	switch scenario {
	case "initialize":
		return nil // the handshake is the scenario
	case "tools_call":
		if _, err := c.ListTools(ctx, nil); err != nil {
			return err
		}
		return call("add_numbers", `{"a":5,"b":3}`)
	case "elicitation-sep1034-client-defaults":
		return call("test_client_elicitation_defaults", `{}`)
	case "sse-retry":
		// The server drops the response stream; the transport resumes it.
		return call("test_reconnection", `{}`)
	case "json-schema-2020-12-preservation":
		tools, err := c.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		for _, t := range tools.Tools {
			if t.Name == "json_schema_2020_12_tool" {
				return echoSchema(t.InputSchema, call)
			}
		}
		return fmt.Errorf("no json_schema_2020_12_tool")
	}
	return fmt.Errorf("scenario %s: not known to this client", scenario)
}

func modernScenario(ctx context.Context, scenario string, cs *rt.ClientSession) error {
	c := v26.NewClient(cs)
	call := func(name, args string) error {
		_, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: name, Arguments: v26.CallToolRequestParamsArguments(args)})
		return err
	}
	switch scenario {
	case "tools_call":
		if _, err := c.ListTools(ctx, nil); err != nil {
			return err
		}
		return call("add_numbers", `{"a":5,"b":3}`)
	case "request-metadata":
		// The first request is refused with -32022; the session retries
		// with a version the server supports.
		_, err := c.ListTools(ctx, nil)
		return err
	case "sep-2322-client-request-state":
		if _, err := c.ListTools(ctx, nil); err != nil {
			return err
		}
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
			if err := call(name, `{}`); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	case "http-standard-headers":
		if _, err := c.ListTools(ctx, nil); err != nil {
			return err
		}
		for _, name := range []string{"test_headers", "my-hyphenated-tool"} {
			if err := call(name, `{}`); err != nil {
				return err
			}
		}
		res, err := c.ListResources(ctx, nil)
		if err != nil {
			return err
		}
		for _, r := range res.Resources {
			if _, err := c.ReadResource(ctx, &v26.ReadResourceRequestParams{URI: r.URI}); err != nil {
				return err
			}
		}
		prompts, err := c.ListPrompts(ctx, nil)
		if err != nil {
			return err
		}
		for _, p := range prompts.Prompts {
			if _, err := c.GetPrompt(ctx, &v26.GetPromptRequestParams{Name: p.Name}); err != nil {
				return err
			}
		}
		return nil
	case "http-custom-headers":
		// The calls to make come in the context; the transport mirrors
		// the tools' x-mcp-header arguments into Mcp-Param-* headers.
		if _, err := c.ListTools(ctx, nil); err != nil {
			return err
		}
		var sc struct {
			ToolCalls []struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"toolCalls"`
		}
		if err := json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
		for _, tc := range sc.ToolCalls {
			if err := call(tc.Name, string(tc.Arguments)); err != nil {
				return fmt.Errorf("%s: %w", tc.Name, err)
			}
		}
		return nil
	case "http-invalid-tool-headers":
		// Tools whose x-mcp-header annotations are invalid are not
		// callable; the valid one is.
		tools, err := c.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		for _, t := range tools.Tools {
			if t.Name == "valid_tool" {
				return call("valid_tool", `{"region":"us-west1"}`)
			}
		}
		return fmt.Errorf("no valid_tool")
	case "json-schema-ref-no-deref":
		// Listing is the scenario: schemas are data, and no $ref in
		// them is ever fetched.
		_, err := c.ListTools(ctx, nil)
		return err
	case "json-schema-2020-12-preservation":
		tools, err := c.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		for _, t := range tools.Tools {
			if t.Name == "json_schema_2020_12_tool" {
				return echoSchema(t.InputSchema, call)
			}
		}
		return fmt.Errorf("no json_schema_2020_12_tool")
	}
	return fmt.Errorf("scenario %s: not known to this client", scenario)
}

// loadSkills loads every skill the server lists: its SKILL.md, then its
// other files, each verified against the skill's entry by the runtime. A
// skill that fails verification is refused (reported on stderr) and none
// of its other files are read.
func loadSkills(ctx context.Context, cs *rt.ClientSession) error {
	entries, err := skills.List(ctx, cs)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := skills.Read(ctx, cs, e); err != nil {
			fmt.Fprintln(os.Stderr, "everything-client: skill refused:", err)
			continue
		}
		for _, f := range e.Resources {
			if f.URI == e.URI {
				continue
			}
			if _, err := skills.ReadFile(ctx, cs, e, f.URI); err != nil {
				return err
			}
		}
	}
	return nil
}

// echoSchema sends the focal tool's inputSchema, as this client decoded
// it, back through json_schema_echo: whatever our types dropped or
// altered shows in the scenario's checks.
func echoSchema(schema wire.Marshaler, call func(name, args string) error) error {
	b, err := wire.Marshal(schema)
	if err != nil {
		return err
	}
	return call("json_schema_echo", `{"schema":`+string(b)+`}`)
}

// conformanceLegacy answers the mock servers' requests in the stateful
// era: elicitation accepts with the requested schema's defaults.
type conformanceLegacy struct{ legacyHandler }

func (conformanceLegacy) Elicit(_ context.Context, p v25.ElicitRequestParams) (v25.ElicitReply, error) {
	form, ok := p.(*v25.ElicitRequestFormParams)
	if !ok {
		return &v25.ElicitResult{Action: v25.ElicitResultActionDecline}, nil
	}
	schema, err := wire.Marshal(form.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	content := map[string]json.RawMessage{}
	for name, prop := range s.Properties {
		if len(prop.Default) > 0 {
			content[name] = prop.Default
		}
	}
	b, _ := json.Marshal(map[string]any{"action": "accept", "content": content})
	r := new(v25.ElicitResult)
	if err := wire.Unmarshal(b, r); err != nil {
		return nil, err
	}
	return r, nil
}

// legacyHandler answers the server's requests in the stateful era.
type legacyHandler struct{ v25.UnimplementedClientHandler }

func (legacyHandler) CreateMessage(_ context.Context, p *v25.CreateMessageRequestParams) (v25.CreateMessageReply, error) {
	return &v25.CreateMessageResult{Role: v25.RoleAssistant, Model: "demo-model", Content: &v25.TextContent{Text: "Hi!"}, StopReason: wire.Some(v25.CreateMessageResultStopReasonEndTurn)}, nil
}

func (legacyHandler) Elicit(context.Context, v25.ElicitRequestParams) (v25.ElicitReply, error) {
	return &v25.ElicitResult{Action: v25.ElicitResultActionDecline}, nil
}

func (legacyHandler) ListRoots(context.Context, *v25.RequestParams) (*v25.ListRootsResult, error) {
	return &v25.ListRootsResult{Roots: []v25.Root{}}, nil
}

// modernHandler answers input requests in the stateless era.
type modernHandler struct{ v26.UnimplementedClientHandler }

func (modernHandler) Elicit(ctx context.Context, p v26.ElicitRequestParams) (*v26.ElicitResult, error) {
	return demoHandler{}.Elicit(ctx, p)
}

func (modernHandler) CreateMessage(ctx context.Context, p *v26.CreateMessageRequestParams) (*v26.CreateMessageResult, error) {
	return demoHandler{}.CreateMessage(ctx, p)
}

func (modernHandler) ListRoots(context.Context, *v26.ListRootsRequestParams) (*v26.ListRootsResult, error) {
	return &v26.ListRootsResult{Roots: []v26.Root{}}, nil
}
