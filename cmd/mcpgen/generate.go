package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/specsource"
	"github.com/mcpgen/mcpgen/schema"
)

// generate writes the package for spec into --out, removing generated files
// that are no longer produced; with --check it writes nothing and fails
// naming what drifted.
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
		if c.pkg == "" {
			return usageErr("the package name would be %q, the base name of --out, which is not a Go identifier: pass --package NAME, or name the directory like a package (e.g. mcp/v20251125)", pkg)
		}
		return usageErr("--package %q is not a Go identifier", pkg)
	}
	if fi, err := os.Stat(c.out); err == nil && !fi.IsDir() {
		return usageErr("--out %s is a file; it names the directory of the generated package", c.out)
	}
	if w := draftVersionWarning(spec, c.protocol); w != "" && !c.check {
		fmt.Fprintln(stderr, w)
	}
	opts := gen.Options{Package: pkg, Version: Version(), SpecCommit: c.commit, OverridesSHA256: c.overridesSHA256, ProtocolVersion: c.protocol, Side: c.side}
	files, err := gen.Generate(spec, opts)
	if err != nil {
		return err
	}
	want := map[string][]byte{}
	for _, f := range files {
		want[f.Name] = f.Content
	}
	var drift []string
	var diff string // of the first file that differs
	for _, f := range files {
		have, err := os.ReadFile(filepath.Join(c.out, f.Name))
		switch {
		case os.IsNotExist(err):
			drift = append(drift, f.Name+" (missing)")
		case err != nil:
			return fmt.Errorf("reading --out: %w", err)
		case !bytes.Equal(have, f.Content):
			drift = append(drift, f.Name+" (differs)")
			if diff == "" {
				diff = unifiedDiff(filepath.Join(c.out, f.Name), have, f.Content)
			}
		}
	}
	stale, err := staleFiles(c.out, want)
	if err != nil {
		return err
	}
	for _, name := range stale {
		drift = append(drift, name+" (no longer generated)")
	}
	sort.Strings(drift)
	if c.check {
		if len(drift) > 0 {
			return driftError(c.out, pkg, provenanceOf(files), drift, diff)
		}
		return nil
	}
	if err := checkOutDir(c.out, spec.Revision); err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return fmt.Errorf("creating --out: %w", err)
	}
	for _, f := range files {
		if err := writeIfChanged(filepath.Join(c.out, f.Name), f.Content); err != nil {
			return fmt.Errorf("writing the package: %w", err)
		}
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(c.out, name)); err != nil {
			return fmt.Errorf("removing a file no longer generated: %w", err)
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

// draftVersionWarning warns of a draft generated with the protocol version
// a published revision has (the official draft declares the last
// published one's): mounted beside that revision, both would negotiate
// it, and the server refuses them. "" when there is nothing to say.
func draftVersionWarning(spec *schema.Spec, protocol string) string {
	if protocol != "" {
		return ""
	}
	dir := filepath.Base(filepath.Dir(spec.JSONPath))
	if dir == spec.Revision || !slices.Contains(specsource.Known(), spec.Revision) {
		return "" // the published revision itself, or a version of its own
	}
	return fmt.Sprintf("mcpgen: warning: %s declares protocol version %s, which the published revision %s has: mounted on one server beside it, both negotiate %s and the server refuses them (mcp: revision %s mounted twice); give it a version of its own with --protocol-version (e.g. DRAFT-%s-v1)",
		dir, spec.Revision, spec.Revision, spec.Revision, spec.Revision, spec.Revision[:4])
}
