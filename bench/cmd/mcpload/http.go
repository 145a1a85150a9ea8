package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runHTTP measures c over Streamable HTTP: the server at c.url, or c.cmd
// started to listen on a free loopback port.
func runHTTP(ctx context.Context, c config, text string) (*result, error) {
	url, pid := c.url, c.pid
	if c.cmd != "" {
		dir, err := os.MkdirTemp("", "mcpload")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		addrFile := filepath.Join(dir, "addr")
		args := append(strings.Fields(c.cmd), "--http", "127.0.0.1:0", "--addr-file", addrFile)
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start %s: %w", c.cmd, err)
		}
		defer func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}()
		addr, err := waitForFile(addrFile, 10*time.Second)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; stderr: %.500s", c.cmd, err, stderr.String())
		}
		url, pid = "http://"+addr+"/mcp", cmd.Process.Pid
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.concurrency, MaxConnsPerHost: c.concurrency}}
	now := time.Now()
	total := &window{start: now.Add(c.warmup), stop: now.Add(c.warmup + c.duration)}
	server := watchServer(pid, total.start, total.stop)
	windows := make([]*window, c.concurrency)
	errs := make([]error, c.concurrency)
	var wg sync.WaitGroup
	for i := range c.concurrency {
		windows[i] = &window{start: total.start, stop: total.stop}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = httpClient(ctx, client, url, c.era, text, windows[i])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, w := range windows {
		total.merge(w)
	}
	r := &result{Label: c.label, Rep: c.rep, Transport: "http", Era: c.era, Concurrency: c.concurrency, TextBytes: c.textBytes}
	total.result(r)
	server(r)
	return r, nil
}

// waitForFile returns the contents of path once it is not empty.
func waitForFile(path string, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return string(bytes.TrimSpace(b)), nil // (some servers end it with a newline)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", fmt.Errorf("no address in %s after %v", path, limit)
}

// httpClient is one client: it opens a session where the era has them,
// then posts one call at a time until the window's stop.
func httpClient(ctx context.Context, client *http.Client, url, era, text string, w *window) error {
	h := http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {era},
	}
	if era == "2025-11-25" {
		init := h.Clone()
		delete(init, "Mcp-Protocol-Version")
		resp, body, err := post(ctx, client, url, init, []byte(initialize))
		if err != nil || !bytes.Contains(body, []byte(`"result"`)) {
			return fmt.Errorf("initialize: %v %.300s", err, body)
		}
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			h.Set("Mcp-Session-Id", sid)
		}
		if _, _, err := post(ctx, client, url, h, []byte(initialized)); err != nil {
			return fmt.Errorf("notifications/initialized: %w", err)
		}
	} else {
		h.Set("Mcp-Method", "tools/call")
		h.Set("Mcp-Name", "echo")
	}
	call := newCall(era, text)
	chk := newChecker(text)
	var buf []byte
	for id := int64(1); ; id++ {
		sent := time.Now()
		if !sent.Before(w.stop) {
			return nil
		}
		buf = call.append(buf[:0], id)
		_, body, err := post(ctx, client, url, h, buf)
		if err == nil {
			var got int64
			got, err = chk.check(body)
			if err == nil && got != id {
				err = fmt.Errorf("response to %d for request %d", got, id)
			}
		}
		w.add(sent, time.Now(), err)
	}
}

// post sends one JSON-RPC message and reads the whole answer.
func post(ctx context.Context, client *http.Client, url string, h http.Header, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = h
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("HTTP %s: %.300s", resp.Status, b)
	}
	return resp, b, err
}
