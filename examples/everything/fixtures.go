package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The fixtures are written once, as the JSON every revision shares, and
// decoded into each revision's generated types by its handler (era2025.go,
// era2026.go). Names, texts and shapes are those the conformance suite
// (@modelcontextprotocol/conformance) checks.

// A 1x1 PNG and a tiny WAV, base64.
const (
	pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	wavData = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA="
)

// tool is one tool: its definition and what calling it does.
type tool struct {
	def  string // the Tool object, JSON
	eras era
	// task is whether calls may or must become tasks (rt.TaskMode).
	task rt.TaskSupport
	call func(ctx context.Context, x *exchange, args map[string]any) (string, error)
}

// name reads the tool's name from its definition.
func (t tool) name() string {
	var def struct{ Name string }
	_ = json.Unmarshal([]byte(t.def), &def)
	return def.Name
}

// era says which revisions list a tool.
type era int

const (
	both era = iota
	legacyOnly
	modernOnly
)

// exchange is what a tool can do beyond returning content; each era
// provides its own (sampling and elicitation differ the most).
type exchange struct {
	server *fixtures
	// sample asks the client's model; elicit asks its user. nil when the
	// era has no server-to-client requests.
	sample func(ctx context.Context, prompt string, maxTokens int64) (string, error)
	elicit func(ctx context.Context, message string, schema string) (action string, content string, err error)
}

// fixtures holds the server's mutable state: the tools and prompts that the
// trigger tools add and remove.
type fixtures struct {
	srv *rt.Server
	// resume seals and opens count_to's resume tokens.
	resume *resume.Tokens

	mu          sync.Mutex
	extraTool   bool
	extraPrompt bool
}

func text(s string) string {
	b, _ := json.Marshal(s)
	return `{"type":"text","text":` + string(b) + `}`
}

func content(blocks ...string) string {
	return `{"content":[` + strings.Join(blocks, ",") + `]}`
}

func noArgsSchema() string { return `{"type":"object","properties":{}}` }

