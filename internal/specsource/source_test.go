package specsource_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/internal/specsource"
	"github.com/mcpgen/mcpgen/internal/specsource/upstreamtest"
)

const pinned = "b0f60ba5409db7a6582440a7b473cc0398890f15"

// The pins name every official revision, and the files in the shared spec
// folder (copied from upstream at that commit) match them.
func TestPinsMatchTheOfficialFiles(t *testing.T) {
	root := specdir.Root(t)
	if got := specsource.Known(); !slices.Equal(got, specdir.Revisions) {
		t.Errorf("Known() = %v, want %v", got, specdir.Revisions)
	}
	for _, p := range specsource.Pins() {
		if p.Commit != pinned {
			t.Errorf("%s pinned at %s", p.Revision, p.Commit)
		}
		sums, err := specsource.Sums(filepath.Join(root, p.Revision))
		if err != nil {
			t.Fatal(err)
		}
		if !maps2equal(sums, p.SHA256) {
			t.Errorf("%s: files %v, pins %v", p.Revision, sums, p.SHA256)
		}
		if got, ok := specsource.Identify(sums); !ok || got.Revision != p.Revision && !sameFiles(got, p) {
			t.Errorf("Identify(%s) = %v %v", p.Revision, got.Revision, ok)
		}
	}
}

func sameFiles(a, b specsource.Pin) bool { return maps2equal(a.SHA256, b.SHA256) }

func maps2equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// resolver returns a resolver downloading from a local upstream with an
// empty cache.
func resolver(t *testing.T) (*specsource.Resolver, *upstreamtest.Server) {
	t.Helper()
	srv := upstreamtest.Start(t, specdir.Root(t), pinned)
	return &specsource.Resolver{CacheDir: t.TempDir(), BaseURL: srv.URL}, srv
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	root := specdir.Root(t)

	t.Run("spec root first, commit identified by checksum", func(t *testing.T) {
		r, srv := resolver(t)
		r.Root = root
		src, err := r.Resolve(ctx, "2025-11-25")
		if err != nil {
			t.Fatal(err)
		}
		if src.Origin != specsource.SpecRoot || src.Dir != filepath.Join(root, "2025-11-25") || src.Commit != pinned {
			t.Errorf("got %+v", src)
		}
		if reqs := srv.Requests(); len(reqs) != 0 {
			t.Errorf("requests %v, want none", reqs)
		}
	})

	t.Run("local files matching no pin have no commit", func(t *testing.T) {
		r, _ := resolver(t)
		r.Root = t.TempDir()
		dir := filepath.Join(r.Root, "mine")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "schema.json"), []byte(`{}`), 0o644)
		src, err := r.Resolve(ctx, "mine")
		if err != nil {
			t.Fatal(err)
		}
		if src.Origin != specsource.SpecRoot || src.Commit != "" {
			t.Errorf("got %+v", src)
		}
	})

	t.Run("download, then cache without network", func(t *testing.T) {
		r, srv := resolver(t)
		r.Root = t.TempDir() // holds nothing: falls through
		src, err := r.Resolve(ctx, "2026-07-28")
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(r.CacheDir, "spec", pinned, "2026-07-28")
		if src.Origin != specsource.Download || src.Dir != want || src.Commit != pinned {
			t.Errorf("got %+v", src)
		}
		if reqs := srv.Requests(); !slices.Equal(reqs, []string{"/" + pinned + "/schema/2026-07-28/schema.json", "/" + pinned + "/schema/2026-07-28/schema.ts"}) {
			t.Errorf("requests %v", reqs)
		}
		for _, f := range []string{"schema.json", "schema.ts"} {
			have, _ := os.ReadFile(filepath.Join(want, f))
			orig, _ := os.ReadFile(filepath.Join(root, "2026-07-28", f))
			if string(have) != string(orig) {
				t.Errorf("cached %s differs from upstream", f)
			}
		}
		srv.Close() // offline from now on
		again, err := r.Resolve(ctx, "2026-07-28")
		if err != nil || again.Origin != specsource.Cache || again.Dir != want {
			t.Errorf("second resolve: %+v %v", again, err)
		}
	})

	t.Run("a corrupted cache is downloaded again", func(t *testing.T) {
		r, srv := resolver(t)
		if _, err := r.Fetch(ctx, "draft"); err != nil {
			t.Fatal(err)
		}
		srv.Requests()
		dir, _ := r.CacheDirOf(pinned, "draft")
		os.WriteFile(filepath.Join(dir, "schema.ts"), []byte("export {}\n"), 0o644)
		src, err := r.Fetch(ctx, "draft")
		if err != nil || src.Origin != specsource.Download {
			t.Fatalf("%+v %v", src, err)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
		if sums, _ := specsource.Sums(dir); !maps2equal(sums, src.SHA256) {
			t.Error("cache not repaired")
		}
	})
}

func TestResolveErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		rev   string
		setup func(r *specsource.Resolver, srv *upstreamtest.Server)
		check func(t *testing.T, err error)
	}{
		{"unknown revision lists the known ones", "2026-07-29", nil, func(t *testing.T, err error) {
			var ue *specsource.UnknownRevisionError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, draft") {
				t.Fatalf("err = %v", err)
			}
			if s := ue.Suggest(); s != "2026-07-28" {
				t.Errorf("Suggest() = %q", s)
			}
		}},
		{"unknown revision names the spec root", "2030-01-01", func(r *specsource.Resolver, _ *upstreamtest.Server) {
			r.Root = specdir.Root(t)
		}, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "the spec root "+specdir.Root(t)+" holds 2024-11-05") {
				t.Fatalf("err = %v", err)
			}
		}},
		{"not a revision name", "../etc", nil, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "is not a revision name") {
				t.Fatalf("err = %v", err)
			}
		}},
		{"checksum mismatch caches nothing", "2025-06-18", func(_ *specsource.Resolver, srv *upstreamtest.Server) {
			srv.Tamper("/"+pinned+"/schema/2025-06-18/schema.ts", []byte("export interface Evil {}\n"))
		}, func(t *testing.T, err error) {
			var ce *specsource.ChecksumError
			if !errors.As(err, &ce) || ce.File != "schema.ts" || ce.Want != "7d7f4cc6f3adb76e3fd5e1eee6bab8b1e183cfaf719da66d2aa5661737ca9539" {
				t.Fatalf("err = %v", err)
			}
		}},
		{"404", "2025-06-18", func(r *specsource.Resolver, _ *upstreamtest.Server) {
			r.Commit = strings.Repeat("a", 40)
			r.SHA256 = map[string]string{"schema.json": strings.Repeat("b", 64), "schema.ts": strings.Repeat("c", 64)}
		}, func(t *testing.T, err error) {
			var he *specsource.HTTPError
			if !errors.As(err, &he) || he.Code != 404 || !strings.Contains(he.URL, "/aaaa") {
				t.Fatalf("err = %v", err)
			}
		}},
		{"offline", "2025-06-18", func(_ *specsource.Resolver, srv *upstreamtest.Server) {
			srv.Close()
		}, func(t *testing.T, err error) {
			var ne *specsource.NetworkError
			if !errors.As(err, &ne) || !strings.Contains(err.Error(), "connection refused") {
				t.Fatalf("err = %v", err)
			}
		}},
		{"another commit without checksums reports what upstream serves", "2025-06-18", func(r *specsource.Resolver, _ *upstreamtest.Server) {
			r.Commit = pinned // the test upstream knows only this commit
		}, func(t *testing.T, err error) {
			var me *specsource.MissingChecksumError
			if !errors.As(err, &me) || me.Got["schema.json"] != "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01" {
				t.Fatalf("err = %v", err)
			}
		}},
		{"a branch is not a commit", "2025-06-18", func(r *specsource.Resolver, _ *upstreamtest.Server) {
			r.Commit = "main"
		}, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "not a full commit hash") {
				t.Fatalf("err = %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, srv := resolver(t)
			if tt.setup != nil {
				tt.setup(r, srv)
			}
			_, err := r.Resolve(ctx, tt.rev)
			tt.check(t, err)
			if entries, _ := os.ReadDir(filepath.Join(r.CacheDir, "spec")); len(entries) != 0 {
				t.Errorf("something was cached after an error")
			}
		})
	}
}

// Another commit with its checksums is downloaded and cached under that
// commit, and a spec root is used only if it holds those very files.
func TestOtherCommit(t *testing.T) {
	ctx := context.Background()
	const other = "1111111111111111111111111111111111111111"
	root := specdir.Root(t)
	srv := upstreamtest.Start(t, root, other)
	sums, err := specsource.Sums(filepath.Join(root, "draft"))
	if err != nil {
		t.Fatal(err)
	}
	r := &specsource.Resolver{Root: root, CacheDir: t.TempDir(), BaseURL: srv.URL, Commit: other, SHA256: sums}
	src, err := r.Resolve(ctx, "draft")
	if err != nil || src.Origin != specsource.SpecRoot || src.Commit != other {
		t.Fatalf("matching root: %+v %v", src, err)
	}
	r.SHA256 = map[string]string{"schema.json": sums["schema.json"], "schema.ts": mustSum(t, filepath.Join(root, "2026-07-28"))["schema.ts"]}
	r.Root = ""
	// 2026-07-28's files served as "draft" at the other commit.
	srv.Tamper("/"+other+"/schema/draft/schema.ts", mustRead(t, filepath.Join(root, "2026-07-28", "schema.ts")))
	src, err = r.Resolve(ctx, "draft")
	if err != nil || src.Origin != specsource.Download || !strings.Contains(src.Dir, other) {
		t.Fatalf("download: %+v %v", src, err)
	}
}

func mustSum(t *testing.T, dir string) map[string]string {
	s, err := specsource.Sums(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
