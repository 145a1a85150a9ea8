package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTools drives mcpgen tools on a module of one declared tool: it
// writes features.gen.go, --check passes on it and fails once it is
// edited, and two packages are bad usage.
func TestTools(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a package")
	}
	dir := t.TempDir()
	testModule(t, dir, "example.com/tools", map[string]string{
		"a.go": "package a\n\nimport \"context\"\n\n// In is ping's argument.\ntype In struct {\n\tText string `json:\"text\"`\n}\n\n// Pings.\n//\n//mcp:tool\nfunc ping(_ context.Context, in In) (string, error) { return in.Text, nil }\n",
	})
	if status, out := mcpgen("tools", dir); status != 0 || !strings.Contains(out, "(1 tools, 0 prompts, 0 resources, 0 templates)") {
		t.Fatalf("mcpgen tools: %d %s", status, out)
	}
	if status, out := mcpgen("tools", "--check", dir); status != 0 {
		t.Fatalf("--check on what it wrote: %d %s", status, out)
	}
	gen := filepath.Join(dir, "features.gen.go")
	if err := os.WriteFile(gen, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if status, out := mcpgen("tools", "--check", dir); status != 1 || !strings.Contains(out, "run go generate") {
		t.Errorf("--check on an edited file: %d %s", status, out)
	}
	if status, _ := mcpgen("tools", "a", "b"); status != 2 {
		t.Errorf("two packages: status %d, want 2", status)
	}
}

// testModule writes a module using this checkout of mcpgen into dir, with
// the requirements of mcpgen's own go.mod (so that loading it needs no
// network), and files.
func testModule(t *testing.T, dir, module string, files map[string]string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rootMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs []string
	for _, line := range strings.Split(string(rootMod[bytes.Index(rootMod, []byte("require")):]), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], ".") {
			reqs = append(reqs, "require "+f[0]+" "+f[1]+" // indirect")
		}
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = "module " + module + "\n\ngo 1.26.0\n\n" + strings.Join(reqs, "\n") + "\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + root + "\n"
	files["go.sum"] = string(sum)
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mcpgen runs the command in process: its status and what it printed.
func mcpgen(args ...string) (int, string) {
	var out, errb bytes.Buffer
	status := run(context.Background(), args, &out, &errb)
	return status, out.String() + errb.String()
}

// TestToolsServerJSON: what server.json refuses costs the registry file
// only (features.gen.go is written, and the error says so); a default
// description longer than the registry allows is shortened with a
// warning; a declaration restricted with visible= is not listed unless
// --server-list-restricted asks.
func TestToolsServerJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a package")
	}
	dir := t.TempDir()
	doc := "// Package a serves the weather of every city in the world, its forecast for the next ten days and its alerts, from one API.\npackage a\n\n"
	testModule(t, dir, "example.com/weather", map[string]string{
		"a.go": doc + "import \"context\"\n\nfunc admins(context.Context) bool { return false }\n\n// Pings.\n//\n//mcp:tool\nfunc ping(context.Context) (string, error) { return \"pong\", nil }\n\n" +
			"// Resets.\n//\n//mcp:tool visible=admins\nfunc reset_all(context.Context) (string, error) { return \"\", nil }\n",
	})
	sj := filepath.Join(dir, "server.json")
	gen := filepath.Join(dir, "features.gen.go")
	flags := []string{"--server-json", sj, "--server-name", "io.example/weather", "--server-version", "1.0.0", "--server-remote", "streamable-http=https://example.com/mcp"}

	status, out := mcpgen(append([]string{"tools", dir, "--server-description", strings.Repeat("x", 101)}, flags...)...)
	if status != 1 || !strings.Contains(out, "server.json not written ("+gen+" is)") || !strings.Contains(out, "at most 100") {
		t.Fatalf("a description too long: %d %s", status, out)
	}
	if _, err := os.Stat(gen); err != nil {
		t.Fatalf("features.gen.go not written with a bad server.json: %v", err)
	}
	if _, err := os.Stat(sj); err == nil {
		t.Fatal("server.json written with a bad description")
	}

	status, out = mcpgen(append([]string{"tools", dir}, flags...)...)
	if status != 0 || !strings.Contains(out, "warning: server.json: the package doc's first sentence has 121 characters") ||
		!strings.Contains(out, "1 declaration restricted with visible= left out") {
		t.Fatalf("default description: %d %s", status, out)
	}
	b, err := os.ReadFile(sj)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"description": "Package a serves the weather of every city in the world, its forecast for the next ten days and…"`) ||
		!strings.Contains(string(b), `"ping"`) || strings.Contains(string(b), "reset_all") {
		t.Errorf("server.json:\n%s", b)
	}
	if status, out := mcpgen(append([]string{"tools", dir, "--server-list-restricted"}, flags...)...); status != 0 {
		t.Fatalf("--server-list-restricted: %d %s", status, out)
	}
	if b, _ := os.ReadFile(sj); !strings.Contains(string(b), `"reset_all"`) {
		t.Errorf("--server-list-restricted left reset_all out:\n%s", b)
	}
}
