package main

import (
	"context"

	"github.com/spf13/pflag"
)

// conflicts explains flags that make no sense together, or a command line
// that lacks what it needs. Only flags given on the command line conflict;
// defaults from the environment give way to them.
func (c *config) conflicts(fs *pflag.FlagSet) error {
	set := fs.Changed
	switch {
	case set("spec") && set("revision"):
		return usageErr("--spec and --revision both name the spec: --spec DIR reads that directory, --revision NAME looks the revision up (spec root, cache, download); pass one")
	case set("spec") && set("spec-root"):
		return usageErr("--spec-root is where --revision looks for revisions; --spec names the directory itself, so drop one of them")
	case set("spec-url") && c.revision == "":
		return usageErr("--spec-url is where --revision is downloaded from; it needs --revision")
	case c.dumpModel && (set("out") || set("check") || set("package") || set("protocol-version") || set("side")):
		return usageErr("--dump-model prints the model and writes nothing: --out, --check, --package, --protocol-version and --side do not go with it")
	case c.side != "server" && c.side != "client" && c.side != "both":
		return usageErr("--side %q: want server, client or both", c.side)
	}
	if err := c.src.check(fs, c.revision != ""); err != nil {
		return err
	}
	switch {
	case c.revision == "" && c.spec == "":
		return usageErr("no spec: pass --revision NAME (e.g. --revision 2025-11-25) or --spec DIR (or set $%s)", specEnv)
	case !c.dumpModel && c.out == "":
		return usageErr("--out is required: the directory of the generated package (or --dump-model to print the model)")
	}
	return nil
}

// locate settles which files to load: --revision resolved through the spec
// root, the cache or a download, or --spec as given; and the upstream
// commit they come from, for the provenance record.
func (c *config) locate(ctx context.Context) error {
	if c.revision == "" {
		c.commit = specCommit(c.spec)
		return nil
	}
	src, err := c.src.resolve(ctx, c.revision)
	if err != nil {
		return err
	}
	c.spec, c.commit = src.Dir, src.Commit
	return nil
}
