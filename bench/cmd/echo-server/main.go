// Command echo-server serves the echo tool of one stack (package echo) over
// stdio or HTTP, for the black-box comparison (cmd/mcpload, blackbox.sh):
//
//	echo-server --stack mcpgen|go-sdk|mcp-go|mcp-go-novalidate|plain [--http ADDR [--addr-file FILE]]
//
// Over stdio it reads newline-delimited JSON on standard input and writes
// on standard output until the end of the input. With --http it serves
// Streamable HTTP (the plain loop: one POSTed request, one JSON response)
// at /mcp until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/bench/echo"
)

func main() { os.Exit(run()) }

// run serves until the end of the input or a signal; its result is the
// exit status (deferred calls, such as the profile's, run before the exit).
func run() (exit int) {
	stack := flag.String("stack", "mcpgen", "the `STACK` to serve: mcpgen, go-sdk, mcp-go, mcp-go-novalidate or plain")
	addr := flag.String("http", "", "serve HTTP on `ADDR` (at /mcp) instead of stdio; port 0 picks a free one")
	addrFile := flag.String("addr-file", "", "with --http, write the address listened on to `FILE`")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE`")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatalf("echo-server: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatalf("echo-server: %v", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *addr == "" {
		err = serveStdio(ctx, *stack)
	} else {
		err = serveHTTP(ctx, *stack, *addr, *addrFile)
	}
	if err != nil {
		log.Printf("echo-server: %v", err)
		return 1
	}
	return 0
}

// quiet is the logger of every stack: the measurement is not of logging.
var quiet = slog.New(slog.DiscardHandler)

// serveStdio serves stack on standard input and output.
func serveStdio(ctx context.Context, stack string) error {
	switch stack {
	case "mcpgen":
		srv, err := echo.MCPGen(quiet)
		if err != nil {
			return err
		}
		return stdio.Serve(ctx, srv, os.Stdin, os.Stdout, stdio.Options{})
	case "go-sdk":
		return echo.GoSDK(quiet).Run(ctx, &gosdk.StdioTransport{})
	case "mcp-go", "mcp-go-novalidate":
		s := mcpgoserver.NewStdioServer(echo.MCPGo(stack == "mcp-go"))
		s.SetErrorLogger(log.New(io.Discard, "", 0))
		return s.Listen(ctx, os.Stdin, os.Stdout)
	case "plain":
		return echo.ServePlain(os.Stdin, os.Stdout)
	}
	return fmt.Errorf("unknown stack %q", stack)
}

// handler returns the HTTP handler of stack.
func handler(stack string) (http.Handler, error) {
	switch stack {
	case "mcpgen":
		srv, err := echo.MCPGen(quiet)
		if err != nil {
			return nil, err
		}
		return streamhttp.NewHandler(srv, streamhttp.Options{}), nil
	case "go-sdk":
		s := echo.GoSDK(quiet)
		return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, nil), nil
	case "mcp-go", "mcp-go-novalidate":
		return mcpgoserver.NewStreamableHTTPServer(echo.MCPGo(stack == "mcp-go")), nil
	case "plain":
		return echo.PlainHTTP(), nil
	}
	return nil, fmt.Errorf("unknown stack %q", stack)
}

// serveHTTP serves stack at http://addr/mcp until ctx ends.
func serveHTTP(ctx context.Context, stack, addr, addrFile string) error {
	h, err := handler(stack)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if addrFile != "" {
		if err := os.WriteFile(addrFile, []byte(ln.Addr().String()), 0o644); err != nil {
			return err
		}
	}
	hs := &http.Server{Handler: mux}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
