package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// thirdParty is a transport to one of the npm servers pinned in interop/
// (@modelcontextprotocol/server-NAME), started with the pinned node.
func thirdParty(t *testing.T, name string, env []string, args ...string) *stdio.CommandTransport {
	t.Helper()
	dir := interopDir(t)
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-"+name, "dist", "index.js")
	return &stdio.CommandTransport{Path: filepath.Join(dir, "node.sh"), Args: append([]string{script}, args...),
		Env: append(os.Environ(), env...), ShutdownTimeout: 2 * time.Second}
}

// thirdPartyHTTP starts server-everything in its Streamable HTTP mode on
// 127.0.0.1 (interop's loopback preload) and returns the transport to it.
func thirdPartyHTTP(t *testing.T) rt.ClientTransport {
	return &streamhttp.ClientTransport{URL: startThirdPartyHTTP(t, "streamableHttp") + "/mcp"}
}

// thirdPartySSE starts server-everything in its HTTP+SSE mode (2024-11-05
// transport) and returns the default transport to its /sse endpoint: the
// client falls back to the old transport when initialize is refused.
func thirdPartySSE(t *testing.T) rt.ClientTransport {
	return &streamhttp.ClientTransport{URL: startThirdPartyHTTP(t, "sse") + "/sse"}
}

// startThirdPartyHTTP starts server-everything in mode on a free port of
// 127.0.0.1 and returns its base URL.
func startThirdPartyHTTP(t *testing.T, mode string) string {
	dir := interopDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(filepath.Join(dir, "node.sh"), filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), mode)
	cmd.Env = append(os.Environ(), "PORT="+port, `NODE_OPTIONS=--import="`+filepath.Join(dir, "loopback-preload.mjs")+`"`)
	var stderr capturedLog
	cmd.Stderr = &stderr
	startStopped(t, cmd)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s:\n%s", port, stderr.String())
		}
	}
	return "http://127.0.0.1:" + port
}

// startStopped starts cmd, stopped when the test ends: interrupted, then
// killed 5 s later if it has not exited (a process it started may hold
// its stderr: WaitDelay).
func startStopped(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		stop := time.AfterFunc(5*time.Second, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		stop.Stop()
	})
}
