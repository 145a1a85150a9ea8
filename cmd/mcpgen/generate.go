package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/schema"
)

// generate writes the package for spec into --out, removing generated files
// that are no longer produced; with --check it writes nothing and fails
// listing the files that differ.
func (c *config) generate(spec *schema.Spec, stdout, stderr io.Writer) error {
	pkg := c.pkg
	if pkg == "" {
		abs, err := filepath.Abs(c.out)
		if err != nil {
			return err
		}
		pkg = filepath.Base(abs)
	}
	if !isIdent(pkg) {
		return fmt.Errorf("package name %q is not a Go identifier; pass --package", pkg)
	}
	files, err := gen.Generate(spec, gen.Options{Package: pkg, Version: Version(), ProtocolVersion: c.protocol})
	if err != nil {
		return err
	}
	want := map[string][]byte{}
	for _, f := range files {
		want[f.Name] = f.Content
	}
	var drift []string
	for _, f := range files {
		have, err := os.ReadFile(filepath.Join(c.out, f.Name))
		switch {
		case os.IsNotExist(err):
			drift = append(drift, f.Name+" (missing)")
		case err != nil:
			return err
		case !bytes.Equal(have, f.Content):
			drift = append(drift, f.Name+" (differs)")
		}
	}
	stale, _ := filepath.Glob(filepath.Join(c.out, "*.gen.go"))
	for _, p := range stale {
		if _, ok := want[filepath.Base(p)]; !ok {
			drift = append(drift, filepath.Base(p)+" (no longer generated)")
		}
	}
	sort.Strings(drift)
	if c.check {
		if len(drift) > 0 {
			return fmt.Errorf("%s is out of date with %s:\n  %s", c.out, c.spec, strings.Join(drift, "\n  "))
		}
		return nil
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeIfChanged(filepath.Join(c.out, f.Name), f.Content); err != nil {
			return err
		}
	}
	for _, p := range stale {
		if _, ok := want[filepath.Base(p)]; !ok {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeIfChanged leaves an identical file alone, so build caches and
// timestamps stay put.
func writeIfChanged(path string, content []byte) error {
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, content) {
		return nil
	}
	return os.WriteFile(path, content, 0o644)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}
