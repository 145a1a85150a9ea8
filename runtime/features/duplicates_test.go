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

// TestHandBuiltToolSchemaNotJSON: a tool whose inputSchema or
// outputSchema is not one JSON object is refused by NewServer, naming the
// tool, the schema and where it breaks — with or without argument checks,
// since its listing would not be JSON either.
func TestHandBuiltToolSchemaNotJSON(t *testing.T) {
	call := func(context.Context, wire.Raw) (*features.Result, error) { return features.TextResult("ran"), nil }
	for _, tc := range []struct {
		tool features.Tool
		want string
	}{
		{features.Tool{Name: "cut", InputSchema: wire.Raw(`{"type":"object","properties":{`), Call: call}, "tool cut: its inputSchema is not JSON: "},
		{features.Tool{Name: "utf8", InputSchema: wire.Raw("{\"type\":\"object\",\"title\":\"\xff\"}"), Call: call}, "tool utf8: its inputSchema is not JSON: "},
		{features.Tool{Name: "two", InputSchema: wire.Raw(`{"type":"object"} {}`), Call: call}, "tool two: its inputSchema is not JSON: "},
		{features.Tool{Name: "null", InputSchema: wire.Raw(`null`), Call: call, ArgumentsChecked: true}, "tool null: its inputSchema is not a JSON object"},
		{features.Tool{Name: "out", InputSchema: wire.Raw(`{"type":"object"}`), OutputSchema: wire.Raw(`{"type":"object",}`), Call: call}, "tool out: its outputSchema is not JSON: "},
	} {
		for _, off := range []bool{false, true} {
			set := features.NewSet().AddTools(tc.tool)
			_, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}, DisableToolSchemas: off}, demo.Mount(nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (DisableToolSchemas %v): %v, want an error containing %q", tc.tool.Name, off, err, tc.want)
			}
		}
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
