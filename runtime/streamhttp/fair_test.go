package streamhttp

import (
	"fmt"
	"net/http"
	"net/netip"
	"testing"
)

// TestFairSessions: a few addresses holding every session, each used and
// re-touched, do not lock anyone out: a client under its fair share is
// admitted by ending a session of the biggest holder, again and again,
// while the holders' other sessions keep serving; a client at its share
// is not (503), and the holders cannot take room back from it.
func TestFairSessions(t *testing.T) {
	const max = 100
	h := newLimitsHandler(t, Options{MaxSessions: max, MaxSessionsPerClient: 25})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	use := func(remote, sid string) int {
		return serveAs(h, remote, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": revOld}, list).Code
	}
	open := func(remote string) (string, int) {
		w := serveAs(h, remote, nil, initBody())
		return w.Header().Get("Mcp-Session-Id"), w.Code
	}
	// 4 attacking addresses × 25 sessions, each used once.
	held := map[string][]string{}
	for a := range 4 {
		remote := fmt.Sprintf("192.0.2.%d:1", a+1)
		for range 25 {
			sid, code := open(remote)
			if code != 200 || use(remote, sid) != 200 {
				t.Fatalf("filling: %d", code)
			}
			held[remote] = append(held[remote], sid)
		}
	}
	retouch := func() {
		for remote, sids := range held {
			for _, sid := range sids {
				use(remote, sid)
			}
		}
	}
	// Ten newcomers, each from an address of its own.
	var newcomers []string
	for i := range 10 {
		retouch()
		remote := fmt.Sprintf("198.51.100.%d:1", i+1)
		sid, code := open(remote)
		if code != 200 {
			t.Fatalf("newcomer %d: %d, want 200 (under its fair share)", i, code)
		}
		newcomers = append(newcomers, remote+" "+sid)
	}
	if n := h.SessionCount(); n != max {
		t.Fatalf("%d sessions, want %d", n, max)
	}
	// The holders lost 10 sessions between them, evenly.
	alive := map[string]int{}
	for remote, sids := range held {
		for _, sid := range sids {
			if use(remote, sid) == 200 {
				alive[remote]++
			}
		}
	}
	for remote, n := range alive {
		if n < 22 || n > 23 {
			t.Errorf("%s keeps %d sessions, want 22 or 23 (the biggest give way first)", remote, n)
		}
	}
	// A holder opening another: at its share, with every session used just
	// now: 503, and the newcomers keep theirs.
	if _, code := open("192.0.2.1:1"); code != http.StatusServiceUnavailable {
		t.Errorf("a holder at its share: %d, want 503", code)
	}
	for _, n := range newcomers {
		var remote, sid string
		fmt.Sscan(n, &remote, &sid)
		if use(remote, sid) != 200 {
			t.Errorf("newcomer %s lost its session", remote)
		}
	}
}

// TestTrustedProxies: behind a trusted proxy the client is the address it
// forwards in the header the proxies write (the last one that is not
// itself a trusted proxy: what the client wrote before it does not
// count); the other header, which only the client can have written, is
// never read; from anyone else the headers are ignored.
func TestTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	xff := newLimitsHandler(t, Options{TrustedProxies: trusted})
	fwd := newLimitsHandler(t, Options{TrustedProxies: trusted, ForwardedHeader: "forwarded"})
	for _, tc := range []struct {
		h      *Handler
		remote string
		hdr    map[string]string
		want   string
	}{
		{xff, "192.0.2.1:5", nil, "192.0.2.1"},
		{xff, "192.0.2.1:5", map[string]string{"X-Forwarded-For": "203.0.113.9"}, "192.0.2.1"},
		{xff, "10.1.2.3:5", nil, "10.1.2.3"},
		{xff, "10.1.2.3:5", map[string]string{"X-Forwarded-For": "203.0.113.9"}, "203.0.113.9"},
		{xff, "10.1.2.3:5", map[string]string{"X-Forwarded-For": "1.1.1.1, 203.0.113.9, 10.9.9.9"}, "203.0.113.9"},
		{xff, "10.1.2.3:5", map[string]string{"X-Forwarded-For": "10.7.7.7, 10.9.9.9"}, "10.7.7.7"},
		{xff, "[::ffff:10.1.2.3]:5", map[string]string{"X-Forwarded-For": "203.0.113.9:443"}, "203.0.113.9"},
		// The proxy appends to X-Forwarded-For; the client's own
		// Forwarded, naming a victim, is not read.
		{xff, "10.1.2.3:5", map[string]string{"Forwarded": "for=198.51.100.7", "X-Forwarded-For": "203.0.113.9"}, "203.0.113.9"},
		{xff, "10.1.2.3:5", map[string]string{"Forwarded": "for=198.51.100.7"}, "10.1.2.3"},
		{fwd, "[::1]:5", map[string]string{"Forwarded": `for=192.0.2.60;proto=http, for="[2001:db8::17]:4711"`}, "2001:db8::17"},
		{fwd, "[::1]:5", map[string]string{"Forwarded": `for=_hidden`, "X-Forwarded-For": "203.0.113.9"}, "_hidden"},
		{fwd, "[::1]:5", map[string]string{"X-Forwarded-For": "198.51.100.7"}, "::1"},
		// What the client wrote before the proxy's own element.
		{fwd, "10.1.2.3:5", map[string]string{"Forwarded": "for=198.51.100.7, for=203.0.113.9"}, "203.0.113.9"},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.RemoteAddr = tc.remote
		for k, v := range tc.hdr {
			r.Header.Set(k, v)
		}
		if got := tc.h.clientAddr(r); got != tc.want {
			t.Errorf("%s %s %v: %q, want %q", tc.h.o.ForwardedHeader, tc.remote, tc.hdr, got, tc.want)
		}
	}
}
