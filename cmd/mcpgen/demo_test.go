package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDemoGolden: testdata/demo/v1 is what mcpgen generates from
// testdata/demo/DEMO-1, a small stateless revision of our own (tools only),
// whose package the runtime's runnable examples import: it is committed, so
// it must be exactly this generator's output. go test ./cmd/mcpgen -run
// TestDemoGolden -update rewrites it.
func TestDemoGolden(t *testing.T) {
	repo := filepath.Join("..", "..")
	want := filepath.Join(repo, "testdata", "demo", "v1")
	out := filepath.Join(t.TempDir(), "v1")
	if *updateDiffFor {
		out = want
	}
	status, _, stderr := runCLI("--spec", filepath.Join(repo, "testdata", "demo", "DEMO-1"), "--out", out, "--package", "demo")
	if status != 0 {
		t.Fatalf("mcpgen: %d %s", status, stderr)
	}
	if stderr != "" {
		t.Errorf("mcpgen warned:\n%s", stderr)
	}
	got, _ := filepath.Glob(filepath.Join(out, "*.go"))
	wanted, _ := filepath.Glob(filepath.Join(want, "*.go"))
	names := func(paths []string) []string {
		var n []string
		for _, p := range paths {
			n = append(n, filepath.Base(p))
		}
		return n
	}
	if !slices.Equal(names(got), names(wanted)) {
		t.Fatalf("files %v, want %v (-update rewrites testdata/demo/v1)", names(got), names(wanted))
	}
	for _, p := range got {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(want, filepath.Base(p)))
		if string(a) != string(b) {
			t.Errorf("%s differs from testdata/demo/v1 (-update rewrites it)", filepath.Base(p))
		}
	}
}
