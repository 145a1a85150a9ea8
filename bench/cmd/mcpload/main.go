// Command mcpload is the black-box load driver of the comparison: it runs
// any MCP server command (or talks to a URL), keeps a number of echo
// tools/call requests in flight for a while, verifies every response, and
// prints one JSON line per run:
//
//	mcpload --cmd bin/echo-mcpgen --era 2025-11-25 --concurrency 16 --duration 5s
//	mcpload --cmd bin/echo-plain --http --concurrency 16
//	mcpload --url http://127.0.0.1:8080/mcp --pid 1234 --era 2026-07-28
//	mcpload summarize runs.jsonl
//
// Over stdio one connection carries --concurrency requests at a time; over
// HTTP (--http starts the command with --http 127.0.0.1:0 --addr-file F)
// --concurrency clients each post one request at a time, each in a session
// of its own where the era has sessions. The server's CPU time per call
// and its peak RSS come from /proc/PID of the process the driver started
// (or --pid), measured over the timed window only, after --warmup.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// config is what one run measures.
type config struct {
	label       string
	rep         int
	cmd         string
	url         string
	http        bool
	pid         int
	era         string
	concurrency int
	duration    time.Duration
	warmup      time.Duration
	textBytes   int
}

// result is the JSON line of one run.
type result struct {
	Label       string  `json:"label"`
	Rep         int     `json:"rep"`
	Transport   string  `json:"transport"`
	Era         string  `json:"era"`
	Concurrency int     `json:"concurrency"`
	TextBytes   int     `json:"text_bytes"`
	Calls       int     `json:"calls"`
	Errors      int     `json:"errors"`
	Seconds     float64 `json:"seconds"`
	CallsPerSec float64 `json:"calls_per_sec"`
	P50Micros   float64 `json:"p50_us"`
	P99Micros   float64 `json:"p99_us"`
	// ServerCPUMicros is the server process's user+system CPU time per
	// call over the timed window (0 when the driver knows no PID).
	ServerCPUMicros float64 `json:"server_cpu_us_per_call"`
	// ServerPeakRSSKiB is the server's VmHWM at the end of the run.
	ServerPeakRSSKiB int `json:"server_peak_rss_kib"`
	// FirstError describes the first response that failed verification.
	FirstError string `json:"first_error,omitempty"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "summarize" {
		if err := summarize(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcpload summarize:", err)
			os.Exit(1)
		}
		return
	}
	var c config
	flag.StringVar(&c.label, "label", "", "the run's `NAME` in the output (default: the command)")
	flag.IntVar(&c.rep, "rep", 0, "the repetition `N` this run belongs to (for summarize's per-rep ratios)")
	flag.StringVar(&c.cmd, "cmd", "", "the server `COMMAND` (split on spaces) to start")
	flag.StringVar(&c.url, "url", "", "the endpoint `URL` of a running HTTP server instead of --cmd")
	flag.BoolVar(&c.http, "http", false, "start --cmd with --http 127.0.0.1:0 --addr-file FILE and speak Streamable HTTP")
	flag.IntVar(&c.pid, "pid", 0, "with --url, the server's `PID` for CPU and RSS figures")
	flag.StringVar(&c.era, "era", "2025-11-25", "the protocol `REVISION`: 2025-11-25 (initialize, sessions) or 2026-07-28 (stateless, _meta on every request)")
	flag.IntVar(&c.concurrency, "concurrency", 1, "requests in flight on the stdio connection, or HTTP clients")
	flag.DurationVar(&c.duration, "duration", 5*time.Second, "the timed window")
	flag.DurationVar(&c.warmup, "warmup", time.Second, "load before the timed window, not counted")
	flag.IntVar(&c.textBytes, "text-bytes", 5, "the size of the echoed text")
	flag.Parse()
	if c.label == "" {
		c.label = c.cmd + c.url
	}
	if (c.cmd == "") == (c.url == "") {
		fmt.Fprintln(os.Stderr, "mcpload: give --cmd or --url")
		os.Exit(2)
	}
	if c.era != "2025-11-25" && c.era != "2026-07-28" {
		fmt.Fprintln(os.Stderr, "mcpload: --era is 2025-11-25 or 2026-07-28")
		os.Exit(2)
	}
	res, err := run(context.Background(), c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpload:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	if res.Errors > 0 {
		os.Exit(1)
	}
}

// run measures one configuration.
func run(ctx context.Context, c config) (*result, error) {
	text := makeText(c.textBytes)
	if c.url != "" || c.http {
		return runHTTP(ctx, c, text)
	}
	return runStdio(ctx, c, text)
}

// makeText returns n bytes of lowercase letters (no JSON escaping, so the
// response can be checked by a byte search).
func makeText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}
