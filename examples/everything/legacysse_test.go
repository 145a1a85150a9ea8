package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
)

// ssePeer reads the message events of an HTTP+SSE stream.
type ssePeer struct {
	t        *testing.T
	endpoint string
	msgs     chan map[string]any
	body     io.ReadCloser
}

// openSSE GETs url (an /sse endpoint) and reads its endpoint event.
func openSSE(t *testing.T, url string) *ssePeer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := testHTTP.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", url, resp, err)
	}
	p := &ssePeer{t: t, msgs: make(chan map[string]any, 64), body: resp.Body}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	event := ""
	ready := make(chan struct{})
	go func() {
		defer close(p.msgs)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "endpoint":
				p.endpoint = strings.TrimPrefix(line, "data: ")
				close(ready)
			case strings.HasPrefix(line, "data: ") && event == "message":
				var m map[string]any
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m) == nil {
					p.msgs <- m
				}
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(5 * time.Second):
		t.Fatal("no endpoint event")
	}
	return p
}

// next is the next message on the stream.
func (p *ssePeer) next() map[string]any {
	p.t.Helper()
	select {
	case m := <-p.msgs:
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no message on the stream within 10s")
	}
	return nil
}

// post POSTs a message to base+path and returns the status.
func postTo(t *testing.T, url, body string) int {
	t.Helper()
	resp, err := testHTTP.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestLegacySSEAcrossInstances: an HTTP+SSE session whose stream instance
// A holds, its messages POSTed to instance B (sharing a real redis-server:
// the session in the store, the messages relayed): initialize, which B
// cannot serve before the session has state, B relays to A; B serves the
// calls after it, and their answers reach A's stream; a tool on B asks the client
// for a completion on A's stream, and the answer POSTed to A reaches the
// tool on B. When the stream on A ends, a POST to B is refused (404), not
// accepted into the void.
func TestLegacySSEAcrossInstances(t *testing.T) {
	redis := redistest.Start(t)
	store := "EVERYTHING_REDIS=redis://" + redis.Addr + "/0"
	a := strings.TrimSuffix(startHTTP(t, store), "/mcp")
	b := strings.TrimSuffix(startHTTP(t, store), "/mcp")
	p := openSSE(t, a+"/sse")
	onB, onA := b+p.endpoint, a+p.endpoint
	// Even initialize may reach the other instance: B relays it to A,
	// which holds the session (the store knows it exists, and whose).
	if st := postTo(t, onB, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`); st != http.StatusAccepted {
		t.Fatalf("initialize on B: %d", st)
	}
	if m := p.next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize answered %v", m)
	}
	postTo(t, onB, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if st := postTo(t, onB, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"via B"}}}`); st != http.StatusAccepted {
		t.Fatalf("tools/call on B: %d", st)
	}
	if m := p.next(); m["id"] != float64(2) || !strings.Contains(mustJSON(m["result"]), "via B") {
		t.Fatalf("echo on B answered on A's stream: %v", m)
	}
	// B's tool asks the client; the answer goes to A, which relays it.
	postTo(t, onB, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"hi"}}}`)
	req := p.next()
	if req["method"] != "sampling/createMessage" {
		t.Fatalf("want sampling/createMessage on A's stream, got %v", req)
	}
	id, _ := json.Marshal(req["id"])
	if st := postTo(t, onA, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"sampled across instances"}}}`); st != http.StatusAccepted {
		t.Fatalf("the answer on A: %d", st)
	}
	if m := p.next(); m["id"] != float64(3) || !strings.Contains(mustJSON(m["result"]), "sampled across instances") {
		t.Fatalf("test_sampling on B answered %v", m)
	}
	// The stream ends: so does the session, on every instance.
	p.body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		st := postTo(t, onB, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
		if st == http.StatusNotFound {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("a POST to B after the stream on A ended: %d, want 404", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLegacySSEClientNeverReads: a client opens its HTTP+SSE stream on
// bin/everything and never reads it, POSTing 256 KiB echo calls as fast as
// it can (8 at a time). The server takes what its bounds allow (the
// session's requests in progress and the bytes waiting for its stream;
// Options.MaxSSEPending, MaxSSEPendingBytes) and refuses the rest with 429
// and Retry-After; once the answers waiting alone go beyond the bound it
// cuts the stream, ending the session (its POSTs then get 404). Its memory
// stays flat: before the bounds, every POST was accepted and the answers
// waited behind the stalled stream (RSS 22 -> 1,039 MB for 2,400 such
// calls). Another client is served meanwhile.
func TestLegacySSEClientNeverReads(t *testing.T) {
	cmd, url, stderr := launchHTTP(t)
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := strings.TrimSuffix(url, "/mcp")
	host := strings.TrimPrefix(base, "http://")

	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(conn, "GET /sse HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", host)
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
	post := base + endpoint
	if st := postTo(t, post, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); st != http.StatusAccepted {
		t.Fatalf("initialize: %d", st)
	}
	postTo(t, post, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	before := vmKiB(t, cmd.Process.Pid, "VmRSS")

	text := strings.Repeat("x", 256<<10)
	var mu sync.Mutex
	statuses := map[int]int{}
	var refusal string
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				resp, err := testHTTP.Post(post, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+text+`"}}}`))
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				if resp.StatusCode == http.StatusTooManyRequests && refusal == "" {
					refusal = resp.Header.Get("Retry-After") + " " + string(b)
				}
				mu.Unlock()
			}
		})
	}
	for i := range 1200 {
		next <- i + 2
	}
	close(next)
	wg.Wait()
	peak := vmKiB(t, cmd.Process.Pid, "VmHWM")
	t.Logf("1200 POSTs of 256 KiB to a stream never read: %v; RSS %d MiB before, peak %d MiB (a -race build)", statuses, before>>10, peak>>10)
	// Refused while the stream holds what it may (429, with Retry-After
	// and the reason), or, once the answers waiting for the stream alone
	// go beyond the bound, after the server cut the stream and ended the
	// session (404).
	if statuses[http.StatusAccepted] > 200 || statuses[http.StatusAccepted]+statuses[http.StatusTooManyRequests]+statuses[http.StatusNotFound] != 1200 {
		t.Errorf("POSTs to a session whose stream is never read: %v; want at most 200 accepted, the rest refused", statuses)
	}
	if statuses[http.StatusTooManyRequests] > 0 && (!strings.Contains(refusal, "read the stream") || strings.HasPrefix(refusal, " ")) {
		t.Errorf("a 429 without Retry-After and its reason: %q", refusal)
	}
	if grew := (peak - before) >> 10; grew > 400 {
		t.Errorf("the server's peak RSS grew by %d MiB for a client that never reads\n%s", grew, stderr.String())
	}
	// Another client is served meanwhile.
	p := openSSE(t, base+"/sse")
	postTo(t, base+p.endpoint, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := p.next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("another client's initialize: %v", m)
	}
}

// vmKiB is a field of /proc/PID/status (VmRSS, VmHWM) in KiB.
func vmKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}
