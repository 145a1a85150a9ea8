// Command mcpgen turns one revision of the MCP specification schema into a
// Go package: types, JSON encoding, validators and dispatch tables.
//
// Usage:
//
//	mcpgen --revision REV --out DIR [--package NAME] [--check] [--strict] [--overrides FILE] [--protocol-version V] [--side S]
//	mcpgen --spec DIR --out DIR [--package NAME] [--check] [--strict] [--overrides FILE] [--protocol-version V] [--side S]
//	mcpgen --spec DIR --dump-model
//	mcpgen fetch --revision REV
//	mcpgen diff --from REV --to REV [--json]
//	mcpgen tools [--func NAME] [--file NAME] [--check] [PACKAGE]
//	mcpgen convert --from DIR --to DIR [--out DIR] [--package NAME] [--check] [--strict]
//
// A revision is read from --spec-root ($MCPGEN_SPEC_ROOT) when it holds it,
// else from the user cache, else downloaded from the upstream repository at
// the commit mcpgen pins and checked against the SHA-256 mcpgen carries.
// What mcpgen cannot derive from a revision degrades to a documented
// fallback and a warning on stderr; --strict makes warnings errors, and
// --overrides states the missing facts (README.md, "Upgrading to a new
// revision").
//
// Run it from go generate, each revision into a directory of its own:
//
//	//go:generate go tool mcpgen --revision 2025-11-25 --out mcp/v20251125
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	status := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}

// errUsage marks errors already explained by the flag package.
var errUsage = errors.New("usage")

// run is main without the process: it returns the exit status (0 ok, 1 an
// error, 2 bad usage) so tests can drive it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		// A panic is a bug in mcpgen; still, say so in one line.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mcpgen: internal error: %v\n", r)
			status = 1
		}
	}()
	if len(args) > 0 {
		if sub := subcommand(args[0]); sub != nil {
			return exitStatus(sub(ctx, args[1:], stdout, stderr), stderr)
		}
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return exitStatus(err, stderr)
	}
	return exitStatus(cfg.run(ctx, stdout, stderr), stderr)
}

// subcommand returns the command besides generation named by the first
// argument (mcpgen NAME [flags]), or nil.
func subcommand(name string) func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch name {
	case "fetch":
		return runFetch
	case "diff":
		return runDiff
	case "tools":
		return runTools
	case "convert":
		return runConvert
	}
	return nil
}

// exitStatus reports err and turns it into the exit status: 0 for none (or
// --help), 2 for a command line that makes no sense, 1 for the rest.
func exitStatus(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, pflag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "mcpgen: %v\n", err)
	return 1
}
