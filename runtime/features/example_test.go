package features_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	demo "github.com/mcpgen/mcpgen/testdata/demo/v1"
)

// A Set serves tools (prompts, resources) declared in Go on every
// revision the server mounts, each in the revision's shape; mcpgen tools
// writes one from //mcp:tool functions (Features()), and one can be built
// by hand, changed while the server runs. (demo is a small revision of
// mcpgen's tests, standing in for a generated package such as
// v20260728.)
func ExampleSet() {
	set := features.NewSet().AddTools(features.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: wire.Raw(`{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}`),
		Call: func(ctx context.Context, args wire.Raw) (*features.Result, error) {
			var in struct{ Name string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return features.TextResult("Hello, " + in.Name + "!"), nil
		},
	})
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "s", Version: "1", Features: []mcp.Feature{set}}, demo.Mount(nil))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	cs, _ := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{}, demo.Mount(nil))
	defer cs.Close()
	c := demo.NewClient(cs)
	list, _ := c.ListTools(ctx, nil)
	fmt.Println(list.Tools[0].Name, list.Tools[0].Description.Or(""))
	res, err := c.CallTool(ctx, &demo.CallToolRequestParams{Name: "greet", Arguments: demo.CallToolRequestParamsArguments(`{"name":"Ada"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*demo.TextContent).Text)
	_, err = c.CallTool(ctx, &demo.CallToolRequestParams{Name: "great"})
	fmt.Println(err)
	// Output:
	// greet Greets someone by name.
	// Hello, Ada!
	// jsonrpc error -32602: invalid params: /params/name: unknown tool great
}
