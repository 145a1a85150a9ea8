package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/gen/fromgo"
)

// runTools is mcpgen tools: it generates the schemas, decoders, validators,
// encoders and the set of the tools, prompts and resources a Go package
// declares with //mcp: directives (package gen/fromgo).
func runTools(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var opts fromgo.Options
	var check bool
	fs := pflag.NewFlagSet("mcpgen tools", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.Func, "func", "Features", "the name of the generated function that returns the *features.Set")
	fs.StringVar(&opts.File, "file", "features.gen.go", "the generated file's name, in the package's directory")
	fs.BoolVar(&check, "check", false, "write nothing; fail when the file on disk differs from what would be generated")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `mcpgen tools generates what serves the tools, prompts and resources a Go
package declares with //mcp: directives on plain functions: the JSON Schemas
of their argument and result types, reflection-free decoders, validators and
encoders, and a function returning a *features.Set of them, for
mcp.ServerOptions.Catalog (see package runtime/features).

Usage:
  mcpgen tools [--func NAME] [--file NAME] [--check] [PACKAGE]

PACKAGE is a package pattern or directory (default "."). Run it from go
generate:

  //go:generate go tool mcpgen tools

%s
Flags:
%s`, fromgo.Reference, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return err
		}
		return usageErr("%v", err)
	}
	switch fs.NArg() {
	case 0:
	case 1:
		// A directory is loaded from inside (it may be another module);
		// anything else is a package pattern of the current one.
		if st, err := os.Stat(fs.Arg(0)); err == nil && st.IsDir() {
			opts.Dir = fs.Arg(0)
		} else {
			opts.Pattern = fs.Arg(0)
		}
	default:
		return &usageError{msg: "mcpgen tools takes one package"}
	}
	out, err := fromgo.Generate(opts)
	if err != nil {
		return err
	}
	if check {
		have, err := os.ReadFile(out.Path)
		if err != nil || !bytes.Equal(have, out.Content) {
			return fmt.Errorf("%s is not what mcpgen tools generates: run go generate", out.Path)
		}
		return nil
	}
	if err := os.WriteFile(out.Path, out.Content, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mcpgen tools: wrote %s (%d tools, %d prompts, %d resources, %d templates)\n", out.Path, out.Tools, out.Prompts, out.Resources, out.Templates)
	return nil
}
