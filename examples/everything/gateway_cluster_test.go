package main

import (
	"strings"
	"testing"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/examples/everything/internal/rrproxy"
	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// TestGatewaysAcrossInstances: two bin/mcpgateway instances sharing a
// real redis-server (--redis), each with a bin/everything of its own
// behind it, behind a round-robin proxy. A stateful session opened
// through the proxy is served by both (each request goes to the other
// instance); after one instance is killed (SIGKILL) the session carries
// on through the other; a 2026-07-28 client, which has no session, is
// served by either.
func TestGatewaysAcrossInstances(t *testing.T) {
	redis := redistest.Start(t)
	backend := shellQuote(binary) + " --revisions 2025-11-25,2026-07-28"
	var urls []string
	var killers []func()
	for range 2 {
		cmd, u := startGateway(t, nil, "--stdio", backend, "--redis", "redis://"+redis.Addr+"/0")
		urls, killers = append(urls, u), append(killers, func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // gone once it returns
	}
	ps := serveProxy(t, rrproxy.New(urls, nil))
	ctx := testContext(t)

	cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateful, ProtocolVersion: "2025-11-25"}, v25.Mount(clientHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := v25.NewClient(cs)
	echo := func(step string) {
		t.Helper()
		res, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"` + step + `"}`)})
		if err != nil {
			t.Fatalf("echo %s through the proxy: %v", step, err)
		}
		if b, _ := wire.Marshal(res); !strings.Contains(string(b), step) {
			t.Fatalf("echo %s through the proxy: %s", step, b)
		}
	}
	for _, step := range []string{"a1", "b1", "a2", "b2"} { // each instance twice
		echo(step)
	}

	s, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateless, ProtocolVersion: "2026-07-28"}, v26.Mount(v26.UnimplementedClientHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		if _, err := v26.NewClient(s).ListTools(ctx, nil); err != nil {
			t.Fatalf("a stateless tools/list through the proxy: %v", err)
		}
	}

	killers[0]()
	for _, step := range []string{"after1", "after2", "after3"} { // the session lives on in Redis
		echo(step)
	}

}

// TestGatewaysShareQuota: two bin/mcpgateway instances with --redis and
// --rate-limit spend one quota per client: through a round-robin proxy, a
// client with a burst of 10 (and next to no refill) is refused within 11
// requests, where two quotas of its own would have let it make 20.
func TestGatewaysShareQuota(t *testing.T) {
	redis := redistest.Start(t)
	var urls []string
	for range 2 {
		_, u := startGateway(t, nil, "--stdio", shellQuote(binary), "--redis", "redis://"+redis.Addr+"/0", "--rate-limit", "0.0001", "--rate-burst", "10")
		urls = append(urls, u)
	}
	ps := serveProxy(t, rrproxy.New(urls, nil))
	ctx := testContext(t)
	s, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: ps.URL}, rt.ClientOptions{Era: rt.Stateless, ProtocolVersion: "2026-07-28"}, v26.Mount(v26.UnimplementedClientHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 16 {
		if _, err := v26.NewClient(s).ListTools(ctx, nil); err != nil {
			if !strings.Contains(err.Error(), "429") && !strings.Contains(err.Error(), "-32010") {
				t.Fatalf("request %d refused, but not for the rate: %v", i+1, err)
			}
			t.Logf("request %d refused: %v", i+1, err)
			return
		}
	}
	t.Error("16 requests over a shared burst of 10 all served: the instances do not share the quota")
}
