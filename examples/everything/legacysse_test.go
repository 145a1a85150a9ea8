package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
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
