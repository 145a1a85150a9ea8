package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// runStdio starts c.cmd and measures it over its standard input and output.
func runStdio(ctx context.Context, c config, text string) (*result, error) {
	args := strings.Fields(c.cmd)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.cmd, err)
	}
	in := bufio.NewReaderSize(stdout, 1<<20)
	var reading sync.WaitGroup
	res, err := loadStdio(c, text, cmd.Process.Pid, stdin, in, &reading)
	stdin.Close()
	// The server may still answer what it drains: the reading goroutine
	// reads to the end, or (without one) this one does.
	reading.Wait()
	_, _ = io.Copy(io.Discard, in)
	if werr := cmd.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("%s: %w; stderr: %.500s", c.cmd, werr, stderr.String())
	}
	return res, err
}

// loadStdio runs the handshake and the load on one stdio connection; the
// goroutine reading the answers, counted in reading, reads in to its end.
func loadStdio(c config, text string, pid int, out io.Writer, in *bufio.Reader, reading *sync.WaitGroup) (*result, error) {
	if c.era == "2025-11-25" {
		if _, err := io.WriteString(out, initialize+"\n"); err != nil {
			return nil, err
		}
		line, err := in.ReadBytes('\n')
		if err != nil || !bytes.Contains(line, []byte(`"result"`)) {
			return nil, fmt.Errorf("initialize: %q %v", line, err)
		}
		if _, err := io.WriteString(out, initialized+"\n"); err != nil {
			return nil, err
		}
	}
	now := time.Now()
	w := &window{start: now.Add(c.warmup), stop: now.Add(c.warmup + c.duration)}
	server := watchServer(pid, w.start, w.stop)

	// sent[id % len(sent)] is when request id was written (UnixNano); at
	// most c.concurrency ids are outstanding, far fewer than len(sent).
	sent := make([]atomic.Int64, 1<<16)
	tokens := make(chan struct{}, c.concurrency)
	for range c.concurrency {
		tokens <- struct{}{}
	}
	chk := newChecker(text)
	readErr := make(chan error, 1)
	reading.Add(1)
	go func() {
		defer reading.Done()
		for {
			line, err := in.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				at := time.Now()
				id, cerr := chk.check(line)
				w.add(time.Unix(0, sent[id%int64(len(sent))].Load()), at, cerr)
				select {
				case tokens <- struct{}{}:
				default: // an answer to no outstanding call: no token to give back
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()

	call := newCall(c.era, text)
	var buf []byte
	var id int64
	for time.Now().Before(w.stop) {
		select {
		case <-tokens:
		case err := <-readErr:
			return nil, fmt.Errorf("read: %w", err)
		}
		id++
		buf = append(call.append(buf[:0], id), '\n')
		sent[id%int64(len(sent))].Store(time.Now().UnixNano())
		if _, err := out.Write(buf); err != nil {
			return nil, fmt.Errorf("write: %w", err)
		}
	}
	// Wait for every outstanding answer: the tokens come back.
	timeout := time.After(30 * time.Second)
	for range c.concurrency {
		select {
		case <-tokens:
		case err := <-readErr:
			return nil, fmt.Errorf("read: %w", err)
		case <-timeout:
			return nil, errors.New("outstanding calls not answered within 30s")
		}
	}
	r := &result{Label: c.label, Rep: c.rep, Transport: "stdio", Era: c.era, Concurrency: c.concurrency, TextBytes: c.textBytes}
	w.result(r)
	server(r)
	return r, nil
}
