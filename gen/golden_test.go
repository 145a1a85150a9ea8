package gen_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/schema"
)

var update = flag.Bool("update", false, "rewrite the generated sections of testdata/constructs/*.txtar")

// pkgName is the package a construct is generated into: objects,
// unionsconst...
func pkgName(construct string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(construct)
}

func extractSchema(t *testing.T, ar *txtar.Archive) string {
	t.Helper()
	// The directory names the revision when there is no schema.ts.
	dir := filepath.Join(t.TempDir(), "spec")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "schema.json" || f.Name == "schema.ts" {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// The package generated for each of our construct schemas is pinned by
// golden files in the construct's txtar (sections gen/*.gen.go), and then
// compiled, vetted and tested together with the construct's own test
// (section gen/*_test.go).
func TestConstructGoldens(t *testing.T) {
	module := t.TempDir()
	for _, a := range archives(t, "../testdata/constructs/*.txtar") {
		name, path, ar := a.name, a.path, a.ar
		spec, err := schema.Load(extractSchema(t, ar))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files, err := gen.Generate(spec, gen.Options{Package: pkgName(name), Version: "golden"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Generation is deterministic.
		again, err := gen.Generate(spec, gen.Options{Package: pkgName(name), Version: "golden"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range files {
			if !bytes.Equal(files[i].Content, again[i].Content) {
				t.Errorf("%s: %s differs between two runs", name, files[i].Name)
			}
		}
		if *update {
			updateArchive(t, path, ar, files)
		} else {
			compareArchive(t, name, ar, files)
		}
		// Lay the package out for compiling.
		dir := filepath.Join(module, pkgName(name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "gen/") && strings.HasSuffix(f.Name, "_test.go") {
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(f.Name)), f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	runGo(t, module, "vet", "./...")
	runGo(t, module, "test", "./...")
}

// archive is one of our testdata schemas.
type archive struct {
	name, path string
	ar         *txtar.Archive
}

// archives parses the txtar files pattern matches; there must be some.
func archives(t *testing.T, pattern string) []archive {
	t.Helper()
	paths, _ := filepath.Glob(pattern)
	if len(paths) == 0 {
		t.Fatalf("no %s", pattern)
	}
	var out []archive
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archive{strings.TrimSuffix(filepath.Base(path), ".txtar"), path, ar})
	}
	return out
}

func updateArchive(t *testing.T, path string, ar *txtar.Archive, files []gen.File) {
	var kept []txtar.File
	for _, f := range ar.Files {
		if !(strings.HasPrefix(f.Name, "gen/") && strings.HasSuffix(f.Name, ".gen.go")) {
			kept = append(kept, f)
		}
	}
	for _, f := range files {
		kept = append(kept, txtar.File{Name: "gen/" + f.Name, Data: f.Content})
	}
	ar.Files = kept
	if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareArchive(t *testing.T, name string, ar *txtar.Archive, files []gen.File) {
	want := map[string][]byte{}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "gen/") && strings.HasSuffix(f.Name, ".gen.go") {
			want[strings.TrimPrefix(f.Name, "gen/")] = f.Data
		}
	}
	for _, f := range files {
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("%s: no golden gen/%s (run go test ./gen -update)", name, f.Name)
			continue
		}
		if !bytes.Equal(w, f.Content) {
			t.Errorf("%s: gen/%s differs from its golden (run go test ./gen -update and review the diff)", name, f.Name)
		}
		delete(want, f.Name)
	}
	for f := range want {
		t.Errorf("%s: golden gen/%s is no longer generated", name, f)
	}
}

// runGo runs the go command in a temporary module that uses this checkout
// of mcpgen.
func runGo(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		writeModule(t, dir, "example.com/constructs", "")
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Every fallback's package (testdata/degrade) generates, vets and
// compiles: a degraded revision is still a usable package. Cases with
// gen/*.gen.go sections pin those files (run go test ./gen -update).
func TestDegradedPackages(t *testing.T) {
	module := t.TempDir()
	for _, a := range archives(t, "../testdata/degrade/*.txtar") {
		name, path, ar := a.name, a.path, a.ar
		var err error
		var opts schema.Options
		protocol := ""
		for _, f := range ar.Files {
			switch f.Name {
			case "overrides.txt":
				if opts.Overrides, err = schema.ParseFacts(f.Name, f.Data, true); err != nil {
					t.Fatal(err)
				}
			case "protocol-version":
				protocol = strings.TrimSpace(string(f.Data))
			}
		}
		spec, err := schema.LoadWith(extractSchema(t, ar), opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files, err := gen.Generate(spec, gen.Options{Package: pkgName(name), Version: "golden", ProtocolVersion: protocol})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dir := filepath.Join(module, pkgName(name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		changed := false
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			for i, sec := range ar.Files {
				if sec.Name != "gen/"+f.Name {
					continue
				}
				switch {
				case *update:
					ar.Files[i].Data, changed = f.Content, true
				case !bytes.Equal(sec.Data, f.Content):
					t.Errorf("%s: gen/%s differs from its golden (run go test ./gen -update and review the diff)", name, f.Name)
				}
			}
		}
		if changed {
			if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	runGo(t, module, "vet", "./...")
	runGo(t, module, "build", "./...")
}

// Schemas the generator (not the model) rejects fail with their message.
func TestGenerateErrors(t *testing.T) {
	for _, a := range archives(t, "../testdata/errors/*.txtar") {
		stage, golden := "", ""
		for _, f := range a.ar.Files {
			switch f.Name {
			case "stage":
				stage = strings.TrimSpace(string(f.Data))
			case "error.golden":
				golden = string(f.Data)
			}
		}
		if stage != "gen" {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			dir := extractSchema(t, a.ar)
			spec, err := schema.Load(dir)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			_, err = gen.Generate(spec, gen.Options{Package: "x"})
			if err == nil {
				t.Fatal("Generate succeeded, want an error")
			}
			got := strings.ReplaceAll(err.Error(), dir, "$DIR") + "\n"
			if got != golden {
				t.Errorf("error = %q, want %q", got, golden)
			}
		})
	}
}
