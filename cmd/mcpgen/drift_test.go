package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
)

// --check names what drifted since the package was generated.
func TestCheckNamesTheDrift(t *testing.T) {
	root := specdir.Root(t)
	t.Setenv(rootEnv, root)
	t.Setenv(specEnv, "")
	edit := func(old, new string) func(t *testing.T, out string) {
		return func(t *testing.T, out string) {
			path := filepath.Join(out, "provenance.gen.go")
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), old) {
				t.Fatalf("provenance.gen.go lacks %q", old)
			}
			os.WriteFile(path, []byte(strings.ReplaceAll(string(src), old, new)), 0o644)
		}
	}
	tests := []struct {
		name   string
		change func(t *testing.T, out string)
		args   []string
		want   []string
	}{
		{"nothing", nil, nil, nil},
		{"another revision", nil, []string{"--revision", "2026-07-28"}, []string{
			"spec revision: 2025-11-25, now 2026-07-28",
			"spec changed: schema.json sha256 268a5f82ba70, now ef70b61f99b6; schema.ts sha256 e74b56e73b2e, now 742750af0bb8",
		}},
		{"spec files changed at the same revision", edit("schema.json  268a5f82ba70", "schema.json  000000000000"), nil, []string{
			"spec changed: schema.json sha256 000000000000, now 268a5f82ba70",
		}},
		{"mcpgen version", edit("mcpgen       devel", "mcpgen       v0.1.0"), nil, []string{"mcpgen version: v0.1.0, now devel"}},
		{"overrides", edit("overrides    none", "overrides    "+strings.Repeat("5", 64)), nil, []string{"overrides changed: 555555555555, now none"}},
		{"package name", nil, []string{"--revision", "2025-11-25", "--package", "other"}, []string{"package name: v20251125, now other"}},
		{"hand edit", func(t *testing.T, out string) {
			path := filepath.Join(out, "types.gen.go")
			src, _ := os.ReadFile(path)
			os.WriteFile(path, append(src, "\n// mine\n"...), 0o644)
		}, nil, []string{"files edited since they were generated", "files: types.gen.go (differs)"}},
		{"removed file", func(t *testing.T, out string) { os.Remove(filepath.Join(out, "unions.gen.go")) }, nil, []string{"files: unions.gen.go (missing)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v20251125")
			if status, _, stderr := runCLI("--revision", "2025-11-25", "--out", out); status != 0 {
				t.Fatalf("generate: %s", stderr)
			}
			if tt.change != nil {
				tt.change(t, out)
			}
			args := tt.args
			if args == nil {
				args = []string{"--revision", "2025-11-25"}
			}
			status, _, stderr := runCLI(append(args, "--out", out, "--check")...)
			if tt.want == nil {
				if status != 0 {
					t.Fatalf("check: %d %s", status, stderr)
				}
				return
			}
			if status != 1 || !strings.Contains(stderr, out+" is out of date:") || !strings.Contains(stderr, "regenerate (go generate ./...") {
				t.Errorf("status %d, stderr:\n%s", status, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}
