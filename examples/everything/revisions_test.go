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

// TestRevisionShapes: one declared set, five revisions, each answered in
// its own shape — what a revision lacks is not sent to its clients.
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
		{"2024-11-05", rt.Legacy, []string{`"name":"test_simple_text"`, `[AudioContent left out`}, []string{`"title"`, `"outputSchema"`, `"type":"audio"`, `count_to`, `"completions"`}},
		{"2025-03-26", rt.Legacy, []string{`"type":"audio"`}, []string{`"title":"mcpgen`, `"outputSchema"`, `count_to`}},
		{"2025-06-18", rt.Legacy, []string{`"title":"mcpgen everything server"`, `"type":"audio"`}, []string{`count_to`, `test_trigger_tool_change`}},
		{"2025-11-25", rt.Legacy, []string{`count_to`, `"execution":{"taskSupport":"optional"}`, `"completions"`}, []string{`test_trigger_tool_change`}},
		{"2026-07-28", rt.Modern, []string{`count_to`, `test_trigger_tool_change`, `"resultType":"complete"`}, []string{`test_sampling`}},
	} {
		t.Run(c.version, func(t *testing.T) {
			ctx := context.Background()
			cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: c.era, ProtocolVersion: c.version},
				v24.Mount(struct{}{}), v2503.Mount(struct{}{}), v2506.Mount(struct{}{}), v25.Mount(struct{}{}), v26.Mount(struct{}{}))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
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
