package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// The gateway matrix: the one-client matrix (matrix_test.go) run through
// bin/mcpgateway (../../gateway): backend server × backend transport ×
// front revision × front transport × feature. Each backend is a row of
// the one-client matrix (bin/everything of each revision, the npm
// reference servers over stdio, Streamable HTTP and HTTP+SSE); the gateway
// fronts it over stdio or Streamable HTTP for a client of each revision.
// A cell expects what the backend's own row expects, less what the front
// revision or the backend's cannot carry (n/a), and what the gateway does
// not carry yet (gatewayLacks, with why).

var (
	gatewayOnce sync.Once
	gatewayPath string
	gatewayErr  error
)

// gatewayBinary builds bin/mcpgateway once for the tests (with -race),
// beside the everything binary TestMain built.
func gatewayBinary(t *testing.T) string {
	t.Helper()
	gatewayOnce.Do(func() {
		gatewayPath = filepath.Join(filepath.Dir(binary), "mcpgateway")
		build := exec.Command("go", "build", "-race", "-o", gatewayPath, "./cmd/mcpgateway")
		build.Dir = "../../gateway"
		out, err := build.CombinedOutput()
		if err != nil {
			gatewayErr = fmt.Errorf("building bin/mcpgateway (make generate makes its packages): %v\n%s", err, out)
		}
	})
	if gatewayErr != nil {
		t.Fatal(gatewayErr)
	}
	return gatewayPath
}

// gatewayLacks are the features the gateway does not carry between a
// backend speaking rev ("" for an npm server) and a front client of
// front, with why.
func gatewayLacks(rev, front string) map[string]string {
	if rev == front && (rev == "2026-07-28" || rev == "2025-11-25") {
		return nil
	}
	return map[string]string{"tasks": "carried between ends of one design only: 2026-07-28's tasks extension, 2025-11-25's core tasks"}
}

// backendRow is a backend: how the gateway reaches it (its flags), and
// what the one-client matrix expects of it.
type backendRow struct {
	name  string
	flags func(t *testing.T) []string
	env   []string
	base  matrixTarget // the one-client matrix's row of the backend
	rev   string       // the revision the gateway speaks to it
	// fails are the cells expected to fail through the gateway, by front
	// revision ("" for every one), with why; lacks the features the
	// gateway does not carry for this backend, with why.
	fails map[string]map[string]string
	lacks map[string]string
}

// npmEverythingFails: server-everything's elicitation asks for
// multi-select enums even on a 2025-06-18 session (the gateway opens one
// for a 2025-06-18 front client), which 2025-06-18 lacks: the gateway's
// client refuses the request it cannot read, naming the fields, and the
// tool reports the refusal.
var npmEverythingFails = map[string]map[string]string{"2025-06-18": {"elicitation": "failed: trigger-elicitation-request: isError: MCP error -32602: invalid params: /params/requestedSchema/properties/untitledMultipleSelectEnum"}}

func gatewayBackends(t *testing.T) []backendRow {
	var rows []backendRow
	for _, tg := range matrixTargets(t) {
		switch {
		case strings.HasPrefix(tg.name, "bin/everything ") && tg.transport == "stdio":
			rev := strings.TrimPrefix(tg.name, "bin/everything ")
			rows = append(rows, backendRow{name: tg.name, rev: rev, base: tg,
				flags: func(*testing.T) []string { return []string{"--stdio", shellQuote(binary) + " --revisions " + rev} }})
		case tg.name == "server-everything" && tg.transport == "stdio":
			rows = append(rows, backendRow{name: "npm " + tg.name + " stdio", base: tg, flags: npmStdio("everything", "stdio"), fails: npmEverythingFails})
		case tg.name == "server-everything" && tg.transport == "streamable http":
			rows = append(rows, backendRow{name: "npm " + tg.name + " streamable http", base: tg, fails: npmEverythingFails,
				flags: func(t *testing.T) []string {
					return []string{"--url", startThirdPartyHTTP(t, "streamableHttp") + "/mcp"}
				}})
		case tg.name == "server-everything" && tg.transport == "http+sse":
			rows = append(rows, backendRow{name: "npm " + tg.name + " http+sse", base: tg, fails: npmEverythingFails,
				flags: func(t *testing.T) []string { return []string{"--url", startThirdPartyHTTP(t, "sse") + "/sse"} }})
		case tg.name == "server-filesystem":
			// server-filesystem asks for the roots when the session
			// opens, not in a call: on the gateway's shared backend
			// session, no one front client's.
			rows = append(rows, backendRow{name: "npm " + tg.name, base: tg, flags: npmStdio("filesystem", tg.root),
				lacks: map[string]string{"roots": "asked when the backend session opens: the shared session is no one client's"}})
			// A backend per session: its roots are its session's
			// client's; a stateless client has no session (its
			// principal's backend asks no one).
			rows = append(rows, backendRow{name: "npm " + tg.name + " per session", base: tg,
				flags: func(t *testing.T) []string {
					return append(npmStdio("filesystem", tg.root)(t), "--backend-per", "session")
				},
				fails: map[string]map[string]string{"2026-07-28": {"roots": "failed: no roots/list reached the handler (events [])"}}})
		case tg.name == "server-memory":
			memory := filepath.Join(t.TempDir(), "memory.jsonl")
			rows = append(rows, backendRow{name: "npm " + tg.name, base: tg, flags: npmStdio("memory"), env: []string{"MEMORY_FILE_PATH=" + memory}})
		}
	}
	return rows
}

