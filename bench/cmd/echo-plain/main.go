// Command echo-plain serves the plain standard-library JSON-RPC echo loop
// (package echo), the physical limit of the black-box comparison; see
// package serve for its flags.
package main

import (
	"context"
	"net/http"
	"os"

	"github.com/mcpgen/mcpgen/bench/echo"
	"github.com/mcpgen/mcpgen/bench/internal/serve"
)

func main() {
	serve.Main("echo-plain", serve.Stack{
		Stdio: func(context.Context) error { return echo.ServePlain(os.Stdin, os.Stdout) },
		HTTP:  func() (http.Handler, error) { return echo.PlainHTTP(), nil },
	})
}
