// Command echo-mcp-go serves mcp-go's echo server (package mcpgoecho) for
// the black-box comparison; see package serve for its flags, and
// --novalidate for mcp-go's default of not checking arguments against the
// inputSchema.
package main

import (
	"context"
	"flag"
	"io"
	"log"
	"net/http"
	"os"

	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgen/mcpgen/bench/echo/mcpgoecho"
	"github.com/mcpgen/mcpgen/bench/internal/serve"
)

func main() {
	novalidate := flag.Bool("novalidate", false, "serve as mcp-go does by default: arguments not checked against the inputSchema")
	serve.Main("echo-mcp-go", serve.Stack{
		Stdio: func(ctx context.Context) error {
			s := mcpgoserver.NewStdioServer(mcpgoecho.New(!*novalidate))
			s.SetErrorLogger(log.New(io.Discard, "", 0))
			return s.Listen(ctx, os.Stdin, os.Stdout)
		},
		HTTP: func() (http.Handler, error) {
			return mcpgoserver.NewStreamableHTTPServer(mcpgoecho.New(!*novalidate)), nil
		},
	})
}
