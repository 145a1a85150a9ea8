package bench

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/bench/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/bench/mcp/v20260728"
	"github.com/mcpgen/mcpgen/bench/typed/gosdktools"
	"github.com/mcpgen/mcpgen/bench/typed/mcpgentools"
	"github.com/mcpgen/mcpgen/bench/typed/mcpgotools"
)

// Tools from Go types: the same three tools (greet: a string in, text out;
// add: two numbers in, a structured sum out; search: a query with bounds,
// an enum and a list in, structured hits out) declared the way each stack's
// users declare typed tools (bench/typed/...), called through each stack's
// own client over the same in-process pipes, protocol 2025-11-25.

// typedSession lists and calls the tools of one stack; results are the
// CallToolResult as JSON.
type typedSession interface {
	list(ctx context.Context) (json.RawMessage, error)
	call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
	close() error
}

type typedStack struct {
	name string
	open func(tb testing.TB) typedSession
}

func typedStacks() []typedStack {
	return []typedStack{
		{"mcpgen", func(tb testing.TB) typedSession { return openTypedMCPGen(tb, rt.Stateful) }},
		{"mcpgen-stateless", func(tb testing.TB) typedSession { return openTypedMCPGen(tb, rt.Stateless) }},
		{"go-sdk", openTypedGoSDK},
		{"mcp-go", openTypedMCPGo},
	}
}

// mcpgen: the generated features.Set as the server's Catalog; the
// generated Client of the era calls.
type mcpgenTyped struct {
	cs  *rt.ClientSession
	c25 *v25.Client
	c26 *v26.Client
}

func openTypedMCPGen(tb testing.TB, era rt.Era) typedSession {
	tb.Helper()
	srv, err := rt.NewServer(rt.ServerOptions{Name: "mcpgen-typed", Version: "bench", Features: []rt.Feature{mcpgentools.Features()}}, v25.Mount(nil), v26.Mount(nil))
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := rt.Connect(tb.Context(), pipeTransport{srv}, rt.ClientOptions{Name: "mcpgen-bench", Version: "bench", Era: era},
		v25.Mount(clientHandler{}), v26.Mount(clientHandler{}))
	if err != nil {
		tb.Fatal(err)
	}
	s := &mcpgenTyped{cs: cs}
	if cs.Stateless() {
		s.c26 = v26.NewClient(cs)
	} else {
		s.c25 = v25.NewClient(cs)
	}
	return s
}

func (s *mcpgenTyped) list(ctx context.Context) (json.RawMessage, error) {
	var res wire.Raw
	err := s.cs.Call(ctx, "tools/list", nil, &res)
	return json.RawMessage(res), err
}

func (s *mcpgenTyped) call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	var res wire.Marshaler
	var err error
	if s.c26 != nil {
		res, err = s.c26.CallTool(ctx, &v26.CallToolRequestParams{Name: tool, Arguments: v26.CallToolRequestParamsArguments(args)})
	} else {
		res, err = s.c25.CallTool(ctx, &v25.CallToolRequestParams{Name: tool, Arguments: v25.CallToolRequestParamsArguments(args)})
	}
	if err != nil {
		return nil, err
	}
	b, err := wire.Marshal(res)
	return json.RawMessage(b), err
}

func (s *mcpgenTyped) close() error { return s.cs.Close() }

// go-sdk: mcp.AddTool with typed handlers.
type goSDKTyped struct{ goSDKSession }

func openTypedGoSDK(tb testing.TB) typedSession {
	tb.Helper()
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-typed", Version: "bench"}, &gosdk.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	if err := gosdktools.Add(srv); err != nil {
		tb.Fatal(err)
	}
	return &goSDKTyped{*serveGoSDK(tb, srv)}
}

