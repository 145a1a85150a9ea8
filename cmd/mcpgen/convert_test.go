package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestConvert drives mcpgen convert on the packages of the two revisions
// of testdata/bridge/rounds.txtar: it writes the bridge and reports its
// losses, --check passes on it and fails once it is edited, a package
// generated from another schema is refused, and a missing --to is bad
// usage.
func TestConvert(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	ar, err := txtar.ParseFile("../../testdata/bridge/rounds.txtar")
	if err != nil {
		t.Fatal(err)
	}
	specs := t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		switch {
		case strings.HasSuffix(f.Name, "/schema.json"):
			dir := filepath.Join(specs, filepath.Dir(f.Name))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "schema.json"), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		case f.Name == "table.txt":
			files["table.txt"] = string(f.Data)
		}
	}
	dir := t.TempDir()
	testModule(t, dir, "example.com/bridgetest", files)
	for _, rev := range []string{"2030-01-01", "2031-01-01"} {
		out := filepath.Join(dir, "mcp", "v"+strings.ReplaceAll(rev, "-", ""))
		if status, msg := mcpgen("--spec", filepath.Join(specs, rev), "--out", out); status != 0 {
			t.Fatalf("generating %s: %d %s", rev, status, msg)
		}
	}
	from, to := filepath.Join(dir, "mcp", "v20300101"), filepath.Join(dir, "mcp", "v20310101")
	args := []string{"convert", "--from", from, "--to", to,
		"--from-spec", filepath.Join(specs, "2030-01-01"), "--to-spec", filepath.Join(specs, "2031-01-01"), "--table", filepath.Join(dir, "table.txt")}
	status, out := mcpgen(args...)
	if status != 0 || !strings.Contains(out, "the bridge of 2030-01-01 and 2031-01-01: ") || !strings.Contains(out, "methods or definitions left unconverted: 0") {
		t.Fatalf("mcpgen convert: %d %s", status, out)
	}
	bridge := filepath.Join(dir, "mcp", "v20300101via20310101")
	doc, err := os.ReadFile(filepath.Join(bridge, "doc.gen.go"))
	if err != nil || !strings.Contains(string(doc), "member   ContentBlock: ContentBlock of 2030-01-01 has no AudioContent") {
		t.Fatalf("doc.gen.go: %v\n%s", err, doc)
	}
	if status, out := mcpgen(append(args, "--check")...); status != 0 {
		t.Fatalf("--check on what it wrote: %d %s", status, out)
	}
	if err := os.WriteFile(filepath.Join(bridge, "bridge.gen.go"), []byte("package v20300101via20310101\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if status, out := mcpgen(append(args, "--check")...); status != 1 || !strings.Contains(out, "bridge.gen.go") {
		t.Errorf("--check on an edited file: %d %s", status, out)
	}
	// The --to package was generated from 2031-01-01, not 2030-01-01.
	wrong := append([]string(nil), args...)
	wrong[8] = filepath.Join(specs, "2030-01-01")
	if status, out := mcpgen(wrong...); status != 1 || !strings.Contains(out, "regenerate it first") {
		t.Errorf("a package of another schema: %d %s", status, out)
	}
	if status, _ := mcpgen("convert", "--from", from); status != 2 {
		t.Errorf("no --to: status %d, want 2", status)
	}
}
