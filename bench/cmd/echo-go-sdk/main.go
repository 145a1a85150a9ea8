// Command echo-go-sdk serves the official go-sdk's echo server (package
// gosdkecho) for the black-box comparison; see package serve for its flags.
package main

import (
	"context"
	"log/slog"
	"net/http"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/bench/echo/gosdkecho"
	"github.com/mcpgen/mcpgen/bench/internal/serve"
)

func main() {
	quiet := slog.New(slog.DiscardHandler)
	serve.Main("echo-go-sdk", serve.Stack{
		Stdio: func(ctx context.Context) error {
			return gosdkecho.New(quiet).Run(ctx, &gosdk.StdioTransport{})
		},
		HTTP: func() (http.Handler, error) {
			s := gosdkecho.New(quiet)
			return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, nil), nil
		},
	})
}
