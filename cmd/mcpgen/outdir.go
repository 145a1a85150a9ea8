package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
)

// checkOutDir refuses an output directory that holds Go files mcpgen did
// not generate: generated code goes into a package of its own, where
// regenerating may rewrite or remove any file. Test files (_test.go) may
// sit beside the generated ones.
func checkOutDir(dir, revision string) error {
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return fmt.Errorf("--out: %w", err)
	case !fi.IsDir():
		return usageErr("--out %s is a file; it names the directory of the generated package", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	var mine []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if !gen.IsGenerated(src) {
			mine = append(mine, name)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	sort.Strings(mine)
	if len(mine) > 5 {
		mine = append(mine[:5], "…")
	}
	return fmt.Errorf("refusing to generate into %s: it holds Go files mcpgen did not generate (%s); "+
		"move them to a package of their own, or generate into a directory of its own, e.g. --out %s", dir, strings.Join(mine, ", "), elsewhere(dir, revision))
}

// elsewhere is a directory to suggest instead of dir, which holds files of
// the user's: a sibling "generated" directory holding one named like dir
// (mcp/v20251125 → mcp/generated/v20251125), so the package keeps its name.
func elsewhere(dir, revision string) string {
	base := filepath.Base(dir)
	if abs, err := filepath.Abs(dir); err == nil {
		base = filepath.Base(abs)
	}
	if !isIdent(base) {
		base = packageFor(revision)
	}
	return filepath.Join(filepath.Dir(filepath.Clean(dir)), "generated", base)
}

// staleFiles lists the files in dir that mcpgen generated and would not
// generate now; files of other origin are never touched.
func staleFiles(dir string, want map[string][]byte) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.gen.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		name := filepath.Base(p)
		if _, ok := want[name]; ok {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading --out: %w", err)
		}
		if gen.IsGenerated(src) {
			out = append(out, name)
		}
	}
	return out, nil
}

// packageFor suggests a package name for a revision: v20251125 for
// 2025-11-25.
func packageFor(revision string) string {
	var b strings.Builder
	for _, r := range revision {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "mcp"
	}
	return "v" + strings.ToLower(b.String())
}
