package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestRouteTables: NewServer routes every method of a table from its data
// and refuses, naming the method, a table that gives the runtime a method
// it has no route for; the methods of listen streams and tasks are served
// only with their features (runtime/listen, runtime/tasks).
func TestRouteTables(t *testing.T) {
	a, b := testProtocols()
	s, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: a, Handler: echoHandler{}}, Mount{Protocol: b, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rev, method string
		served      bool
	}{
		{"2025-11-25", "initialize", true},
		{"2025-11-25", "logging/setLevel", true},
		{"2025-11-25", "tools/call", true},
		{"2025-11-25", "notifications/progress", true},
		{"2025-11-25", "tasks/get", false}, // not in the table
		{"2026-07-28", "server/discover", true},
		{"2026-07-28", "tasks/get", false},            // the extension's, without runtime/tasks
		{"2026-07-28", "subscriptions/listen", false}, // without runtime/listen
		{"2026-07-28", "initialize", false},
	} {
		rt := s.byRev[tc.rev].routes[tc.method]
		if served := rt != nil && rt.serve != nil; served != tc.served {
			t.Errorf("%s %s: served %v, want %v", tc.rev, tc.method, served, tc.served)
		}
	}

	for _, tc := range []struct {
		name   string
		change func(p *protocol.Protocol)
		want   string
	}{
		{"unknown runtime role", func(p *protocol.Protocol) {
			p.Methods["tools/frobnicate"] = &protocol.Method{Name: "tools/frobnicate", FromClient: true, Role: protocol.RoleToolsCall, Feature: protocol.FeatureTasks}
		}, "no route for tools/frobnicate"},
		{"feature the runtime does not answer the role in", func(p *protocol.Protocol) {
			p.Methods["ping"].Feature = protocol.FeatureLogging
		}, "no route for ping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := testProtocols()
			tc.change(p)
			_, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: p, Handler: echoHandler{}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewServer: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestClassify: one pass over params finds what the runtime reads.
func TestClassify(t *testing.T) {
	_, b := testProtocols()
	b.Methods["resources/read"] = &protocol.Method{Name: "resources/read", FromClient: true, NameParam: "uri", Role: protocol.RoleResourcesRead}
	s, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: b, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	in := s.classify(&jsonrpc.Request{ID: wire.IntValue(4), Method: "tools/call", Params: wire.Raw(`{"name":"echo","uri":"file:///x","taskId":"t9","arguments":{"a":1},"task":{"ttl":5},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"c"},` +
		`"io.modelcontextprotocol/logLevel":"debug","progressToken":"p"}}`)})
	uri, hasURI := in.member(&s.revisions, "uri")
	task, hasTask := in.member(&s.revisions, "taskId")
	if in.req.Method != "tools/call" || in.req.ID.String() != "4" || in.req.IsNotification || in.meta.protocolVersion != "2026-07-28" ||
		in.toolName() != "echo" || uri != "file:///x" || !hasURI || task != "t9" || !hasTask ||
		string(in.args) != `{"a":1}` || string(in.task) != `{"ttl":5}` || string(in.meta.clientCaps) != `{"roots":{}}` ||
		string(in.clientInfo()) != `{"name":"c"}` || in.meta.logLevel != "debug" || !in.meta.hasProgress || in.meta.progressToken.String() != `"p"` {
		t.Errorf("classified %+v", in)
	}
	bare := s.classify(&jsonrpc.Request{Method: "tools/list", IsNotification: true})
	if _, ok := bare.member(&s.revisions, "uri"); ok || bare.meta.protocolVersion != "" || !bare.req.IsNotification {
		t.Errorf("classified %+v", bare)
	}
}

// TestConnNoID: a stream connection writes errors without an id as the
// revision spoken says: before initialize the preferred mounted one, then
// the negotiated one.
func TestConnNoID(t *testing.T) {
	a, b := testProtocols()
	a.NoID = jsonrpc.NullID // as 2025-06-18 and older write them
	for _, tc := range []struct {
		name   string
		mounts []Mount
		before string
		after  string // after initialize; "" to skip
	}{
		{"stateful, null", []Mount{{Protocol: a, Handler: echoHandler{}}}, `"id":null,`, ""},
		{"preferred stateless omits, negotiated stateful writes null", []Mount{{Protocol: a, Handler: echoHandler{}}, {Protocol: b, Handler: echoHandler{}}}, "", `"id":null,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewServer(ServerOptions{Name: "t", Version: "1"}, tc.mounts...)
			if err != nil {
				t.Fatal(err)
			}
			toServer, toClient := make(chan []byte), make(chan []byte, 8)
			clientDone, serverDone := make(chan struct{}), make(chan struct{})
			st := &chanStream{recv: toServer, send: toClient, done: serverDone, peer: clientDone}
			served := make(chan error, 1)
			go func() { served <- s.ServeConn(context.Background(), st, jsonrpc.Options{}) }()
			defer func() { close(clientDone); <-served }()
			roundTrip := func(msg string) string {
				toServer <- []byte(msg)
				select {
				case out := <-toClient:
					return string(out)
				case <-time.After(5 * time.Second):
					t.Fatal("no answer")
					return ""
				}
			}
			want := `{"jsonrpc":"2.0",` + tc.before + `"error":{"code":-32700`
			if got := roundTrip(`{`); !strings.HasPrefix(got, want) {
				t.Errorf("before initialize: %s, want %s…", got, want)
			}
			if tc.after == "" {
				return
			}
			roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			want = `{"jsonrpc":"2.0",` + tc.after + `"error":{"code":-32700`
			if got := roundTrip(`{`); !strings.HasPrefix(got, want) {
				t.Errorf("after initialize: %s, want %s…", got, want)
			}
		})
	}
}
