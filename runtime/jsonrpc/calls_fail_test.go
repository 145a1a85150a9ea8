package jsonrpc

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestCallsFail: Fail ends the pending call it names with its error, once.
func TestCallsFail(t *testing.T) {
	var calls Calls
	p, err := calls.Start(wire.Into{})
	if err != nil {
		t.Fatal(err)
	}
	id := p.ID()
	boom := errors.New("ended by the peer")
	if calls.Fail(wire.IntValue(99), boom) {
		t.Error("Fail of an unknown id reported a call")
	}
	if !calls.Fail(id, boom) {
		t.Fatal("Fail found no call")
	}
	if err := calls.Wait(context.Background(), p); !errors.Is(err, boom) {
		t.Errorf("Wait: %v", err)
	}
	if calls.Fail(id, boom) {
		t.Error("a second Fail found the call again")
	}
}
