// Command echo-mcpgen serves mcpgen's echo server (package mcpgenecho, both
// eras) for the black-box comparison; see package serve for its flags.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	"github.com/mcpgen/mcpgen/bench/echo/mcpgenecho"
	"github.com/mcpgen/mcpgen/bench/internal/serve"
)

func main() {
	quiet := slog.New(slog.DiscardHandler)
	serve.Main("echo-mcpgen", serve.Stack{
		Stdio: func(ctx context.Context) error {
			srv, err := mcpgenecho.New(quiet)
			if err != nil {
				return err
			}
			return stdio.Serve(ctx, srv, os.Stdin, os.Stdout, stdio.Options{})
		},
		HTTP: func() (http.Handler, error) {
			srv, err := mcpgenecho.New(quiet)
			if err != nil {
				return nil, err
			}
			return streamhttp.NewHandler(srv, streamhttp.Options{}), nil
		},
	})
}