// npmStdio runs an npm reference server over stdio behind the gateway.
func npmStdio(name string, args ...string) func(t *testing.T) []string {
	return func(t *testing.T) []string {
		tr := thirdParty(t, name, nil, args...)
		words := []string{shellQuote(tr.Path)}
		for _, a := range tr.Args {
			words = append(words, shellQuote(a))
		}
		return []string{"--stdio", strings.Join(words, " ")}
	}
}

// shellQuote quotes s for the gateway's --stdio, which splits as a shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startGatewayHTTP starts bin/mcpgateway --http with flags and returns
// its /mcp endpoint.
func startGatewayHTTP(t *testing.T, env []string, flags ...string) string {
	t.Helper()
	_, url := startGateway(t, env, flags...)
	return url
}

// startGateway is startGatewayHTTP, with the process.
func startGateway(t *testing.T, env []string, flags ...string) (*exec.Cmd, string) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(gatewayBinary(t), append(flags, "--http", "127.0.0.1:0", "--addr-file", addrFile)...)
	cmd.Env = append(os.Environ(), env...)
	stderr := new(capturedLog)
	cmd.Stderr = stderr
	startStopped(t, cmd)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			return cmd, "http://" + strings.TrimSpace(string(b)) + "/mcp"
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			t.Fatalf("the gateway did not start; stderr:\n%s", stderr.String())
		}
	}
}

// frontLacks are the features a front revision has no place for.
func frontLacks(rev string) map[string]string {
	lacks := map[string]string{}
	switch rev {
	case "2024-11-05", "2025-03-26":
		for _, f := range []string{"structured", "resource links", "elicitation"} {
			lacks[f] = "2025-06-18 on"
		}
		fallthrough
	case "2025-06-18":
		lacks["tasks"] = "2025-11-25 on"
	}
	return lacks
}

// TestGatewayMatrix runs the gateway matrix (see above) and logs it.
func TestGatewayMatrix(t *testing.T) {
	gw := gatewayBinary(t)
	var table strings.Builder
	fmt.Fprintf(&table, "| backend | front | revision | %s |\n|%s\n", strings.Join(matrixFeatures, " | "), strings.Repeat("---|", len(matrixFeatures)+3))
	var mu sync.Mutex
	for _, b := range gatewayBackends(t) {
		for _, tx := range []string{"stdio", "http"} {
			if tx == "http" && b.name != "bin/everything 2025-11-25" && b.name != "npm server-everything stdio" {
				continue // every front revision over HTTP for two backends; over stdio for all
			}
			for _, front := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
				name := strings.ReplaceAll(b.name+" via "+tx+" "+front, " ", "_")
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					tg := b.base
					tg.name, tg.transport = "gateway → "+b.name, tx
					flags := b.flags(t)
					if tx == "stdio" {
						tg.dial = func(*testing.T) rt.ClientTransport {
							return &stdio.CommandTransport{Path: gw, Args: flags, Env: append(os.Environ(), b.env...), ShutdownTimeout: 5 * time.Second}
						}
					} else {
						url := startGatewayHTTP(t, b.env, flags...)
						tg.dial = func(*testing.T) rt.ClientTransport { return &streamhttp.ClientTransport{URL: url} }
					}
					era := rt.Stateful
					if front == "2026-07-28" {
						era = rt.Stateless
					}
					tg.opts = rt.ClientOptions{ProtocolVersion: front, Era: era}
					tg.lacks = map[string]string{}
					maps.Copy(tg.lacks, b.base.lacks)
					maps.Copy(tg.lacks, frontLacks(front))
					maps.Copy(tg.lacks, b.lacks)
					tg.want = map[string]string{}
					maps.Copy(tg.want, b.base.want)
					for f, why := range gatewayLacks(b.rev, front) {
						if _, ok := tg.lacks[f]; !ok && tg.want[f] != "n/a" {
							tg.lacks[f] = why
						}
					}
					for f := range tg.lacks {
						tg.want[f] = "n/a"
					}
					// Undeclared calls: a 2026-07-28 client makes no
					// server/discover check, so a backend declaring every
					// capability leaves nothing to refuse.
					if front == "2026-07-28" && strings.Contains(b.name, "everything") {
						tg.want["undeclared"] = "n/a"
					} else if tg.want["undeclared"] == "n/a" {
						delete(tg.want, "undeclared")
					}
					for _, rev := range []string{"", front} {
						maps.Copy(tg.want, b.fails[rev])
					}
					cells, revision := runMatrix(t, tg)
					if revision != front {
						t.Errorf("negotiated %s through the gateway, want %s", revision, front)
					}
					row := checkRow(t, tg, cells, b.name, tx, revision)
					mu.Lock()
					fmt.Fprintf(&table, "| %s |\n", strings.Join(row, " | "))
					mu.Unlock()
				})
			}
		}
	}
	t.Cleanup(func() { t.Logf("the gateway matrix:\n%s", table.String()) })
}

