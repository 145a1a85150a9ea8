package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
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

// TestThirdPartyServers: the client, with its defaults (mcp.Auto), against
// real servers nobody here wrote, over stdio: server-everything,
// server-filesystem and server-memory from npm (pinned in interop/). Each
// connects, lists and calls its tools, asks for info logs
// (ClientOptions.LogLevel); a call the server did not declare fails before
// it is sent (server-filesystem has no resources); Close ends the server.
func TestThirdPartyServers(t *testing.T) {
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "hello.txt"), []byte("hello from mcpgen"), 0o644); err != nil {
		t.Fatal(err)
	}
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	for _, tc := range []struct {
		name  string
		tr    func(t *testing.T) *stdio.CommandTransport
		calls [][2]string // tool, arguments; the last result must contain want
		want  string
	}{
		{"everything", func(t *testing.T) *stdio.CommandTransport { return thirdParty(t, "everything", nil, "stdio") },
			[][2]string{{"echo", `{"message":"hi from mcpgen"}`}}, "hi from mcpgen"},
		{"filesystem", func(t *testing.T) *stdio.CommandTransport { return thirdParty(t, "filesystem", nil, files) },
			[][2]string{{"read_text_file", `{"path":` + string(jsonString(filepath.Join(files, "hello.txt"))) + `}`}}, "hello from mcpgen"},
		{"memory", func(t *testing.T) *stdio.CommandTransport {
			return thirdParty(t, "memory", []string{"MEMORY_FILE_PATH=" + memory})
		}, [][2]string{
			{"create_entities", `{"entities":[{"name":"mcpgen","entityType":"project","observations":["written in Go"]}]}`},
			{"read_graph", `{}`},
		}, "written in Go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := rt.Connect(ctx, tc.tr(t), rt.ClientOptions{Name: "mcpgen-thirdparty", Version: "1", LogLevel: "info"},
				v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			t.Logf("negotiated %s (stateless %v)", cs.ProtocolVersion(), cs.Stateless())
			var tools wire.Raw
			if err := cs.Call(ctx, "tools/list", nil, &tools); err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			for _, c := range tc.calls {
				if !strings.Contains(string(tools), `"`+c[0]+`"`) {
					t.Fatalf("tools/list lacks %s: %.300s", c[0], tools)
				}
			}
			var res wire.Raw
			for _, c := range tc.calls {
				res = nil
				if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"`+c[0]+`","arguments":`+c[1]+`}`), &res); err != nil {
					t.Fatalf("tools/call %s: %v", c[0], err)
				}
				if rt.ToolResultFailed(res) {
					t.Fatalf("tools/call %s: isError: %.300s", c[0], res)
				}
			}
			if !strings.Contains(string(res), tc.want) {
				t.Errorf("the last result lacks %q: %.300s", tc.want, res)
			}
			t.Logf("capabilities %s", mustMember(cs.ServerResult(), "capabilities"))
			if _, hasResources := wire.MemberOf(mustMember(cs.ServerResult(), "capabilities"), "resources"); !hasResources {
				var ue *rt.UndeclaredError
				if err := cs.Call(ctx, "resources/list", nil, &res); !errors.As(err, &ue) || ue.Capability != "resources" {
					t.Errorf("resources/list to a server without resources: %v; want it refused before sending", err)
				}
			}
		})
	}
}

// TestThirdPartyHTTP: the client, with its defaults, against
// server-everything's Streamable HTTP mode (bound to 127.0.0.1 by
// interop's loopback preload, on a free port): it connects (asking for
// debug logs, so logging/setLevel goes to the server too) and calls echo.
func TestThirdPartyHTTP(t *testing.T) {
	dir := interopDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(filepath.Join(dir, "node.sh"), filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port, `NODE_OPTIONS=--import="`+filepath.Join(dir, "loopback-preload.mjs")+`"`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		stop := time.AfterFunc(5*time.Second, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		stop.Stop()
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s:\n%s", port, stderr.String())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: "http://127.0.0.1:" + port + "/mcp"}, rt.ClientOptions{Name: "mcpgen-thirdparty", Version: "1", LogLevel: "debug"},
		v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	t.Logf("negotiated %s over Streamable HTTP", cs.ProtocolVersion())
	var res wire.Raw
	if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"echo","arguments":{"message":"hi over HTTP"}}`), &res); err != nil || !strings.Contains(string(res), "hi over HTTP") {
		t.Fatalf("echo: %v %.300s", err, res)
	}
}

func mustMember(obj wire.Raw, name string) wire.Raw {
	v, _ := wire.MemberOf(obj, name)
	return v
}
