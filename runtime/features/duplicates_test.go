package features_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	demo "github.com/mcpgen/mcpgen/testdata/demo/v1"
)

func textTool(name, text string) features.Tool {
	return features.Tool{Name: name, InputSchema: wire.Raw(`{"type":"object"}`),
		Call: func(context.Context, wire.Raw) (*features.Result, error) { return features.TextResult(text), nil }}
}

// TestDuplicatesAcrossSets: NewServer refuses two features serving one
// tool, prompt, resource or template, naming both.
func TestDuplicatesAcrossSets(t *testing.T) {
	res := func(uri string) features.Resource {
		return features.Resource{URI: uri, Name: "r", Read: func(context.Context, string) ([]features.Contents, error) { return nil, nil }}
	}
	tests := []struct {
		name string
		a, b *features.Set
		want string
	}{
		{"tool", features.NewSet().AddTools(textTool("get_forecast", "a")), features.NewSet().AddTools(textTool("other", "b"), textTool("get_forecast", "b")),
			`ServerOptions.Features[0] (*features.Set) and Features[1] (*features.Set) both serve the tool "get_forecast"`},
		{"resource", features.NewSet().AddResources(res("file:///a")), features.NewSet().AddResources(res("file:///a")),
			`both serve the resource "file:///a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{tt.a, tt.b}}, demo.Mount(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewServer: %v; want an error containing %q", err, tt.want)
			}
		})
	}
	// Different names on the two sets are fine.
	if _, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{
		features.NewSet().AddTools(textTool("a", "a")), features.NewSet().AddTools(textTool("b", "b"))}}, demo.Mount(nil)); err != nil {
		t.Fatal(err)
	}
}

// demoClient is a client of srv, in process, closed when t ends.
func demoClient(t *testing.T, srv *mcp.Server) *demo.Client {
	t.Helper()
	cs, err := mcp.Connect(context.Background(), &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return demo.NewClient(cs)
}

// listingHandler is a handler whose tools/list shares a name with a set.
type listingHandler struct{ demo.UnimplementedServer }

func (listingHandler) ListTools(context.Context, *demo.PaginatedRequestParams) (*demo.ListToolsResult, error) {
	return &demo.ListToolsResult{Tools: []demo.Tool{{Name: "shared", InputSchema: &demo.ToolInputSchema{}}, {Name: "own", InputSchema: &demo.ToolInputSchema{}}}}, nil
}

// TestHandlerShadowed: a tool both a Set and the handler list is listed
// once (the Set's, which its calls reach) and logged as an error once.
func TestHandlerShadowed(t *testing.T) {
	var logged bytes.Buffer
	set := features.NewSet().AddTools(textTool("shared", "from the set"))
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set},
		Logger: slog.New(slog.NewTextHandler(&logged, nil))}, demo.Mount(listingHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := demoClient(t, srv)
	for range 2 {
		list, err := c.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if got := strings.Join(names, ","); got != "shared,own" {
			t.Errorf("tools/list: %s; want shared,own", got)
		}
	}
	if n := strings.Count(logged.String(), `item="name shared"`); n != 1 || !strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("log (want one error naming shared):\n%s", logged.String())
	}
}

// TestHandBuiltToolChecked: a tool built by hand has its arguments checked
// against its InputSchema before its Call runs (every violation shown);
// one whose Call checks them itself (ArgumentsChecked) is left to it.
func TestHandBuiltToolChecked(t *testing.T) {
	calls := 0
	schema := wire.Raw(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)
	call := func(context.Context, wire.Raw) (*features.Result, error) {
		calls++
		return features.TextResult("ran"), nil
	}
	set := features.NewSet().AddTools(
		features.Tool{Name: "byhand", InputSchema: schema, Call: call},
		features.Tool{Name: "generated", InputSchema: schema, Call: call, ArgumentsChecked: true})
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}}, demo.Mount(nil))
	if err != nil {
		t.Fatal(err)
	}
	text := toolText(t, srv)
	if got := text("byhand", `{"message":"hi"}`); !strings.Contains(got, "additional property 'message' not allowed; /: missing properties: 'text'") || calls != 0 {
		t.Errorf("byhand with a misnamed argument: %q (calls %d)", got, calls)
	}
	if got := text("byhand", `{"text":"hi"}`); got != "ran" || calls != 1 {
		t.Errorf("byhand with good arguments: %q (calls %d)", got, calls)
	}
	if got := text("generated", `{"message":"hi"}`); got != "ran" || calls != 2 {
		t.Errorf("ArgumentsChecked: %q (calls %d); want its Call to decide", got, calls)
	}
}

// TestHandBuiltToolNotCheckable: in a program without a full JSON Schema
// validator (this test binary imports no toolschema/fullschema), a tool
// built by hand whose InputSchema is not flat is refused, naming the
// import: by NewServer when the set has it, at its calls when it is added
// later. Flat schemas with bounds, and ArgumentsChecked tools, are served.
func TestHandBuiltToolNotCheckable(t *testing.T) {
	nested := wire.Raw(`{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"integer"}}}}}`)
	bounded := wire.Raw(`{"type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":3},"n":{"type":"integer","minimum":0}}}`)
	call := func(context.Context, wire.Raw) (*features.Result, error) { return features.TextResult("ran"), nil }
	const want = `tool nested: its inputSchema is not flat, and the program registered no full JSON Schema validator to check its arguments: import _ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"`

	set := features.NewSet().AddTools(features.Tool{Name: "nested", InputSchema: nested, Call: call})
	if _, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}}, demo.Mount(nil)); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("NewServer with a tool it cannot check: %v, want an error containing %q", err, want)
	}

	// A server built with DisableToolSchemas checks nothing, and refuses
	// nothing for it; a server sharing the set without the option still
	// checks what it can.
	set = features.NewSet().AddTools(features.Tool{Name: "nested", InputSchema: nested, Call: call},
		features.Tool{Name: "bounded", InputSchema: bounded, Call: call})
	off, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}, DisableToolSchemas: true}, demo.Mount(nil))
	if err != nil {
		t.Fatalf("NewServer with DisableToolSchemas: %v", err)
	}
	set.RemoveTools("nested")
	on, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}}, demo.Mount(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(t, off)("bounded", `{"text":""}`); got != "ran" {
		t.Errorf("bounded on the server without checks: %q, want it run", got)
	}
	if got := toolText(t, on)("bounded", `{"text":""}`); !strings.Contains(got, "length must be >= 1") {
		t.Errorf("bounded on the server with checks: %q, want it refused", got)
	}

	set = features.NewSet().AddTools(
		features.Tool{Name: "bounded", InputSchema: bounded, Call: call},
		features.Tool{Name: "typed", InputSchema: nested, Call: call, ArgumentsChecked: true})
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}}, demo.Mount(nil))
	if err != nil {
		t.Fatal(err)
	}
	set.AddTools(features.Tool{Name: "nested", InputSchema: nested, Call: call})
	text := toolText(t, srv)
	for _, tc := range []struct{ tool, args, want string }{
		{"bounded", `{"text":"abc","n":0}`, "ran"},
		{"bounded", `{"text":"","n":-1}`, "/text: length must be >= 1, but got 0; /n: must be >= 0 but found -1"},
		{"typed", `{"p":{"q":"x"}}`, "ran"},
		{"nested", `{"p":{"q":1}}`, want},
	} {
		if got := text(tc.tool, tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// TestUnservableItemsRefused: NewServer refuses an item no client could
// use, or whose listing would not be JSON, naming it and what is wrong —
// with or without argument checks; an item added later is answered with
// a precise -32603 rather than a panic.
func TestUnservableItemsRefused(t *testing.T) {
	call := func(context.Context, wire.Raw) (*features.Result, error) { return features.TextResult("ran"), nil }
	get := func(context.Context, map[string]string) (string, []features.Message, error) { return "", nil, nil }
	read := func(context.Context, string) ([]features.Contents, error) { return nil, nil }
	readT := func(context.Context, string, map[string]string) ([]features.Contents, error) { return nil, nil }
	obj := wire.Raw(`{"type":"object"}`)
	for _, tc := range []struct {
		set  *features.Set
		want string
	}{
		{features.NewSet().AddTools(features.Tool{Name: "cut", InputSchema: wire.Raw(`{"type":"object","properties":{`), Call: call}), "tool cut: its inputSchema is not JSON: syntax error at offset 31"},
		{features.NewSet().AddTools(features.Tool{Name: "utf8", InputSchema: wire.Raw("{\"type\":\"object\",\"title\":\"\xff\"}"), Call: call}), "tool utf8: its inputSchema is not JSON: syntax error at offset 26: invalid UTF-8"},
		{features.NewSet().AddTools(features.Tool{Name: "two", InputSchema: wire.Raw(`{"type":"object"} {}`), Call: call}), "tool two: its inputSchema is not JSON: "},
		{features.NewSet().AddTools(features.Tool{Name: "null", InputSchema: wire.Raw(`null`), Call: call, ArgumentsChecked: true}), "tool null: its inputSchema is not a JSON object"},
		{features.NewSet().AddTools(features.Tool{Name: "out", InputSchema: obj, OutputSchema: wire.Raw(`{"type":"object",}`), Call: call}), "tool out: its outputSchema is not JSON: "},
		{features.NewSet().AddTools(features.Tool{Name: "meta", InputSchema: obj, Meta: wire.Raw(`[]`), Call: call}), "tool meta: its Meta is not a JSON object"},
		{features.NewSet().AddTools(features.Tool{InputSchema: obj, Call: call}), "a tool has no Name"},
		{features.NewSet().AddTools(features.Tool{Name: "nocall", InputSchema: obj}), "tool nocall has no Call"},
		{features.NewSet().AddPrompts(features.Prompt{Get: get}), "a prompt has no Name"},
		{features.NewSet().AddPrompts(features.Prompt{Name: "p"}), "prompt p has no Get"},
		{features.NewSet().AddPrompts(features.Prompt{Name: "p", Get: get, Arguments: []features.PromptArgument{{Required: true}}}), "prompt p has an argument without a Name"},
		{features.NewSet().AddPrompts(features.Prompt{Name: "p", Get: get, Meta: wire.Raw(`{`)}), "prompt p: its Meta is not JSON"},
		{features.NewSet().AddResources(features.Resource{Name: "r", Read: read}), `resource "": its URI is not an absolute URI`},
		{features.NewSet().AddResources(features.Resource{URI: "notes.txt", Read: read}), `resource "notes.txt": its URI is not an absolute URI`},
		{features.NewSet().AddResources(features.Resource{URI: "file:///a"}), "resource file:///a has no Read"},
		{features.NewSet().AddResources(features.Resource{URI: "file:///a", Read: read, ContentsMeta: wire.Raw(`"x"`)}), "resource file:///a: its ContentsMeta is not a JSON object"},
		{features.NewSet().AddTemplates(features.Template{Read: readT}), "a template has no URITemplate"},
		{features.NewSet().AddTemplates(features.Template{URITemplate: "file:///{x}"}), "template file:///{x} has no Read"},
	} {
		for _, off := range []bool{false, true} {
			_, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{tc.set}, DisableToolSchemas: off}, demo.Mount(nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DisableToolSchemas %v: %v, want an error containing %q", off, err, tc.want)
			}
		}
	}

	// Added after NewServer: a precise internal error at the call.
	set := features.NewSet()
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}}, demo.Mount(nil))
	if err != nil {
		t.Fatal(err)
	}
	set.AddTools(features.Tool{Name: "nocall", InputSchema: obj})
	if got := toolText(t, srv)("nocall", `{}`); !strings.Contains(got, "features: tool nocall has no Call") {
		t.Errorf("a tool without Call added later: %q", got)
	}
}

// toolText returns a function calling a tool of srv with arguments (JSON)
// and returning the text of its result, or the error's.
func toolText(t *testing.T, srv *mcp.Server) func(name, args string) string {
	c := demoClient(t, srv)
	return func(name, args string) string {
		t.Helper()
		res, err := c.CallTool(context.Background(), &demo.CallToolRequestParams{Name: name, Arguments: demo.CallToolRequestParamsArguments(args)})
		if err != nil {
			return err.Error()
		}
		return res.Content[0].(*demo.TextContent).Text
	}
}
