//go:build unix

package stdio_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// alive reports a process that exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: ask the kernel
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// dialShell starts /bin/sh -c script as a server (stderr to stderr, nil
// for the default) whose Close waits 300 ms at each step.
func dialShell(t *testing.T, script string, stderr io.Writer) mcp.ClientConn {
	t.Helper()
	tr := &stdio.CommandTransport{Path: "/bin/sh", Args: []string{"-c", script}, Stderr: stderr, ShutdownTimeout: 300 * time.Millisecond}
	conn, err := tr.Dial(context.Background(), jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) { return nil, nil }))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// readPID waits up to 5 s for pidFile to hold a process id; 0 if it does
// not.
func readPID(pidFile string) int {
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	return pid
}

// TestCloseEndsProcessGroup: a server that started processes of its own
// (here one that ignores interrupts, as a shell's background job does)
// leaves none behind when the client closes the session, both when the
// server exits on its own at the end of its input and when it must be
// interrupted.
func TestCloseEndsProcessGroup(t *testing.T) {
	for _, tc := range []struct{ name, server string }{
		{"server exits", "exec cat >/dev/null"},
		{"server interrupted", "trap '' HUP; while :; do sleep 0.05; done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "child")
			script := "sleep 300 & echo $! > " + pidFile + "; " + tc.server
			conn := dialShell(t, script, nil)
			child := readPID(pidFile)
			if child == 0 || !alive(child) {
				t.Fatalf("the server's child did not start (pid %d)", child)
			}
			start := time.Now()
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			for deadline := time.Now().Add(2 * time.Second); alive(child) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			}
			if alive(child) {
				_ = syscall.Kill(child, syscall.SIGKILL)
				t.Fatalf("the server's child %d outlived the session", child)
			}
			t.Logf("closed in %v", took.Round(time.Millisecond))
		})
	}
}

// TestCloseDoesNotWaitForStderrHeldElsewhere: a server whose child left
// its process group (setsid) keeps the server's stderr open; Close must
// still return once the server has exited, instead of waiting for the
// child to end the copying of stderr into a Stderr that is no file.
func TestCloseDoesNotWaitForStderrHeldElsewhere(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	script := "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 300' & exec cat >/dev/null"
	conn := dialShell(t, script, new(strings.Builder))
	child := readPID(pidFile)
	if child == 0 {
		t.Fatal("the server's child did not start")
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Close waited for a process that outlived the server and holds its stderr")
	}
	if !alive(child) {
		t.Fatal("the child meant to hold stderr is gone: the test proves nothing")
	}
}

// TestDoneWhenServerExits: a server that exits by itself ends the
// connection: Done is closed and a call fails with jsonrpc.ErrClosed (a
// gateway restarts such a server); Close then, and again, returns at
// once without signalling the ids of processes that are gone.
func TestDoneWhenServerExits(t *testing.T) {
	conn := dialShell(t, "exit 3", nil)
	done := conn.(interface{ Done() <-chan struct{} }).Done()
	<-done // the server's output ended
	if err := conn.CallWithID(context.Background(), "ping", nil, wire.Into{}, nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("a call after the server exited: %v, want ErrClosed", err)
	}
	first := conn.Close()
	if second := conn.Close(); second != first {
		t.Errorf("Close again: %v, the first returned %v", second, first)
	}
}
