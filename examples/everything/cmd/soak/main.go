// Command soak runs a mixed load against bin/everything for a while and
// reports what it saw: calls made, errors, and the server's resident
// memory over time (it must stay flat). One server process serves
// Streamable HTTP (stateful and stateless sessions, each worker opening a
// new session now and then) and one serves stdio; the calls mix echo,
// tools/list, resources/read and count_to run to its end.
//
//	go run ./cmd/soak --server ../../bin/everything --duration 5m
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

func main() {
	server := flag.String("server", "bin/everything", "the server `BINARY`")
	duration := flag.Duration("duration", 5*time.Minute, "how long to run")
	workers := flag.Int("workers", 4, "workers per transport and era")
	flag.Parse()
	if err := run(*server, *duration, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// counts are what the workers saw.
type counts struct {
	calls, errs atomic.Int64
	mu          sync.Mutex
	first       []string // the first errors, for the report
}

func (c *counts) fail(err error) {
	c.errs.Add(1)
	c.mu.Lock()
	if len(c.first) < 5 {
		c.first = append(c.first, err.Error())
	}
	c.mu.Unlock()
}

func run(server string, d time.Duration, workers int) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	addrFile := filepath.Join(dir, "addr")
	httpSrv := exec.Command(server, "--http", "127.0.0.1:0", "--addr-file", addrFile)
	if err := httpSrv.Start(); err != nil {
		return err
	}
	defer func() { _ = httpSrv.Process.Signal(os.Interrupt); _ = httpSrv.Wait() }()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == ""; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(addrFile); err == nil {
			addr = strings.TrimSpace(string(b))
		} else if time.Now().After(deadline) {
			return errors.New("the HTTP server did not start")
		}
	}
	url := "http://" + addr + "/mcp"
	stdioTr := &stdio.CommandTransport{Path: server}

	var httpC, stdioC counts
	var wg sync.WaitGroup
	for i := range workers {
		for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
			wg.Go(func() { work(ctx, &streamhttp.ClientTransport{URL: url}, era, i, &httpC) })
		}
	}
	// One stdio server process, one session: its connection is shared.
	cs, err := rt.Connect(ctx, stdioTr, rt.ClientOptions{Name: "soak", Version: "1", Era: rt.Stateless}, v25.Mount(struct{}{}), v26.Mount(struct{}{}))
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	stdioPID := childOtherThan(httpSrv.Process.Pid)
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				call(ctx, cs, &stdioC)
			}
		})
	}
	fmt.Printf("%-8s %10s %8s %12s %12s\n", "elapsed", "calls", "errors", "http RSS MB", "stdio RSS MB")
	start := time.Now()
	tick := time.NewTicker(max(d/10, time.Second))
	defer tick.Stop()
	report := func() {
		fmt.Printf("%-8s %10d %8d %12.1f %12.1f\n", time.Since(start).Round(time.Second), httpC.calls.Load()+stdioC.calls.Load(), httpC.errs.Load()+stdioC.errs.Load(), rssMB(httpSrv.Process.Pid), rssMB(stdioPID))
	}
	report()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-tick.C:
			report()
		}
	}
	wg.Wait()
	report()
	_ = cs.Close()
	fmt.Printf("http: %d calls, %d errors; stdio: %d calls, %d errors\n", httpC.calls.Load(), httpC.errs.Load(), stdioC.calls.Load(), stdioC.errs.Load())
	for _, e := range append(httpC.first, stdioC.first...) {
		fmt.Println("  error:", e)
	}
	if httpC.errs.Load()+stdioC.errs.Load() > 0 {
		return errors.New("errors seen")
	}
	return nil
}

// work is one HTTP worker: sessions of era, a new one every 500 calls.
func work(ctx context.Context, tr rt.ClientTransport, era rt.Era, i int, c *counts) {
	for ctx.Err() == nil {
		cs, err := rt.Connect(ctx, tr, rt.ClientOptions{Name: "soak-" + strconv.Itoa(i), Version: "1", Era: era}, v25.Mount(struct{}{}), v26.Mount(struct{}{}))
		if err != nil {
			if ctx.Err() == nil {
				c.fail(fmt.Errorf("connect: %w", err))
			}
			continue
		}
		for n := 0; n < 500 && ctx.Err() == nil; n++ {
			call(ctx, cs, c)
		}
		_ = cs.Close()
	}
}

// call makes one call of the mix.
func call(ctx context.Context, cs *rt.ClientSession, c *counts) {
	var err error
	var res wire.Raw
	switch c.calls.Add(1) % 5 {
	case 0, 1:
		err = cs.Call(ctx, "tools/call", wire.Raw(`{"name":"echo","arguments":{"text":"soak"}}`), &res)
	case 2:
		err = cs.Call(ctx, "tools/list", wire.Raw(`{}`), &res)
	case 3:
		err = cs.Call(ctx, "resources/read", wire.Raw(`{"uri":"test://static-text"}`), &res)
	case 4:
		token := ""
		for {
			params := `{"name":"count_to","arguments":{"n":25}`
			if token != "" {
				params += `,"resumeToken":"` + token + `"`
			}
			var r struct {
				NextResumeToken string `json:"nextResumeToken"`
			}
			var raw wire.Raw
			if err = cs.Call(ctx, "tools/call", wire.Raw(params+`}`), &raw); err != nil {
				break
			}
			_ = json.Unmarshal(raw, &r)
			if token = r.NextResumeToken; token == "" {
				break
			}
		}
	}
	if err != nil && ctx.Err() == nil {
		c.fail(err)
	}
}

// childOtherThan finds the pid of this process's child that is not pid:
// the stdio server CommandTransport started (0 when not found).
func childOtherThan(pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == pid {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		if i := strings.LastIndexByte(string(b), ')'); i > 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
				return n
			}
		}
	}
	return 0
}

// rssMB is the resident memory of process pid in MB (0 when unknown).
func rssMB(pid int) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 64)
			return n / 1024
		}
	}
	return 0
}