// tools lists every tool, in the order tools/list gives them
// (test_simple_text first: some suites call the first tool without
// arguments).
func (f *fixtures) tools() []tool {
	ts := []tool{
		{def: `{"name":"test_simple_text","description":"Returns a simple text response.","inputSchema":` + noArgsSchema() + `}`,
			call: func(context.Context, *exchange, map[string]any) (string, error) {
				return content(text("This is a simple text response for testing.")), nil
			}},
		{def: `{"name":"echo","description":"Echoes its text argument back as one text block.","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"The text to echo"}},"required":["text"]}}`,
			call: func(_ context.Context, _ *exchange, a map[string]any) (string, error) {
				s, _ := a["text"].(string)
				return content(text(s)), nil
			}},
		countToTool,
		{def: `{"name":"test_image_content","description":"Returns an image.","inputSchema":` + noArgsSchema() + `}`,
			call: func(context.Context, *exchange, map[string]any) (string, error) {
				return content(`{"type":"image","data":"` + pngData + `","mimeType":"image/png"}`), nil
			}},
		{def: `{"name":"test_audio_content","description":"Returns audio.","inputSchema":` + noArgsSchema() + `}`,
			call: func(context.Context, *exchange, map[string]any) (string, error) {
				return content(`{"type":"audio","data":"` + wavData + `","mimeType":"audio/wav"}`), nil
			}},
		{def: `{"name":"test_embedded_resource","description":"Returns an embedded resource.","inputSchema":` + noArgsSchema() + `}`,
			call: func(context.Context, *exchange, map[string]any) (string, error) {
				return content(`{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}`), nil
			}},
		{def: `{"name":"test_multiple_content_types","description":"Returns text, an image and a resource.","inputSchema":` + noArgsSchema() + `}`,
			call: func(context.Context, *exchange, map[string]any) (string, error) {
				return content(text("Multiple content types test:"),
					`{"type":"image","data":"`+pngData+`","mimeType":"image/png"}`,
					`{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}`), nil
			}},
		{def: `{"name":"test_tool_with_logging","description":"Logs three messages while it runs.","inputSchema":` + noArgsSchema() + `}`,
			call: func(ctx context.Context, _ *exchange, _ map[string]any) (string, error) {
				r := rt.RequestFrom(ctx)
				for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
					if i > 0 {
						sleep(ctx, 50*time.Millisecond)
					}
					_ = r.Log(ctx, "info", "everything", jsonString(msg))
				}
				return content(text("Logging test completed")), nil
			}},
		{def: `{"name":"test_error_handling","description":"Always fails, as a tool execution error.","inputSchema":` + noArgsSchema() + `}`,
			call: func(context.Context, *exchange, map[string]any) (string, error) {
				return `{"isError":true,"content":[` + text("This tool intentionally returns an error for testing") + `]}`, nil
			}},
		{def: `{"name":"test_tool_with_progress","description":"Reports progress 0, 50 and 100 of 100.","inputSchema":` + noArgsSchema() + `}`,
			call: func(ctx context.Context, _ *exchange, _ map[string]any) (string, error) {
				r := rt.RequestFrom(ctx)
				for i, p := range []float64{0, 50, 100} {
					if i > 0 {
						sleep(ctx, 50*time.Millisecond)
					}
					if err := r.Progress(ctx, p, 100, ""); err != nil {
						return "", err
					}
				}
				return content(text("Progress test completed")), nil
			}},
		{def: `{"name":"slow","description":"Sleeps for the given number of seconds, or until cancelled.","inputSchema":{"type":"object","properties":{"seconds":{"type":"number"}},"required":["seconds"]}}`,
			call: func(ctx context.Context, _ *exchange, a map[string]any) (string, error) {
				secs, _ := a["seconds"].(float64)
				select {
				case <-time.After(time.Duration(secs * float64(time.Second))):
					return content(text(fmt.Sprintf("slept %gs", secs))), nil
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}},
		{def: `{"name":"json_schema_2020_12_tool","description":"Tool with JSON Schema 2020-12 features","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}}`,
			call: func(_ context.Context, _ *exchange, a map[string]any) (string, error) {
				return content(text(fmt.Sprintf("accepted %v", a["name"]))), nil
			}},
		{def: `{"name":"test_sampling","description":"Asks the client's model to complete a prompt.","inputSchema":{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}}`,
			eras: legacyOnly,
			call: func(ctx context.Context, x *exchange, a map[string]any) (string, error) {
				prompt, _ := a["prompt"].(string)
				out, err := x.sample(ctx, prompt, 100)
				if err != nil {
					return "", err
				}
				return content(text("LLM response: " + out)), nil
			}},
		{def: `{"name":"test_elicitation","description":"Asks the client's user for their username and email.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`,
			eras: legacyOnly,
			call: func(ctx context.Context, x *exchange, a map[string]any) (string, error) {
				msg, _ := a["message"].(string)
				action, got, err := x.elicit(ctx, msg, `{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)
				if err != nil {
					return "", err
				}
				return content(text("User response: action=" + action + ", content=" + got)), nil
			}},
		{def: `{"name":"test_elicitation_sep1034_defaults","description":"Elicits with defaults for every primitive type.","inputSchema":` + noArgsSchema() + `}`,
			eras: legacyOnly,
			call: func(ctx context.Context, x *exchange, _ map[string]any) (string, error) {
				action, got, err := x.elicit(ctx, "Please review and update the form fields with defaults",
					`{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`)
				if err != nil {
					return "", err
				}
				return content(text("Elicitation completed: action=" + action + ", content=" + got)), nil
			}},
		{def: `{"name":"test_elicitation_sep1330_enums","description":"Elicits with every enum schema variant.","inputSchema":` + noArgsSchema() + `}`,
			eras: legacyOnly,
			call: func(ctx context.Context, x *exchange, _ map[string]any) (string, error) {
				action, got, err := x.elicit(ctx, "Please select options from the enum fields",
					`{"type":"object","properties":{`+
						`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},`+
						`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},`+
						`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},`+
						`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},`+
						`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}`+
						`},"required":[]}`)
				if err != nil {
					return "", err
				}
				return content(text("Elicitation completed: action=" + action + ", content=" + got)), nil
			}},
		{def: `{"name":"test_missing_capability","description":"Needs the client's sampling capability.","inputSchema":` + noArgsSchema() + `}`,
			eras: modernOnly,
			call: func(ctx context.Context, _ *exchange, _ map[string]any) (string, error) {
				if err := rt.RequestFrom(ctx).RequireClientCapability("sampling"); err != nil {
					return "", err
				}
				return content(text("The client can sample.")), nil
			}},
		{def: `{"name":"test_logging_tool","description":"Logs a message when the request asks for log messages.","inputSchema":` + noArgsSchema() + `}`,
			eras: modernOnly,
			call: func(ctx context.Context, _ *exchange, _ map[string]any) (string, error) {
				_ = rt.RequestFrom(ctx).Log(ctx, "info", "everything", jsonString("test_logging_tool ran"))
				return content(text("Logged if asked to.")), nil
			}},
		{def: `{"name":"regional_lookup","description":"Looks a query up in a region; the region also travels in the Mcp-Param-Region header, for routing.","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region"]}}`,
			eras: modernOnly,
			call: func(_ context.Context, _ *exchange, a map[string]any) (string, error) {
				region, _ := a["region"].(string)
				query, _ := a["query"].(string)
				return content(text(fmt.Sprintf("Looked up %q in %s.", query, region))), nil
			}},
		{def: `{"name":"test_trigger_tool_change","description":"Adds or removes a tool and announces it.","inputSchema":` + noArgsSchema() + `}`,
			eras: modernOnly,
			call: func(ctx context.Context, _ *exchange, _ map[string]any) (string, error) {
				f.mu.Lock()
				f.extraTool = !f.extraTool
				f.mu.Unlock()
				f.srv.NotifyListChanged(context.WithoutCancel(ctx), rt.ToolsList)
				return content(text("The tool list changed.")), nil
			}},
		{def: `{"name":"test_trigger_prompt_change","description":"Adds or removes a prompt and announces it.","inputSchema":` + noArgsSchema() + `}`,
			eras: modernOnly,
			call: func(ctx context.Context, _ *exchange, _ map[string]any) (string, error) {
				f.mu.Lock()
				f.extraPrompt = !f.extraPrompt
				f.mu.Unlock()
				f.srv.NotifyListChanged(context.WithoutCancel(ctx), rt.PromptsList)
				return content(text("The prompt list changed.")), nil
			}},
	}
	ts = append(ts, f.taskTools()...)
	f.mu.Lock()
	extra := f.extraTool
	f.mu.Unlock()
	if extra {
		ts = append(ts, tool{def: `{"name":"dynamic_tool","description":"Appears after test_trigger_tool_change.","inputSchema":` + noArgsSchema() + `}`,
			eras: modernOnly,
			call: func(context.Context, *exchange, map[string]any) (string, error) {
				return content(text("I am dynamic.")), nil
			}})
	}
	return ts
}

// toolsFor lists the tools of an era.
func (f *fixtures) toolsFor(modern bool) []tool {
	var out []tool
	for _, t := range f.tools() {
		if t.eras == both || (t.eras == modernOnly) == modern {
			out = append(out, t)
		}
	}
	return out
}

// callTool runs a tool; unknown names are a -32602 protocol error, as the
// tools specification asks.
func (f *fixtures) callTool(ctx context.Context, modern bool, x *exchange, name string, args wire.Raw) (string, error) {
	for _, t := range f.toolsFor(modern) {
		if t.name() != name {
			continue
		}
		a := map[string]any{}
		if len(args) > 0 {
			if err := json.Unmarshal(args, &a); err != nil {
				return "", rt.InvalidParams("/params/arguments", "must be an object")
			}
		}
		req := rt.RequestFrom(ctx)
		asTask, err := req.TaskMode(t.task)
		if err != nil {
			return "", err
		}
		if asTask {
			return "", req.StartTask(func(ctx context.Context, _ *rt.Task) (wire.Marshaler, error) {
				out, err := t.call(ctx, x, a)
				if err != nil {
					return nil, err
				}
				return wire.Raw(out), nil
			})
		}
		return t.call(ctx, x, a)
	}
	return "", rt.InvalidParams("/params/name", "unknown tool "+name)
}

// toolList is the tools/list result JSON of an era.
func (f *fixtures) toolList(modern bool) string {
	var defs []string
	for _, t := range f.toolsFor(modern) {
		def := t.def
		if !modern && t.task != rt.TaskForbidden {
			// 2025-11-25 declares task support on the tool.
			def = strings.TrimSuffix(def, "}") + `,"execution":{"taskSupport":"` + t.task.String() + `"}}`
		}
		defs = append(defs, def)
	}
	return `{"tools":[` + strings.Join(defs, ",") + `]}`
}

// Resources.

const resourceList = `{"resources":[` +
	`{"uri":"test://static-text","name":"static-text","title":"Static text","description":"A static text resource","mimeType":"text/plain"},` +
	`{"uri":"test://static-binary","name":"static-binary","title":"Static binary","description":"A static binary resource","mimeType":"image/png"},` +
	`{"uri":"test://watched-resource","name":"watched-resource","description":"A resource to subscribe to","mimeType":"text/plain"}]}`

const templateList = `{"resourceTemplates":[{"uriTemplate":"test://template/{id}/data","name":"template-data","description":"Data by id","mimeType":"application/json"}]}`

// readResource returns the ReadResourceResult JSON of uri, or the error for
// an unknown resource: modern -32602 with data.uri; stateful -32002.
func readResource(uri string, modern bool) (string, error) {
	quoted, _ := json.Marshal(uri)
	switch {
	case uri == "test://static-text":
		return `{"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]}`, nil
	case uri == "test://static-binary":
		return `{"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"` + pngData + `"}]}`, nil
	case uri == "test://watched-resource":
		return `{"contents":[{"uri":"test://watched-resource","mimeType":"text/plain","text":"Watch me."}]}`, nil
	case strings.HasPrefix(uri, "test://template/") && strings.HasSuffix(uri, "/data"):
		id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
		data, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		body, _ := json.Marshal(string(data))
		return `{"contents":[{"uri":` + string(quoted) + `,"mimeType":"application/json","text":` + string(body) + `}]}`, nil
	}
	code := int64(rt.CodeResourceNotFound)
	if modern {
		code = jsonrpc.CodeInvalidParams
	}
	return "", &jsonrpc.Error{Code: code, Message: "resource not found: " + uri, Data: wire.Raw(`{"uri":` + string(quoted) + `}`)}
}

