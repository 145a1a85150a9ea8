package gen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/schema"
)

// The bridges between our own revisions (testdata/bridge) are pinned by
// golden files (gen/*.gen.go, report.golden), generated twice to the same
// bytes, and compiled, vetted and tested with the packages of both
// revisions (test/*_test.go).
func TestBridgeGoldens(t *testing.T) {
	for _, a := range archives(t, "../testdata/bridge/*.txtar") {
		t.Run(a.name, func(t *testing.T) {
			module := t.TempDir()
			specs := map[string]*schema.Spec{}
			var table *gen.BridgeTable
			for _, f := range a.ar.Files {
				dir, name := filepath.Split(f.Name)
				switch {
				case name == "schema.json":
					rev := filepath.Join(t.TempDir(), filepath.Clean(dir))
					if err := os.MkdirAll(rev, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(rev, name), f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
					spec, err := schema.Load(rev)
					if err != nil {
						t.Fatal(err)
					}
					specs[spec.Revision] = spec
				case f.Name == "table.txt":
					tb, err := gen.ParseBridgeTable(f.Name, f.Data)
					if err != nil {
						t.Fatal(err)
					}
					table = tb.With(gen.BuiltinBridgeTable())
				}
			}
			if len(specs) != 2 {
				t.Fatalf("want two revisions, have %d", len(specs))
			}
			var revs []string
			for rev, spec := range specs {
				revs = append(revs, rev)
				pkg := "v" + strings.ReplaceAll(rev, "-", "")
				files, err := gen.Generate(spec, gen.Options{Package: pkg, Version: "golden"})
				if err != nil {
					t.Fatal(err)
				}
				writeFiles(t, filepath.Join(module, pkg), files)
			}
			if revs[0] > revs[1] {
				revs[0], revs[1] = revs[1], revs[0]
			}
			side := func(rev string) gen.BridgeSide {
				pkg := "v" + strings.ReplaceAll(rev, "-", "")
				return gen.BridgeSide{Spec: specs[rev], Path: "example.com/bridgetest/" + pkg, Name: pkg}
			}
			pkg := side(revs[0]).Name + "via" + strings.TrimPrefix(side(revs[1]).Name, "v")
			opts := gen.BridgeOptions{Package: pkg, Version: "golden", Client: side(revs[0]), Handlers: side(revs[1]), Table: table}
			files, report, err := gen.GenerateBridge(opts)
			if err != nil {
				t.Fatal(err)
			}
			again, _, err := gen.GenerateBridge(opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range files {
				if !bytes.Equal(files[i].Content, again[i].Content) {
					t.Errorf("%s differs between two runs", files[i].Name)
				}
			}
			var rep bytes.Buffer
			for _, l := range report.Losses {
				rep.WriteString(l.String() + "\n")
			}
			all := append(files, gen.File{Name: "report.golden", Content: rep.Bytes()})
			if *update {
				updateSections(t, a.path, a.ar, all)
			} else {
				compareSections(t, a.ar, all)
			}
			dir := filepath.Join(module, pkg)
			writeFiles(t, dir, files)
			for _, f := range a.ar.Files {
				if strings.HasPrefix(f.Name, "test/") {
					if err := os.WriteFile(filepath.Join(dir, filepath.Base(f.Name)), f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			writeModule(t, module, "example.com/bridgetest", "")
			runGo(t, module, "vet", "./...")
			runGo(t, module, "test", "./...")
		})
	}
}

func writeFiles(t *testing.T, dir string, files []gen.File) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// golden names the archive section of a generated file.
func golden(name string) string {
	if strings.HasSuffix(name, ".gen.go") {
		return "gen/" + name
	}
	return name
}

func updateSections(t *testing.T, path string, ar *txtar.Archive, files []gen.File) {
	t.Helper()
	want := map[string]bool{}
	for _, f := range files {
		want[golden(f.Name)] = true
	}
	var kept []txtar.File
	for _, f := range ar.Files {
		if !want[f.Name] && !strings.HasPrefix(f.Name, "gen/") {
			kept = append(kept, f)
		}
	}
	for _, f := range files {
		kept = append(kept, txtar.File{Name: golden(f.Name), Data: f.Content})
	}
	ar.Files = kept
	if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareSections(t *testing.T, ar *txtar.Archive, files []gen.File) {
	t.Helper()
	have := map[string][]byte{}
	for _, f := range ar.Files {
		have[f.Name] = f.Data
	}
	for _, f := range files {
		w, ok := have[golden(f.Name)]
		switch {
		case !ok:
			t.Errorf("no golden %s (run go test ./gen -update)", golden(f.Name))
		case !bytes.Equal(w, f.Content):
			t.Errorf("%s differs from its golden (run go test ./gen -update and review the diff)", golden(f.Name))
		}
	}
}
