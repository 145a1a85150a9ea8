// Command client starts the server and calls its greet tool in both eras
// with the generated typed clients, printing one line per call.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"

	v25 "example.com/downstream/mcp/v20251125"
	v26 "example.com/downstream/mcp/v20260728"
)

func main() {
	server := flag.String("server", "bin/server", "the server `binary` to start")
	flag.Parse()
	if err := run(*server); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(server string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, era := range []mcp.Era{mcp.Stateful, mcp.Stateless} {
		cs, err := mcp.Connect(ctx, &stdio.CommandTransport{Path: server, Stderr: os.Stderr},
			mcp.ClientOptions{Name: "downstream-client", Version: "1.0.0", Era: era},
			v25.Mount(v25.UnimplementedClientHandler{}), v26.Mount(v26.UnimplementedClientHandler{}))
		if err != nil {
			return err
		}
		text, err := greet(ctx, cs)
		cs.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", cs.ProtocolVersion(), err)
		}
		fmt.Printf("%s: %s\n", cs.ProtocolVersion(), text)
	}
	return nil
}

// greet lists the tools and calls greet with the typed client of the
// negotiated revision.
func greet(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	args := `{"name":"gopher"}`
	if cs.Stateless() {
		c := v26.NewClient(cs)
		tools, err := c.ListTools(ctx, nil)
		if err != nil {
			return "", err
		}
		if len(tools.Tools) != 1 || tools.Tools[0].Name != "greet" {
			return "", errors.New("tools/list did not list greet")
		}
		r, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "greet", Arguments: v26.CallToolRequestParamsArguments(args)})
		if err != nil {
			return "", err
		}
		if t, ok := r.Content[0].(*v26.TextContent); ok {
			return t.Text, nil
		}
		return "", errors.New("no text in the result")
	}
	c := v25.NewClient(cs)
	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		return "", err
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "greet" {
		return "", errors.New("tools/list did not list greet")
	}
	r, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "greet", Arguments: v25.CallToolRequestParamsArguments(args)})
	if err != nil {
		return "", err
	}
	if t, ok := r.Content[0].(*v25.TextContent); ok {
		return t.Text, nil
	}
	return "", errors.New("no text in the result")
}
