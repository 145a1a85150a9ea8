package main

import (
	"crypto/sha256"
	"encoding/hex"
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
		{"another revision", nil, []string{"--revision", "2025-03-26"}, []string{
			"spec revision: 2024-11-05, now 2025-03-26",
			"spec changed: schema.json sha256 61cea2392d4f, now e720669548c8; schema.ts sha256 8e87348b6c1a, now bdc457208cb1",
		}},
		{"spec files changed at the same revision", edit("schema.json  61cea2392d4f", "schema.json  000000000000"), nil, []string{
			"spec changed: schema.json sha256 000000000000, now 61cea2392d4f",
		}},
		{"mcpgen version", edit("mcpgen       devel", "mcpgen       v0.1.0"), nil, []string{"mcpgen version: v0.1.0, now devel"}},
		{"overrides", edit("overrides    none", "overrides    "+strings.Repeat("5", 64)), nil, []string{"overrides changed: 555555555555, now none"}},
		{"package name", nil, []string{"--revision", "2024-11-05", "--package", "other"}, []string{"package name: v20241105, now other"}},
		{"hand edit", func(t *testing.T, out string) {
			path := filepath.Join(out, "types.gen.go")
			src, _ := os.ReadFile(path)
			os.WriteFile(path, append(src, "\n// mine\n"...), 0o644)
		}, nil, []string{"files edited since they were generated", "files: types.gen.go (differs)",
			"types.gen.go (on disk)\n+++ ", "(generated)\n@@ -", "\n-// mine\n"}},
		{"removed file", func(t *testing.T, out string) { os.Remove(filepath.Join(out, "unions.gen.go")) }, nil, []string{"files: unions.gen.go (missing)"}},
	}
	// The smallest revision, generated once; each case changes a copy.
	generated := filepath.Join(t.TempDir(), "v20241105")
	if status, _, stderr := runCLI("--revision", "2024-11-05", "--out", generated); status != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v20241105")
			if err := os.CopyFS(out, os.DirFS(generated)); err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(t, out)
			}
			args := tt.args
			if args == nil {
				args = []string{"--revision", "2024-11-05"}
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

// --check reads --overrides as generation does, and names a change of the
// overrides file or of --protocol-version.
func TestCheckNamesOverridesAndProtocol(t *testing.T) {
	t.Setenv(rootEnv, specdir.Root(t))
	t.Setenv(specEnv, "")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("# no facts of our own yet\n"), 0o644)
	os.WriteFile(b, []byte("result ping EmptyResult | the same as the embedded fact\n"), 0o644)
	shaA, shaB := fileSum(t, a), fileSum(t, b)
	out := filepath.Join(dir, "v20241105")
	gen := []string{"--revision", "2024-11-05", "--out", out}
	if status, _, stderr := runCLI(append(gen, "--overrides", a)...); status != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	if src, _ := os.ReadFile(filepath.Join(out, "provenance.gen.go")); !strings.Contains(string(src), "//\toverrides    "+shaA) {
		t.Errorf("provenance does not record the overrides:\n%s", src)
	}
	tests := []struct {
		args []string
		want string // "" for no drift
	}{
		{[]string{"--overrides", a}, ""},
		{[]string{"--overrides", b}, "overrides changed: " + shaA[:12] + ", now " + shaB[:12]},
		{nil, "overrides changed: " + shaA[:12] + ", now none"},
		{[]string{"--overrides", a, "--protocol-version", "DRAFT-X"}, "protocol version: 2024-11-05, now DRAFT-X"},
		{[]string{"--overrides", a, "--extension", "resumable"}, "overrides changed: " + shaA[:12] + ", now "},
	}
	for _, tt := range tests {
		status, _, stderr := runCLI(append(append(gen, "--check"), tt.args...)...)
		switch {
		case tt.want == "" && status != 0:
			t.Errorf("%v: %d %s", tt.args, status, stderr)
		case tt.want != "" && (status != 1 || !strings.Contains(stderr, tt.want)):
			t.Errorf("%v: status %d, stderr %q; want %q", tt.args, status, stderr, tt.want)
		}
	}
}

// fileSum is the hex SHA-256 of the file at path.
func fileSum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// TestExtension: --extension adds the members of an extension mcpgen ships
// to the generated types, and an unknown one names those it ships.
func TestExtension(t *testing.T) {
	t.Setenv(rootEnv, specdir.Root(t))
	t.Setenv(specEnv, "")
	out := filepath.Join(t.TempDir(), "v20260728")
	if status, _, stderr := runCLI("--revision", "2026-07-28", "--extension", "resumable", "--out", out); status != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	src, _ := os.ReadFile(filepath.Join(out, "types.gen.go"))
	for _, want := range []string{"ResumeToken wire.Opt[string]", "NextResumeToken wire.Opt[string]"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("types.gen.go lacks %q", want)
		}
	}
	if status, _, stderr := runCLI("--revision", "2026-07-28", "--extension", "resumable", "--out", out, "--check"); status != 0 {
		t.Errorf("--check with the same extension: %d %s", status, stderr)
	}
	status, _, stderr := runCLI("--revision", "2026-07-28", "--extension", "nope", "--out", out)
	if status == 0 || !strings.Contains(stderr, `unknown extension "nope" (mcpgen ships resumable)`) {
		t.Errorf("unknown extension: %d %s", status, stderr)
	}
}
