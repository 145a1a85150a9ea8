package gen_test

import (
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/schema"
)

const runtimePath = "github.com/mcpgen/mcpgen/runtime"

// TestRuntimeAPI records every part of the runtime that generated code
// uses — functions and methods with their signatures, fields, types,
// interfaces with their methods, constants — in testdata/runtime-api.txt,
// under the generated-code version (gen.GeneratedVersion). When generated
// code starts to use something else, the test fails until the record is
// updated (go test ./gen -run RuntimeAPI -update): a reminder that a
// runtime which lacks the new API cannot build the new code, so
// GeneratedVersion must go up (with a new runtime.SupportsGeneratedVersionN)
// unless every supported runtime has it.
func TestRuntimeAPI(t *testing.T) {
	if raceDetector {
		t.Skip("type-checks six generated packages: run without -race (make test-go does)")
	}
	root := specdir.Root(t)
	module := t.TempDir()
	for _, rev := range specdir.Revisions {
		spec, err := schema.Load(filepath.Join(root, rev))
		if err != nil {
			t.Fatal(err)
		}
		pkg := "v" + strings.ReplaceAll(rev, "-", "")
		files, err := gen.Generate(spec, gen.Options{Package: pkg})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(module, pkg)
		os.MkdirAll(dir, 0o755)
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeModule(t, module, "example.com/generated", "")
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax | packages.NeedImports,
		Dir:  module,
		// -trimpath keeps the build cache valid across temporary
		// directories.
		Env: append(os.Environ(), "GOFLAGS=-mod=mod -trimpath"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("generated packages do not type-check")
	}
	used := map[string]bool{}
	for _, p := range pkgs {
		for _, obj := range p.TypesInfo.Uses {
			if obj.Pkg() != nil && strings.HasPrefix(obj.Pkg().Path(), runtimePath) {
				used[describe(obj)] = true
			}
		}
	}
	var lines []string
	for l := range used {
		lines = append(lines, l)
	}
	slices.Sort(lines)
	header := fmt.Sprintf("# The runtime API generated code uses, for generated-code version %d\n"+
		"# (gen.GeneratedVersion). Written by go test ./gen -run RuntimeAPI -update.\n", gen.GeneratedVersion)
	got := header + strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "runtime-api.txt")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) == got {
		return
	}
	wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")
	var diff []string
	for _, l := range lines {
		if !slices.Contains(wantLines, l) {
			diff = append(diff, "+ "+l)
		}
	}
	for _, l := range wantLines {
		if !strings.HasPrefix(l, "#") && !used[l] {
			diff = append(diff, "- "+l)
		}
	}
	t.Errorf("generated code uses the runtime differently from %s:\n%s\n\n"+
		"If a runtime that declares SupportsGeneratedVersion%d lacks any added line, generated code needs a newer runtime: "+
		"raise gen.GeneratedVersion and add the new constant to package runtime. Then run go test ./gen -run RuntimeAPI -update.",
		path, strings.Join(diff, "\n"), gen.GeneratedVersion)
}

// describe is one line for a runtime object: its kind, qualified name and
// type. Methods are named by their receiver and fields by their struct;
// a struct type itself is just named (adding a field breaks no generated
// code), an interface lists its methods (generated types implement them).
func describe(obj types.Object) string {
	q := func(p *types.Package) string { return strings.TrimPrefix(p.Path(), runtimePath+"/") }
	switch o := obj.(type) {
	case *types.Var:
		if o.IsField() {
			o = o.Origin() // Opt[T].Value, not Opt[Cursor].Value
			return "field " + owner(o, q) + "." + o.Name() + " " + types.TypeString(o.Type(), q)
		}
	case *types.Func:
		obj = o.Origin()
	case *types.TypeName:
		name := "type " + q(o.Pkg()) + "." + o.Name()
		if _, ok := o.Type().Underlying().(*types.Struct); ok {
			return name + " struct"
		}
		return name + " " + types.TypeString(o.Type().Underlying(), q)
	}
	return types.ObjectString(obj, q)
}

// owner names the struct type of its package that declares field f.
func owner(f *types.Var, q types.Qualifier) string {
	scope := f.Pkg().Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				if st.Field(i) == f {
					return q(f.Pkg()) + "." + name
				}
			}
		}
	}
	return q(f.Pkg()) + ".?"
}

// writeModule makes dir a module that requires mcpgen: this checkout, or
// the copy at replace.
func writeModule(t *testing.T, dir, module, replace string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if replace == "" {
		replace = root
	}
	mod := "module " + module + "\n\ngo 1.26\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + replace + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}
