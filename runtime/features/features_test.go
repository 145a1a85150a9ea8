package features

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/valid"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Two revisions as the runtime sees them: an old stateful one whose Tool
// has no title, outputSchema or annotations and which has no audio, and a
// stateless one with everything.
var (
	old = &protocol.Protocol{Revision: "2025-03-26", Era: protocol.Stateful, Members: map[string][]string{
		"Tool": {"name", "description", "inputSchema"}, "CallToolResult": {"content", "isError"},
		"TextContent": {"type", "text"}, "ImageContent": {"type", "data", "mimeType"},
	}}
	stateless = &protocol.Protocol{Revision: "2026-07-28", Era: protocol.Stateless, ResourceNotFoundCode: jsonrpc.CodeInvalidParams, ToolError: func(string) wire.Marshaler { return nil }, Members: map[string][]string{
		"Tool":            {"name", "title", "description", "inputSchema", "outputSchema", "annotations", "execution"},
		"ToolAnnotations": {"title", "readOnlyHint"}, "CallToolResult": {"content", "structuredContent", "isError", "resultType"},
		"TextContent": {"type", "text"}, "AudioContent": {"type", "data", "mimeType"},
	}}
)

func testSet() *Set {
	s := NewSet()
	s.AddTools(
		Tool{Name: "a", Title: "A", Description: "first", InputSchema: wire.Raw(`{"type":"object"}`), OutputSchema: wire.Raw(`{"type":"object"}`),
			Annotations: Annotations{ReadOnly: wire.Some(true)},
			Call: func(_ context.Context, args wire.Raw) (*Result, error) {
				if string(args) == `{"bad":1}` {
					return nil, &ArgumentError{Violations: []valid.Violation{{Pointer: "/bad", Message: "unknown member"}}}
				}
				if string(args) == `{"fail":1}` {
					return nil, errors.New("it broke")
				}
				return &Result{Content: []Content{Text("hi"), Audio([]byte{1}, "audio/wav")}, Structured: wire.Raw(`{"x":1}`)}, nil
			}},
		Tool{Name: "b", Eras: StatelessOnly, Call: func(context.Context, wire.Raw) (*Result, error) { return TextResult("b"), nil }},
		Tool{Name: "c", Eras: StatefulOnly, Call: func(context.Context, wire.Raw) (*Result, error) { return TextResult("c"), nil }},
	)
	return s
}

func serve(t *testing.T, s *Set, role protocol.Role, p *protocol.Protocol, name, args, params string) (string, error) {
	t.Helper()
	req := &Request{Role: role, Protocol: p, Name: name, Params: wire.Raw(params)}
	if args != "" {
		req.Arguments = wire.Raw(args)
	}
	out, err := s.Serve(context.Background(), req)
	return string(out), err
}

func TestShapes(t *testing.T) {
	s := testSet()
	for _, c := range []struct {
		name       string
		role       protocol.Role
		p          *protocol.Protocol
		tool, args string
		want, not  []string
		code       int64
	}{
		{"list old", protocol.RoleToolsList, old, "", "", []string{`{"tools":[{"name":"a","description":"first","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{"type":"object"}}]}`}, nil, 0},
		{"list new", protocol.RoleToolsList, stateless, "", "", []string{`"title":"A"`, `"outputSchema"`, `"annotations":{"readOnlyHint":true}`, `"name":"b"`}, []string{`"name":"c"`}, 0},
		{"call old", protocol.RoleToolsCall, old, "a", `{}`, []string{`{"content":[{"type":"text","text":"hi"},{"type":"text","text":"[AudioContent left out: revision 2025-03-26 has no such content]"}]}`}, []string{"structuredContent"}, 0},
		{"call new", protocol.RoleToolsCall, stateless, "a", `{}`, []string{`"type":"audio"`, `"structuredContent":{"x":1}`}, nil, 0},
		{"bad args old", protocol.RoleToolsCall, old, "a", `{"bad":1}`, nil, nil, jsonrpc.CodeInvalidParams},
		{"bad args new", protocol.RoleToolsCall, stateless, "a", `{"bad":1}`, []string{`"isError":true`, `invalid arguments for tool a: /bad: unknown member`}, nil, 0},
		{"tool error", protocol.RoleToolsCall, stateless, "a", `{"fail":1}`, []string{`{"content":[{"type":"text","text":"it broke"}],"isError":true}`}, nil, 0},
		{"other era", protocol.RoleToolsCall, old, "b", `{}`, nil, nil, jsonrpc.CodeInvalidParams},
		{"unknown", protocol.RoleToolsCall, stateless, "z", `{}`, nil, nil, jsonrpc.CodeInvalidParams},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := serve(t, s, c.role, c.p, c.tool, c.args, `{}`)
			var je *jsonrpc.Error
			switch {
			case c.code != 0:
				if !errors.As(err, &je) || je.Code != c.code {
					t.Fatalf("got %s, %v; want error %d", got, err, c.code)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %s\nwant …%s…", got, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("got %s\nwant no %s", got, n)
				}
			}
		})
	}
}

