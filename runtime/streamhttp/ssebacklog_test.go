package streamhttp

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSSEPendingBound: an HTTP+SSE session's POSTs are answered 202
// before their handlers run, so the session's requests in progress are
// bounded apart (MaxSSEPending): one more is refused with 429 and
// Retry-After, and not served; another principal's session is not
// affected; once the answers are out, the session takes requests again.
func TestSSEPendingBound(t *testing.T) {
	h, base, ts := sseFixtureServer(t, Options{MaxSSEPending: 3})
	alice := map[string]string{"Authorization": "Bearer alice"}
	p, _ := openSSEPeer(t, base, alice)
	p.post("", sseInit, alice)
	p.next()
	p.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, alice)
	for i, key := range []string{"a", "b", "c"} {
		if st, body := p.post("", `{"jsonrpc":"2.0","id":`+string(rune('2'+i))+`,"method":"tools/call","params":{"name":"deaf","arguments":{"key":"`+key+`"}}}`, alice); st != http.StatusAccepted {
			t.Fatalf("request %d: %d %s", i, st, body)
		}
		<-ts.started
	}
	req, _ := http.NewRequest(http.MethodPost, base+p.endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"one too many"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "3 requests in progress") {
		t.Fatalf("the fourth request in progress: %d Retry-After %q %s; want 429 naming the bound", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	// Bob's session is his own.
	bob := map[string]string{"Authorization": "Bearer bob"}
	q, _ := openSSEPeer(t, base, bob)
	q.post("", sseInit, bob)
	q.next()
	q.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, bob)
	if st, _ := q.post("", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"bob"}}}`, bob); st != http.StatusAccepted {
		t.Fatalf("bob's call while alice is at her bound: %d", st)
	}
	if m := q.next(); string(m.ID) != "2" || !strings.Contains(string(m.Result), "bob") {
		t.Fatalf("bob's answer: %+v", m)
	}

	for _, key := range []string{"a", "b", "c"} {
		close(ts.gate(key))
	}
	seen := map[string]bool{}
	for range 3 {
		m := p.next()
		seen[string(m.ID)] = true
		if string(m.ID) == "9" {
			t.Fatal("the refused request was served")
		}
	}
	if len(seen) != 3 {
		t.Fatalf("answers %v", seen)
	}
	if st, _ := p.post("", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}`, alice); st != http.StatusAccepted {
		t.Fatalf("a request once the others are answered: %d", st)
	}
	if m := p.next(); string(m.ID) != "10" {
		t.Fatalf("answer %+v", m)
	}
	h.busyMu.Lock()
	n := 0
	if c := h.perClient[requesterKey{'p', "alice"}]; c != nil {
		n = int(c.n.Load())
	}
	h.busyMu.Unlock()
	if n > 1 { // the GET stream
		t.Errorf("alice holds %d requests in progress with none running", n)
	}
}

// TestSSEReaderStalls: a client that opens its HTTP+SSE stream and
// never reads it, POSTing calls with big answers. The answers wait for
// the stream within MaxSSEPendingBytes, POSTs beyond it get 429, and once
// the answers waiting alone go beyond, the stream is cut and its session
// ends (its POSTs then get 404): what the server holds for the client
// stays bounded and is all given back.
func TestSSEReaderStalls(t *testing.T) {
	const bound = 256 << 10
	h, base := sseFixture(t, Options{MaxSSEPendingBytes: bound, KeepAlive: -1, StallTimeout: 500 * time.Millisecond})
	alice := map[string]string{"Authorization": "Bearer alice"}

	// The stream, read up to its endpoint event and then never again.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := conn.Write([]byte("GET /sse HTTP/1.1\r\nHost: " + strings.TrimPrefix(base, "http://") + "\r\nAccept: text/event-stream\r\nAuthorization: Bearer alice\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReaderSize(conn, 512)
	endpoint := ""
	for endpoint == "" {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream's head: %v", err)
		}
		if e, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = e
		}
	}
	p := &ssePeer{t: t, base: base, endpoint: endpoint}
	if st, _ := p.post("", sseInit, alice); st != http.StatusAccepted {
		t.Fatalf("initialize: %d", st)
	}
	p.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, alice)

	big := strings.Repeat("x", 32<<10)
	statuses := map[int]int{}
	cut := false
	for i := 0; i < 5000 && !cut; i++ {
		st, body := p.post("", `{"jsonrpc":"2.0","id":`+itoa(i+2)+`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+big+`"}}}`, alice)
		statuses[st]++
		switch st {
		case http.StatusAccepted:
		case http.StatusTooManyRequests:
			if !strings.Contains(body, "read the stream") && !strings.Contains(body, "requests in progress") {
				t.Fatalf("429 without its reason: %s", body)
			}
		case http.StatusNotFound:
			cut = true
		default:
			t.Fatalf("POST %d: %d %s", i, st, body)
		}
	}
	if !cut {
		t.Fatalf("the stream of a client that never reads was not cut after 5000 calls: %v", statuses)
	}
	t.Logf("POST statuses until the stream was cut: %v", statuses)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		held := h.busyClients()
		if h.SessionCount() == 0 && held == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the cut: %d sessions, %d clients holding requests", h.SessionCount(), held)
		}
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return b.String()
}