func (s *goSDKTyped) list(ctx context.Context) (json.RawMessage, error) {
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func (s *goSDKTyped) call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := s.cs.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// mcp-go: option builders and typed handlers, arguments validated
// (server.WithInputSchemaValidation).
type mcpGoTyped struct{ mcpGoSession }

func openTypedMCPGo(tb testing.TB) typedSession {
	tb.Helper()
	srv := mcpgoserver.NewMCPServer("mcpgo-typed", "bench", mcpgoserver.WithInputSchemaValidation())
	mcpgotools.Add(srv)
	return &mcpGoTyped{*serveMCPGo(tb, srv)}
}

func (s *mcpGoTyped) list(ctx context.Context) (json.RawMessage, error) {
	res, err := s.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func (s *mcpGoTyped) call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := s.c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func openTyped(tb testing.TB, s typedStack) typedSession {
	tb.Helper()
	sess := s.open(tb)
	tb.Cleanup(func() {
		if err := sess.close(); err != nil {
			tb.Errorf("%s: close: %v", s.name, err)
		}
	})
	return sess
}

// typedCalls are the calls the stacks must answer alike.
var typedCalls = []struct{ tool, args string }{
	{"greet", `{"name":"Ada"}`},
	{"add", `{"a":1,"b":2.5}`},
	{"search", `{"query":"go","limit":2,"tags":["x"],"mode":"fast"}`},
}

// TestTypedToolsAgree: every stack lists the three tools and answers the
// same calls with the same content and structuredContent; the schemas
// each produces are logged (go test -v -run TypedToolsAgree).
func TestTypedToolsAgree(t *testing.T) {
	var want []string
	for i, s := range typedStacks() {
		sess := openTyped(t, s)
		list, err := sess.list(t.Context())
		if err != nil {
			t.Fatalf("%s: tools/list: %v", s.name, err)
		}
		var tools struct {
			Tools []struct {
				Name                      string
				InputSchema, OutputSchema json.RawMessage
			}
		}
		if err := json.Unmarshal(list, &tools); err != nil || len(tools.Tools) != 3 {
			t.Fatalf("%s: tools/list %s (%v)", s.name, list, err)
		}
		for _, tl := range tools.Tools {
			t.Logf("%s %s\n  input  %s\n  output %s", s.name, tl.Name, tl.InputSchema, tl.OutputSchema)
		}
		for j, c := range typedCalls {
			res, err := sess.call(t.Context(), c.tool, json.RawMessage(c.args))
			if err != nil {
				t.Fatalf("%s: %s: %v", s.name, c.tool, err)
			}
			got := canonical(t, res)
			if i == 0 {
				want = append(want, got)
			} else if got != want[j] {
				t.Errorf("%s: %s answered\n %s\nmcpgen answered\n %s", s.name, c.tool, got, want[j])
			}
		}
	}
}

// canonical is a CallToolResult's content and structuredContent, with
// the text of a structured result parsed (stacks indent or order its JSON
// differently).
func canonical(t *testing.T, res json.RawMessage) string {
	var r struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		Structured any  `json:"structuredContent"`
		IsError    bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	var texts []any
	for _, c := range r.Content {
		var v any
		if json.Unmarshal([]byte(c.Text), &v) != nil {
			v = c.Text
		}
		texts = append(texts, v)
	}
	b, _ := json.Marshal(map[string]any{"content": texts, "structured": r.Structured, "isError": r.IsError})
	return string(b)
}

// typedBad are arguments that break the declared schemas.
var typedBad = []struct{ tool, args string }{
	{"greet", `{"name":""}`},
	{"greet", `{}`},
	{"greet", `{"name":"Ada","shout":true}`},
	{"add", `{"a":"1","b":2}`},
	{"search", `{"query":"go","limit":0}`},
	{"search", `{"query":"go","limit":2.5}`},
	{"search", `{"query":"go","mode":"slow"}`},
	{"search", `{"query":"go","tags":[1]}`},
	{"search", `{"query":"go","tags":["a","b","c","d","e","f"]}`},
}

// TestTypedToolsReject: what each stack does with arguments that break
// the schema (logged as a table); mcpgen must refuse every one as a tool
// execution error naming the member.
func TestTypedToolsReject(t *testing.T) {
	for _, s := range typedStacks() {
		sess := openTyped(t, s)
		var row []string
		for _, c := range typedBad {
			res, err := sess.call(t.Context(), c.tool, json.RawMessage(c.args))
			verdict := "accepted"
			switch {
			case err != nil:
				verdict = "error " + err.Error()
			case strings.Contains(string(res), `"isError":true`):
				verdict = "isError"
			}
			row = append(row, c.tool+" "+c.args+": "+verdict)
			if strings.HasPrefix(s.name, "mcpgen") && verdict != "isError" {
				t.Errorf("%s: %s %s: %s (%s)", s.name, c.tool, c.args, verdict, res)
			}
		}
		t.Logf("%s:\n  %s", s.name, strings.Join(row, "\n  "))
	}
}

// BenchmarkTypedTools is one tools/call of each tool on each stack.
func BenchmarkTypedTools(b *testing.B) {
	for _, s := range typedStacks() {
		for _, c := range typedCalls {
			b.Run(s.name+"/"+c.tool, func(b *testing.B) {
				sess := openTyped(b, s)
				ctx := context.Background()
				args := json.RawMessage(c.args)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := sess.call(ctx, c.tool, args); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
