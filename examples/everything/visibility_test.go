package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// TestCompletionsAndVisibility: declared items that vary by principal, over
// stdio (stdio.Options.Principal) and Streamable HTTP (bearer tokens), in
// both eras, for two principals: alice sees a tool bob does not (listed
// and callable for her; for him it does not exist), and a prompt's
// completions are each principal's own.
func TestCompletionsAndVisibility(t *testing.T) {
	who := func(ctx context.Context) string { return rt.PrincipalFrom(ctx) }
	set := features.NewSet().AddTools(
		features.Tool{Name: "hello", Call: func(context.Context, wire.Raw) (*features.Result, error) { return features.TextResult("hi"), nil }},
		features.Tool{Name: "alice_only", Visible: func(ctx context.Context) bool { return who(ctx) == "alice" },
			Call: func(ctx context.Context, _ wire.Raw) (*features.Result, error) {
				return features.TextResult("for " + who(ctx)), nil
			}},
	).AddPrompts(features.Prompt{Name: "greet", Arguments: []features.PromptArgument{{Name: "name", Required: true}},
		Get: func(_ context.Context, args map[string]string) (string, []features.Message, error) {
			return "", []features.Message{features.User(features.Text("Hello " + args["name"]))}, nil
		},
		Complete: func(ctx context.Context, argument, value string, _ map[string]string) ([]string, error) {
			names := map[string][]string{"alice": {"Ada", "Alan", "Bob"}, "bob": {"Barbara", "Ben"}}[who(ctx)]
			var out []string
			for _, n := range names {
				if strings.HasPrefix(n, value) {
					out = append(out, n)
				}
			}
			return out, nil
		}})
	srv, err := rt.NewServer(rt.ServerOptions{Name: "vis", Version: "1", Features: []rt.Feature{set}, Logger: slog.New(slog.DiscardHandler)}, v25.Mount(struct{}{}), v26.Mount(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	h := streamhttp.NewHandler(srv, streamhttp.Options{Auth: func(r *http.Request) (context.Context, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return nil, &streamhttp.AuthError{Description: "a bearer token"}
		}
		return rt.WithPrincipal(r.Context(), tok), nil
	}})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() })
	for _, tr := range []string{"stdio", "http"} {
		for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
			for _, principal := range []string{"alice", "bob"} {
				t.Run(tr+"/"+map[rt.Era]string{rt.Stateful: "2025-11-25", rt.Stateless: "2026-07-28"}[era]+"/"+principal, func(t *testing.T) {
					var transport rt.ClientTransport = &stdio.InProcessTransport{Server: srv, Options: stdio.Options{Principal: principal}}
					if tr == "http" {
						transport = &streamhttp.ClientTransport{URL: hs.URL, Header: http.Header{"Authorization": {"Bearer " + principal}}}
					}
					ctx := testContext(t)
					cs, err := rt.Connect(ctx, transport, rt.ClientOptions{Era: era}, v25.Mount(struct{}{}), v26.Mount(struct{}{}))
					if err != nil {
						t.Fatal(err)
					}
					defer cs.Close()
					var tools wire.Raw
					if err := cs.Call(ctx, "tools/list", nil, &tools); err != nil {
						t.Fatal(err)
					}
					alice := principal == "alice"
					if got := strings.Contains(string(tools), `"alice_only"`); got != alice || !strings.Contains(string(tools), `"hello"`) {
						t.Errorf("tools/list: %s", tools)
					}
					if era == rt.Stateless && !strings.Contains(string(tools), `"cacheScope":"private"`) {
						t.Errorf("a list by principal is not private: %s", tools)
					}
					var res wire.Raw
					err = cs.Call(ctx, "tools/call", wire.Raw(`{"name":"alice_only","arguments":{}}`), &res)
					var je *jsonrpc.Error
					switch {
					case alice && (err != nil || !strings.Contains(string(res), "for alice")):
						t.Errorf("alice calls alice_only: %s %v", res, err)
					case !alice && !errors.As(err, &je):
						t.Errorf("bob calls alice_only: %s %v, want an unknown tool", res, err)
					}
					res = nil
					if err := cs.Call(ctx, "completion/complete", wire.Raw(`{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"B"}}`), &res); err != nil {
						t.Fatal(err)
					}
					want := map[bool]string{true: `"values":["Bob"]`, false: `"values":["Barbara","Ben"]`}[alice]
					if !strings.Contains(string(res), want) {
						t.Errorf("completion/complete: %s, want %s", res, want)
					}
					if !strings.Contains(string(cs.ServerResult()), `"completions"`) {
						t.Errorf("completions not declared: %s", cs.ServerResult())
					}
				})
			}
		}
	}
}