func TestPagesAndChanges(t *testing.T) {
	s := testSet()
	s.PageSize = 1
	var changed []mcp.ListKind
	s.Watch(func(k mcp.ListKind) { changed = append(changed, k) })
	first, err := serve(t, s, protocol.RoleToolsList, stateless, "", "", `{}`)
	if err != nil || !strings.Contains(first, `"nextCursor":`) || strings.Count(first, `"name"`) != 1 {
		t.Fatalf("first page %s %v", first, err)
	}
	if _, err := serve(t, s, protocol.RoleToolsList, stateless, "", "", `{"cursor":"nope"}`); err == nil {
		t.Error("a cursor the set did not make was accepted")
	}
	s.RemoveTools("a")
	s.AddPrompts(Prompt{Name: "p"})
	if len(changed) != 2 || changed[0] != mcp.ToolsList || changed[1] != mcp.PromptsList {
		t.Errorf("changes announced: %v", changed)
	}
	if !s.Serves(protocol.RolePromptsGet) || s.Serves(protocol.RoleResourcesRead) {
		t.Error("Serves does not follow the kinds the set has had")
	}
}

func TestMatchTemplate(t *testing.T) {
	for _, c := range []struct {
		tmpl, uri string
		want      map[string]string
	}{
		{"test://template/{id}/data", "test://template/42/data", map[string]string{"id": "42"}},
		{"test://template/{id}/data", "test://template//data", nil},
		{"test://template/{id}/data", "test://template/42/other", nil},
		{"file:///{path}", "file:///a/b", nil},
		{"x://{a}-{b}", "x://1-2", map[string]string{"a": "1", "b": "2"}},
		{"x://fixed", "x://fixed", map[string]string{}},
	} {
		got, ok := MatchTemplate(c.tmpl, c.uri)
		if (c.want != nil) != ok || len(got) != len(c.want) {
			t.Errorf("%s ~ %s = %v %v; want %v", c.tmpl, c.uri, got, ok, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s ~ %s: %s = %q, want %q", c.tmpl, c.uri, k, got[k], v)
			}
		}
	}
}

// TestCompletesServes: a set serves completion/complete (and the server
// declares completions) only once a prompt or template completes.
func TestCompletesServes(t *testing.T) {
	s := NewSet().AddPrompts(Prompt{Name: "p"})
	if s.Serves(protocol.RoleComplete) {
		t.Error("a set without completions serves completion/complete")
	}
	s.AddTemplates(Template{URITemplate: "x://{id}", Name: "x", Complete: func(context.Context, string, string, map[string]string) ([]string, error) {
		return []string{"a"}, nil
	}})
	if !s.Serves(protocol.RoleComplete) {
		t.Error("a set with a completing template does not serve completion/complete")
	}
}

// TestVisibleByPrincipal: an item with Visible is listed and served to the
// principals it admits only (to others it does not exist), and a list
// that depends on the principal is private where the revision caches
// lists.
func TestVisibleByPrincipal(t *testing.T) {
	s := NewSet().AddTools(
		Tool{Name: "public", Call: func(context.Context, wire.Raw) (*Result, error) { return TextResult("pub"), nil }},
		Tool{Name: "staff", Visible: func(ctx context.Context) bool { return mcp.PrincipalFrom(ctx) == "alice" },
			Call: func(context.Context, wire.Raw) (*Result, error) { return TextResult("secret"), nil }},
	)
	p := &protocol.Protocol{Revision: "2026-07-28", Era: protocol.Stateless, Members: map[string][]string{
		"Tool": {"name", "inputSchema"}, "CallToolResult": {"content", "isError"}, "TextContent": {"type", "text"},
		"ListToolsResult": {"tools", "nextCursor", "resultType", "ttlMs", "cacheScope"},
	}}
	stamp := &protocol.Stamp{CacheScope: "public", TTLMs: 1000}
	for _, c := range []struct {
		who       string
		sees      bool
		callError bool
	}{{"alice", true, false}, {"bob", false, true}, {"", false, true}} {
		ctx := mcp.WithPrincipal(context.Background(), c.who)
		out, err := s.Serve(ctx, &Request{Role: protocol.RoleToolsList, Protocol: p, Stamp: stamp})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(out), `"staff"`); got != c.sees || !strings.Contains(string(out), `"public"`) {
			t.Errorf("%q lists %s", c.who, out)
		}
		if !strings.Contains(string(out), `"cacheScope":"private"`) {
			t.Errorf("%q: a list by principal is not private: %s", c.who, out)
		}
		_, err = s.Serve(ctx, &Request{Role: protocol.RoleToolsCall, Protocol: p, Name: "staff", Params: wire.Raw(`{"name":"staff"}`)})
		var je *jsonrpc.Error
		if got := errors.As(err, &je); got != c.callError {
			t.Errorf("%q calls staff: %v", c.who, err)
		}
	}
	// Without a Visible item, the list keeps its scope.
	pub := NewSet().AddTools(Tool{Name: "public", Call: func(context.Context, wire.Raw) (*Result, error) { return TextResult("pub"), nil }})
	out, _ := pub.Serve(context.Background(), &Request{Role: protocol.RoleToolsList, Protocol: p, Stamp: stamp})
	if !strings.Contains(string(out), `"cacheScope":"public"`) {
		t.Errorf("a list for everyone: %s", out)
	}
}