// TestPeersThroughGateway: peers nobody here wrote, through the gateway:
// the official TypeScript client (stateless, 2026-07-28) reaching
// bin/everything serving only 2024-11-05 — an old server used by a new
// client — and only 2025-06-18 for input rounds (2024-11-05 has no
// elicitation: its server cannot ask), and the inspector CLI over the
// HTTP+SSE transport (/sse) reaching bin/everything serving only
// 2025-03-26; and both in front of npm reference servers (the TypeScript
// client of server-everything, which asks it for sampling mid-call; the
// inspector of server-memory).
func TestPeersThroughGateway(t *testing.T) {
	dir := interopDir(t)
	gateways := map[string]string{}
	front := func(rev string) string {
		if gateways[rev] == "" {
			gateways[rev] = startGatewayHTTP(t, nil, "--stdio", shellQuote(binary)+" --revisions "+rev)
		}
		return gateways[rev]
	}
	for _, tt := range []struct {
		backend, script string
		want            []string
	}{
		{"2024-11-05", "smoke", []string{`2026-07-28`, `test://static-text`, `"echo":"hello"`}},
		{"2024-11-05", "progress", []string{`"progress":100`}},
		{"2025-06-18", "mrtr", []string{`Hello, Alice!`}},
	} {
		t.Run("ts-client/"+tt.script+"/backend="+tt.backend, func(t *testing.T) {
			report := tsClient(t, "--era", "modern", "--script", tt.script, "--http", front(tt.backend))
			b, _ := json.Marshal(report)
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("report lacks %s:\n%s", w, b)
				}
			}
		})
	}
	// The npm reference servers behind the gateway, which none of us
	// wrote, reached by the TypeScript client at 2026-07-28 (stateless):
	// server-everything asks for sampling mid-call, an input round to
	// this client.
	t.Run("ts-client/reference/backend=npm-server-everything", func(t *testing.T) {
		url := startGatewayHTTP(t, nil, npmStdio("everything", "stdio")(t)...)
		report := tsClient(t, "--era", "modern", "--script", "reference", "--http", url)
		b, _ := json.Marshal(report)
		for _, w := range []string{`"protocolVersion":"2026-07-28"`, `trigger-sampling-request`, `This is a test response from the client`} {
			if !strings.Contains(string(b), w) {
				t.Errorf("report lacks %s:\n%s", w, b)
			}
		}
	})
	inspector := func(t *testing.T, mcpURL string, calls [][]string, wants []string) {
		t.Helper()
		sse := strings.TrimSuffix(mcpURL, "/mcp") + "/sse"
		for i, args := range calls {
			cmd := peerCommand(t, time.Minute, filepath.Join(dir, "inspector.sh"), append([]string{sse, "--transport", "sse"}, args...)...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("inspector %v: %v\n%s", args, err, out)
			}
			if !strings.Contains(string(out), wants[i]) {
				t.Errorf("inspector %v: lacks %q:\n%s", args, wants[i], out)
			}
		}
	}
	t.Run("inspector/sse/backend=2025-03-26", func(t *testing.T) {
		inspector(t, startGatewayHTTP(t, nil, "--stdio", shellQuote(binary)+" --revisions 2025-03-26"), [][]string{
			{"--method", "tools/list"},
			{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi through the gateway"},
			{"--method", "resources/read", "--uri", "test://static-text"},
		}, []string{"test_simple_text", "hi through the gateway", "static text resource"})
	})
	t.Run("inspector/sse/backend=npm-server-memory", func(t *testing.T) {
		env := []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}
		inspector(t, startGatewayHTTP(t, env, npmStdio("memory")(t)...), [][]string{
			{"--method", "tools/list"},
			{"--method", "tools/call", "--tool-name", "create_entities", "--tool-arg", `entities=[{"name":"gateway","entityType":"program","observations":["fronts any server"]}]`},
			{"--method", "tools/call", "--tool-name", "read_graph"},
		}, []string{"create_entities", "gateway", "fronts any server"})
	})
}
