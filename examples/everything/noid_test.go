package main

import (
	"testing"
)

// TestErrorsWithoutID: an error that cannot name its request leaves the id
// out, over stdio as over HTTP: both revisions served (2025-11-25 and
// 2026-07-28) make JSONRPCErrorResponse's id optional and do not allow
// null.
func TestErrorsWithoutID(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`},
		{"not an object", `"hello"`},
		{"unusable id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
	} {
		t.Run("stdio/"+tc.name, func(t *testing.T) {
			p := newStdioPeer(t, fullServer(t))
			p.send(tc.line)
			if r := p.recv(); r.Error == nil || r.ID != nil {
				t.Errorf("got %s, want an error without an id", show(r))
			}
			p.alive(false)
		})
		t.Run("http/"+tc.name, func(t *testing.T) {
			p := newHTTPPeer(t)
			_, r := p.post("POST", tc.line, headers26("ping", ""))
			if r == nil || r.Error == nil || r.ID != nil {
				t.Errorf("got %s, want an error without an id", show(r))
			}
		})
	}
}
