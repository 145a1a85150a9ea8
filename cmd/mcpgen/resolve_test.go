package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/internal/specsource/upstreamtest"
)

const pinnedCommit = "b0f60ba5409db7a6582440a7b473cc0398890f15"

// offlineEnv clears the spec root and points downloads at a local
// upstream and an empty cache; it returns the upstream and the cache.
func offlineEnv(t *testing.T) (*upstreamtest.Server, string) {
	t.Helper()
	srv := upstreamtest.Start(t, specdir.Root(t), pinnedCommit)
	cache := t.TempDir()
	t.Setenv(rootEnv, "")
	t.Setenv(specEnv, "")
	t.Setenv(urlEnv, srv.URL)
	t.Setenv(cacheEnv, cache)
	return srv, cache
}

// --revision alone works for a user without a spec checkout: the revision
// is downloaded, checked, cached, and recorded with its commit; the next
// run needs no network.
func TestRevisionDownload(t *testing.T) {
	srv, cache := offlineEnv(t)
	out := filepath.Join(t.TempDir(), "mcp", "v20241105")
	status, _, stderr := runCLI("--revision", "2024-11-05", "--out", out)
	if status != 0 {
		t.Fatalf("generate: %d %s", status, stderr)
	}
	if !strings.Contains(stderr, "downloading "+srv.URL+"/"+pinnedCommit+"/schema/2024-11-05/schema.json") {
		t.Errorf("stderr = %q, want the download named", stderr)
	}
	if _, err := os.Stat(filepath.Join(cache, "spec", pinnedCommit, "2024-11-05", "schema.ts")); err != nil {
		t.Errorf("not cached: %v", err)
	}
	prov, err := os.ReadFile(filepath.Join(out, "provenance.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"//\tcommit       " + pinnedCommit, "//\tschema.json  61cea239", "//\tschema.ts    8e87348b", "//\toverrides    none"} {
		if !strings.Contains(string(prov), want) {
			t.Errorf("provenance.gen.go lacks %q", want)
		}
	}
	srv.Close() // offline from here on
	status, _, stderr = runCLI("--revision", "2024-11-05", "--out", out, "--check")
	if status != 0 || stderr != "" {
		t.Fatalf("check from the cache: %d %q", status, stderr)
	}
	// The same files from a spec root generate the same bytes.
	root := specdir.Root(t)
	status, _, stderr = runCLI("--revision", "2024-11-05", "--spec-root", root, "--out", out, "--check")
	if status != 0 {
		t.Fatalf("check from the spec root: %d %q", status, stderr)
	}
	status, _, stderr = runCLI("--spec", filepath.Join(root, "2024-11-05"), "--out", out, "--check")
	if status != 0 {
		t.Fatalf("check from --spec: %d %q", status, stderr)
	}
}

// Every way resolution fails says what happened and what to do.
func TestRevisionErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(srv *upstreamtest.Server)
		args  []string
		want  []string
	}{
		{"unknown revision", nil, []string{"--revision", "2026-07-29"},
			[]string{`unknown revision "2026-07-29": mcpgen knows 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, draft`, "did you mean 2026-07-28?", "--spec-commit COMMIT --spec-sha256 JSONSUM,TSSUM"}},
		{"offline", func(srv *upstreamtest.Server) { srv.Close() }, []string{"--revision", "2025-06-18"},
			[]string{"connection refused", "mcpgen looked for 2025-06-18 in no spec root", "): not there", "the download from http", "with network once", "--spec-root (or $MCPGEN_SPEC_ROOT)", "mcpgen fetch --all"}},
		{"checksum mismatch", func(srv *upstreamtest.Server) {
			srv.Tamper("/"+pinnedCommit+"/schema/2025-06-18/schema.json", []byte("{}"))
		}, []string{"--revision", "2025-06-18"},
			[]string{"2025-06-18/schema.json from http://", "want af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01", "nothing was cached", "does not serve the pinned files"}},
		{"404 at another commit", nil, []string{"--revision", "2025-06-18", "--spec-commit", strings.Repeat("a", 40), "--spec-sha256", strings.Repeat("b", 64) + "," + strings.Repeat("c", 64)},
			[]string{"404 Not Found", "upstream has no schema/2025-06-18/ at that commit"}},
		{"another commit without checksums", nil, []string{"--revision", "2025-06-18", "--spec-commit", pinnedCommit},
			[]string{"no checksums for 2025-06-18 at commit " + pinnedCommit, "--spec-sha256 af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01,7d7f4cc6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, cache := offlineEnv(t)
			if tt.setup != nil {
				tt.setup(srv)
			}
			status, _, stderr := runCLI(append(tt.args, "--out", filepath.Join(t.TempDir(), "x"))...)
			if status != 1 {
				t.Errorf("status %d, want 1", status)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(cache, "spec")); len(entries) != 0 {
				t.Error("something was cached")
			}
		})
	}
}

func TestFetch(t *testing.T) {
	srv, cache := offlineEnv(t)
	status, stdout, stderr := runCLI("fetch", "--revision", "2024-11-05,draft")
	if status != 0 {
		t.Fatalf("%d %s", status, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "2024-11-05\t"+filepath.Join(cache, "spec", pinnedCommit, "2024-11-05")) || !strings.Contains(lines[1], "downloaded, sha256 checked") {
		t.Errorf("stdout = %q", stdout)
	}
	srv.Close()
	status, stdout, stderr = runCLI("fetch", "--revision", "draft")
	if status != 0 || !strings.Contains(stdout, "; cached)") {
		t.Errorf("cached fetch: %d %q %q", status, stdout, stderr)
	}
	status, _, stderr = runCLI("fetch", "--all")
	if status != 1 || !strings.Contains(stderr, "connection refused") {
		t.Errorf("fetch --all offline: %d %q", status, stderr)
	}
}
