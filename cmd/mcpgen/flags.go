package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/internal/specsource"
	"github.com/mcpgen/mcpgen/schema"
)

// specEnv names the environment variable that supplies --spec's default;
// rootEnv the one that supplies --spec-root's.
const (
	specEnv = "MCPGEN_SPEC"
	rootEnv = "MCPGEN_SPEC_ROOT"
)

// config is what the command line asks for.
type config struct {
	spec      string
	revision  string
	src       sourceFlags
	out       string
	pkg       string
	check     bool
	dumpModel bool
	version   bool
	// commit is the upstream commit of the spec files, once located.
	commit string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := pflag.NewFlagSet("mcpgen", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.spec, "spec", os.Getenv(specEnv),
		"the spec revision to read: a directory holding schema.json (and schema.ts, which refines it), or the path of a schema.json (default $"+specEnv+")")
	fs.StringVar(&cfg.revision, "revision", "", "the revision to generate, e.g. 2025-11-25: from --spec-root, else the user cache, else downloaded at the commit mcpgen pins and checked against its SHA-256")
	cfg.src.register(fs, true)
	cfg.src.log = stderr
	fs.StringVar(&cfg.out, "out", "", "directory to write the generated package into")
	fs.StringVar(&cfg.pkg, "package", "", "package name of the generated code (default: the base name of --out)")
	fs.BoolVar(&cfg.check, "check", false, "write nothing; exit 1 if --out differs from what would be generated, naming what drifted: spec, overrides, mcpgen version or edited files (drift check for CI)")
	fs.BoolVar(&cfg.dumpModel, "dump-model", false, "print the spec model (types, unions with discriminators, methods, constants) instead of generating")
	fs.BoolVar(&cfg.version, "version", false, "print the mcpgen version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `mcpgen generates a Go package from one revision of the MCP specification schema.

Usage:
  mcpgen --revision REV --out DIR [--package NAME] [--check]
  mcpgen --spec DIR --out DIR [--package NAME] [--check]
  mcpgen --spec DIR --dump-model
  mcpgen fetch --revision REV        download a revision into the cache
  mcpgen diff --from REV --to REV    what changed between two revisions, in Go terms

A revision is found in --spec-root, then in the user cache, then downloaded
from %s at the commit mcpgen pins
and checked against its SHA-256. Generated code goes into a directory of its
own; --check compares it with what would be generated and names what drifted.

Flags:
%s`, specsource.Repository, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return nil, err
		}
		return nil, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return nil, usageErr("unexpected arguments %q", fs.Args())
	}
	if cfg.version {
		return cfg, nil
	}
	if err := cfg.conflicts(fs); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (c *config) run(ctx context.Context, stdout, stderr io.Writer) error {
	if c.version {
		_, err := fmt.Fprintf(stdout, "mcpgen %s\n", Version())
		return err
	}
	if err := c.locate(ctx); err != nil {
		return err
	}
	spec, err := schema.Load(c.spec)
	if err != nil {
		return err
	}
	if c.dumpModel {
		return spec.Dump(stdout)
	}
	return c.generate(spec, stdout, stderr)
}
