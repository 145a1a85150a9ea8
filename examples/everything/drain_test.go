package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Drain tests run the real server process, as a supervisor or a pipe
// would: the requests it read before its input ended or it was asked to
// stop are answered, and it exits 0.

// processRun is one run of the server over stdio.
type processRun struct {
	results, errors int
	parseErrors     int
	exit            int
	took            time.Duration
}

// runStdio writes lines to a fresh server process, then closes its input
// (eof) or sends it SIGTERM once it has sent n progress notifications (the
// calls are all running: the slow tool reports progress 0 when it starts),
// and counts the responses to ids 1..n until its output ends.
func runStdio(t *testing.T, lines []string, n int, eof bool) processRun {
	t.Helper()
	cmd := exec.Command(binary)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr capturedLog
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var run processRun
	done := make(chan struct{})
	running := make(chan struct{})
	go func() {
		defer close(done)
		progress := 0
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r struct {
				Method string          `json:"method"`
				ID     any             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				continue
			}
			if r.Method == "notifications/progress" {
				if progress++; progress == n {
					close(running)
				}
				continue
			}
			id, isNum := r.ID.(float64)
			switch {
			case r.Error != nil && r.Error.Code == -32700:
				run.parseErrors++
			case !isNum || id < 1 || int(id) > n:
			case r.Error != nil:
				run.errors++
			case r.Result != nil:
				run.results++
			}
		}
	}()
	w := bufio.NewWriter(stdin)
	for _, l := range lines {
		w.WriteString(l + "\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if eof {
		stdin.Close()
	} else {
		select {
		case <-running:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("the calls did not all start; stderr:\n%s", stderr.String())
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the server did not finish; stderr:\n%s", stderr.String())
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		run.exit = ee.ExitCode()
	}
	if !eof {
		stdin.Close()
	}
	run.took = time.Since(start)
	if run.exit != 0 {
		t.Logf("stderr:\n%s", stderr.String())
	}
	return run
}

func calls(n int, format string) []string {
	out := []string{initLegacy, initDone}
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf(format, i))
	}
	return out
}

// TestStdioDrain: pipelined calls then the end of input, a malformed line
// among them, and SIGTERM while calls run: every call is answered, the
// process exits 0.
func TestStdioDrain(t *testing.T) {
	echo := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	slow := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":1},"_meta":{"progressToken":"p"}}}`
	tests := []struct {
		name    string
		lines   []string
		n       int
		eof     bool
		results int
		parse   int
	}{
		{"EOF after 100 pipelined echo calls", calls(100, echo), 100, true, 100, 0},
		{"EOF after 10 one-second calls", calls(10, slow), 10, true, 10, 0},
		{"a malformed line, 20 echo calls, EOF", append([]string{`{"jsonrpc":"2.0","id":0,"method":`}, calls(20, echo)...), 20, true, 20, 1},
		{"SIGTERM while 10 one-second calls run", calls(10, slow), 10, false, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runStdio(t, tt.lines, tt.n, tt.eof)
			t.Logf("%d of %d answered with a result, %d with an error, %d -32700; exit %d after %v", run.results, tt.n, run.errors, run.parseErrors, run.exit, run.took.Round(time.Millisecond))
			if run.results != tt.results || run.errors != 0 || run.parseErrors != tt.parse || run.exit != 0 {
				t.Errorf("want %d results, 0 errors, %d -32700, exit 0", tt.results, tt.parse)
			}
		})
	}
}

// TestHTTPDrain: SIGTERM while stateless and stateful calls run over HTTP:
// a request sent during the drain gets 503; the calls are answered, with
// their result when they finish within the drain timeout (5s), else with
// -32603; the process exits 0.
func TestHTTPDrain(t *testing.T) {
	tests := []struct {
		name    string
		seconds int
		want    string // in every answer
	}{
		{"calls finishing within the drain", 2, `"slept 2s"`},
		{"calls outlasting the drain", 30, `"code":-32603`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			httpDrain(t, tt.seconds, tt.want)
		})
	}
}

func httpDrain(t *testing.T, seconds int, want string) {
	cmd, url, stderr := launchHTTP(t)
	defer cmd.Process.Kill()
	client := &http.Client{Transport: &http.Transport{}, Timeout: 2 * time.Minute}
	// post sends a request and reads its answer; started is called when
	// the answer brings a progress notification (the call is running).
	post := func(body string, hdr map[string]string, started func()) (int, string, http.Header) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err.Error(), nil
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if started != nil && strings.Contains(sc.Text(), `"notifications/progress"`) {
				started()
				started = nil
			}
			b.WriteString(sc.Text())
			b.WriteByte('\n')
		}
		return resp.StatusCode, b.String(), resp.Header
	}
	_, _, h := post(initLegacy, nil, nil)
	sess := map[string]string{"Mcp-Session-Id": h.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	post(initDone, sess, nil)
	const n = 5
	var wg, running sync.WaitGroup
	var mu sync.Mutex
	answered := 0
	args := fmt.Sprintf(`{"seconds":%d}`, seconds)
	running.Add(2 * n)
	for i := range 2 * n {
		wg.Go(func() {
			// Each call asks for progress: the slow tool reports 0 when
			// it starts, and SIGTERM waits for every call to be running.
			var body string
			id := fmt.Sprint(i + 1)
			if i%2 == 0 {
				_, body, _ = post(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"slow","arguments":`+args+`,"_meta":{"progressToken":`+id+`}}}`, sess, running.Done)
			} else {
				_, body, _ = post(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"slow","arguments":`+args+`,"_meta":{"progressToken":`+id+`,`+strings.TrimSuffix(strings.TrimPrefix(meta26, `"_meta":{`), "}")+`}}}`, headers26("tools/call", "slow"), running.Done)
			}
			if strings.Contains(body, want) {
				mu.Lock()
				answered++
				mu.Unlock()
			} else {
				t.Errorf("call %d: %s", i+1, body)
			}
		})
	}
	allRunning := make(chan struct{})
	go func() { running.Wait(); close(allRunning) }()
	select {
	case <-allRunning:
	case <-time.After(30 * time.Second):
		t.Fatalf("the calls did not all start; stderr:\n%s", stderr.String())
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The drain begins when the process handles the signal: until then a
	// new request is still served. The first one not served must get 503.
	late := `{"jsonrpc":"2.0","id":"late","method":"tools/list","params":{` + meta26 + `}}`
	var st int
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; {
		st, body, _ = post(late, headers26("tools/list", ""), nil)
		if st != http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st != 503 {
		t.Errorf("a request during the drain: %d %s", st, body)
	}
	wg.Wait()
	err := cmd.Wait()
	exit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	}
	t.Logf("%d of %d calls in progress answered with %s; a request during the drain got %d; exit %d, %v after SIGTERM", answered, 2*n, want, st, exit, time.Since(start).Round(time.Millisecond))
	if answered != 2*n || exit != 0 {
		t.Errorf("want every call answered and exit 0; stderr:\n%s", stderr.String())
	}
}
