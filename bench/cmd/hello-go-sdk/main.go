// Command hello-go-sdk is examples/hello written with the official go-sdk:
// the same two tools, prompt and resource, served over stdio or, with
// --http ADDR, Streamable HTTP. It exists to compare binary sizes
// (bench/size.sh): the same server on each stack.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/bench/hello"
)

// setupTelemetry, set with -tags hello_otel (otel.go), exports traces
// and metrics over OTLP/HTTP as a go-sdk server usually does.
var setupTelemetry func(context.Context) (func(), error)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `ADDR` instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if setupTelemetry != nil { // -tags hello_otel
		shutdown, err := setupTelemetry(ctx)
		if err != nil {
			log.Fatal(err)
		}
		defer shutdown()
	}
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "hello", Version: "1.0.0"}, nil)
	gosdk.AddTool(srv, &gosdk.Tool{Name: "greet", Description: "Greets someone by name.", Annotations: &gosdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *gosdk.CallToolRequest, in hello.GreetIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: hello.Greeting(in.Name)}}}, nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "add", Description: "Adds two numbers.", Annotations: &gosdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(_ context.Context, _ *gosdk.CallToolRequest, in hello.AddIn) (*gosdk.CallToolResult, hello.Sum, error) {
			return nil, hello.Sum{Sum: in.A + in.B}, nil
		})
	srv.AddPrompt(&gosdk.Prompt{Name: "haiku", Description: "Asks for a haiku about a topic.", Arguments: []*gosdk.PromptArgument{{Name: "Topic", Required: true}}},
		func(_ context.Context, req *gosdk.GetPromptRequest) (*gosdk.GetPromptResult, error) {
			return &gosdk.GetPromptResult{Messages: []*gosdk.PromptMessage{{Role: "user", Content: &gosdk.TextContent{Text: hello.Haiku(req.Params.Arguments["Topic"])}}}}, nil
		})
	srv.AddResource(&gosdk.Resource{URI: "hello://readme", Name: "readme", Description: "The server's read-me.", MIMEType: "text/plain"},
		func(_ context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: hello.Readme}}}, nil
		})
	var err error
	if *addr != "" {
		hs := &http.Server{Addr: *addr, Handler: gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv }, nil)}
		go func() { <-ctx.Done(); hs.Close() }()
		err = hs.ListenAndServe()
	} else {
		err = srv.Run(ctx, &gosdk.StdioTransport{})
	}
	if err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
