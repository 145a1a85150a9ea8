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
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
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
	files := map[string]string{
		"go.mod": "module example.com/tools\n\ngo 1.26.0\n\n" + strings.Join(reqs, "\n") + "\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + root + "\n",
		"a.go":   "package a\n\nimport \"context\"\n\n// In is ping's argument.\ntype In struct {\n\tText string `json:\"text\"`\n}\n\n// Pings.\n//\n//mcp:tool\nfunc ping(_ context.Context, in In) (string, error) { return in.Text, nil }\n",
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mcpgen := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		status := run(context.Background(), args, &out, &errb)
		return status, out.String() + errb.String()
	}
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
