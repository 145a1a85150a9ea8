package protocol

import (
	"context"
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestBridgeCopiesProtocol: NewBridge copies the client's Protocol field
// by field (it holds a sync.Once, so not by value); a field added to
// Protocol must be added there too, and here (Converter is the bridge's
// own).
func TestBridgeCopiesProtocol(t *testing.T) {
	// copyWith copies these but Converter and ClientTable, which NewBridge
	// and ForClient set themselves.
	copied := []string{"Revision", "Era", "Batches", "RetryOnClose", "Methods", "Stamp", "ServerCapabilities", "ClientCapabilities",
		"InputRequired", "NoID", "MissingCapabilityCode", "Tasks", "ResourceNotFoundCode", "ToolError", "Converter", "Side", "MemberTable", "Members", "ClientTable"}
	var exported []string
	for f := range reflect.TypeFor[Protocol]().Fields() {
		if f.IsExported() {
			exported = append(exported, f.Name)
		}
	}
	if !reflect.DeepEqual(exported, copied) {
		t.Errorf("Protocol's exported fields are %v; NewBridge copies %v", exported, copied)
	}
}

// clientTableOf is a ClientTable giving the entries of m.
type clientTableOf map[string]*Method

func (c clientTableOf) ClientMethods() map[string]*Method { return c }

// TestForClient: ForClient is the Protocol with ClientTable's entries in
// Methods, the same one every time; without a ClientTable, p itself. A
// bridge of such a revision serves its handler's client methods only
// through ForClient too.
func TestForClient(t *testing.T) {
	serve := func(context.Context, any, wire.Raw) (wire.Marshaler, error) { return nil, nil }
	yes := func(any) bool { return true }
	mk := func(rev string) *Protocol {
		return &Protocol{
			Revision: rev,
			Methods: map[string]*Method{
				"tools/list":        {Name: "tools/list", FromClient: true, Serve: serve, Implemented: yes},
				"roots/list":        {Name: "roots/list", FromServer: true, Role: RoleRoots},
				"notifications/foo": {Name: "notifications/foo", FromServer: true, Notification: true},
			},
			ClientTable: clientTableOf{"roots/list": {Name: "roots/list", FromServer: true, Role: RoleRoots, Serve: serve, Implemented: yes}},
		}
	}
	p := mk("2025-11-25")
	c := p.ForClient()
	if c == p || c.ForClient() != c || p.ForClient() != c {
		t.Fatalf("ForClient: %p, again %p, of p %p; want one Protocol other than p", c, c.ForClient(), p.ForClient())
	}
	if c.Methods["roots/list"].Serve == nil || p.Methods["roots/list"].Serve != nil {
		t.Error("roots/list: the client's entry is not the ClientTable's, or p changed")
	}
	if c.Methods["tools/list"] != p.Methods["tools/list"] || c.Methods["notifications/foo"] != p.Methods["notifications/foo"] {
		t.Error("the entries ClientTable lacks are not p's")
	}
	if c.Role(RoleRoots) != c.Methods["roots/list"] || c.Revision != p.Revision || c.ClientTable != nil {
		t.Error("the client's Protocol: role index, revision or ClientTable wrong")
	}
	if q := (&Protocol{Revision: "x"}); q.ForClient() != q {
		t.Error("ForClient of a Protocol without ClientTable is not itself")
	}

	type handler struct{}
	b := Bridge{Client: mk("2025-11-25"), Handlers: mk("2026-07-28"), Adapt: func(h any) any { return h },
		AdaptClient: func(h any) any { return h }, Methods: []string{"tools/list"}, ServerMethods: []string{"roots/list"}}
	bp, bh := NewBridge(b, handler{})
	if bp.Methods["roots/list"].Serve != nil || bp.ClientTable == nil {
		t.Fatal("the bridged revision has its client entries in Methods, or no ClientTable")
	}
	bc := bp.ForClient()
	if md := bc.Methods["roots/list"]; md.Serve == nil || !md.Implemented(bh) {
		t.Errorf("the bridged client's roots/list is not served through the bridge")
	}
	if md := bc.Methods["tools/list"]; md.Serve == nil || !md.Implemented(bh) {
		t.Errorf("the bridged tools/list is not served through the bridge")
	}

	// A client revision with its table whole (generated before version
	// 11, or --side client) bridged to handlers whose client entries are
	// apart: the bridge still asks the handlers' ForClient whether the
	// handler implements them.
	whole := mk("2025-06-18")
	whole.Methods["roots/list"] = whole.ClientTable.ClientMethods()["roots/list"]
	whole.ClientTable = nil
	b.Client = whole
	bp, bh = NewBridge(b, handler{})
	if bp.ClientTable == nil {
		t.Fatal("no ClientTable on a bridge whose handlers' revision has one")
	}
	if md := bp.ForClient().Methods["roots/list"]; md.Serve == nil || !md.Implemented(bh) {
		t.Errorf("roots/list of a whole client revision bridged to apart handlers: not served through the bridge")
	}
}
