// Command hello-mcp-go is examples/hello written with mcp-go: the same two
// tools, prompt and resource, served over stdio or, with --http ADDR,
// Streamable HTTP. It exists to compare binary sizes (bench/size.sh): the
// same server on each stack.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgen/mcpgen/bench/hello"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `ADDR` instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	srv := mcpgoserver.NewMCPServer("hello", "1.0.0", mcpgoserver.WithToolCapabilities(false), mcpgoserver.WithResourceCapabilities(false, false))
	srv.AddTool(mcpgo.NewTool("greet", mcpgo.WithDescription("Greets someone by name."), mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithString("name", mcpgo.Required(), mcpgo.MinLength(1))),
		mcpgo.NewTypedToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in hello.GreetIn) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(hello.Greeting(in.Name)), nil
		}))
	srv.AddTool(mcpgo.NewTool("add", mcpgo.WithDescription("Adds two numbers."), mcpgo.WithReadOnlyHintAnnotation(true), mcpgo.WithIdempotentHintAnnotation(true),
		mcpgo.WithNumber("A", mcpgo.Required()), mcpgo.WithNumber("B", mcpgo.Required()), mcpgo.WithOutputSchema[hello.Sum]()),
		mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in hello.AddIn) (hello.Sum, error) {
			return hello.Sum{Sum: in.A + in.B}, nil
		}))
	srv.AddPrompt(mcpgo.NewPrompt("haiku", mcpgo.WithPromptDescription("Asks for a haiku about a topic."), mcpgo.WithArgument("Topic", mcpgo.RequiredArgument())),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("", []mcpgo.PromptMessage{mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent(hello.Haiku(req.Params.Arguments["Topic"])))}), nil
		})
	srv.AddResource(mcpgo.NewResource("hello://readme", "readme", mcpgo.WithResourceDescription("The server's read-me."), mcpgo.WithMIMEType("text/plain")),
		func(_ context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: hello.Readme}}, nil
		})
	var err error
	if *addr != "" {
		hs := mcpgoserver.NewStreamableHTTPServer(srv)
		go func() { <-ctx.Done(); hs.Shutdown(context.Background()) }()
		err = hs.Start(*addr)
	} else {
		err = mcpgoserver.ServeStdio(srv)
	}
	if err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
