package mcp

import (
	"context"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

func TestPreferred(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"2025-11-25", "2025-06-18", true},
		{"2025-06-18", "2025-11-25", false},
		{"2025-11-25", "DRAFT-2026-v1", true}, // published before drafts
		{"DRAFT-2026-v1", "2025-11-25", false},
		{"DRAFT-2026-v2", "DRAFT-2026-v1", true},
		{"2026-7-28", "2025-11-25", false}, // not a date
	}
	for _, tt := range tests {
		if got := protocol.Preferred(tt.a, tt.b); got != tt.want {
			t.Errorf("Preferred(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

// A draft that declares a published revision's version, generated with
// its own (mcpgen --protocol-version), mounts beside it; the published one
// stays the default and the draft is spoken when asked for.
func TestDraftBesidePublished(t *testing.T) {
	_, published := testProtocols()
	_, draft := testProtocols()
	draft.Revision = "DRAFT-2026-v1"
	srv, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: draft, Handler: echoHandler{}}, Mount{Protocol: published, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.statelessVersions(); !slices.Equal(got, []string{"2026-07-28", "DRAFT-2026-v1"}) {
		t.Errorf("versions %v, want the published one first", got)
	}
	for _, pin := range []string{"", "DRAFT-2026-v1"} {
		cs, err := Connect(context.Background(), &pipeTransport{srv: srv}, ClientOptions{Era: Stateless, ProtocolVersion: pin},
			Mount{Protocol: draft, Handler: struct{}{}}, Mount{Protocol: published, Handler: struct{}{}})
		if err != nil {
			t.Fatalf("pin %q: %v", pin, err)
		}
		want := pin
		if want == "" {
			want = "2026-07-28"
		}
		if cs.ProtocolVersion() != want {
			t.Errorf("pin %q: negotiated %s, want %s", pin, cs.ProtocolVersion(), want)
		}
		cs.Close()
	}
}

// pipeTransport serves srv over an in-memory message pipe (what package
// stdio's InProcessTransport does with the stdio framing, which this
// package's tests cannot import).
type pipeTransport struct{ srv *Server }

func (t *pipeTransport) Dial(ctx context.Context, h jsonrpc.Handler) (ClientConn, error) {
	toServer, toClient := make(chan []byte), make(chan []byte)
	clientDone, serverDone := make(chan struct{}), make(chan struct{})
	server := &chanStream{recv: toServer, send: toClient, done: serverDone, peer: clientDone}
	client := &chanStream{recv: toClient, send: toServer, done: clientDone, peer: serverDone}
	served := make(chan error, 1)
	go func() { served <- t.srv.ServeConn(context.Background(), server, jsonrpc.Options{}); server.Close() }()
	conn := jsonrpc.NewConn(client, h, jsonrpc.Options{})
	done := make(chan error, 1)
	go func() { done <- conn.Serve(context.Background()) }()
	return &pipeConn{Conn: conn, served: served, done: done}, nil
}

type pipeConn struct {
	*jsonrpc.Conn
	served, done chan error
}

func (c *pipeConn) Close() error {
	_ = c.Conn.Close()
	<-c.done
	return <-c.served
}

// chanStream is one end of an in-memory message pipe.
type chanStream struct {
	recv       <-chan []byte
	send       chan<- []byte
	done, peer chan struct{} // closed by Close, by the peer's Close
	once       sync.Once
}

func (s *chanStream) ReadMessage(ctx context.Context) ([]byte, error) {
	select {
	case m := <-s.recv:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, jsonrpc.ErrClosed
	case <-s.peer:
		return nil, io.EOF
	}
}

func (s *chanStream) WriteMessage(ctx context.Context, msg []byte) error {
	select {
	case s.send <- append([]byte(nil), msg...):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return jsonrpc.ErrClosed
	case <-s.peer:
		return io.ErrClosedPipe
	}
}

func (s *chanStream) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}
