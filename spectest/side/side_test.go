package side_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	c25 "github.com/mcpgen/mcpgen/spectest/side/client/v20251125"
	c26 "github.com/mcpgen/mcpgen/spectest/side/client/v20260728"
	s25 "github.com/mcpgen/mcpgen/spectest/side/server/v20251125"
	s26 "github.com/mcpgen/mcpgen/spectest/side/server/v20260728"
)

// TestSides: a server of server-side packages and a client of client-side
// packages list and call a tool in each era, bad arguments are refused
// (the server side validates what it receives), and a package mounted on
// the other end is refused naming --side.
// echoArgs are the arguments of the echo calls: valid, then refused by the
// tool's input schema.
var echoArgs = []string{`{"text":"hi"}`, `{"text":1}`}

func TestSides(t *testing.T) {
	catalog := features.NewSet()
	catalog.AddTools(features.Tool{
		Name:        "echo",
		Description: "Echoes its text.",
		InputSchema: wire.Raw(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Call: func(_ context.Context, args wire.Raw) (*features.Result, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(features.Arguments(args), &in); err != nil {
				return nil, err
			}
			return features.TextResult("echo: " + in.Text), nil
		},
	})
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "side", Version: "1", Features: []mcp.Feature{catalog}}, s25.Mount(nil), s26.Mount(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, era := range []mcp.Era{mcp.Stateful, mcp.Stateless} {
		cs, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{Era: era}, c25.Mount(struct{}{}), c26.Mount(struct{}{}))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if era == mcp.Stateful {
			c := c25.NewClient(cs)
			list, err := c.ListTools(ctx, nil)
			if err != nil || len(list.Tools) != 1 {
				t.Fatalf("2025-11-25 tools/list: %v %v", list, err)
			}
			for _, args := range echoArgs {
				res, err := c.CallTool(ctx, &c25.CallToolRequestParams{Name: "echo", Arguments: []byte(args)})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(must(wire.Marshal(res))))
			}
		} else {
			c := c26.NewClient(cs)
			list, err := c.ListTools(ctx, nil)
			if err != nil || len(list.Tools) != 1 {
				t.Fatalf("2026-07-28 tools/list: %v %v", list, err)
			}
			for _, args := range echoArgs {
				res, err := c.CallTool(ctx, &c26.CallToolRequestParams{Name: "echo", Arguments: []byte(args)})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(must(wire.Marshal(res))))
			}
		}
		cs.Close()
		if !strings.Contains(got[0], `"echo: hi"`) || !strings.Contains(got[1], `"isError":true`) {
			t.Errorf("era %v: %s", era, got)
		}
	}
	if _, err := mcp.NewServer(mcp.ServerOptions{Name: "side", Version: "1", Features: []mcp.Feature{catalog}}, c25.Mount(nil)); err == nil || !strings.Contains(err.Error(), "--side client") {
		t.Errorf("a client-side package on a server: %v", err)
	}
	if _, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, s25.Mount(struct{}{})); err == nil || !strings.Contains(err.Error(), "--side server") {
		t.Errorf("a server-side package on a client: %v", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
