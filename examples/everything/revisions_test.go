package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v24 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20241105"
	v2503 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20250326"
	v2506 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20250618"
	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// TestRevisionShapes: one declared set and one handler set, five
// revisions, each answered in its own shape — what a revision lacks is not
// sent to its clients, and a tool only a task can answer is not listed
// where the revision has no tasks.
func TestRevisionShapes(t *testing.T) {
	srv, err := newEverything(slog.New(slog.DiscardHandler), rt.ValidateResultsOn, nil, sharedState{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		version   string
		era       rt.Era
		want, not []string
	}{
		{"2024-11-05", rt.Stateful, []string{`"name":"test_simple_text"`, `[AudioContent left out`, `count_to`}, []string{`"title"`, `"outputSchema"`, `"type":"audio"`, `"completions"`, `"resultType"`, `test_tool_with_task`, `"icons"`, `io.mcpgen/example`}},
		{"2025-03-26", rt.Stateful, []string{`"type":"audio"`, `count_to`, `"completions"`}, []string{`"title":"mcpgen`, `"outputSchema"`, `"resultType"`, `test_tool_with_task`, `"icons"`, `io.mcpgen/example`}},
		{"2025-06-18", rt.Stateful, []string{`"title":"mcpgen everything server"`, `"type":"audio"`, `count_to`, `test_trigger_tool_change`, `"_meta":{"io.mcpgen/example":"echo"}`}, []string{`"resultType"`, `test_tool_with_task`, `"icons"`}},
		{"2025-11-25", rt.Stateful, []string{`count_to`, `"execution":{"taskSupport":"optional"}`, `"completions"`, `test_trigger_tool_change`, `test_tool_with_task`, `"icons":[{"src":"https://mcpgen.dev/echo.svg","mimeType":"image/svg+xml","sizes":["any"]}]`, `"_meta":{"io.mcpgen/example":"echo"}`}, []string{`"resultType"`}},
		{"2026-07-28", rt.Stateless, []string{`count_to`, `test_trigger_tool_change`, `"resultType":"complete"`, `test_tool_with_task`, `"icons":[{"src":"https://mcpgen.dev/echo.svg","mimeType":"image/svg+xml","sizes":["any"]}]`, `"_meta":{"io.mcpgen/example":"echo"}`}, []string{`test_sampling`}},
	} {
		t.Run(c.version, func(t *testing.T) {
			ctx := testContext(t)
			cs := connectRevision(t, srv, c.version, c.era)
			if cs.ProtocolVersion() != c.version {
				t.Fatalf("negotiated %s", cs.ProtocolVersion())
			}
			var seen strings.Builder
			seen.Write(cs.ServerResult())
			for _, call := range []struct{ method, params string }{
				{"tools/list", `{}`},
				{"tools/call", `{"name":"test_audio_content"}`},
				{"tools/call", `{"name":"test_simple_text"}`},
			} {
				var res wire.Raw
				if err := cs.Call(ctx, call.method, wire.Raw(call.params), &res); err != nil {
					t.Fatalf("%s: %v", call.method, err)
				}
				seen.Write(res)
			}
			got := seen.String()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %s", c.version, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("%s has %s", c.version, n)
				}
			}
		})
	}
}

// elicitor answers elicitation, sampling and roots on 2025-06-18.
type elicitor2506 struct {
	v2506.UnimplementedClientHandler
}

func (elicitor2506) Elicit(context.Context, *v2506.ElicitRequestParams) (*v2506.ElicitResult, error) {
	return &v2506.ElicitResult{Action: v2506.ElicitResultActionAccept, Content: v2506.ElicitResultContent{
		{Name: "name", Value: v2506.ElicitResultContentValueString("Ada")}, {Name: "color", Value: v2506.ElicitResultContentValueString("green")}, {Name: "ok", Value: v2506.ElicitResultContentValueBoolean(true)}}}, nil
}

func (elicitor2506) CreateMessage(context.Context, *v2506.CreateMessageRequestParams) (*v2506.CreateMessageResult, error) {
	return &v2506.CreateMessageResult{Role: v2506.RoleAssistant, Model: "m", Content: &v2506.TextContent{Text: "Paris"}}, nil
}

func (elicitor2506) ListRoots(context.Context, *v2506.ListRootsRequestParams) (*v2506.ListRootsResult, error) {
	return &v2506.ListRootsResult{Roots: []v2506.Root{{URI: "file:///work"}}}, nil
}

