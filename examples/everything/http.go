package main

import (
	"context"
	"errors"
	"log/slog"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
)

// serveHTTP serves Streamable HTTP (see runtime/streamhttp).
func serveHTTP(ctx context.Context, srv *rt.Server, addr string, log *slog.Logger) error {
	return errors.New("Streamable HTTP is not available yet")
}
