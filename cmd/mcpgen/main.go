// Command mcpgen turns one revision of the MCP specification schema into a
// Go package: types, JSON encoding, validators and dispatch tables.
//
// Usage:
//
//	mcpgen --spec DIR --out DIR --package NAME [--check] [--strict] [--overrides FILE] [--protocol-version V]
//	mcpgen --spec DIR --dump-model
//
// What it cannot derive from a revision degrades to a documented fallback
// and a warning on stderr; --strict makes warnings errors, and --overrides
// states the missing facts (README.md, "Upgrading to a new revision").
//
// Run it from go generate:
//
//	//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen --spec ../spec/2025-11-25 --out . --package mcp
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks errors already explained by the flag package.
var errUsage = errors.New("usage")

// run is main without the process: it returns the exit status (0 ok, 1 an
// error, 2 bad usage) so tests can drive it.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		// A panic is a bug in mcpgen; still, say so in one line.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mcpgen: internal error: %v\n", r)
			status = 1
		}
	}()
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		}
		return 2
	}
	if err := cfg.run(stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	return 0
}
