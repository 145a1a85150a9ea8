package jsonrpc_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestNoID: an error that cannot name its request writes "id": null by
// default (JSON-RPC 2.0) and leaves it out with OmitID, set at NewConn or
// later with SetNoID; errors that can name theirs are untouched.
func TestNoID(t *testing.T) {
	tests := []struct {
		name, in, want string
		rule           jsonrpc.NoID
		later          bool // SetNoID after NewConn
	}{
		{"null by default", `{`, parseErr, jsonrpc.NullID, false},
		{"omitted", `{`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error","data":"syntax error*"}}`, jsonrpc.OmitID, false},
		{"omitted after SetNoID", `[1`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error","data":"syntax error*"}}`, jsonrpc.OmitID, true},
		{"unusable id omitted", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"` + idMsg + `"}}`, jsonrpc.OmitID, false},
		{"not an object", `"x"`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"a message must be an object"}}`, jsonrpc.OmitID, false},
		{"usable id kept", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, invalid("4", versionMsg), jsonrpc.OmitID, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := jsonrpc.Options{NoID: tt.rule}
			if tt.later {
				o.NoID = jsonrpc.NullID
			}
			h := start(t, mux{"ping": ping}, o)
			if tt.later {
				h.conn.SetNoID(tt.rule)
			}
			h.send(tt.in)
			expectJSON(t, h.recv(), tt.want)
		})
	}
}

// TestAppend: the envelope encoders every transport uses.
func TestAppend(t *testing.T) {
	id := wire.IntValue(7)
	je := &jsonrpc.Error{Code: -32600, Message: "m"}
	for _, tc := range []struct{ name, got, want string }{
		{"response", string(must(jsonrpc.AppendResponse(nil, id, rawResult(`{"a":1}`)))), `{"jsonrpc":"2.0","id":7,"result":{"a":1}}`},
		{"nil result", string(must(jsonrpc.AppendResponse(nil, wire.StringValue("s"), nil))), `{"jsonrpc":"2.0","id":"s","result":null}`},
		{"error", string(jsonrpc.AppendError(nil, id, true, jsonrpc.OmitID, je)), `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"m"}}`},
		{"error, null id", string(jsonrpc.AppendError(nil, id, false, jsonrpc.NullID, je)), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}`},
		{"error, no id", string(jsonrpc.AppendError(nil, id, false, jsonrpc.OmitID, je)), `{"jsonrpc":"2.0","error":{"code":-32600,"message":"m"}}`},
		{"request", string(must(jsonrpc.AppendRequest([]byte("x"), id, "m", nil))), `x{"jsonrpc":"2.0","id":7,"method":"m"}`},
		{"notification", string(must(jsonrpc.AppendNotification(nil, "n", rawResult(`[1]`)))), `{"jsonrpc":"2.0","method":"n","params":[1]}`},
		{"batch", string(jsonrpc.AppendBatch(nil, [][]byte{[]byte(`1`), []byte(`2`)})), `[1,2]`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestCalls: the pending-calls table delivers each response to its call
// once, decodes results, reports errors, drops what an abandoned call
// would have got, and fails what is pending when closed.
func TestCalls(t *testing.T) {
	var c jsonrpc.Calls
	parse := func(s string) *jsonrpc.Message {
		m, err := jsonrpc.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var out rawOut
	p, err := c.Start(wire.To(&out))
	if err != nil {
		t.Fatal(err)
	}
	if p.ID().String() != "1" || p.Answered() {
		t.Fatalf("first call: id %s, answered %v", p.ID(), p.Answered())
	}
	if c.Deliver(parse(`{"jsonrpc":"2.0","id":"1","result":1}`), nil, false) {
		t.Error("a string id delivered to an integer call")
	}
	if !c.Deliver(parse(`{"jsonrpc":"2.0","id":1,"result":{"x":[1]}}`), nil, true) || !p.Answered() {
		t.Fatal("response not delivered")
	}
	if err := c.Wait(context.Background(), p); err != nil || string(out.v) != `{"x":[1]}` {
		t.Fatalf("Wait: %s %v", out.v, err)
	}
	if c.Deliver(parse(`{"jsonrpc":"2.0","id":1,"result":1}`), nil, false) {
		t.Error("a second response delivered")
	}

	// Errors: the peer's, and a malformed error object.
	p, _ = c.Start(wire.Into{})
	c.Deliver(parse(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope"}}`), nil, false)
	var je *jsonrpc.Error
	if err := c.Wait(context.Background(), p); !errors.As(err, &je) || je.Code != -32601 {
		t.Errorf("error response: %v", err)
	}
	p, _ = c.Start(wire.Into{})
	c.Deliver(parse(`{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}`), nil, false)
	if err := c.Wait(context.Background(), p); err == nil || errors.As(err, &je) {
		t.Errorf("malformed error response: %v", err)
	}

	// A cancelled wait abandons the call; Poll without a response too.
	p, _ = c.Start(wire.Into{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Wait(ctx, p); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
	if c.Deliver(parse(`{"jsonrpc":"2.0","id":4,"result":1}`), nil, false) {
		t.Error("a response delivered to an abandoned call")
	}
	p, _ = c.Start(wire.Into{})
	if _, answered := c.Poll(p); answered {
		t.Error("Poll answered without a response")
	}

	// Close fails what is pending and refuses new calls.
	var wg sync.WaitGroup
	closed := errors.New("closed")
	for range 3 {
		p, _ := c.Start(wire.Into{})
		wg.Go(func() {
			if err := c.Wait(context.Background(), p); err != closed {
				t.Errorf("pending call at Close: %v", err)
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	c.Close(closed)
	wg.Wait()
	if _, err := c.Start(wire.Into{}); err != closed {
		t.Errorf("Start after Close: %v", err)
	}
}
