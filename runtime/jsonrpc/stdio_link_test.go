package jsonrpc_test

import (
	"io"

	"github.com/mcpgen/mcpgen/runtime/stdio"
)

func newStdio(r io.Reader, w io.Writer) *stdio.Stream { return stdio.NewStream(r, w, stdio.Options{}) }
