package schema_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/schema"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/*.txtar")

// extract writes the archive's schema files into a temporary directory.
func extract(t *testing.T, ar *txtar.Archive) string {
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

// golden compares got with the archive's section name, or rewrites it.
func golden(t *testing.T, path string, ar *txtar.Archive, name string, got []byte) {
	t.Helper()
	for i, f := range ar.Files {
		if f.Name != name {
			continue
		}
		if *update {
			ar.Files[i].Data = got
			if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if !bytes.Equal(f.Data, got) {
			t.Errorf("%s differs from golden %s (run go test -update to accept):\n--- got ---\n%s\n--- want ---\n%s", name, path, got, f.Data)
		}
		return
	}
	t.Fatalf("%s has no %s section", path, name)
}

// The model of each of our own construct schemas is pinned by a golden dump.
func TestConstructModels(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/constructs/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no testdata/constructs")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dir := extract(t, ar)
			s, err := schema.Load(dir)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var b bytes.Buffer
			if err := s.Dump(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, path, ar, "model.golden", b.Bytes())
		})
	}
}

// Each failure mode is a one-line error naming the place, never a panic.
func TestLoadErrors(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/errors/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no testdata/errors")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range ar.Files {
				if f.Name == "stage" && strings.TrimSpace(string(f.Data)) == "gen" {
					t.Skip("the generator rejects this schema, not the model (see gen tests)")
				}
			}
			dir := extract(t, ar)
			_, err = schema.Load(dir)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), dir, "$DIR")
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans several lines: %q", msg)
			}
			golden(t, path, ar, "error.golden", []byte(msg+"\n"))
		})
	}
}

// section returns the archive's section name, or nil.
func section(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// LoadOptions are the options a degrade case asks for: its overrides.txt.
func loadOptions(t *testing.T, ar *txtar.Archive) schema.Options {
	t.Helper()
	var opts schema.Options
	if src := section(ar, "overrides.txt"); src != nil {
		facts, err := schema.ParseFacts("overrides.txt", src, true)
		if err != nil {
			t.Fatal(err)
		}
		opts.Overrides = facts
	}
	return opts
}

// Each fallback (testdata/degrade, one case per class and per fact an
// overrides file can state) loads with a warning of its class, whose
// model is pinned by a golden dump (warnings included); with Strict the
// same schema fails with the warning as its error. Cases of class "none"
// derive everything: no warning.
func TestDegrade(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/degrade/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no testdata/degrade")
	}
	covered := map[schema.Class]bool{}
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		class := schema.Class(strings.TrimSpace(string(section(ar, "class"))))
		covered[class] = true
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			dir := extract(t, ar)
			opts := loadOptions(t, ar)
			s, err := schema.LoadWith(dir, opts)
			if err != nil {
				t.Fatalf("LoadWith: %v", err)
			}
			var classes []schema.Class
			for _, w := range s.Warnings {
				classes = append(classes, w.Class)
			}
			switch {
			case class == "none" && len(classes) > 0:
				t.Errorf("warnings %v, want none", classes)
			case class != "none" && !slices.Contains(classes, class):
				t.Errorf("warnings %v, want one of class %s", classes, class)
			}
			var b bytes.Buffer
			if err := s.Dump(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, path, ar, "model.golden", b.Bytes())

			opts.Strict = true
			_, err = schema.LoadWith(dir, opts)
			if class == "none" {
				if err != nil {
					t.Errorf("strict: %v", err)
				}
				return
			}
			var se *schema.StrictError
			if !errors.As(err, &se) {
				t.Fatalf("strict: %v, want a *schema.StrictError", err)
			}
			msg := strings.ReplaceAll(err.Error(), dir, "$DIR")
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans several lines: %q", msg)
			}
			golden(t, path, ar, "strict.golden", []byte(msg+"\n"))
		})
	}
	for _, c := range schema.Classes {
		if !covered[c.Class] {
			t.Errorf("no testdata/degrade case of class %s", c.Class)
		}
	}
}

func TestLoadMissingFiles(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]string{
		filepath.Join(dir, "nope"):        "no such file or directory",
		dir:                               "no schema.json in this directory",
		filepath.Join(dir, "schema.json"): "no such file or directory",
	}
	for path, want := range tests {
		_, err := schema.Load(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want error containing %q", path, err, want)
		}
	}
}
