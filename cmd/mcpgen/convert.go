package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/schema"
)

// convertSide is what the command line says of one package of a bridge.
type convertSide struct {
	flag string // "--from", "--to"
	dir  string
	spec string // a schema directory instead of the recorded revision
	cfg  config // extensions and overrides, as the package was generated
	set  bool   // --*-extension given
}

// runConvert is mcpgen convert: it generates the package that serves the
// revision of one generated package (--from) with handlers written for the
// revision of another (--to): conversions both ways, field by field, and
// the adapter the runtime mounts (gen.GenerateBridge).
func runConvert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		src            sourceFlags
		from, to       = convertSide{flag: "--from"}, convertSide{flag: "--to"}
		out, pkg, tabl string
		check, strict  bool
	)
	fs := pflag.NewFlagSet("mcpgen convert", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, s := range []*convertSide{&from, &to} {
		name := strings.TrimPrefix(s.flag, "--")
		fs.StringVar(&s.dir, name, "", "the directory of a package mcpgen generated: "+map[string]string{"--from": "the revision clients speak", "--to": "the revision the handlers are written for"}[s.flag])
		fs.StringVar(&s.spec, name+"-spec", "", "the schema directory the "+s.flag+" package was generated from with --spec (default: its recorded revision, found like --revision)")
		fs.StringArrayVar(&s.cfg.extensions, name+"-extension", nil, "an extension the "+s.flag+" package was generated with (default: found from its provenance record)")
		fs.StringVar(&s.cfg.overrides, name+"-overrides", "", "the overrides file the "+s.flag+" package was generated with")
	}
	fs.StringVar(&out, "out", "", "the directory of the bridge package (default: beside --from, named v<from>via<to>)")
	fs.StringVar(&pkg, "package", "", "the bridge's package name (default: the base name of --out)")
	fs.StringVar(&tabl, "table", "", "a table of what differs in meaning, added to the one mcpgen ships (format: gen/bridge.txt)")
	fs.BoolVar(&check, "check", false, "write nothing; fail when the files on disk differ from what would be generated")
	fs.BoolVar(&strict, "strict", false, "fail when a method of --from's revision is not served or a definition does not convert")
	src.register(fs, false)
	src.log = stderr
	fs.Usage = func() {
		fmt.Fprintf(stderr, `mcpgen convert generates the bridge between the packages of two revisions:
for every definition both have, conversions in both directions, field by
field, and Mount, which serves the --from revision's clients with handlers
written for the --to revision. What a conversion cannot carry is reported
on stderr and in the package documentation; a method that cannot be
served is left out (its capability is not declared).

Usage:
  mcpgen convert --from DIR --to DIR [--out DIR] [--package NAME] [--check] [--strict]

Run it from go generate after the packages themselves:

  //go:generate go tool mcpgen convert --from mcp/v20250618 --to mcp/v20260728

Flags:
%s`, fs.FlagUsages())
	}
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if from.dir == "" || to.dir == "" {
		return usageErr("mcpgen convert needs --from and --to: the directories of two generated packages")
	}
	from.set, to.set = fs.Changed("from-extension"), fs.Changed("to-extension")
	if out == "" {
		out = filepath.Join(filepath.Dir(from.dir), filepath.Base(from.dir)+"via"+strings.TrimPrefix(filepath.Base(to.dir), "v"))
	}
	if pkg == "" {
		abs, err := filepath.Abs(out)
		if err != nil {
			return err
		}
		pkg = filepath.Base(abs)
	}
	if !isIdent(pkg) {
		return usageErr("the bridge's package name %q is not a Go identifier: pass --package NAME", pkg)
	}
	opts := gen.BridgeOptions{Package: pkg, Version: Version()}
	if tabl != "" {
		t, err := gen.ReadBridgeTable(tabl)
		if err != nil {
			return err
		}
		opts.Table = t
	}
	for _, s := range []struct {
		side *convertSide
		into *gen.BridgeSide
	}{{&from, &opts.Client}, {&to, &opts.Handlers}} {
		bs, err := s.side.load(ctx, &src, stderr)
		if err != nil {
			return err
		}
		*s.into = bs
	}
	files, report, err := gen.GenerateBridge(opts)
	if err != nil {
		return err
	}
	severe := 0
	for _, l := range report.Losses {
		if l.Severe() {
			severe++
			fmt.Fprintf(stderr, "mcpgen convert: %s\n", l)
		}
	}
	fmt.Fprintf(stderr, "mcpgen convert: %s, the bridge of %s and %s: %d things one revision cannot carry to the other, listed in its doc.gen.go; methods or definitions left unconverted: %d (above; expected where a revision lacks a feature; --strict fails on them)\n",
		out, report.Client, report.Handlers, len(report.Losses), severe)
	if strict && severe > 0 {
		return fmt.Errorf("--strict: %d conversions cannot be made", severe)
	}
	want := map[string][]byte{}
	var drift []string
	for _, f := range files {
		want[f.Name] = f.Content
		have, err := os.ReadFile(filepath.Join(out, f.Name))
		if err != nil || !bytes.Equal(have, f.Content) {
			drift = append(drift, f.Name)
		}
	}
	stale, err := staleFiles(out, want)
	if err != nil {
		return err
	}
	if check {
		if len(drift)+len(stale) > 0 {
			return fmt.Errorf("%s is not what mcpgen convert generates: %s", out, strings.Join(append(drift, stale...), ", "))
		}
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeIfChanged(filepath.Join(out, f.Name), f.Content); err != nil {
			return err
		}
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(out, name)); err != nil {
			return err
		}
	}
	return nil
}

