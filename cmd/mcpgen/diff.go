package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/apidiff"
	"github.com/mcpgen/mcpgen/schema"
)

// runDiff is mcpgen diff: what changed between two revisions in the Go
// terms of the packages mcpgen generates for them, marking what breaks
// code written against the older one.
func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		src              sourceFlags
		from, to         string
		asJSON, breaking bool
		forPatterns      []string
	)
	fs := pflag.NewFlagSet("mcpgen diff", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&from, "from", "", "the older revision: a name (found like --revision) or a directory holding schema.json")
	fs.StringVar(&to, "to", "", "the newer revision: a name or a directory")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON (a stable shape: see the package documentation of gen/apidiff)")
	fs.BoolVar(&breaking, "breaking", false, "list only the changes that break code written against --from")
	fs.StringArrayVar(&forPatterns, "for", nil, "keep only the changes to what these Go packages use of the packages generated for --from (package patterns, e.g. ./...; repeatable), each with where it is used")
	src.register(fs, false)
	src.log = stderr
	fs.Usage = func() {
		fmt.Fprintf(stderr, `mcpgen diff says what changed between two revisions in Go terms: types,
fields, capability members, union members, enum values, methods, error
codes and constants added, removed or changed. Changes marked ! make code
written against --from stop compiling; ~ compile but behave differently
(values that were valid fail Validate, or a value may now be absent).

Usage:
  mcpgen diff --from REV --to REV [--json] [--breaking] [--for PATTERN...]

With --for, only the changes to identifiers the packages use (of the
packages generated for --from: those whose Revision is it) are listed, each
with the file:line of its uses: what an upgrade of that code must look at.

REV is a revision name, found like --revision (spec root, cache, download),
or a directory holding schema.json (any value with a /, e.g. ./next).

Flags:
%s`, fs.FlagUsages())
	}
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	switch {
	case from == "" || to == "":
		return usageErr("mcpgen diff needs --from and --to: two revision names or directories")
	}
	load := func(which, ref string) (*gen.API, string, error) {
		dir := ref
		if !isPath(ref) {
			s, err := src.resolve(ctx, ref)
			if err != nil {
				return nil, "", err
			}
			dir = s.Dir
		}
		spec, err := schema.Load(dir)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", which, err)
		}
		api, err := gen.APIOf(spec)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", which, err)
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		return api, dir, nil
	}
	old, oldDir, err := load("--from", from)
	if err != nil {
		return err
	}
	new, newDir, err := load("--to", to)
	if err != nil {
		return err
	}
	report := apidiff.Compare(old, new)
	// The directories compared, not only the versions they declare: two
	// drafts may declare one.
	report.From.Dir, report.To.Dir = oldDir, newDir
	if breaking {
		report = report.OnlyBreaking()
	}
	if len(forPatterns) > 0 {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		uses, err := loadUses(wd, forPatterns, report.From.Revision)
		if err != nil {
			return err
		}
		if len(uses.generated()) == 0 {
			fmt.Fprintf(stderr, "mcpgen diff: --for %v: no package imports one generated for %s\n", forPatterns, report.From.Revision)
		}
		report = report.Filter(uses.keep)
		report.For = &apidiff.Examined{Patterns: forPatterns, Packages: uses.examined, Generated: uses.generated(),
			Uses: uses.uses, Constructs: uses.constructCount()}
	}
	if asJSON {
		return report.WriteJSON(stdout)
	}
	return report.WriteText(stdout)
}

// isPath tells a directory (or schema.json) from a revision name: a path
// has a separator. A bare word is a revision name even if the working
// directory holds something of that name: write ./NAME for that.
func isPath(ref string) bool {
	return strings.ContainsRune(ref, os.PathSeparator) || strings.ContainsRune(ref, '/')
}
