// Command hello is a complete MCP server: two tools, a prompt and a
// resource, declared as plain Go functions, served to clients of both
// protocol eras (2025-11-25 and 2026-07-28) over stdio, or Streamable HTTP
// with --http ADDR.
package main

//go:generate go tool mcpgen --revision 2025-11-25 --out mcp/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --out mcp/v20260728
//go:generate go tool mcpgen tools

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125"
	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20260728"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// GreetIn says whom to greet.
type GreetIn struct {
	Name string `json:"name" mcp:"minLength=1,maxLength=64"` // Who to greet.
	Loud bool   `json:"loud,omitempty"`                      // Shout it.
}

// Greeting is what greet says.
type Greeting struct {
	Text string `json:"text"`
}

// Greets someone by name.
//
//mcp:tool greet title="Greet someone" readOnly
func greet(_ context.Context, in GreetIn) (Greeting, error) {
	if in.Loud {
		return Greeting{Text: "HELLO, " + in.Name + "!"}, nil
	}
	return Greeting{Text: "Hello, " + in.Name + "!"}, nil
}

// AddIn are two numbers.
type AddIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Sum is a sum.
type Sum struct {
	Sum float64 `json:"sum"`
}

// Adds two numbers.
//
//mcp:tool add readOnly idempotent
func add(_ context.Context, in AddIn) (Sum, error) { return Sum{Sum: in.A + in.B}, nil }

// HaikuArgs are the haiku prompt's arguments.
type HaikuArgs struct {
	Topic string `json:"topic"` // What the haiku is about.
}

// Asks for a haiku.
//
//mcp:prompt haiku
func haiku(_ context.Context, in HaikuArgs) (string, error) {
	return "Write a haiku about " + in.Topic + ".", nil
}

// The server's read-me.
//
//mcp:resource hello://readme name=readme mimeType=text/plain
func readme(context.Context) (string, error) { return "hello: greet, add, haiku.", nil }

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR/mcp instead of stdio")
	flag.Parse()
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "hello", Version: "1.0.0", Catalog: Features()},
		v20251125.Mount(nil), v20260728.Mount(nil))
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *addr != "" {
		mux := http.NewServeMux()
		mux.Handle("/mcp", streamhttp.NewHandler(srv, streamhttp.Options{}))
		err = streamhttp.ListenAndServe(ctx, *addr, mux)
	} else {
		err = stdio.Serve(ctx, srv, os.Stdin, os.Stdout, stdio.Options{})
	}
	if err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
