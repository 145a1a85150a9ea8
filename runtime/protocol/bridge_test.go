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
	// copyWith copies these but Converter, ClientTable and ServerTable,
	// which NewBridge, ForClient and ForServer set themselves.
	copied := []string{"Revision", "Era", "Batches", "RetryOnClose", "Methods", "Stamp", "ServerCapabilities", "ClientCapabilities",
		"InputRequired", "NoID", "MissingCapabilityCode", "Tasks", "ResourceNotFoundCode", "ToolError", "Converter", "Side", "MemberTable", "Members", "ClientTable", "ServerTable"}
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

// tableOf is a ClientTable and ServerTable giving the entries of m.
type tableOf map[string]*Method

func (c tableOf) ClientMethods() map[string]*Method { return c }
func (c tableOf) ServerMethods() map[string]*Method { return c }

// TestForClient: ForClient (ForServer) is the Protocol with ClientTable's
// (ServerTable's) entries in Methods, the same one every time; without
// the table, p itself. A bridge of such revisions serves its handler's
// methods only through those views too, whichever revision holds its
// entries apart.
func TestForClient(t *testing.T) {
	serve := func(context.Context, any, wire.Raw) (wire.Marshaler, error) { return nil, nil }
	yes := func(any) bool { return true }
	// mk is a revision whose tools/list (a client sends it) and roots/list
	// (a server sends it) are apart, and whose notification is whole.
	mk := func(rev string) *Protocol {
		return &Protocol{
			Revision: rev,
			Methods: map[string]*Method{
				"tools/list":        {Name: "tools/list", FromClient: true, Role: RoleToolsList},
				"roots/list":        {Name: "roots/list", FromServer: true, Role: RoleRoots},
				"notifications/foo": {Name: "notifications/foo", FromServer: true, Notification: true},
			},
			ClientTable: tableOf{"roots/list": {Name: "roots/list", FromServer: true, Role: RoleRoots, Serve: serve, Implemented: yes}},
			ServerTable: tableOf{"tools/list": {Name: "tools/list", FromClient: true, Role: RoleToolsList, Serve: serve, Implemented: yes}},
		}
	}
	// whole is mk with every entry in Methods (generated before version
	// 11, or for one end).
	whole := func(rev string) *Protocol {
		p := mk(rev)
		p.Methods["roots/list"] = p.ClientTable.ClientMethods()["roots/list"]
		p.Methods["tools/list"] = p.ServerTable.ServerMethods()["tools/list"]
		p.ClientTable, p.ServerTable = nil, nil
		return p
	}
	for _, end := range []struct {
		name, apart, other string
		view               func(*Protocol) *Protocol
	}{
		{"client", "roots/list", "tools/list", (*Protocol).ForClient},
		{"server", "tools/list", "roots/list", (*Protocol).ForServer},
	} {
		p := mk("2025-11-25")
		c := end.view(p)
		if c == p || end.view(c) != c || end.view(p) != c {
			t.Fatalf("%s: view %p, again %p, of p %p; want one Protocol other than p", end.name, c, end.view(c), end.view(p))
		}
		if c.Methods[end.apart].Serve == nil || p.Methods[end.apart].Serve != nil {
			t.Errorf("%s: %s: the view's entry is not the table's, or p changed", end.name, end.apart)
		}
		if c.Methods[end.other] != p.Methods[end.other] || c.Methods["notifications/foo"] != p.Methods["notifications/foo"] {
			t.Errorf("%s: the entries the table lacks are not p's", end.name)
		}
		if c.Role(c.Methods[end.apart].Role) != c.Methods[end.apart] || c.Revision != p.Revision {
			t.Errorf("%s: the view's role index or revision is wrong", end.name)
		}
		if q := (&Protocol{Revision: "x"}); end.view(q) != q {
			t.Errorf("%s: the view of a Protocol without the table is not itself", end.name)
		}

		type handler struct{}
		for _, revs := range []struct {
			name             string
			client, handlers *Protocol
		}{
			{"both apart", mk("2025-11-25"), mk("2026-07-28")},
			// The bridge asks the handlers' view whether the handler
			// implements a method even when the client revision is whole.
			{"client whole", whole("2025-06-18"), mk("2026-07-28")},
			{"handlers whole", mk("2025-11-25"), whole("2026-07-28")},
		} {
			b := Bridge{Client: revs.client, Handlers: revs.handlers, Adapt: func(h any) any { return h },
				AdaptClient: func(h any) any { return h }, Methods: []string{"tools/list"}, ServerMethods: []string{"roots/list"}}
			bp, bh := NewBridge(b, handler{})
			if bp.ClientTable == nil || bp.ServerTable == nil {
				t.Fatalf("%s, %s: the bridged revision lacks a table", end.name, revs.name)
			}
			if revs.client.ClientTable != nil && bp.Methods[end.apart].Serve != nil {
				t.Errorf("%s, %s: the bridged revision has %s whole in Methods", end.name, revs.name, end.apart)
			}
			if md := end.view(bp).Methods[end.apart]; md.Serve == nil || !md.Implemented(bh) {
				t.Errorf("%s, %s: the bridged %s is not served through the bridge", end.name, revs.name, end.apart)
			}
		}
	}
}
