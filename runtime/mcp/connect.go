package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Connect dials t and opens a session with one of the mounted revisions
// (their handlers answer the server's requests).
func Connect(ctx context.Context, t ClientTransport, opts ClientOptions, mounts ...Mount) (*ClientSession, error) {
	if len(mounts) == 0 {
		return nil, errors.New("mcp: Connect needs a mounted revision")
	}
	if opts.Name == "" {
		opts.Name = "mcpgen-client"
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	// The revisions as a client uses them: with what only a client
	// receives (Protocol.ClientTable), which servers do not link.
	mounts = slices.Clone(mounts)
	for i, m := range mounts {
		if m.Protocol == nil {
			return nil, errors.New("mcp: Connect: a mount has no protocol")
		}
		m.Protocol = m.Protocol.ForClient()
		mounts[i] = m
		if !m.Protocol.Serves(false) {
			return nil, fmt.Errorf("mcp: Connect: revision %s was generated for servers only (mcpgen --side server): generate it with --side client or both to mount it on a client", m.Protocol.Revision)
		}
		if err := protocol.CheckHandler(m.Protocol, m.Handler, func(md *protocol.Method) bool { return md.FromServer }); err != nil {
			return nil, err
		}
		if b, ok := m.Handler.(interface{ CheckClientHandlers() error }); ok {
			if err := b.CheckClientHandlers(); err != nil {
				return nil, err
			}
		}
	}
	cs := &ClientSession{opts: opts, mounts: mounts, log: opts.Logger, progress: map[string]func(ProgressUpdate){}, roles: map[string]protocol.Role{}}
	for _, m := range mounts {
		for name, md := range m.Protocol.Methods {
			if cs.roles[name] == protocol.RoleNone {
				cs.roles[name] = md.Role
			}
		}
	}
	cs.recover = !opts.NoRecovery
	mws := slices.Clone(opts.Middleware)
	if len(mws) > 0 && cs.recover {
		mws = append(mws, Recovery(opts.Logger))
	}
	cs.incoming, cs.outgoing = chain(mws, callFinal), chain(mws, callFinal)
	if tn, ok := t.(interface{ TransportName() string }); ok {
		cs.transport = tn.TransportName()
	}
	conn, err := t.Dial(ctx, jsonrpc.HandlerFunc(cs.receive))
	if err != nil {
		return nil, err
	}
	cs.conn = conn
	// The era is chosen here, once: the first that opens the session.
	eras := []clientEra{statelessClientEra{}, statefulClientEra{}}
	switch opts.Era {
	case Stateful:
		eras = eras[1:]
	case Stateless:
		eras = eras[:1]
	}
	for i, e := range eras {
		if err = e.open(ctx, cs); err == nil {
			cs.undeclared = cs.undeclaredRoles()
			if err := cs.setLogLevel(ctx); err != nil {
				conn.Close()
				return nil, err
			}
			return cs, nil
		}
		if i < len(eras)-1 {
			cs.log.Debug("mcp: opening a session failed; trying the next era", "era", e.kind(), "err", err)
		}
	}
	conn.Close()
	return nil, forcedEraHint(opts.Era, err)
}

// forcedEraHint adds to the error of a session a forced era could not
// open, when the server refused it, what would connect.
func forcedEraHint(era protocol.Era, err error) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return err // the transport failed: no era would do better
	}
	switch era {
	case Stateless:
		return fmt.Errorf("%w (ClientOptions.Era is mcp.Stateless, and the server may speak only the stateful revisions: mcp.Auto, the default, falls back to initialize)", err)
	case Stateful:
		return fmt.Errorf("%w (ClientOptions.Era is mcp.Stateful, and the server may speak only the stateless revisions: mcp.Auto, the default, tries server/discover first)", err)
	}
	return err
}
