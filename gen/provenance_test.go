package gen_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/schema"
)

// generateConstruct generates one of the construct schemas.
func generateConstruct(t *testing.T, name string, opts gen.Options) []gen.File {
	t.Helper()
	ar, err := txtar.ParseFile("../testdata/constructs/" + name + ".txtar")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := schema.Load(extractSchema(t, ar))
	if err != nil {
		t.Fatal(err)
	}
	files, err := gen.Generate(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func fileNamed(t *testing.T, files []gen.File, name string) []byte {
	t.Helper()
	for _, f := range files {
		if f.Name == name {
			return f.Content
		}
	}
	t.Fatalf("no %s", name)
	return nil
}

// The record written into provenance.gen.go reads back; every file is
// recognised as mcpgen's.
func TestProvenanceRoundTrip(t *testing.T) {
	tests := []struct {
		opts gen.Options
		want gen.Provenance
	}{
		{gen.Options{Package: "objects", Version: "v1.2.3", SpecCommit: strings.Repeat("c", 40), OverridesSHA256: strings.Repeat("d", 64)},
			gen.Provenance{Generator: "v1.2.3", Revision: "objects", Protocol: "objects", Commit: strings.Repeat("c", 40), Overrides: strings.Repeat("d", 64)}},
		{gen.Options{Package: "objects"},
			gen.Provenance{Generator: "devel", Revision: "objects", Protocol: "objects", Commit: "unknown", Overrides: "none"}},
	}
	for _, tt := range tests {
		files := generateConstruct(t, "objects", tt.opts)
		src := fileNamed(t, files, gen.ProvenanceFile)
		got, err := gen.ReadProvenance(src)
		if err != nil {
			t.Fatal(err)
		}
		head, ok := gen.ReadHeader(src)
		if !ok || head.SchemaSHA256 != got.SchemaSHA256 || head.Generator != tt.want.Generator || head.Revision != "objects" {
			t.Errorf("header %+v", head)
		}
		tt.want.SchemaSHA256, tt.want.SchemaTSSHA256 = got.SchemaSHA256, got.SchemaTSSHA256
		if got != tt.want || len(got.SchemaSHA256) != 64 || len(got.SchemaTSSHA256) != 64 {
			t.Errorf("ReadProvenance = %+v, want %+v", got, tt.want)
		}
		compat := fileNamed(t, files, gen.CompatFile)
		if strings.HasPrefix(tt.want.Generator, "v") != strings.Contains(string(compat), "go get github.com/mcpgen/mcpgen@"+tt.want.Generator) {
			t.Errorf("the guard comment should name go get for releases only:\n%s", compat)
		}
		for _, f := range files {
			if f.Name < gen.CompatFile {
				t.Errorf("%s sorts before %s: the compiler would report its errors before the guard's", f.Name, gen.CompatFile)
			}
		}
		for _, f := range files {
			if !gen.IsGenerated(f.Content) {
				t.Errorf("%s not recognised as generated", f.Name)
			}
		}
	}
	if _, err := gen.ReadProvenance([]byte("package x\n")); err == nil {
		t.Error("ReadProvenance accepted a file without a record")
	}
}

// Generated code built against a runtime that lacks its
// SupportsGeneratedVersion constant (an older runtime, here also without
// wire.Members.Add, the case of issue 13) fails to compile, and the first
// error is the guard line, whose comment says what to do.
func TestVersionGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a copy of the runtime")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// An "older" runtime: this one without the constant.
	old := t.TempDir()
	err = filepath.WalkDir(filepath.Join(root, "runtime"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch rel {
		case filepath.Join("runtime", "runtime.go"):
			// The newest version is the one an older runtime lacks.
			newest := fmt.Sprintf("const SupportsGeneratedVersion%d ", gen.GeneratedVersion)
			src = []byte(strings.Replace(string(src), newest, "const supportsGeneratedVersionNext ", 1))
		case filepath.Join("runtime", "wire", "raw.go"):
			src = []byte(strings.Replace(string(src), "func (d *Decoder) Extra(", "func (d *Decoder) extra(", 1))
		}
		os.MkdirAll(filepath.Join(old, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(old, rel), src, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		data, _ := os.ReadFile(filepath.Join(root, f))
		os.WriteFile(filepath.Join(old, f), data, 0o644)
	}
	mod := t.TempDir()
	pkg := filepath.Join(mod, "objects")
	os.MkdirAll(pkg, 0o755)
	for _, f := range generateConstruct(t, "objects", gen.Options{Package: "objects"}) {
		os.WriteFile(filepath.Join(pkg, f.Name), f.Content, 0o644)
	}
	writeModule(t, mod, "example.com/user", old)
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("generated code built against a runtime without its guard constant")
	}
	src := fileNamed(t, generateConstruct(t, "objects", gen.Options{Package: "objects"}), gen.CompatFile)
	lines := strings.Split(string(src), "\n")
	guard := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "const _ = mcpruntime.") })
	want := fmt.Sprintf("objects/%s:%d:22: undefined: mcpruntime.SupportsGeneratedVersion%d", gen.CompatFile, guard+1, gen.GeneratedVersion)
	errs := strings.Split(strings.TrimSpace(string(out)), "\n")
	if guard < 0 || len(errs) < 3 || errs[1] != want || !strings.Contains(string(out), "d.Extra undefined") {
		t.Fatalf("go build said:\n%s\nwant first: %s", out, want)
	}
	if !strings.Contains(strings.Join(lines[guard-10:guard], "\n"), "Regenerate the package with the mcpgen") {
		t.Errorf("no advice above the guard line:\n%s", strings.Join(lines[guard-10:guard+1], "\n"))
	}
}
