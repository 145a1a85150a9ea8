// Package redistest starts a real redis-server for tests: on 127.0.0.1, a
// free port and a temporary directory, persistence off, stopped by its PID
// when the test ends. Without redis-server on the PATH the test is skipped
// — or fails when $MCPGEN_REQUIRE_REDIS is set, as make test sets it, so
// CI cannot pass by skipping.
package redistest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Server is a running redis-server.
type Server struct {
	// Addr is its host:port.
	Addr string
	t    *testing.T
	cmd  *exec.Cmd
	dir  string
	out  *bytes.Buffer
	// args are the persistence (and cluster) arguments it runs with.
	args []string
}

// noPersistence are the arguments of a server that forgets everything
// when it stops.
var noPersistence = []string{"--save", "", "--appendonly", "no"}

// Start starts a redis-server for t, without persistence, and stops it
// when t ends.
func Start(t *testing.T) *Server {
	t.Helper()
	return startWith(t, noPersistence)
}

// StartAOF starts a redis-server for t that persists every write to its
// append-only file before answering (appendonly yes, appendfsync always):
// what it acknowledged survives Kill and Restart.
func StartAOF(t *testing.T) *Server {
	t.Helper()
	return startWith(t, []string{"--save", "", "--appendonly", "yes", "--appendfsync", "always"})
}

func startWith(t *testing.T, args []string) *Server {
	t.Helper()
	requireRedis(t)
	s := &Server{t: t, dir: t.TempDir(), Addr: freeAddr(t), args: args}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// requireRedis skips t without redis-server (fails it under
// $MCPGEN_REQUIRE_REDIS).
func requireRedis(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("MCPGEN_REQUIRE_REDIS") != "" {
			t.Fatal("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
		}
		t.Skip("redis-server is not installed")
	}
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func (s *Server) start() {
	s.t.Helper()
	var err error
	s.cmd, s.out, err = startProcess(s.Addr, s.dir, s.args)
	if err != nil {
		s.t.Fatal(err)
	}
}

// startProcess starts redis-server on addr (127.0.0.1) with its files in
// dir and waits until it answers.
func startProcess(addr, dir string, extra []string) (*exec.Cmd, *bytes.Buffer, error) {
	_, port, _ := net.SplitHostPort(addr)
	out := new(bytes.Buffer)
	args := append([]string{"--bind", "127.0.0.1", "--port", port, "--dir", dir, "--daemonize", "no", "--protected-mode", "yes"}, extra...)
	cmd := exec.Command("redis-server", args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting redis-server: %w", err)
	}
	c := goredis.NewClient(&goredis.Options{Addr: addr})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, nil, fmt.Errorf("redis-server on %s did not answer; its output:\n%s", addr, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd, out, nil
}

// Main runs a package's tests and examples with a redis-server started
// for them (no persistence), its URL in $REDIS_URL, as a TestMain does:
// examples have no *testing.T to start one. Without redis-server on the
// PATH nothing runs (the package's tests all need one) and it says so —
// or fails, under $MCPGEN_REQUIRE_REDIS.
func Main(m *testing.M) int {
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("MCPGEN_REQUIRE_REDIS") != "" {
			fmt.Fprintln(os.Stderr, "redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
			return 1
		}
		fmt.Fprintln(os.Stderr, "skipped: redis-server is not installed")
		return 0
	}
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd, _, err := startProcess(addr, dir, noPersistence)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	os.Setenv("REDIS_URL", "redis://"+addr+"/0")
	return m.Run()
}

// Stop stops the server by its PID (SIGTERM, then SIGKILL) and waits for
// it; a stopped server stays stopped.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// Kill stops the server with SIGKILL, as a crash would: it writes
// nothing more.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server again on the same address (after Stop).
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client() *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: time.Second})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// PID is the server's process id, for tests that kill it themselves.
func (s *Server) PID() string {
	if s.cmd == nil {
		return ""
	}
	return strconv.Itoa(s.cmd.Process.Pid)
}
