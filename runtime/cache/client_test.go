package cache

import (
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// testProtocol is a revision with the methods a cache follows.
func testProtocol() *protocol.Protocol {
	p := &protocol.Protocol{Revision: "2026-07-28", Methods: map[string]*protocol.Method{}}
	for name, r := range map[string]protocol.Role{
		"tools/list":                         protocol.RoleToolsList,
		"resources/read":                     protocol.RoleResourcesRead,
		"notifications/tools/list_changed":   protocol.RoleToolsListChanged,
		"notifications/prompts/list_changed": protocol.RolePromptsListChanged,
		"notifications/resources/updated":    protocol.RoleResourceUpdated,
		"notifications/message":              protocol.RoleLog,
	} {
		p.Methods[name] = &protocol.Method{Name: name, Role: r}
	}
	return p
}

// TestInvalidation: a list_changed notification drops the entries of its
// list method in every context, resources/updated the reads of its uri
// only, and other notifications nothing.
func TestInvalidation(t *testing.T) {
	key := func(part, method, params string) Key {
		return Key{Partition: part, Version: "2026-07-28", Method: method, Params: params}
	}
	all := []Key{
		key("", "tools/list", `{}`), key("alice", "tools/list", `{"cursor":"2"}`),
		key("", "resources/read", `{"uri":"file:///a"}`), key("bob", "resources/read", `{"uri":"file:///b"}`),
	}
	tests := []struct {
		method, params string
		left           []Key
	}{
		{"notifications/tools/list_changed", ``, all[2:]},
		{"notifications/resources/updated", `{"uri":"file:///a"}`, []Key{all[0], all[1], all[3]}},
		{"notifications/prompts/list_changed", ``, all},
		{"notifications/message", `{"level":"info","data":1}`, all},
		{"notifications/unknown", `{}`, all},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			c := NewMemory(0, 0)
			for _, k := range all {
				c.Put(k, wire.Raw(`{}`), time.Now().Add(time.Minute))
			}
			invalidate(c, testProtocol(), tt.method, wire.Raw(tt.params))
			for _, k := range all {
				_, ok := c.Get(k, time.Now())
				want := false
				for _, l := range tt.left {
					want = want || l == k
				}
				if ok != want {
					t.Errorf("%+v kept %v, want %v", k, ok, want)
				}
			}
		})
	}
}

// TestFields: what a result says about its caching.
func TestFields(t *testing.T) {
	tests := []struct {
		result string
		ttl    int64
		scope  string
		ok     bool
	}{
		{`{"tools":[],"ttlMs":5000,"cacheScope":"public"}`, 5000, "public", true},
		{`{"resultType":"complete","ttlMs":1,"cacheScope":"private"}`, 1, "private", true},
		{`{"tools":[]}`, 0, "", false},
		{`{"ttlMs":-1,"cacheScope":"public"}`, 0, "", false},
		{`{"ttlMs":"5","cacheScope":"public"}`, 0, "", false},
		{`{"resultType":"input_required","ttlMs":5000,"cacheScope":"public","requestState":"x"}`, 0, "", false},
	}
	for _, tt := range tests {
		ttl, scope, ok := Fields(wire.Raw(tt.result))
		if ttl != tt.ttl || scope != tt.scope || ok != tt.ok {
			t.Errorf("%s: %d %q %v, want %d %q %v", tt.result, ttl, scope, ok, tt.ttl, tt.scope, tt.ok)
		}
	}
}
