package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// limits are the session limits the flags set (zero values: the
// transport's defaults).
type limits struct {
	maxSessions    int
	bodyTimeout    time.Duration
	requestLease   time.Duration
	trustedProxies []netip.Prefix
	// forwardedHeader is the header the trusted proxies write.
	forwardedHeader string
}

// serveHTTP serves Streamable HTTP at /mcp on addr, both eras on the one
// endpoint, and the 2024-11-05 HTTP+SSE transport at /sse (its clients
// POST to /sse?sessionId=…), the same sessions, until ctx is done (see
// runtime/streamhttp). Only loopback Host
// and Origin values are accepted, against DNS rebinding. With addrFile set
// it writes the address it listens on there once it accepts connections
// (for port 0: scripts and tests learn the port it picked).
func serveHTTP(ctx context.Context, srv *rt.Server, addr, addrFile string, log *slog.Logger, shared sharedState, lim limits) error {
	h := streamhttp.NewHandler(srv, streamhttp.Options{
		Logger: log, EventStore: shared.events, SessionStore: shared.sessions, Relay: shared.relay, Requests: shared.requests, RequestLease: lim.requestLease,
		MaxSessions: lim.maxSessions, BodyTimeout: lim.bodyTimeout, TrustedProxies: lim.trustedProxies, ForwardedHeader: lim.forwardedHeader,
	})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h.SSE())
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	bound := ln.Addr().String()
	if addrFile != "" {
		// Written whole under a temporary name, so a reader never sees
		// half an address.
		tmp := addrFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(bound+"\n"), 0o644); err != nil {
			ln.Close()
			return fmt.Errorf("writing --addr-file: %w", err)
		}
		if err := os.Rename(tmp, addrFile); err != nil {
			ln.Close()
			return fmt.Errorf("writing --addr-file: %w", err)
		}
	}
	log.Info("serving Streamable HTTP", "endpoint", "http://"+bound+"/mcp", "legacy_sse", "http://"+bound+"/sse")
	return streamhttp.Serve(ctx, ln, mux)
}
