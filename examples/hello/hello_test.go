package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125"
	"github.com/mcpgen/mcpgen/examples/hello/mcp/v20260728"
	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestHello talks to hello as a client of each era would: the real binary
// over stdio, and the server behind Streamable HTTP.
func TestHello(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The binary over HTTP, on a port picked free just before.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	server := exec.Command(bin, "--http", addr)
	server.Stderr = os.Stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = server.Process.Signal(os.Interrupt); _ = server.Wait() }()
	waitListening(t, addr)
	transports := map[string]func() mcp.ClientTransport{
		"stdio": func() mcp.ClientTransport { return &stdio.CommandTransport{Path: bin, Stderr: os.Stderr} },
		"http":  func() mcp.ClientTransport { return &streamhttp.ClientTransport{URL: "http://" + addr + "/"} },
	}
	for tname, transport := range transports {
		for _, era := range []struct {
			name string
			era  mcp.Era
			rev  string
		}{{"2025-11-25", mcp.Stateful, "2025-11-25"}, {"2026-07-28", mcp.Stateless, "2026-07-28"}} {
			t.Run(tname+"/"+era.name, func(t *testing.T) {
				ctx := context.Background()
				cs, err := mcp.Connect(ctx, transport(), mcp.ClientOptions{Era: era.era}, v20251125.Mount(struct{}{}), v20260728.Mount(struct{}{}))
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				if cs.ProtocolVersion() != era.rev {
					t.Fatalf("negotiated %s", cs.ProtocolVersion())
				}
				call := func(method, params string) string {
					t.Helper()
					var res wire.Raw
					if err := cs.Call(ctx, method, wire.Raw(params), &res); err != nil {
						return "error: " + err.Error()
					}
					return string(res)
				}
				for _, c := range []struct{ method, params, want string }{
					{"tools/list", `{}`, `"name":"greet"`},
					{"tools/list", `{}`, `"outputSchema":{"type":"object","properties":{"Sum":{"type":"number"}},"required":["Sum"],"additionalProperties":false}`},
					{"tools/call", `{"name":"greet","arguments":{"name":"Ada"}}`, `"text":"Hello, Ada!"`},
					{"tools/call", `{"name":"add","arguments":{"A":1,"B":2.5}}`, `"structuredContent":{"Sum":3.5}`},
					{"tools/call", `{"name":"greet","arguments":{"name":""}}`, `"isError":true`},
					{"tools/call", `{"name":"greet","arguments":{"name":"Ada","extra":1}}`, `/extra: unknown member`},
					{"tools/call", `{"name":"nope"}`, `unknown tool nope`},
					{"prompts/list", `{}`, `"arguments":[{"name":"Topic","required":true}]`},
					{"prompts/get", `{"name":"haiku","arguments":{"Topic":"Go"}}`, `A haiku on Go`},
					{"prompts/get", `{"name":"haiku"}`, `missing required argument Topic`},
					{"resources/list", `{}`, `"uri":"hello://readme"`},
					{"resources/read", `{"uri":"hello://readme"}`, `"text":"hello: greet, add, haiku."`},
				} {
					if got := call(c.method, c.params); !strings.Contains(got, c.want) {
						t.Errorf("%s %s:\n got %s\nwant …%s…", c.method, c.params, got, c.want)
					}
				}
			})
		}
	}
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	for range 500 {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s", addr)
}

// newServer is hello's server, in process.
func newServer() (*mcp.Server, error) {
	return mcp.NewServer(mcp.ServerOptions{Name: "hello", Version: "1.0.0", Features: []mcp.Feature{Features()}}, v20251125.Mount(nil), v20260728.Mount(nil))
}

// FuzzArguments: the generated decoders answer any bytes with a result or
// an argument error, never a panic.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"name":"Ada"}`, `{"A":1,"B":2}`, `{"name":""}`, `{`, `[]`, `{"name":1e999}`, `{"A":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		for _, call := range []func(context.Context, wire.Raw) (*features.Result, error){mcpgenCallGreet, mcpgenCallAdd} {
			res, err := call(context.Background(), wire.Raw(args))
			var ae *features.ArgumentError
			if err != nil && !errors.As(err, &ae) {
				t.Fatalf("%q: %v", args, err)
			}
			if err == nil && res == nil {
				t.Fatalf("%q: no result and no error", args)
			}
		}
	})
}

// TestAddedLater: a set that starts empty serves what is added to it
// after the server started, and announces it.
func TestAddedLater(t *testing.T) {
	set := features.NewSet()
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "later", Version: "1", Features: []mcp.Feature{set}}, v20251125.Mount(nil), v20260728.Mount(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The session opens before the set has tools, so initialize declares
	// none: send the calls anyway, as a client that trusts list_changed.
	cs, err := mcp.Connect(ctx, &stdio.InProcessTransport{Server: srv}, mcp.ClientOptions{Era: mcp.Stateful, SendUndeclared: true}, v20251125.Mount(struct{}{}), v20260728.Mount(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var res wire.Raw
	if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"greet","arguments":{"name":"Ada"}}`), &res); err == nil {
		t.Fatalf("a tool before it was added: %s", res)
	}
	greetTool, _ := Features().Tool("greet")
	set.AddTools(greetTool)
	res = nil
	if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"greet","arguments":{"name":"Ada"}}`), &res); err != nil || !strings.Contains(string(res), "Hello, Ada!") {
		t.Fatalf("the tool added later: %s %v", res, err)
	}
}
