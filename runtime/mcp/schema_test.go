package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/toolschema"
	// The engine's tests check every schema, as a program importing
	// fullschema does; built with -tags mcpgen_nojsonschema (make test runs
	// both) it registers nothing, as in a program that does not import it.
	_ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestToolSchemaChecks checks tools/call arguments against a flat input
// schema (the built-in checker) and one only the full validator knows (a
// oneOf): both are checked when package fullschema is linked, else the
// second is not (make test runs both).
func TestToolSchemaChecks(t *testing.T) {
	_, p := testProtocols()
	list := *p.Methods["tools/list"]
	list.Serve = func(context.Context, any, wire.Raw) (wire.Marshaler, error) {
		return wire.Raw(`{"tools":[` +
			`{"name":"flat","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},` +
			`{"name":"deep","inputSchema":{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"},{"type":"string","pattern":"^x"}]}}}}]}`), nil
	}
	p.Methods["tools/list"] = &list
	s, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: p, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	// This build checks every schema, or (mcpgen_nojsonschema) flat ones.
	_, notFlat := toolschema.Compile([]byte(`{"oneOf":[{"type":"integer"}]}`), true)
	fullSchemas := notFlat == nil
	for _, tc := range []struct {
		tool, args string
		refused    bool
	}{
		{"flat", `{"n":1}`, false},
		{"flat", `{"n":"one"}`, true},
		{"deep", `{"n":"xy"}`, false},
		{"deep", `{"n":"yy"}`, fullSchemas},
	} {
		res, err := s.handleStateless(context.Background(), req("tools/call", `{`+meta+`},"name":"`+tc.tool+`","arguments":`+tc.args+`}`), &recorder{})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.tool, tc.args, err)
		}
		got := encode(t, res)
		if refused := strings.Contains(got, `"isError":true`) && strings.Contains(got, "invalid arguments for tool "+tc.tool); refused != tc.refused {
			t.Errorf("%s %s (fullSchemas %v): %s, want refused %v", tc.tool, tc.args, fullSchemas, got, tc.refused)
		}
	}
}

// TestSideMounts: a package generated for one side (mcpgen --side) mounts
// on that side only, with an error naming the flag on the other.
func TestSideMounts(t *testing.T) {
	a, _ := testProtocols()
	a.Side = protocol.ClientSide
	if _, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: a, Handler: echoHandler{}}); err == nil || !strings.Contains(err.Error(), "--side client") {
		t.Errorf("NewServer with a client-side package: %v", err)
	}
	a.Side = protocol.ServerSide
	if _, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: a, Handler: echoHandler{}}); err != nil {
		t.Errorf("NewServer with a server-side package: %v", err)
	}
	if _, err := Connect(context.Background(), nil, ClientOptions{}, Mount{Protocol: a, Handler: struct{}{}}); err == nil || !strings.Contains(err.Error(), "--side server") {
		t.Errorf("Connect with a server-side package: %v", err)
	}
}
