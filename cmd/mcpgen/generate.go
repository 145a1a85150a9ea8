package main

import (
	"fmt"
	"io"

	"github.com/mcpgen/mcpgen/schema"
)

// generate writes (or, with --check, compares) the package for spec.
func (c *config) generate(spec *schema.Spec, stdout, stderr io.Writer) error {
	return fmt.Errorf("code generation is not implemented yet; use --dump-model")
}
