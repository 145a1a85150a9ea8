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
	strict    bool
	overrides string
	// extensions name facts files mcpgen ships (schema/extensions).
	extensions []string
	protocol   string
	side       string
	// commit is the upstream commit of the spec files, once located;
	// overridesSHA256 the SHA-256 of the overrides file, once read.
	commit, overridesSHA256 string
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
	fs.BoolVar(&cfg.strict, "strict", false, "make every warning an error: stop at the first fact the revision does not let mcpgen derive")
	fs.StringVar(&cfg.overrides, "overrides", "", "a facts file stating what the revision does not (README: upgrading to a new revision); also read by --check")
	fs.StringArrayVar(&cfg.extensions, "extension", nil, "add the members of an extension mcpgen ships to the revision's types (repeatable): resumable (resumeToken/nextResumeToken, experimental)")
	fs.StringVar(&cfg.protocol, "protocol-version", "", "the protocol version the package negotiates (default: the schema's LATEST_PROTOCOL_VERSION), e.g. DRAFT-2026-v1 for a draft that declares a published revision's version")
	fs.StringVar(&cfg.side, "side", "both", "the end of a connection the package serves: server, client or both; a package for one side mounts on that side only (a package for both already leaves the end a program does not play out of its binary)")
	fs.BoolVar(&cfg.version, "version", false, "print the mcpgen version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `mcpgen generates a Go package from one revision of the MCP specification schema.

Usage:
  mcpgen --revision REV --out DIR [--package NAME] [--check] [--strict] [--overrides FILE] [--extension NAME] [--protocol-version V] [--side S]
  mcpgen --spec DIR --out DIR [--package NAME] [--check] [--strict] [--overrides FILE] [--protocol-version V] [--side S]
  mcpgen --spec DIR --dump-model [--strict] [--overrides FILE]

Commands besides generation (mcpgen COMMAND --help says more):
  mcpgen tools [PACKAGE]             the schemas, decoders and catalog of the tools, prompts
                                     and resources a package declares with //mcp: directives
  mcpgen convert --from DIR --to DIR the bridge serving one generated revision with handlers
                                     (and clients) written for another
  mcpgen diff --from REV --to REV    what changed between two revisions, in Go terms
  mcpgen fetch --revision REV        download a revision into the cache

A revision is found in --spec-root, then in the user cache, then downloaded
from %s at the commit mcpgen pins
and checked against its SHA-256. Generated code goes into a directory of its
own; --check compares it with what would be generated and names what drifted.
What mcpgen cannot derive from a revision degrades to a documented fallback
and a warning on stderr; --strict makes warnings errors.

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
	opts := schema.Options{Strict: c.strict}
	var err error
	if opts.Overrides, c.overridesSHA256, err = c.facts(); err != nil {
		return err
	}
	spec, err := schema.LoadWith(c.spec, opts)
	if err != nil {
		return err
	}
	for _, w := range spec.Warnings {
		fmt.Fprintf(stderr, "mcpgen: warning: %s\n", w)
	}
	if n := len(spec.Warnings); n > 0 {
		fmt.Fprintf(stderr, "mcpgen: %d warning(s); the generated package uses the fallbacks named above (--strict makes them errors)\n", n)
	}
	if c.dumpModel {
		return spec.Dump(stdout)
	}
	return c.generate(spec, stdout, stderr)
}
