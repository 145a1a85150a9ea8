package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/internal/specsource"
)

// runFetch is mcpgen fetch: download revisions into the user cache (or
// check the cached copies), and nothing else. It fills the cache of a
// machine, or of a CI image, that will run go generate without network.
func runFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		src       sourceFlags
		revisions []string
		all       bool
	)
	fs := pflag.NewFlagSet("mcpgen fetch", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringSliceVar(&revisions, "revision", nil, "the revisions to download, comma-separated or repeated")
	fs.BoolVar(&all, "all", false, "download every revision mcpgen pins")
	src.register(fs, true)
	src.log = stderr
	fs.Usage = func() {
		fmt.Fprintf(stderr, `mcpgen fetch downloads spec revisions into the user cache, checking each
file against the SHA-256 mcpgen pins (or --spec-sha256), so that later runs
need no network. It prints where each revision is.

Usage:
  mcpgen fetch --revision REV[,REV...] [--spec-commit COMMIT --spec-sha256 JSONSUM,TSSUM]
  mcpgen fetch --all

The cache is $%s, else <user cache dir>/mcpgen.

Flags:
%s`, cacheEnv, fs.FlagUsages())
	}
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	switch {
	case all && len(revisions) > 0:
		return usageErr("--all fetches every pinned revision; drop --revision, or --all")
	case all && fs.Changed("spec-commit"):
		return usageErr("--spec-commit pins one revision's files; it does not go with --all")
	case fs.Changed("spec-root"):
		return usageErr("fetch only downloads into the cache; --spec-root is where generation looks first")
	case !all && len(revisions) == 0:
		return usageErr("name the revisions to fetch: --revision 2025-11-25 (or --all)")
	case fs.Changed("spec-commit") && len(revisions) > 1:
		return usageErr("--spec-commit with --spec-sha256 pins the files of one revision; fetch one at a time")
	}
	if err := src.check(fs, true); err != nil {
		return err
	}
	if all {
		revisions = specsource.Known()
	}
	r := src.resolver()
	r.Root = "" // only the cache and the download
	for _, rev := range revisions {
		got, err := r.Fetch(ctx, rev)
		if err != nil {
			return src.explain(r, rev, err)
		}
		how := "cached"
		if got.Origin == specsource.Download {
			how = "downloaded, sha256 checked"
		}
		fmt.Fprintf(stdout, "%s\t%s\t(commit %s; %s)\n", rev, got.Dir, got.Commit, how)
	}
	return nil
}
