package spectest_test

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20251125"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20260728"
)

// resources25 is a 2025-11-25 handler with resources, so that the server
// offers subscriptions.
type resources25 struct{}

func (resources25) ListResources(context.Context, *mcp20251125.PaginatedRequestParams) (*mcp20251125.ListResourcesResult, error) {
	return &mcp20251125.ListResourcesResult{}, nil
}

func (resources25) ReadResource(context.Context, *mcp20251125.ReadResourceRequestParams) (*mcp20251125.ReadResourceResult, error) {
	return &mcp20251125.ReadResourceResult{}, nil
}

// TestTypedRuntimeCalls: the generated Client has typed calls for what the
// runtime answers (ping, logging/setLevel, resources/subscribe in
// 2025-11-25; server/discover in 2026-07-28), not only for what handlers
// answer.
func TestTypedRuntimeCalls(t *testing.T) {
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "calls", Version: "1"}, mcp20251125.Mount(resources25{}), mcp20260728.Mount(listTools{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	legacy, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{Name: "c", Version: "1", Era: mcp.Stateful},
		mcp20251125.Mount(struct{}{}), mcp20260728.Mount(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	c25 := mcp20251125.NewClient(legacy)
	if _, err := c25.Ping(ctx, nil); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if _, err := c25.SetLevel(ctx, &mcp20251125.SetLevelRequestParams{Level: "debug"}); err != nil {
		t.Errorf("SetLevel: %v", err)
	}
	if _, err := c25.Subscribe(ctx, &mcp20251125.SubscribeRequestParams{URI: "file:///a"}); err != nil {
		t.Errorf("Subscribe: %v", err)
	}
	if _, err := c25.Unsubscribe(ctx, &mcp20251125.UnsubscribeRequestParams{URI: "file:///a"}); err != nil {
		t.Errorf("Unsubscribe: %v", err)
	}

	modern, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{Name: "c", Version: "1", Era: mcp.Stateless},
		mcp20251125.Mount(struct{}{}), mcp20260728.Mount(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	defer modern.Close()
	d, err := mcp20260728.NewClient(modern).Discover(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.SupportedVersions) == 0 {
		t.Errorf("discover: no supported versions: %+v", d)
	}
}