// Prompts.

func (f *fixtures) promptList(modern bool) string {
	ps := []string{
		`{"name":"test_simple_prompt","description":"A prompt without arguments"}`,
		`{"name":"test_prompt_with_arguments","description":"A prompt with two arguments","arguments":[{"name":"arg1","description":"First test argument","required":true},{"name":"arg2","description":"Second test argument","required":true}]}`,
		`{"name":"test_prompt_with_embedded_resource","description":"A prompt embedding a resource","arguments":[{"name":"resourceUri","description":"The resource to embed","required":true}]}`,
		`{"name":"test_prompt_with_image","description":"A prompt with an image"}`,
	}
	if modern {
		ps = append(ps, `{"name":"test_input_required_result_prompt","description":"A prompt that asks for context first"}`)
		f.mu.Lock()
		if f.extraPrompt {
			ps = append(ps, `{"name":"dynamic_prompt","description":"Appears after test_trigger_prompt_change"}`)
		}
		f.mu.Unlock()
	}
	return `{"prompts":[` + strings.Join(ps, ",") + `]}`
}

// getPrompt returns the GetPromptResult JSON of a prompt.
func getPrompt(name string, args map[string]string) (string, error) {
	msg := func(role, content string) string { return `{"role":"` + role + `","content":` + content + `}` }
	switch name {
	case "test_simple_prompt", "dynamic_prompt":
		return `{"messages":[` + msg("user", text("This is a simple prompt for testing.")) + `]}`, nil
	case "test_prompt_with_arguments":
		return `{"messages":[` + msg("user", text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]))) + `]}`, nil
	case "test_prompt_with_embedded_resource":
		uri, _ := json.Marshal(args["resourceUri"])
		return `{"messages":[` + msg("user", `{"type":"resource","resource":{"uri":`+string(uri)+`,"mimeType":"text/plain","text":"Embedded resource content for testing."}}`) + `,` +
			msg("user", text("Please process the embedded resource above.")) + `]}`, nil
	case "test_prompt_with_image":
		return `{"messages":[` + msg("user", `{"type":"image","data":"`+pngData+`","mimeType":"image/png"}`) + `,` +
			msg("user", text("Please analyze the image above.")) + `]}`, nil
	}
	return "", rt.InvalidParams("/params/name", "unknown prompt "+name)
}

