package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzDispatch feeds arbitrary params to both eras' dispatch: never a
// panic, and every failure is a *jsonrpc.Error.
func FuzzDispatch(f *testing.F) {
	for _, seed := range []string{`{}`, `{` + meta + `}}`, `{` + meta + `},"name":"x"}`, `{"_meta":5}`, `[1,2]`, `{"protocolVersion":"2025-11-25"}`, `{"requestId":1}`} {
		f.Add("tools/call", []byte(seed))
		f.Add("initialize", []byte(seed))
		f.Add("subscriptions/listen", []byte(seed))
	}
	s := newTestServerFuzz(f)
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		if method == "subscriptions/listen" {
			return // blocks until cancelled; covered by TestListenStream
		}
		r := &jsonrpc.Request{ID: wire.IntValue(1), Method: method, Params: params}
		check := func(_ wire.Marshaler, err error) {
			if err == nil {
				return
			}
			if _, ok := err.(*jsonrpc.Error); !ok && !strings.Contains(err.Error(), "no calls") {
				t.Fatalf("%s %q: error %T %v", method, params, err, err)
			}
		}
		check(s.handleStateless(context.Background(), r, &recorder{}))
		sess := s.NewSession(&recorder{}, func(jsonrpc.ID) bool { return false })
		check(sess.handle(context.Background(), r, &recorder{}))
		check(sess.handle(context.Background(), &jsonrpc.Request{ID: wire.IntValue(2), Method: "tools/call", Params: params}, &recorder{}))
		sess.Close()
	})
}

func newTestServerFuzz(f *testing.F) *Server {
	a, b := testProtocols()
	s, err := NewServer(ServerOptions{Name: "fuzz", Version: "1"}, Mount{Protocol: a, Handler: echoHandler{}}, Mount{Protocol: b, Handler: echoHandler{}})
	if err != nil {
		f.Fatal(err)
	}
	return s
}
