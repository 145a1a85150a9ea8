package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

var (
	_ clientEra = statefulClientEra{}
	_ clientEra = statelessClientEra{}
)

// statefulClientEra speaks the stateful era: initialize opens a session that
// fixes the revision and both sides' capabilities.
type statefulClientEra struct{}

func (statefulClientEra) kind() protocol.Era { return protocol.Stateful }

func (e statefulClientEra) open(ctx context.Context, cs *ClientSession) error {
	m, n, err := cs.begin(e)
	if err != nil {
		return err
	}
	if n != nil {
		n.Negotiated(nil) // initialize carries no version and no session
	}
	params := encoderFunc(func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"protocolVersion":`)
		e.Str(cs.version)
		e.FieldRaw(`"capabilities":`)
		e.Raw(cs.caps)
		e.FieldRaw(`"clientInfo":`)
		cs.clientInfo(e)
		e.ObjectEnd()
	})
	var res wire.Raw
	if err := cs.CallWithID(ctx, m.Protocol.RoleName(protocol.RoleInitialize), params, res.Into(), nil); err != nil {
		return fmt.Errorf("mcp: initialize: %w", err)
	}
	d := wire.NewDecoder(res)
	k, v, err := d.PeekMember("protocolVersion")
	if err != nil || k != wire.String {
		return errors.New("mcp: initialize result has no protocolVersion")
	}
	if version := string(v); version != cs.version {
		// The server chose another revision: speak it if mounted.
		other := cs.mounted(protocol.Stateful, version)
		if other == nil {
			return fmt.Errorf("mcp: the server speaks %s, which this client does not mount", version)
		}
		cs.use(other, e)
	}
	cs.result = res
	if n != nil {
		n.Negotiated(cs.mount.Protocol)
	}
	if err := cs.Notify(ctx, cs.mount.Protocol.RoleName(protocol.RoleInitialized), nil); err != nil {
		return err
	}
	if n != nil {
		n.Opened(ctx)
	}
	return nil
}

// setLogLevel sends logging/setLevel with ClientOptions.LogLevel once a
// stateful session is open, unless the server did not declare logging
// (a stateless session stamps the level on each request instead).
func (cs *ClientSession) setLogLevel(ctx context.Context) error {
	level := cs.opts.LogLevel
	name := cs.mount.Protocol.RoleName(protocol.RoleSetLevel)
	if level == "" || name == "" || cs.Stateless() {
		return nil
	}
	if _, undeclared := cs.undeclared[protocol.RoleSetLevel]; undeclared {
		return nil // the server does not log
	}
	var res wire.Raw
	if err := cs.CallInto(ctx, name, wire.StrMember{Name: "level", Value: level}, res.Into()); err != nil {
		return fmt.Errorf("mcp: logging/setLevel %s (ClientOptions.LogLevel): %w", level, err)
	}
	return nil
}

// params: the caller's, with a progress token.
func (statefulClientEra) params(cs *ClientSession, params wire.Marshaler, token string) wire.Marshaler {
	if token == "" {
		return params
	}
	return &withMeta{inner: params, token: token}
}

// cancelled cancels a request the server sent the client (sampling,
// elicitation, roots): its handler's context is cancelled and it is not
// answered.
func (statefulClientEra) cancelled(cs *ClientSession, id jsonrpc.ID, _ string) {
	if c, ok := cs.conn.(interface{ Cancel(jsonrpc.ID) bool }); ok {
		c.Cancel(id)
	}
}

// statelessClientEra speaks the stateless era: server/discover opens the
// session, and every request carries the protocol version and the
// client's capabilities and info in _meta.
type statelessClientEra struct{}

func (statelessClientEra) kind() protocol.Era { return protocol.Stateless }

func (e statelessClientEra) open(ctx context.Context, cs *ClientSession) error {
	m, n, err := cs.begin(e)
	if err != nil {
		return err
	}
	if n != nil {
		n.Negotiated(m.Protocol)
	}
	var res wire.Raw
	err = cs.CallInto(ctx, m.Protocol.RoleName(protocol.RoleDiscover), nil, res.Into())
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == CodeUnsupportedProtocolVersion {
		// Retry once with a version the server supports that we mount.
		if v := cs.supported(je.Data); v != nil {
			cs.use(v, e)
			if n != nil {
				n.Negotiated(v.Protocol)
			}
			err = cs.CallInto(ctx, v.Protocol.RoleName(protocol.RoleDiscover), nil, res.Into())
		}
	}
	if err != nil {
		return fmt.Errorf("mcp: server/discover: %w", err)
	}
	cs.result = res
	if n != nil {
		n.Opened(ctx)
	}
	return nil
}

// params: the caller's, with the runtime's _meta (and a progress token).
func (statelessClientEra) params(cs *ClientSession, params wire.Marshaler, token string) wire.Marshaler {
	return &withMeta{inner: params, token: token, version: cs.version, caps: cs.caps, cs: cs}
}

// cancelled ends a call of the client's: a server of the stateless era
// sends notifications/cancelled only to end a subscriptions/listen stream
// (on stdio). The call returns ErrCancelledByServer, wrapped with the
// reason.
func (statelessClientEra) cancelled(cs *ClientSession, id jsonrpc.ID, reason string) {
	f, ok := cs.conn.(interface {
		FailCall(jsonrpc.ID, error) bool
	})
	if !ok {
		return
	}
	err := ErrCancelledByServer
	if reason != "" {
		err = fmt.Errorf("%w: %s", ErrCancelledByServer, reason)
	}
	f.FailCall(id, err)
}

// begin makes the preferred mounted revision of era e the session's, and
// returns it with the connection's Negotiator (nil if it has none).
func (cs *ClientSession) begin(e clientEra) (*Mount, Negotiator, error) {
	m := cs.pick(e.kind())
	if m == nil {
		return nil, nil, fmt.Errorf("mcp: no revision of the %s era mounted", e.kind())
	}
	cs.use(m, e)
	n, _ := cs.conn.(Negotiator)
	return m, n, nil
}

// pick chooses the mounted revision of an era to speak: the one
// ClientOptions.ProtocolVersion names, else the preferred.
func (cs *ClientSession) pick(era protocol.Era) *Mount {
	if v := cs.opts.ProtocolVersion; v != "" {
		return cs.mounted(era, v)
	}
	var best *Mount
	for i := range cs.mounts {
		m := &cs.mounts[i]
		if m.Protocol.Era == era && (best == nil || protocol.Preferred(m.Protocol.Revision, best.Protocol.Revision)) {
			best = m
		}
	}
	return best
}

// mounted is the mounted revision of an era named version, or nil.
func (cs *ClientSession) mounted(era protocol.Era, version string) *Mount {
	for i := range cs.mounts {
		if m := &cs.mounts[i]; m.Protocol.Era == era && m.Protocol.Revision == version {
			return m
		}
	}
	return nil
}

// supported is the mounted stateless revision the data of a -32022 error
// lists as supported, or nil.
func (cs *ClientSession) supported(data wire.Raw) *Mount {
	var versions []string
	d := wire.NewDecoder(data)
	_ = d.Object(func(key []byte) error {
		if string(key) != "supported" {
			return d.Skip()
		}
		return d.Array(func() error {
			s, err := d.Str()
			versions = append(versions, s)
			return err
		})
	})
	for _, v := range versions {
		if m := cs.mounted(protocol.Stateless, v); m != nil {
			return m
		}
	}
	return nil
}

// use makes m the session's revision, spoken in era e.
func (cs *ClientSession) use(m *Mount, e clientEra) {
	cs.mount, cs.era, cs.version = m, e, m.Protocol.Revision
	cs.opened = time.Now()
	cs.caps = cs.opts.Capabilities
	if len(cs.caps) == 0 {
		cs.caps = clientCapabilities(m, cs.opts.Tasks != nil)
	}
}
