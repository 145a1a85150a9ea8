package listen_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol/protocoltest"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// notes is an Outbound that hands each notification on a channel.
type notes chan string

func (n notes) Notify(_ context.Context, method string, params wire.Marshaler) error {
	b, _ := wire.Marshal(params)
	n <- method + " " + string(b)
	return nil
}

func newServer(t *testing.T, o listen.Options) *mcp.Server {
	t.Helper()
	a, b := protocoltest.Revisions(func(context.Context, any, wire.Raw) (wire.Marshaler, error) { return wire.Raw(`{}`), nil })
	s, err := mcp.NewServer(mcp.ServerOptions{Name: "test", Version: "1", ListChanged: true, Features: []mcp.Feature{listen.Feature(o)}},
		mcp.Mount{Protocol: a, Handler: struct{}{}}, mcp.Mount{Protocol: b, Handler: struct{}{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// open serves a subscriptions/listen request with id and filter on s (a
// principal's when ctx carries one) and returns its result on done.
func open(ctx context.Context, s *mcp.Server, id int64, filter string, out mcp.Outbound) chan error {
	done := make(chan error, 1)
	go func() {
		req := &jsonrpc.Request{ID: wire.IntValue(id), Method: "subscriptions/listen", Params: wire.Raw(`{` + protocoltest.Meta + `},"notifications":` + filter + `}`)}
		x := s.Accept(req, mcp.Via{})
		res, err := x.Serve(ctx, nil, out)
		if err == nil {
			var b []byte
			b, err = wire.Marshal(res)
			if err == nil {
				err = errors.New(string(b))
			}
		}
		done <- err
	}()
	return done
}

// TestListenStream: a stream is acknowledged with what the server honours
// (tools, which it serves; not prompts, which it does not), carries the
// announcements it asked for with its subscription id, and ends with its
// result when the server ends its streams.
func TestListenStream(t *testing.T) {
	s := newServer(t, listen.Options{})
	out := make(notes, 8)
	done := open(t.Context(), s, 1, `{"toolsListChanged":true,"promptsListChanged":true}`, out)
	if ack := <-out; ack != `notifications/subscriptions/acknowledged {"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}` {
		t.Errorf("ack: %s", ack)
	}
	s.NotifyListChanged(context.Background(), mcp.PromptsList) // not honoured: prompts/list is not implemented
	s.NotifyListChanged(context.Background(), mcp.ToolsList)
	if n := <-out; n != `notifications/tools/list_changed {"_meta":{"io.modelcontextprotocol/subscriptionId":1}}` {
		t.Errorf("notification: %s", n)
	}
	s.EndStreams()
	if err := <-done; err.Error() != `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":1}}` {
		t.Errorf("graceful end: %v", err)
	}
}

// TestStreamBounds: a client (here the principal) holds at most
// MaxStreamsPerClient streams; one more is refused saying so, while
// another principal opens its own; once one ends, the client opens
// another.
func TestStreamBounds(t *testing.T) {
	s := newServer(t, listen.Options{MaxStreamsPerClient: 2})
	alice := mcp.WithPrincipal(t.Context(), "alice")
	ctx, cancel := context.WithCancel(alice)
	var first chan error
	for i := range 2 {
		out := make(notes, 4)
		c := alice
		if i == 0 {
			c = ctx
		}
		d := open(c, s, int64(i+1), `{"toolsListChanged":true}`, out)
		if i == 0 {
			first = d
		}
		<-out // acknowledged
	}
	err := <-open(alice, s, 3, `{"toolsListChanged":true}`, make(notes, 4))
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "for this client") {
		t.Fatalf("a third stream of alice's: %v", err)
	}
	bobOut := make(notes, 4)
	open(mcp.WithPrincipal(t.Context(), "bob"), s, 4, `{"toolsListChanged":true}`, bobOut)
	if ack := <-bobOut; !strings.Contains(ack, "acknowledged") {
		t.Fatalf("bob's stream: %s", ack)
	}
	cancel()
	<-first
	again := make(notes, 4)
	open(alice, s, 5, `{"toolsListChanged":true}`, again)
	if ack := <-again; !strings.Contains(ack, "acknowledged") {
		t.Fatalf("alice's stream once one ended: %s", ack)
	}
	s.EndStreams()
}
