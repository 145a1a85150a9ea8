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
	var serverJSON string
	var so fromgo.ServerOptions
	fs.StringVar(&serverJSON, "server-json", "", "also write the MCP registry's server.json of the package to `FILE` (with the --server-* flags)")
	fs.StringVar(&so.Name, "server-name", "", "server.json: the server's `NAME`, reverse-DNS with one slash (io.github.user/weather)")
	fs.StringVar(&so.Version, "server-version", "", "server.json: the server's `VERSION` (semver)")
	fs.StringVar(&so.Title, "server-title", "", "server.json: a display title")
	fs.StringVar(&so.Description, "server-description", "", "server.json: what it does, at most 100 characters (default: the package doc's first sentence)")
	fs.StringVar(&so.Repository, "server-repository", "", "server.json: the source repository's `URL`")
	fs.StringVar(&so.WebsiteURL, "server-website", "", "server.json: the server's website `URL`")
	fs.StringArrayVar(&so.Packages, "server-package", nil, "server.json: a package to run it from, `TYPE=IDENTIFIER[@VERSION]` (oci, npm, pypi, nuget, mcpb, cargo; over stdio); repeatable")
	fs.BoolVar(&so.ListRestricted, "server-list-restricted", false, "server.json: list the declarations restricted with visible= by name too (left out by default: the registry is public)")
	fs.StringArrayVar(&so.Remotes, "server-remote", nil, "server.json: where it is served, `streamable-http=URL` or sse=URL; repeatable")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `mcpgen tools generates what serves the tools, prompts and resources a Go
package declares with //mcp: directives on plain functions: the JSON Schemas
of their argument and result types, reflection-free decoders, validators and
encoders, and a function returning a *features.Set of them, for
mcp.ServerOptions.Features (see package runtime/features).

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
	for _, w := range out.Warnings {
		fmt.Fprintf(stderr, "mcpgen tools: warning: %s\n", w)
	}
	// The code first: what server.json refuses (a description too long,
	// say) costs the registry file only.
	if err := writeOrCheck(out.Path, out.Content, check); err != nil {
		return err
	}
	if !check {
		fmt.Fprintf(stdout, "mcpgen tools: wrote %s (%d tools, %d prompts, %d resources, %d templates)\n", out.Path, out.Tools, out.Prompts, out.Resources, out.Templates)
	}
	if serverJSON == "" {
		return nil
	}
	so.Generator = Version()
	b, warnings, err := out.ServerJSON(so)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "mcpgen tools: warning: %s\n", w)
	}
	if err != nil {
		return fmt.Errorf("%s not written (%s is): %w", serverJSON, out.Path, err)
	}
	if err := writeOrCheck(serverJSON, b, check); err != nil {
		return err
	}
	if !check {
		fmt.Fprintf(stdout, "mcpgen tools: wrote %s\n", serverJSON)
	}
	return nil
}

// writeOrCheck writes content to path, or with check reports whether path
// holds it.
func writeOrCheck(path string, content []byte, check bool) error {
	if check {
		have, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(have, content) {
			return fmt.Errorf("%s is not what mcpgen tools generates: run go generate", path)
		}
		return nil
	}
	return os.WriteFile(path, content, 0o644)
}