// completion returns the CompleteResult JSON for an argument.
func completion(argName, value string) string {
	var values []string
	for _, v := range []string{"test", "testing", "tested", value + "-suggestion"} {
		if strings.HasPrefix(v, value) {
			values = append(values, v)
		}
	}
	b, _ := json.Marshal(values)
	if values == nil {
		b = []byte("[]")
	}
	return `{"completion":{"values":` + string(b) + `,"total":` + fmt.Sprint(len(values)) + `,"hasMore":false}}`
}

func jsonString(s string) wire.Raw {
	b, _ := json.Marshal(s)
	return b
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// decode decodes fixture JSON into a generated type; fixtures are ours, so
// failing is a bug.
func decode[T any, P interface {
	*T
	wire.Unmarshaler
}](data string) (P, error) {
	v := P(new(T))
	if err := wire.Unmarshal([]byte(data), v); err != nil {
		return nil, fmt.Errorf("everything: fixture does not decode: %w", err)
	}
	return v, nil
}

// echoText returns the text argument of an echo call, reading the raw
// arguments in place (the hot path of benchmarks: no encoding/json).
func echoText(args wire.Raw) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	d := wire.NewDecoder(args)
	k, s, err := d.PeekMember("text")
	if err != nil || k != wire.String {
		return "", false
	}
	return string(s), true
}
