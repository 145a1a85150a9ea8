package spectest_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20260728"
)

// drainable serves a server over in-process pipes with stdio.Serve under
// a context the test ends, as SIGTERM ends a stdio server's.
type drainable struct {
	srv  *mcp.Server
	stop context.CancelFunc
}

// Dial implements mcp.ClientTransport.
func (d *drainable) Dial(_ context.Context, h jsonrpc.Handler) (mcp.ClientConn, error) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	d.stop = stop
	go func() {
		_ = stdio.Serve(ctx, d.srv, sr, sw, stdio.Options{})
		_ = sw.Close()
	}()
	conn := jsonrpc.NewConn(stdio.NewStream(cr, cw, stdio.Options{}), h, jsonrpc.Options{})
	go func() { _ = conn.Serve(context.Background()) }()
	return conn, nil
}

// listTools is a handler with tools, so that tools/list_changed is
// delivered.
type listTools struct{}

func (listTools) ListTools(context.Context, *mcp20260728.PaginatedRequestParams) (*mcp20260728.ListToolsResult, error) {
	return &mcp20260728.ListToolsResult{}, nil
}

// TestListen: listen.Stream yields the acknowledgement and the
// changes of its stream, each with the subscription id, and ends without
// an error when the server tears the stream down on stdio
// (notifications/cancelled at the server's drain).
func TestListen(t *testing.T) {
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "listen", Version: "1", ListChanged: true, Features: []mcp.Feature{listen.Feature(listen.Options{})}}, mcp20260728.Mount(listTools{}))
	if err != nil {
		t.Fatal(err)
	}
	tr := &drainable{srv: srv}
	cs, err := mcp.Connect(t.Context(), tr, mcp.ClientOptions{Name: "c", Version: "1", Era: mcp.Stateless}, mcp20260728.Mount(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type got struct {
		ev  listen.Event
		err error
	}
	events := make(chan got, 16)
	go func() {
		defer close(events)
		for ev, err := range listen.Stream(t.Context(), cs, wire.Raw(`{"notifications":{"toolsListChanged":true}}`)) {
			events <- got{ev, err}
		}
	}()
	next := func() got {
		t.Helper()
		select {
		case g, ok := <-events:
			if !ok {
				t.Fatal("the stream ended early")
			}
			return g
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
		}
		return got{}
	}
	ack := next()
	if ack.err != nil || ack.ev.SubscriptionID == "" {
		t.Fatalf("acknowledgement: %+v", ack)
	}
	srv.NotifyListChanged(t.Context(), mcp.ToolsList)
	change := next()
	if change.err != nil || change.ev.SubscriptionID != ack.ev.SubscriptionID {
		t.Fatalf("change: %+v (subscription %q)", change, ack.ev.SubscriptionID)
	}
	tr.stop() // the server drains: the stream ends with notifications/cancelled
	select {
	case g, ok := <-events:
		if ok {
			t.Fatalf("after the teardown: %+v", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end at the server's teardown")
	}
}
