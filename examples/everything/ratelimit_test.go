package main

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestRateLimit: bin/everything --rate-limit 0.5 --rate-burst 5. Over
// stdio the sixth request at once (server/discover, then four calls) is
// refused with -32010 saying when to retry, and served after that; over
// HTTP (both eras) it is a 429 with Retry-After; a client on another
// address has a bucket of its own. A token comes back every 2 s: the
// requests within the burst need not be quicker than that, even on a
// loaded machine.
func TestRateLimit(t *testing.T) {
	const env1, env2 = "EVERYTHING_RATE_LIMIT=0.5", "EVERYTHING_RATE_BURST=5"
	t.Setenv("EVERYTHING_RATE_LIMIT", "0.5")
	t.Setenv("EVERYTHING_RATE_BURST", "5")
	t.Run("stdio", func(t *testing.T) {
		cs := connectCaps(t, "", rt.Stateless, "")
		ctx := testContext(t)
		echo := func() error {
			var res wire.Raw
			return cs.Call(ctx, "tools/call", wire.Raw(`{"name":"echo","arguments":{"text":"x"}}`), &res)
		}
		for i := range 4 { // connecting spent one
			if err := echo(); err != nil {
				t.Fatalf("call %d within the burst: %v", i, err)
			}
		}
		err := echo()
		var je *jsonrpc.Error
		wait, ok := ratelimit.RetryAfter(err)
		if !errors.As(err, &je) || je.Code != ratelimit.Code || !ok || wait <= 0 || wait > 2*time.Second || !strings.Contains(je.Message, "0.5 requests/s, burst 5") {
			t.Fatalf("the sixth call: %v (retry after %v)", err, wait)
		}
		time.Sleep(wait)
		if err := echo(); err != nil {
			t.Errorf("after waiting %v: %v", wait, err)
		}
	})
	t.Run("http", func(t *testing.T) {
		url := startHTTP(t, env1, env2)
		a, b := from("127.0.0.40"), from("127.0.0.41")
		for i := range 5 {
			if code, _, body := post(t, a, url, "", initMsg); code != 200 {
				t.Fatalf("request %d within the burst: %d %s", i, code, body)
			}
		}
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initMsg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := a.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if s, _ := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusTooManyRequests || s < 1 {
			t.Errorf("the sixth request: %d, Retry-After %q; want 429 and a number of seconds", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		resp, err = postStatelessFrom(a, url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Errorf("a stateless request over the limit: %d", resp.StatusCode)
		}
		if code, _, body := post(t, b, url, "", initMsg); code != 200 {
			t.Errorf("another address: %d %s", code, body)
		}
	})
}

// TestRateLimitAcrossInstances: two instances sharing a real
// redis-server share each client's quota: a client alternating between
// them gets the burst once, not once per instance.
func TestRateLimitAcrossInstances(t *testing.T) {
	redis := redistest.Start(t)
	// A token every 100 s: the 12 requests never earn one back.
	env := []string{"EVERYTHING_REDIS=redis://" + redis.Addr + "/0", "EVERYTHING_RATE_LIMIT=0.01", "EVERYTHING_RATE_BURST=6"}
	urls := []string{startHTTP(t, env...), startHTTP(t, env...)}
	c := from("127.0.0.42")
	served, limited := 0, 0
	for i := range 12 {
		resp, err := postStatelessFrom(c, urls[i%2])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case 200:
			served++
		case http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
	if served != 6 || limited != 6 {
		t.Errorf("12 requests over two instances: %d served, %d limited; want 6 and 6 (one quota)", served, limited)
	}
}

// postStatelessFrom POSTs a 2026-07-28 tools/list with client c.
func postStatelessFrom(c *http.Client, url string) (*http.Response, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"} {
		req.Header.Set(k, v)
	}
	return c.Do(req)
}
