package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"testing"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpgen/mcpgen/bench/echo/mcpgoecho"
)

// The mcp-go stack: server.NewMCPServer with the echo tool (its handler
// reads the argument with CallToolRequest.RequireString from the map
// mcp-go decoded), served on the server's pipe end by
// server.StdioServer.Listen — the stdio server's own newline framing over
// any reader and writer — and a client.Client over transport.NewIO, the
// stdio client transport over an existing reader and writer instead of a
// child process.
//
// mcp-go validates tool arguments against the inputSchema only when the
// server is built with server.WithInputSchemaValidation (off by default):
// the "mcp-go" row turns it on, as the mcpgen and go-sdk servers always
// check; "mcp-go-novalidate" is mcp-go's default.
//
// mcp-go's StdioServer keeps its session in a package variable, so one
// process should serve one stdio connection at a time: the tests and
// benchmarks open one mcp-go session at a time.

// mcpGoSession is an mcp-go client with its stdio server.
type mcpGoSession struct {
	c       *mcpgoclient.Client
	version string
	served  chan error
	stop    context.CancelFunc
	req     mcpgo.CallToolRequest
}

// echo calls echo through Client.CallTool.
func (s *mcpGoSession) echo(ctx context.Context) (string, error) {
	res, err := s.c.CallTool(ctx, s.req)
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("mcp-go: %d content blocks", len(res.Content))
	}
	t, ok := res.Content[0].(mcpgo.TextContent)
	if ok && res.IsError {
		return "", fmt.Errorf("mcp-go: tool error: %s", t.Text)
	}
	if !ok {
		return "", fmt.Errorf("mcp-go: content is %T", res.Content[0])
	}
	return t.Text, nil
}

// protocolVersion is the version the initialize result names.
func (s *mcpGoSession) protocolVersion() string { return s.version }

// close closes the client (its transport closes the server's input) and
// waits for Listen to return on that EOF; the server then closes its end,
// so the client's reader sees EOF too. (Closing the client's reader here
// instead would race with that and make mcp-go log a read error.)
func (s *mcpGoSession) close() error {
	err := s.c.Close()
	served := <-s.served
	s.stop()
	return errors.Join(err, served)
}

// openMCPGo opens a 2025-11-25 session with a validating server.
func openMCPGo(tb testing.TB, args json.RawMessage) session { return openMCPGoServer(tb, args, true) }

// openMCPGoNoValidate opens a 2025-11-25 session with a server as
// mcp-go builds it by default: arguments are not checked against the
// inputSchema.
func openMCPGoNoValidate(tb testing.TB, args json.RawMessage) session {
	return openMCPGoServer(tb, args, false)
}

// openMCPGoServer serves a new echo server on newPipes and initializes a
// client; the protocol version is pinned to 2025-11-25 (initialize), the
// mcpgen row's era (mcp-go's default would be 2026-07-28).
func openMCPGoServer(tb testing.TB, args json.RawMessage, validate bool) session {
	tb.Helper()
	s := serveMCPGo(tb, mcpgoecho.New(validate))
	// The same bytes as the other stacks send: no map to encode per call.
	s.req = mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "echo", Arguments: args}}
	return s
}

// serveMCPGo serves srv on newPipes with mcp-go's stdio server and
// initializes a client of it, protocol 2025-11-25.
func serveMCPGo(tb testing.TB, srv *mcpgoserver.MCPServer) *mcpGoSession {
	tb.Helper()
	client, server := newPipes()
	stdio := mcpgoserver.NewStdioServer(srv)
	stdio.SetErrorLogger(log.New(io.Discard, "", 0))
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		err := stdio.Listen(ctx, server.R, server.W)
		served <- errors.Join(err, server.Close())
	}()

	c := mcpgoclient.NewClient(transport.NewIO(client.R, client.W, nil))
	if err := c.Start(tb.Context()); err != nil {
		tb.Fatal(err)
	}
	init, err := c.Initialize(tb.Context(), mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: "2025-11-25",
		ClientInfo:      mcpgo.Implementation{Name: "mcpgo-bench", Version: "bench"},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return &mcpGoSession{c: c, version: init.ProtocolVersion, served: served, stop: stop}
}
