// Command hello is a complete MCP server: two tools, a prompt and a
// resource, declared as plain Go functions and served to clients of both
// protocol eras (2025-11-25 and 2026-07-28) over stdio, or over Streamable
// HTTP with --http ADDR. go generate writes the protocol packages and, with
// mcpgen tools, the schemas, decoders and encoders of the declarations.
package main

//go:generate go tool mcpgen --revision 2025-11-25 --out mcp/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --out mcp/v20260728
//go:generate go tool mcpgen tools

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"

	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125"
	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20260728"
	"github.com/mcpgen/mcpgen/runtime/listen"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// GreetIn says whom to greet.
type GreetIn struct {
	Name string `json:"name" mcp:"minLength=1"`
}

// Greets someone by name.
//
//mcp:tool greet readOnly
func greet(_ context.Context, in GreetIn) (string, error) { return "Hello, " + in.Name + "!", nil }

// AddIn are two numbers; Sum is their sum, the structured result of add.
type AddIn struct{ A, B float64 }
type Sum struct{ Sum float64 }

// Adds two numbers.
//
//mcp:tool add readOnly idempotent
func add(_ context.Context, in AddIn) (Sum, error) { return Sum{in.A + in.B}, nil }

// HaikuArgs are the haiku prompt's argument.
type HaikuArgs struct{ Topic string }

// Asks for a haiku about a topic.
//
//mcp:prompt haiku
func haiku(_ context.Context, in HaikuArgs) (string, error) { return "A haiku on " + in.Topic, nil }

// The server's read-me.
//
//mcp:resource hello://readme name=readme mimeType=text/plain
func readme(context.Context) (string, error) { return "hello: greet, add, haiku.", nil }

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `ADDR` instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := mcp.ServerOptions{Name: "hello", Version: "1.0.0", Features: []mcp.Feature{Features(), listen.Feature(listen.Options{})}}
	srv, err := mcp.NewServer(opts, v20251125.Mount(nil), v20260728.Mount(nil))
	if err == nil && *addr != "" {
		err = streamhttp.ListenAndServe(ctx, *addr, streamhttp.NewHandler(srv, streamhttp.Options{}))
	} else if err == nil {
		err = stdio.Serve(ctx, srv, os.Stdin, os.Stdout, stdio.Options{})
	}
	if err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
