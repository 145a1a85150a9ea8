package main

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The fixtures both eras share, declared once as plain Go functions:
// mcpgen tools (go generate) writes their schemas, decoders and encoders
// into features.gen.go, and the runtime serves the set it returns on both
// mounted revisions, in each one's shape. Names, texts and shapes are
// those the conformance suite (@modelcontextprotocol/conformance) checks.
// What a Go type cannot declare — a hand-written JSON Schema with $defs
// and if/then, an x-mcp-header annotation, resumable calls, input-required
// rounds — stays with the handlers (handlers.go).

// A 1x1 PNG and a tiny WAV.
func png() []byte { return mustBase64(pngData) }
func wav() []byte { return mustBase64(wavData) }

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err) // our constants
	}
	return b
}

// Tools of both eras. test_simple_text comes first: some suites call the
// first tool without arguments.

// Returns a simple text response.
//
//mcp:tool test_simple_text
func simpleText(context.Context) (string, error) {
	return "This is a simple text response for testing.", nil
}

// EchoIn is echo's argument.
type EchoIn struct {
	Text string `json:"text"` // The text to echo
}

// Echoes its text argument back as one text block.
//
//mcp:tool echo icon="https://mcpgen.dev/echo.svg mimeType=image/svg+xml sizes=any" meta="{\"io.mcpgen/example\":\"echo\"}"
func echo(_ context.Context, in EchoIn) (string, error) { return in.Text, nil }

// Returns an image.
//
//mcp:tool test_image_content
func imageContent(context.Context) ([]features.Content, error) {
	return []features.Content{features.Image(png(), "image/png")}, nil
}

// Weather is test_structured_content's result.
type Weather struct {
	Temperature float64 `json:"temperature"` // in degrees Celsius
	Conditions  string  `json:"conditions"`  // in words
}

// Returns the weather as structured content (and the same JSON as text).
//
//mcp:tool test_structured_content
func structuredContent(context.Context) (Weather, error) {
	return Weather{Temperature: 21.5, Conditions: "sunny"}, nil
}

// Returns links to two resources.
//
//mcp:tool test_resource_links
func resourceLinks(context.Context) ([]features.Content, error) {
	return []features.Content{
		features.Link("test://static-text", "static-text", "text/plain"),
		features.Link("test://static-binary", "static-binary", "image/png"),
	}, nil
}

// Returns audio.
//
//mcp:tool test_audio_content
func audioContent(context.Context) ([]features.Content, error) {
	return []features.Content{features.Audio(wav(), "audio/wav")}, nil
}

// Returns an embedded resource.
//
//mcp:tool test_embedded_resource
func embeddedResource(context.Context) ([]features.Content, error) {
	return []features.Content{features.Embedded(features.Contents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."})}, nil
}

// Returns text, an image and a resource.
//
//mcp:tool test_multiple_content_types
func multipleContentTypes(context.Context) ([]features.Content, error) {
	return []features.Content{
		features.Text("Multiple content types test:"),
		features.Image(png(), "image/png"),
		features.Embedded(features.Contents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}),
	}, nil
}

// Logs three messages while it runs.
//
//mcp:tool test_tool_with_logging
func toolWithLogging(ctx context.Context, r *rt.Request) (string, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			sleep(ctx, 50*time.Millisecond)
		}
		_ = r.Log(ctx, "info", "everything", jsonString(msg))
	}
	return "Logging test completed", nil
}

// Always fails, as a tool execution error.
//
//mcp:tool test_error_handling
func errorHandling(context.Context) (*features.Result, error) {
	return &features.Result{IsError: true, Content: []features.Content{features.Text("This tool intentionally returns an error for testing")}}, nil
}

// Reports progress 0, 50 and 100 of 100.
//
//mcp:tool test_tool_with_progress
func toolWithProgress(ctx context.Context, r *rt.Request) (string, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			sleep(ctx, 50*time.Millisecond)
		}
		if err := r.Progress(ctx, p, 100, ""); err != nil {
			return "", err
		}
	}
	return "Progress test completed", nil
}

// SlowIn is how long slow sleeps.
type SlowIn struct {
	// Seconds is how long to sleep, at most an hour.
	Seconds float64 `json:"seconds" mcp:"minimum=0,maximum=3600"`
}

