package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var updateDiffFor = flag.Bool("update", false, "rewrite the goldens: testdata/difffor.txtar's want.txt, testdata/demo/v1")

// TestDiffFor: mcpgen diff --for keeps the changes to what a module's
// code uses of the package generated for --from, with the uses
// (testdata/difffor.txtar).
func TestDiffFor(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	rounds, err := txtar.ParseFile("../../testdata/bridge/rounds.txtar")
	if err != nil {
		t.Fatal(err)
	}
	specs := t.TempDir()
	for _, f := range rounds.Files {
		if strings.HasSuffix(f.Name, "/schema.json") {
			dir := filepath.Join(specs, filepath.Dir(f.Name))
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(filepath.Join(dir, "schema.json"), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden, err := filepath.Abs("testdata/difffor.txtar")
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		if f.Name != "want.txt" {
			files[f.Name] = string(f.Data)
		}
	}
	dir := t.TempDir()
	testModule(t, dir, "example.com/difffor", files)
	if status, msg := mcpgen("--spec", filepath.Join(specs, "2030-01-01"), "--out", filepath.Join(dir, "mcp", "v20300101")); status != 0 {
		t.Fatalf("generating: %s", msg)
	}
	t.Chdir(dir)
	status, got := mcpgen("diff", "--from", filepath.Join(specs, "2030-01-01"), "--to", filepath.Join(specs, "2031-01-01"), "--for", "./...")
	if status != 0 {
		t.Fatalf("mcpgen diff --for: %d %s", status, got)
	}
	got = strings.ReplaceAll(got, specs, "$SPECS")
	for i, f := range ar.Files {
		if f.Name != "want.txt" {
			continue
		}
		if *updateDiffFor {
			ar.Files[i].Data = []byte(got)
			if err := os.WriteFile(golden, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if string(f.Data) != got {
			t.Errorf("mcpgen diff --for:\n%s\nwant (testdata/difffor.txtar; -update rewrites it):\n%s", got, f.Data)
		}
	}
}
