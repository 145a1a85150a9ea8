package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/everything/internal/rrproxy"
)

// The session limits from outside: bin/everything over HTTP, clients
// connecting from many source addresses (127.0.0.x), directly and
// through a reverse proxy.

// from is an HTTP client whose connections leave from source address ip.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}, Timeout: 10 * time.Second}
}

// post sends one JSON-RPC message (to session sid when not empty) and
// returns the status, the session id answered and the body.
func post(t *testing.T, c *http.Client, url, sid, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

const (
	initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"limits","version":"1"}}}`
	listMsg = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// fill opens n sessions from each of the clients and uses each once.
func fill(t *testing.T, url string, clients []*http.Client, n int) [][]string {
	t.Helper()
	held := make([][]string, len(clients))
	for i, c := range clients {
		for range n {
			code, sid, body := post(t, c, url, "", initMsg)
			if code != 200 {
				t.Fatalf("filling, client %d: %d %s", i, code, body)
			}
			if code, _, body := post(t, c, url, sid, listMsg); code != 200 {
				t.Fatalf("filling, client %d: tools/list %d %s", i, code, body)
			}
			held[i] = append(held[i], sid)
		}
	}
	return held
}

// TestFairSessionLimit: 8 addresses holding every session of a
// bin/everything --max-sessions 200, each session used and re-touched, do
// not lock anyone out: each of 12 newcomers from addresses of their own
// gets a session at once; the holders keep most of theirs.
func TestFairSessionLimit(t *testing.T) {
	url := startHTTP(t, "EVERYTHING_MAX_SESSIONS=200") + ""
	var holders []*http.Client
	for i := range 8 {
		holders = append(holders, from(fmt.Sprintf("127.0.0.%d", 10+i)))
	}
	held := fill(t, url, holders, 25)
	for i := range 12 {
		// The holders re-touch every session first.
		for h, sids := range held {
			for _, sid := range sids[:5] {
				post(t, holders[h], url, sid, listMsg)
			}
		}
		c := from(fmt.Sprintf("127.0.0.%d", 100+i))
		code, sid, body := post(t, c, url, "", initMsg)
		if code != 200 {
			t.Fatalf("newcomer %d: %d %s (locked out by the holders)", i, code, body)
		}
		if code, _, body := post(t, c, url, sid, listMsg); code != 200 {
			t.Fatalf("newcomer %d: tools/list %d %s", i, code, body)
		}
	}
	kept := 0
	for h, sids := range held {
		for _, sid := range sids {
			if code, _, _ := post(t, holders[h], url, sid, listMsg); code == 200 {
				kept++
			}
		}
	}
	if kept != 200-12 {
		t.Errorf("the holders keep %d sessions, want %d", kept, 200-12)
	}
}

// TestTrustedProxyKeys: clients behind a reverse proxy (rrproxy, which
// sets X-Forwarded-For) are told apart by the address it forwards when
// bin/everything trusts it (--trusted-proxies 127.0.0.1/32): one of them
// holding every session does not lock out another. Without the trust
// they are one client, the proxy, and the other is refused; and the
// header from a client that is not a trusted proxy is ignored.
func TestTrustedProxyKeys(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     []string
		want    int
		spoofed int // a direct client claiming another address
	}{
		{"trusted", []string{"EVERYTHING_MAX_SESSIONS=50", "EVERYTHING_TRUSTED_PROXIES=127.0.0.1/32"}, 200, http.StatusServiceUnavailable},
		{"not trusted", []string{"EVERYTHING_MAX_SESSIONS=50"}, http.StatusServiceUnavailable, http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backend := startHTTP(t, tc.env...)
			ps := serveProxy(t, rrproxy.New([]string{backend}, nil))
			// The proxy dials the backend from 127.0.0.1; the clients
			// reach the proxy from addresses of their own.
			fill(t, ps.URL, []*http.Client{from("127.0.0.20")}, 50)
			code, _, body := post(t, from("127.0.0.21"), ps.URL, "", initMsg)
			if code != tc.want {
				t.Errorf("another client behind the proxy: %d %s, want %d", code, body, tc.want)
			}
			// Straight to the backend from the holder's own address (not a
			// trusted proxy), claiming to forward for a newcomer.
			req, _ := http.NewRequest(http.MethodPost, backend, strings.NewReader(initMsg))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("X-Forwarded-For", "192.0.2.99")
			resp, err := from("127.0.0.20").Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if tc.name == "trusted" && resp.StatusCode != tc.spoofed {
				t.Errorf("a spoofed X-Forwarded-For from an untrusted peer: %d, want %d", resp.StatusCode, tc.spoofed)
			}
		})
	}
}

// TestSlowBodies: 300 connections from one address send a POST's headers
// and a trickle of its body to bin/everything --body-timeout 1s. Each is
// answered and closed by the server: 429 at once beyond the 256 requests a
// client may have in progress, 408 once the body is late; none is held
// open (before, the 429s stayed open until the server's read timeout,
// 45-60 s, with their unread bodies). A client on another address is
// served all along.
func TestSlowBodies(t *testing.T) {
	url := startHTTP(t, "EVERYTHING_BODY_TIMEOUT=1s")
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	const n = 300
	type answer struct {
		status string
		after  time.Duration
	}
	answers := make(chan answer, n)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.30")}}
	start := time.Now()
	for range n {
		conn, err := d.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\"", host)
		go func() {
			_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			b := make([]byte, 64)
			k, _ := io.ReadAtLeast(conn, b, 12)
			status := string(b[:min(k, 12)])
			// Then the server closes the connection: EOF, not our
			// deadline (the body is never finished).
			if _, err := io.Copy(io.Discard, conn); err != nil {
				status += " left open"
			}
			answers <- answer{status, time.Since(start)}
		}()
	}
	if code, _, body := post(t, from("127.0.0.31"), url, "", initMsg); code != 200 {
		t.Errorf("another client meanwhile: %d %s", code, body)
	}
	counts := map[string]int{}
	var last time.Duration
	for range n {
		a := <-answers
		counts[a.status]++
		last = max(last, a.after)
	}
	// Exactly 256 × 408 and 44 × 429 when all 300 arrive within the first
	// body timeout; on a slower machine the first 408s free slots for
	// later connections, which are then admitted and answered 408 too.
	if counts["HTTP/1.1 408"] < 256 || counts["HTTP/1.1 408"]+counts["HTTP/1.1 429"] != n {
		t.Errorf("answers %v, want 256 × 408 (or more) and 429 for the rest, each connection closed by the server (not \"left open\" 20 s later)", counts)
	}
	t.Logf("%d slow bodies: %v, the last answered and closed after %v", n, counts, last.Round(10*time.Millisecond))
}

// TestForgedForwarding: bin/everything trusting the proxy in front of it
// (rrproxy, --trusted-proxies 127.0.0.1/32), a rate limit of 1 call in
// 100 seconds (none comes back during the test, however slow the machine)
// with a burst of 5, and clients that forge the headers the proxy
// vouches for (Forwarded and X-Forwarded-For naming other addresses, a
// victim's among them). The proxy overwrites them with the address it
// received from and the server reads only the header the proxy writes,
// so a forger is one client: 5 of its 20 calls are served, it keeps at
// most 100 sessions (MaxSessionsPerClient) however many it opens, and the
// victim whose address it named still gets its whole burst. Before:
// 20/20 calls, 150 sessions kept, and the victim refused.
func TestForgedForwarding(t *testing.T) {
	backend := startHTTP(t, "EVERYTHING_TRUSTED_PROXIES=127.0.0.1/32", "EVERYTHING_RATE_LIMIT=0.01", "EVERYTHING_RATE_BURST=5")
	ps := serveProxy(t, rrproxy.New([]string{backend}, nil))
	forger, victim := from("127.0.0.50"), from("127.0.0.51")
	forged := func(i int) map[string]string {
		addr := fmt.Sprintf("192.0.2.%d", i%250+1)
		if i%3 == 0 {
			addr = "127.0.0.51" // the victim
		}
		return map[string]string{"Forwarded": "for=" + addr, "X-Forwarded-For": addr}
	}
	send := func(c *http.Client, hdr map[string]string, body, sid string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, ps.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	served := 0
	for i := range 20 {
		hdr := forged(i)
		hdr["MCP-Protocol-Version"] = "2026-07-28"
		hdr["Mcp-Method"] = "tools/call"
		hdr["Mcp-Name"] = "echo"
		if st, _ := send(forger, hdr, call, ""); st == http.StatusOK {
			served++
		}
	}
	if served != 5 { // the burst
		t.Errorf("a client forging its forwarded address was served %d of 20 calls at a burst of 5", served)
	}
	victimServed := 0
	for range 5 {
		hdr := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
		if st, _ := send(victim, hdr, call, ""); st == http.StatusOK {
			victimServed++
		}
	}
	if victimServed != 5 {
		t.Errorf("the victim whose address was forged got %d of its burst of 5", victimServed)
	}

	// Sessions (on an instance without the rate limit): 150 opened with
	// forged addresses, at most 100 kept.
	backend = startHTTP(t, "EVERYTHING_TRUSTED_PROXIES=127.0.0.1/32")
	ps = serveProxy(t, rrproxy.New([]string{backend}, nil))
	var sids []string
	for i := range 150 {
		st, sid := send(forger, forged(i), initMsg, "")
		if st == http.StatusOK && sid != "" {
			sids = append(sids, sid)
		}
	}
	kept := 0
	for _, sid := range sids {
		if st, _, _ := post(t, from("127.0.0.52"), backend, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); st == http.StatusOK {
			kept++
		}
	}
	if kept > 100 {
		t.Errorf("a client forging its forwarded address keeps %d of the %d sessions it opened; the cap is 100", kept, len(sids))
	}
	t.Logf("forger: %d/20 calls served, %d/150 sessions kept; victim: %d/5 calls", served, kept, victimServed)
}
