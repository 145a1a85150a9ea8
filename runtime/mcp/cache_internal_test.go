package mcp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cache"
	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// cacheSession is a stateless ClientSession of the test protocol with
// resources/read and its updated notification, caching in c.
func cacheSession(c cache.Store) *ClientSession {
	_, p := testProtocols()
	p.Methods["resources/read"] = &protocol.Method{Name: "resources/read", FromClient: true, ValidateParams: protocol.NoParams, Cacheable: true, Role: protocol.RoleResourcesRead}
	p.Methods["notifications/resources/updated"] = &protocol.Method{Name: "notifications/resources/updated", Notification: true, FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleResourceUpdated}
	cs := &ClientSession{opts: ClientOptions{Cache: c}, mount: &Mount{Protocol: p}, era: modernClient{}, roles: map[string]protocol.Role{}}
	for name, m := range p.Methods {
		cs.roles[name] = m.Role
	}
	return cs
}

// TestCacheInvalidation: a list_changed notification drops the entries of
// its list method in every context, resources/updated the reads of its uri
// only, and other notifications nothing.
func TestCacheInvalidation(t *testing.T) {
	key := func(part, method, params string) cache.Key {
		return cache.Key{Partition: part, Version: "2026-07-28", Method: method, Params: params}
	}
	all := []cache.Key{
		key("", "tools/list", `{}`), key("alice", "tools/list", `{"cursor":"2"}`),
		key("", "resources/read", `{"uri":"file:///a"}`), key("bob", "resources/read", `{"uri":"file:///b"}`),
	}
	tests := []struct {
		method, params string
		left           []cache.Key
	}{
		{"notifications/tools/list_changed", ``, all[2:]},
		{"notifications/resources/updated", `{"uri":"file:///a"}`, []cache.Key{all[0], all[1], all[3]}},
		{"notifications/prompts/list_changed", ``, all},
		{"notifications/message", `{"level":"info","data":1}`, all},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			c := cache.NewMemory(0, 0)
			for _, k := range all {
				c.Put(k, wire.Raw(`{}`), time.Now().Add(time.Minute))
			}
			cacheSession(c).invalidate(tt.method, wire.Raw(tt.params))
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

// TestCacheFields: what a result says about its caching.
func TestCacheFields(t *testing.T) {
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
		{`{"resultType":"input_required","ttlMs":5000,"cacheScope":"public","requestState":"x"}`, 0, "", false},
	}
	for _, tt := range tests {
		ttl, scope, ok := cacheFields(wire.Raw(tt.result))
		if ttl != tt.ttl || scope != tt.scope || ok != tt.ok {
			t.Errorf("%s: %d %q %v, want %d %q %v", tt.result, ttl, scope, ok, tt.ttl, tt.scope, tt.ok)
		}
	}
}

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
		cs := &ClientSession{conn: f, era: legacyClient{}}
		if stateless {
			cs.era = modernClient{}
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