// load finds the model the package in s.dir was generated from, checked
// against its provenance record, and its import path.
func (s *convertSide) load(ctx context.Context, src *sourceFlags, stderr io.Writer) (gen.BridgeSide, error) {
	rec, ok := recorded(s.dir)
	if !ok {
		return gen.BridgeSide{}, fmt.Errorf("%s %s: no package generated by mcpgen there", s.flag, s.dir)
	}
	dir := s.spec
	if dir == "" {
		found, err := src.resolve(ctx, rec.Revision)
		if err != nil {
			return gen.BridgeSide{}, fmt.Errorf("%s %s: revision %s: %w", s.flag, s.dir, rec.Revision, err)
		}
		dir = found.Dir
	}
	facts, err := s.facts(rec)
	if err != nil {
		return gen.BridgeSide{}, err
	}
	spec, err := schema.LoadWith(dir, schema.Options{Overrides: facts})
	if err != nil {
		return gen.BridgeSide{}, fmt.Errorf("%s: %w", s.flag, err)
	}
	if spec.SchemaSHA256 != rec.SchemaSHA256 {
		return gen.BridgeSide{}, fmt.Errorf("%s %s was generated from a schema.json with SHA-256 %s, not %s's (%s): regenerate it first", s.flag, s.dir, short(rec.SchemaSHA256), dir, short(spec.SchemaSHA256))
	}
	pkgs, err := packages.Load(&packages.Config{Context: ctx, Mode: packages.NeedName, Dir: s.dir}, ".")
	if err != nil || len(pkgs) != 1 || pkgs[0].PkgPath == "" {
		return gen.BridgeSide{}, fmt.Errorf("%s %s: cannot tell its import path: %v", s.flag, s.dir, errors.Join(err, packagesErr(pkgs)))
	}
	return gen.BridgeSide{Spec: spec, Path: pkgs[0].PkgPath, Name: pkgs[0].Name}, nil
}

func packagesErr(pkgs []*packages.Package) error {
	var errs []error
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

// facts are the facts the package was generated with: the flags', or,
// without them, the extensions mcpgen ships whose record matches the
// package's (its overrides SHA-256).
func (s *convertSide) facts(rec gen.Provenance) (*schema.Facts, error) {
	if s.set || s.cfg.overrides != "" {
		facts, sum, err := s.cfg.facts()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.flag, err)
		}
		if rec.Overrides != "" && orNone(sum) != rec.Overrides {
			return nil, fmt.Errorf("%s %s was generated with other extensions or overrides than %s-extension/%s-overrides name (SHA-256 %s, these %s)", s.flag, s.dir, s.flag, s.flag, short(rec.Overrides), short(orNone(sum)))
		}
		return facts, nil
	}
	if rec.Overrides == "" || rec.Overrides == "none" {
		return nil, nil
	}
	for _, set := range subsets(schema.Extensions()) {
		c := config{extensions: set}
		facts, sum, err := c.facts()
		if err == nil && sum == rec.Overrides {
			return facts, nil
		}
	}
	return nil, fmt.Errorf("%s %s was generated with an overrides file (SHA-256 %s): name it with %s-overrides FILE (and its extensions with %s-extension)", s.flag, s.dir, short(rec.Overrides), s.flag, s.flag)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// subsets lists the ordered selections of names, shortest first.
func subsets(names []string) [][]string {
	var out [][]string
	var walk func(prefix []string, rest []string)
	walk = func(prefix, rest []string) {
		if len(prefix) > 0 {
			out = append(out, append([]string(nil), prefix...))
		}
		for i, n := range rest {
			others := append(append([]string(nil), rest[:i]...), rest[i+1:]...)
			walk(append(prefix, n), others)
		}
	}
	walk(nil, names)
	return out
}