// elicitor answers elicitation, sampling and roots on 2025-11-25.
type elicitor25 struct{ v25.UnimplementedClientHandler }

func (elicitor25) Elicit(context.Context, v25.ElicitRequestParams) (v25.ElicitReply, error) {
	return &v25.ElicitResult{Action: v25.ElicitResultActionAccept, Content: v25.ElicitResultContent{
		{Name: "name", Value: v25.ElicitResultContentValueString("Ada")}, {Name: "color", Value: v25.ElicitResultContentValueString("green")}, {Name: "ok", Value: v25.ElicitResultContentValueBoolean(true)}}}, nil
}

func (elicitor25) CreateMessage(context.Context, *v25.CreateMessageRequestParams) (v25.CreateMessageReply, error) {
	return &v25.CreateMessageResult{Role: v25.RoleAssistant, Model: "m", Content: &v25.TextContent{Text: "Paris"}}, nil
}

func (elicitor25) ListRoots(context.Context, *v25.RequestParams) (*v25.ListRootsResult, error) {
	return &v25.ListRootsResult{Roots: []v25.Root{{URI: "file:///work"}}}, nil
}

// TestInputRoundsBridged: the handlers ask for input with
// InputRequiredResult; for a client of the stateful era the bridge asks it
// with elicitation/create, sampling/createMessage and roots/list, and
// calls the handler again with the answers — several rounds, several
// inputs in one round, and the request state carried between them.
func TestInputRoundsBridged(t *testing.T) {
	srv, err := newEverything(slog.New(slog.DiscardHandler), rt.ValidateResultsOn, nil, sharedState{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: rt.Stateful, ProtocolVersion: version},
				v2506.Mount(elicitor2506{}), v25.Mount(elicitor25{}))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, c := range []struct{ tool, want string }{
				{"test_input_required_result_elicitation", "Hello, Ada!"},
				{"test_input_required_result_sampling", "The model said: "},
				{"test_input_required_result_list_roots", "file:///work"},
				{"test_input_required_result_multi_round", "Ada likes green."},
				{"test_input_required_result_multiple_inputs", "All three inputs received."},
				{"test_input_required_result_request_state", "Confirmed: state-ok"},
				{"multi_input", "Ada likes green."},
			} {
				var res wire.Raw
				if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"`+c.tool+`"}`), &res); err != nil {
					t.Fatalf("%s: %v", c.tool, err)
				}
				if !strings.Contains(string(res), c.want) || strings.Contains(string(res), "inputRequests") {
					t.Errorf("%s: %s, want %s", c.tool, res, c.want)
				}
			}
		})
	}
}

// TestDeclaredCompletions: a completion declared in Go beside a template
// (//mcp:complete) answers completion/complete on every revision that has
// it; a reference the declarations do not complete goes to the handler.
func TestDeclaredCompletions(t *testing.T) {
	srv := fullServer(t)
	for _, c := range []struct {
		version string
		era     rt.Era
	}{{"2024-11-05", rt.Stateful}, {"2025-03-26", rt.Stateful}, {"2025-06-18", rt.Stateful}, {"2025-11-25", rt.Stateful}, {"2026-07-28", rt.Stateless}} {
		t.Run(c.version, func(t *testing.T) {
			ctx := testContext(t)
			cs := connectRevision(t, srv, c.version, c.era)
			var res wire.Raw
			if err := cs.Call(ctx, "completion/complete", wire.Raw(`{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"}}`), &res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res), `"values":["1","10","11","12","13","14","15","16","17","18","19"]`) {
				t.Errorf("declared completion: %s", res)
			}
			res = nil
			if err := cs.Call(ctx, "completion/complete", wire.Raw(`{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"te"}}`), &res); err != nil || !strings.Contains(string(res), `"testing"`) {
				t.Errorf("the handler's completion: %s %v", res, err)
			}
		})
	}
}

// connectRevision connects a raw client (all five revisions mounted,
// without handlers) to srv in process, speaking version in era; the
// session closes when t ends.
func connectRevision(t *testing.T, srv *rt.Server, version string, era rt.Era) *rt.ClientSession {
	t.Helper()
	cs, err := rt.Connect(context.Background(), &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: era, ProtocolVersion: version},
		v24.Mount(struct{}{}), v2503.Mount(struct{}{}), v2506.Mount(struct{}{}), v25.Mount(struct{}{}), v26.Mount(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