// Sleeps for the given number of seconds, or until cancelled; reports
// progress 0 first when asked.
//
//mcp:tool slow
func slow(ctx context.Context, r *rt.Request, in SlowIn) (string, error) {
	if _, ok := r.ProgressToken(); ok {
		_ = r.Progress(ctx, 0, in.Seconds, "sleeping")
	}
	select {
	case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
		return fmt.Sprintf("slept %gs", in.Seconds), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// The task tools (the conformance suite's tasks scenarios): whether a call
// becomes a task is the runtime's decision, from the tool's task support
// and the request; the function is the same either way.

// GreetIn is greet's argument.
type GreetIn struct {
	Name string `json:"name"`
}

// Greets by name, at once.
//
//mcp:tool greet
func greet(_ context.Context, in GreetIn) (string, error) { return "Hello, " + in.Name + "!", nil }

// SlowComputeIn is slow_compute's arguments.
type SlowComputeIn struct {
	Seconds float64 `json:"seconds" mcp:"minimum=0,maximum=3600"`
	Label   string  `json:"label,omitempty"`
}

// Computes for the given number of seconds; a task when the client takes tasks.
//
//mcp:tool slow_compute task=optional
func slowCompute(ctx context.Context, in SlowComputeIn) (string, error) {
	select {
	case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return fmt.Sprintf("Computed %q in %gs", in.Label, in.Seconds), nil
}

// Runs for a second as a task, then fails as a tool execution error.
//
//mcp:tool failing_job task=required
func failingJob(ctx context.Context) (*features.Result, error) {
	sleep(ctx, time.Second)
	return &features.Result{IsError: true, Content: []features.Content{features.Text("The job failed, as it always does.")}}, nil
}

// Fails with a JSON-RPC error.
//
//mcp:tool protocol_error_job task=optional
func protocolErrorJob(ctx context.Context) (string, error) {
	sleep(ctx, 100*time.Millisecond)
	return "", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: protocol_error_job fails on purpose"}
}

// Tools of the stateful era, which asks the client with requests of its
// own while a tool runs (peer.go).

// SamplingIn is test_sampling's argument.
type SamplingIn struct {
	Prompt string `json:"prompt"`
}

// Asks the client's model to complete a prompt.
//
//mcp:tool test_sampling stateful
func testSampling(ctx context.Context, in SamplingIn) (string, error) {
	out, err := sample(ctx, in.Prompt, 100)
	if err != nil {
		return "", err
	}
	return "LLM response: " + out, nil
}

// ElicitationIn is test_elicitation's argument.
type ElicitationIn struct {
	Message string `json:"message"`
}

// Asks the client's user for their username and email.
//
//mcp:tool test_elicitation stateful
func testElicitation(ctx context.Context, in ElicitationIn) (string, error) {
	action, got, err := elicit(ctx, in.Message, `{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)
	if err != nil {
		return "", err
	}
	return "User response: action=" + action + ", content=" + got, nil
}

// Elicits with defaults for every primitive type.
//
//mcp:tool test_elicitation_sep1034_defaults stateful
func elicitationDefaults(ctx context.Context) (string, error) {
	action, got, err := elicit(ctx, "Please review and update the form fields with defaults",
		`{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`)
	if err != nil {
		return "", err
	}
	return "Elicitation completed: action=" + action + ", content=" + got, nil
}

// Elicits with every enum schema variant.
//
//mcp:tool test_elicitation_sep1330_enums stateful
func elicitationEnums(ctx context.Context) (string, error) {
	action, got, err := elicit(ctx, "Please select options from the enum fields",
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
	return "Elicitation completed: action=" + action + ", content=" + got, nil
}

// Tools of the stateless era.

// Needs the client's sampling capability.
//
//mcp:tool test_missing_capability stateless
func missingCapability(_ context.Context, r *rt.Request) (string, error) {
	if err := r.RequireClientCapability("sampling"); err != nil {
		return "", err
	}
	return "The client can sample.", nil
}

// Logs a message when the request asks for log messages.
//
//mcp:tool test_logging_tool stateless
func loggingTool(ctx context.Context, r *rt.Request) (string, error) {
	_ = r.Log(ctx, "info", "everything", jsonString("test_logging_tool ran"))
	return "Logged if asked to.", nil
}

// Prompts.

// A prompt without arguments
//
//mcp:prompt test_simple_prompt
func simplePrompt(context.Context) (string, error) {
	return "This is a simple prompt for testing.", nil
}

// PromptArgs are test_prompt_with_arguments' arguments.
type PromptArgs struct {
	Arg1 string `json:"arg1"` // First test argument
	Arg2 string `json:"arg2"` // Second test argument
}

// A prompt with two arguments
//
//mcp:prompt test_prompt_with_arguments
func promptWithArguments(_ context.Context, in PromptArgs) (string, error) {
	return fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", in.Arg1, in.Arg2), nil
}

// EmbeddedArgs are test_prompt_with_embedded_resource's argument.
type EmbeddedArgs struct {
	ResourceURI string `json:"resourceUri"` // The resource to embed
}

// A prompt embedding a resource
//
//mcp:prompt test_prompt_with_embedded_resource
func promptWithEmbeddedResource(_ context.Context, in EmbeddedArgs) ([]features.Message, error) {
	return []features.Message{
		features.User(features.Embedded(features.Contents{URI: in.ResourceURI, MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
		features.User(features.Text("Please process the embedded resource above.")),
	}, nil
}

// A prompt with an image
//
//mcp:prompt test_prompt_with_image
func promptWithImage(context.Context) ([]features.Message, error) {
	return []features.Message{
		features.User(features.Image(png(), "image/png")),
		features.User(features.Text("Please analyze the image above.")),
	}, nil
}

// Resources.

// A static text resource
//
//mcp:resource test://static-text name=static-text title="Static text" mimeType=text/plain
func staticText(context.Context) (string, error) {
	return "This is the content of the static text resource.", nil
}

// A static binary resource
//
//mcp:resource test://static-binary name=static-binary title="Static binary" mimeType=image/png
func staticBinary(context.Context) ([]byte, error) { return png(), nil }

// A resource to subscribe to
//
//mcp:resource test://watched-resource name=watched-resource mimeType=text/plain
func watchedResource(context.Context) (string, error) { return "Watch me.", nil }

// TemplateVars are test://template/{id}/data's variable.
type TemplateVars struct {
	ID string `json:"id"`
}

// Data by id
//
//mcp:template test://template/{id}/data name=template-data mimeType=application/json
func templateData(_ context.Context, _ string, v TemplateVars) (string, error) {
	data, err := json.Marshal(map[string]any{"id": v.ID, "templateTest": true, "data": "Data for ID: " + v.ID})
	return string(data), err
}

// counterHTML is the counter app (apps/counter.html).
//
//go:embed apps/counter.html
var counterHTML string

// A counter, the everything server's MCP App: HTML the host renders in a
// sandbox, talking to the server through the host.
//
//mcp:app ui://everything/counter.html name=counter title="Counter" connectDomains=https://api.example.com resourceDomains=https://cdn.example.com permissions=clipboardWrite prefersBorder
func counterApp(context.Context) (string, error) { return counterHTML, nil }

// Shows a counter (the MCP App ui://everything/counter.html) starting at a
// number.
//
//mcp:tool show_counter app=ui://everything/counter.html appVisibility=model,app
func showCounter(_ context.Context, in CounterIn) (string, error) {
	return fmt.Sprintf("A counter from %d.", in.Start), nil
}

// CounterIn is where show_counter's counter starts.
type CounterIn struct {
	Start int32 `json:"start"`
}

// Completes the ids of test://template/{id}/data: those of 1 to 20 that
// begin with what was typed.
//
//mcp:complete test://template/{id}/data arg=id
func completeTemplateID(_ context.Context, value string) ([]string, error) {
	var ids []string
	for i := 1; i <= 20; i++ {
		if id := strconv.Itoa(i); strings.HasPrefix(id, value) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// The items test_trigger_tool_change and test_trigger_prompt_change add
// and remove while the server runs (handlers.go): declared with the
// runtime's types directly, as a server that builds its set at run time
// does.

func dynamicTool() features.Tool {
	return features.Tool{
		Name: "dynamic_tool", Description: "Appears after test_trigger_tool_change.", Eras: features.StatelessOnly,
		InputSchema: wire.Raw(noArgsSchema()),
		Call: func(context.Context, wire.Raw) (*features.Result, error) {
			return &features.Result{Content: []features.Content{features.Text("I am dynamic.")}}, nil
		},
	}
}

func dynamicPrompt() features.Prompt {
	return features.Prompt{
		Name: "dynamic_prompt", Description: "Appears after test_trigger_prompt_change", Eras: features.StatelessOnly,
		Get: func(context.Context, map[string]string) (string, []features.Message, error) {
			return "", []features.Message{features.User(features.Text("This is a simple prompt for testing."))}, nil
		},
	}
}

// TouchIn names the resource touch_resource announces.
type TouchIn struct {
	URI string `json:"uri" mcp:"format=uri"`
}

// Announces that a resource changed (notifications/resources/updated to
// its subscribers, on every instance sharing the server's broadcast).
//
//mcp:tool touch_resource
func touchResource(ctx context.Context, r *rt.Request, in TouchIn) (string, error) {
	r.Server().NotifyResourceUpdated(ctx, in.URI)
	return "Announced an update of " + in.URI + ".", nil
}
