package spectest_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cache"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20260728"
)

// cacheServer answers tools/list with ttlMs and cacheScope set by the test,
// counting the calls that reach it.
type cacheServer struct {
	calls atomic.Int32
	list  string // the ListToolsResult
}

func (h *cacheServer) ListTools(context.Context, *mcp20260728.PaginatedRequestParams) (*mcp20260728.ListToolsResult, error) {
	h.calls.Add(1)
	r := new(mcp20260728.ListToolsResult)
	return r, wire.Unmarshal([]byte(h.list), r)
}

// cacheClients connects clients in the authorization contexts parts to
// one server, all sharing store.
func cacheClients(t *testing.T, h *cacheServer, store cache.Store, parts ...string) []*mcp20260728.Client {
	t.Helper()
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "cache", Version: "1"}, mcp20260728.Mount(h))
	if err != nil {
		t.Fatal(err)
	}
	var clients []*mcp20260728.Client
	for _, part := range parts {
		cs, err := mcp.Connect(t.Context(), &stdio.InProcessTransport{Server: srv},
			mcp.ClientOptions{Name: "c", Version: "1", Era: mcp.Stateless,
				Cache: cache.Client(store, cache.Options{Partition: func(context.Context) string { return part }})},
			mcp20260728.Mount(struct{}{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		clients = append(clients, mcp20260728.NewClient(cs))
	}
	return clients
}

// TestClientCache: the client cache answers fresh results without a
// request; a private result never crosses authorization contexts, a public
// one is shared; results without ttlMs, with ttlMs 0 or asking for input
// are not kept.
func TestClientCache(t *testing.T) {
	const tools = `"tools":[{"name":"t","inputSchema":{"type":"object"}}]`
	tests := []struct {
		name   string
		list   string
		parts  []string // the contexts of the clients, each calling twice
		server int32    // calls that reach the server
	}{
		{"public: one call for every client", `{` + tools + `,"ttlMs":60000,"cacheScope":"public"}`, []string{"alice", "bob"}, 1},
		{"private: one call per context", `{` + tools + `,"ttlMs":60000,"cacheScope":"private"}`, []string{"alice", "bob", "alice"}, 2},
		{"private without a context: not kept", `{` + tools + `,"ttlMs":60000,"cacheScope":"private"}`, []string{""}, 2},
		{"ttlMs 0: immediately stale", `{` + tools + `,"ttlMs":0,"cacheScope":"public"}`, []string{"alice"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &cacheServer{list: tt.list}
			store := cache.NewMemory(0, 0)
			for _, c := range cacheClients(t, h, store, tt.parts...) {
				for range 2 {
					r, err := c.ListTools(t.Context(), &mcp20260728.PaginatedRequestParams{})
					if err != nil {
						t.Fatal(err)
					}
					if len(r.Tools) != 1 || r.Tools[0].Name != "t" {
						t.Fatalf("tools %+v", r.Tools)
					}
				}
			}
			if got := h.calls.Load(); got != tt.server {
				t.Errorf("%d calls reached the server, want %d", got, tt.server)
			}
		})
	}
}

// TestMemoryCache: bounds, expiry and invalidation of the in-memory store.
func TestMemoryCache(t *testing.T) {
	now := time.Now()
	k := func(m, p string) cache.Key { return cache.Key{Method: m, Params: p, Version: "v"} }
	c := cache.NewMemory(2, 0)
	c.Put(k("a", ""), wire.Raw(`1`), now.Add(time.Minute))
	c.Put(k("b", ""), wire.Raw(`2`), now.Add(time.Minute))
	if _, ok := c.Get(k("a", ""), now); !ok { // a is now the most recently used
		t.Fatal("a missing")
	}
	c.Put(k("c", ""), wire.Raw(`3`), now.Add(time.Minute))
	if _, ok := c.Get(k("b", ""), now); ok {
		t.Error("b kept beyond two entries (it was the least recently used)")
	}
	if _, ok := c.Get(k("a", ""), now.Add(2*time.Minute)); ok {
		t.Error("a answered after it expired")
	}
	c.Invalidate(func(k cache.Key) bool { return k.Method == "c" })
	if c.Len() != 0 {
		t.Errorf("%d entries left", c.Len())
	}
	small := cache.NewMemory(0, 4)
	small.Put(k("big", ""), wire.Raw(`"12345"`), now.Add(time.Minute))
	if small.Len() != 0 {
		t.Error("a result larger than the byte bound was kept")
	}
}
