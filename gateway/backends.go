package gateway

import (
	"context"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v24via "github.com/mcpgen/mcpgen/gateway/mcp/v20241105via20260728"
	v2503via "github.com/mcpgen/mcpgen/gateway/mcp/v20250326via20260728"
	v2506via "github.com/mcpgen/mcpgen/gateway/mcp/v20250618via20260728"
	v25via "github.com/mcpgen/mcpgen/gateway/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// Backend sessions. A front client is served by a backend session of its
// own revision when the backend speaks it, so that what passes through is
// what the backend says in that revision (its tools of that era, its
// input requests with their keys); else by the session in the newest
// revision both speak, through the bridges. A session per revision is
// opened on first use (over stdio, a process each) and kept.

// backend is one session with the backend.
type backend struct {
	cs *rt.ClientSession
	c  *v26.Client
	// native: the session speaks 2026-07-28, whose results pass through
	// as they are (input rounds included); an older session's are
	// converted by the bridges and its requests to the client parked
	// (park.go).
	native bool
}

func newBackend(cs *rt.ClientSession) *backend {
	return &backend{cs: cs, c: v26.NewClient(cs), native: cs.ProtocolVersion() == "2026-07-28"}
}

// revSession is the session for one front revision, once ready: nil b
// when the backend does not speak it (the default session serves it).
type revSession struct {
	ready chan struct{}
	b     *backend
}

// clientCaps are the capabilities the gateway declares to the backend:
// whatever the backend asks, a front client may answer.
var clientCaps = wire.Raw(`{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true}}`)

// connect opens a session with the backend in era, pinned to version
// when not "". It asks for every log message: each front session keeps
// its own level.
func (g *Gateway) connect(ctx context.Context, era rt.Era, version string) (*rt.ClientSession, error) {
	o := g.o
	return rt.Connect(ctx, o.Backend, rt.ClientOptions{Name: o.Name, Title: o.Title, Version: o.Version, Logger: o.Logger, LogLevel: "debug",
		Capabilities: clientCaps, Era: era, ProtocolVersion: version},
		v26.Mount(g.bh), v25via.Mount(g.bh), v2506via.Mount(g.bh), v2503via.Mount(g.bh), v24via.Mount(g.bh))
}

// backendFor is the backend session serving the front request in ctx.
func (g *Gateway) backendFor(ctx context.Context) *backend {
	r := rt.RequestFrom(ctx)
	if r == nil {
		return g.def
	}
	v := r.ProtocolVersion()
	if v == "" || v == g.def.cs.ProtocolVersion() {
		return g.def
	}
	g.bmu.Lock()
	rs := g.byRev[v]
	if rs == nil {
		rs = &revSession{ready: make(chan struct{})}
		g.byRev[v] = rs
		g.bmu.Unlock()
		era := rt.Stateful
		if v >= "2026-07-28" {
			era = rt.Stateless
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		cs, err := g.connect(cctx, era, v)
		cancel()
		switch {
		case err != nil:
			g.log.Info("gateway: the backend does not speak the front client's revision; the newest both speak serves it", "revision", v, "via", g.def.cs.ProtocolVersion(), "err", err)
		case cs.ProtocolVersion() != v:
			g.log.Info("gateway: the backend does not speak the front client's revision; the newest both speak serves it", "revision", v, "via", g.def.cs.ProtocolVersion())
			cs.Close()
		default:
			rs.b = newBackend(cs)
		}
		close(rs.ready)
	} else {
		g.bmu.Unlock()
		select {
		case <-rs.ready:
		case <-ctx.Done():
			return g.def
		}
	}
	if rs.b == nil {
		return g.def
	}
	return rs.b
}
