package streamhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// failingStore is a SessionStore that is down.
type failingStore struct{}

func (failingStore) Save(context.Context, string, mcp.SessionState, time.Duration) error {
	return errors.New("connection refused")
}
func (failingStore) Load(context.Context, string) (mcp.SessionState, bool, error) {
	return mcp.SessionState{}, false, errors.New("connection refused")
}
func (failingStore) Delete(context.Context, string) error { return errors.New("connection refused") }

// TestSharedSessions: two handlers (instances) sharing a SessionStore
// serve each other's sessions — bound to their principal, with what a
// request changes seen by the other — and DELETE on one ends the session
// on both; a store that is down refuses new sessions with 503.
func TestSharedSessions(t *testing.T) {
	store := NewMemorySessionStore()
	a := newFixture(t, Options{Auth: bearerAuth, SessionStore: store})
	b := newFixture(t, Options{Auth: bearerAuth, SessionStore: store})
	alice := map[string]string{"Authorization": "Bearer alice-1"}
	sid := a.open(alice)
	sess := merge(alice, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld})
	call := func(f *fixture, hdr map[string]string, method, body string) (int, string) {
		t.Helper()
		resp := f.do(context.Background(), method, hdr, body)
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(out)
	}
	if code, _ := call(a, sess, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Fatalf("initialized on A: %d", code)
	}
	if code, out := call(b, sess, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"error"}}`); code != http.StatusOK {
		t.Fatalf("setLevel on B: %d %s", code, out)
	}
	if st, ok, _ := store.Load(context.Background(), sid); !ok || st.LogLevel != "error" || !st.Ready || st.Principal != "alice" {
		t.Errorf("the store has %+v (found %v); want ready, level error, principal alice", st, ok)
	}
	bob := merge(sess, map[string]string{"Authorization": "Bearer bob-1"})
	if code, _ := call(b, bob, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); code != http.StatusNotFound {
		t.Errorf("bob's request on B: %d, want 404", code)
	}
	if code, _ := call(b, sess, http.MethodDelete, ""); code != http.StatusOK {
		t.Fatalf("DELETE on B: %d", code)
	}
	if code, _ := call(a, sess, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); code != http.StatusNotFound {
		t.Errorf("A after DELETE on B: %d, want 404", code)
	}

	down := newFixture(t, Options{SessionStore: failingStore{}})
	resp := down.do(context.Background(), http.MethodPost, nil, initBody())
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(out), "session store unavailable") {
		t.Errorf("initialize with the store down: %d %s", resp.StatusCode, out)
	}
}
