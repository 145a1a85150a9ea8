package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
)

// TestStoreOutage: instances sharing a real redis-server that crashes
// (SIGKILL) and restarts, with and without persistence (appendonly,
// fsync always). While it is down, the sessions an instance holds go on
// being served there (new ones get 503, clearly); a DELETE ends its
// session at once where it is received, and on the others once the store
// is back. After the restart the instances write back what the store
// missed, so a held session continues on any instance even when the
// restarted Redis remembers nothing; a session no instance held survives
// only with persistence.
func TestStoreOutage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		start  func(*testing.T) *redistest.Server
		orphan int // what a session no instance held gets after the restart
	}{
		{"aof", redistest.StartAOF, http.StatusOK},
		{"no persistence", redistest.Start, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := tc.start(t)
			store := "EVERYTHING_REDIS=redis://" + redis.Addr + "/0"
			a, b := startHTTP(t, store), startHTTP(t, store)
			open := func(url string) string {
				t.Helper()
				resp := postSession(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				sid := resp.Header.Get("Mcp-Session-Id")
				resp.Body.Close()
				if sid == "" {
					t.Fatalf("initialize on %s: %d", url, resp.StatusCode)
				}
				postSession(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
				return sid
			}
			id := 100 // every request of a session has an id of its own
			list := func(url, sid string) (int, string) {
				t.Helper()
				id++
				resp := postSession(t, url, sid, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/list"}`)
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp.StatusCode, string(b)
			}
			held, doomed := open(a), open(a)
			for _, sid := range []string{held, doomed} {
				if code, body := list(b, sid); code != 200 {
					t.Fatalf("the session on B before the outage: %d %s", code, body)
				}
			}
			// A session only the store knows: its instance is gone.
			cmd, c, _ := launchHTTP(t, store)
			orphan := open(c)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()

			redis.Kill()
			for _, url := range []string{a, b} {
				if code, body := list(url, held); code != 200 {
					t.Errorf("a held session while the store is down: %d %s; want it served", code, body)
				}
			}
			resp := postSession(t, a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "session store unavailable") {
				t.Errorf("a new session while the store is down: %d %s", resp.StatusCode, body)
			}
			del, _ := http.NewRequest(http.MethodDelete, a, nil)
			del.Header.Set("Mcp-Session-Id", doomed)
			del.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			dr, err := testHTTP.Do(del)
			if err != nil {
				t.Fatal(err)
			}
			dr.Body.Close()
			if code, _ := list(a, doomed); dr.StatusCode != 200 || code != http.StatusNotFound {
				t.Errorf("DELETE while the store is down: %d, then %d on A; want 200 then 404", dr.StatusCode, code)
			}

			redis.Restart()
			if code, body := list(a, held); code != 200 {
				t.Errorf("the held session on A after the restart: %d %s", code, body)
			}
			// A fresh instance restores what A and B wrote back.
			d := startHTTP(t, store)
			waitStatus(t, func() int { code, _ := list(d, held); return code }, 200, "the held session on a fresh instance")
			waitStatus(t, func() int { code, _ := list(b, doomed); return code }, http.StatusNotFound, "the session ended during the outage, on B")
			if code, body := list(d, orphan); code != tc.orphan {
				t.Errorf("a session no instance held, after the restart: %d %s; want %d", code, body, tc.orphan)
			}
		})
	}
}

// waitStatus polls f for 10 seconds until it gives want.
func waitStatus(t *testing.T, f func() int, want int, what string) {
	t.Helper()
	var got int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = f(); got == want {
			return
		}
	}
	t.Errorf("%s: %d, want %d", what, got, want)
}
