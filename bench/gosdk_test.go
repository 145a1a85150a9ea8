package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/mcpgen/mcpgen/bench/echo/gosdkecho"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK stack: mcp.NewServer with echo added by the generic
// mcp.AddTool (the SDK infers the inputSchema from gosdkecho.In, validates every
// call's arguments against it and unmarshals them into gosdkecho.In), served on
// the server's pipe end by an mcp.IOTransport, and an mcp.Client connected
// by another mcp.IOTransport on the client's end. IOTransport is the
// SDK's stdio framing (newline-delimited JSON) over any reader and
// writer; mcp.StdioTransport is the same over os.Stdin and os.Stdout.

// goSDKSession is a go-sdk client session with its server session.
type goSDKSession struct {
	cs     *gosdk.ClientSession
	ss     *gosdk.ServerSession
	server pipeEnd
	params *gosdk.CallToolParams
}

// echo calls echo through ClientSession.CallTool.
func (s *goSDKSession) echo(ctx context.Context) (string, error) {
	res, err := s.cs.CallTool(ctx, s.params)
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("go-sdk: %d content blocks", len(res.Content))
	}
	t, ok := res.Content[0].(*gosdk.TextContent)
	if ok && res.IsError {
		return "", fmt.Errorf("go-sdk: tool error: %s", t.Text)
	}
	if !ok {
		return "", fmt.Errorf("go-sdk: content is %T", res.Content[0])
	}
	return t.Text, nil
}

// protocolVersion is the version the initialize result names.
func (s *goSDKSession) protocolVersion() string { return s.cs.InitializeResult().ProtocolVersion }

// close closes the client's connection (both its pipe directions), waits
// for the server session to end, and closes the server's pipe end.
func (s *goSDKSession) close() error {
	err := s.cs.Close()
	_ = s.ss.Wait() // reports the closed pipe that ended it
	return errors.Join(err, s.server.Close())
}

// openGoSDK opens a 2025-11-25 session (initialize), pinned so that it is
// the same stateful era as the mcpgen row; go-sdk's default would be
// 2026-07-28.
func openGoSDK(tb testing.TB, args json.RawMessage) session {
	tb.Helper()
	s := serveGoSDK(tb, gosdkecho.New(slog.New(slog.DiscardHandler)))
	// The same bytes as the other stacks send: no map to encode per call.
	s.params = &gosdk.CallToolParams{Name: "echo", Arguments: args}
	return s
}

// serveGoSDK serves srv on newPipes with an IOTransport and connects a
// client session to it, protocol 2025-11-25.
func serveGoSDK(tb testing.TB, srv *gosdk.Server) *goSDKSession {
	tb.Helper()
	ctx := tb.Context()
	client, server := newPipes()
	ss, err := srv.Connect(ctx, &gosdk.IOTransport{Reader: server.R, Writer: server.W}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c := gosdk.NewClient(&gosdk.Implementation{Name: "gosdk-bench", Version: "bench"}, &gosdk.ClientOptions{Logger: slog.New(slog.DiscardHandler)})
	cs, err := c.Connect(ctx, &gosdk.IOTransport{Reader: client.R, Writer: client.W}, &gosdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		tb.Fatal(err)
	}
	return &goSDKSession{cs: cs, ss: ss, server: server}
}
