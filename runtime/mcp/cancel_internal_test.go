package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// failingConn records what the session asks of its connection when the
// server cancels.
type failingConn struct {
	ClientConn
	failed, cancelled []jsonrpc.ID
	err               error
}

func (f *failingConn) FailCall(id jsonrpc.ID, err error) bool {
	f.failed, f.err = append(f.failed, id), err
	return true
}

func (f *failingConn) Cancel(id jsonrpc.ID) bool {
	f.cancelled = append(f.cancelled, id)
	return true
}

// TestServerCancellation: on the stateless era the server's
// notifications/cancelled ends the client's own request it names (a
// subscriptions/listen stream on stdio) with ErrCancelledByServer and the
// reason; on the stateful era it cancels the handler of the server's
// request it names; an invalid one is ignored.
func TestServerCancellation(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		f := &failingConn{}
		cs := &ClientSession{conn: f, era: statefulClientEra{}}
		if stateless {
			cs.era = statelessClientEra{}
		}
		cs.onCancelled(wire.Raw(`{"requestId":7,"reason":"listen stream closed"}`))
		cs.onCancelled(wire.Raw(`{"reason":"no id"}`))
		if stateless {
			if len(f.failed) != 1 || f.failed[0].String() != "7" || len(f.cancelled) != 0 {
				t.Fatalf("stateless: failed %v, cancelled %v", f.failed, f.cancelled)
			}
			if !errors.Is(f.err, ErrCancelledByServer) || !strings.Contains(f.err.Error(), "listen stream closed") {
				t.Errorf("stateless: error %v", f.err)
			}
			continue
		}
		if len(f.cancelled) != 1 || f.cancelled[0].String() != "7" || len(f.failed) != 0 {
			t.Errorf("stateful: failed %v, cancelled %v", f.failed, f.cancelled)
		}
	}
}
