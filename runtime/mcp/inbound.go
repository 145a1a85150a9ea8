package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The _meta keys of a stateless request.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// inbound is one request or notification a transport received, classified
// once by the core (Server.Accept): its method and id, and everything
// the runtime reads from its params besides what the handler decodes — the
// _meta keys (protocol version, client capabilities and info, log level,
// progress token), the task a 2025-11-25 request asks for, a tools/call's
// name and arguments, and the values the Mcp-Name header mirrors — found
// in one pass, as views of the params. The era decision, the header rules,
// both eras and every transport use it; only the handler's generated
// decoder reads the params again.
type inbound struct {
	// req is the message (its params are what the views refer to).
	req  *jsonrpc.Request
	meta requestMeta
	// task is params.task (2025-11-25 task augmentation), nil when absent.
	task wire.Raw
	// args is params.arguments (tools/call).
	args wire.Raw
	// named holds the string members of params that Mcp-Name may mirror,
	// by their index in the server's nameKeys (params.name, which names a
	// tools/call's tool, is always the first); has marks those present.
	named [maxNamed]string
	has   uint8
}

// requestMeta is what the runtime reads from params._meta.
type requestMeta struct {
	protocolVersion string
	clientCaps      wire.Raw // 2026: per request
	logLevel        string
	progressToken   wire.StringOrInt
	// traceparent and tracestate are the W3C trace context a peer
	// propagates in _meta (Message.MetaString), views of the params.
	traceparent, tracestate string
	hasLogLevel             bool
	hasProgress             bool
	// badProgress reports a progressToken that is neither a string nor an
	// integer (the schema's ProgressToken): the request gets -32602 even
	// where no generated decoder reads its params (a catalog's tools/call).
	badProgress bool
}

// maxNamed is how many of the members Mcp-Name may mirror the classifier
// keeps (params.name, uri, taskId); a revision that mirrors more has the
// others read when asked for.
const maxNamed = 3

// classify reads a request or notification once for the runtime. The
// inbound refers to req and its params, which must stay unchanged while it
// is in use.
func (s *revisions) classify(req *jsonrpc.Request) inbound {
	in := inbound{req: req}
	params := req.Params
	if len(params) == 0 {
		return in
	}
	d := wire.NewDecoder(params)
	d.SetShared(true)
	_ = d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "_meta":
			if d.Peek() != wire.Object {
				return d.Skip()
			}
			return in.meta.decode(d)
		case "task":
			in.task, err = d.Raw()
			return err
		case "arguments":
			in.args, err = d.Raw()
			return err
		}
		if i := s.nameKey(key); i >= 0 && i < maxNamed && d.Peek() == wire.String {
			in.named[i], err = d.Str()
			in.has |= 1 << i
			return err
		}
		return d.Skip()
	})
	return in
}

// nameKey is the index of the params member key in nameKeys, or -1.
func (s *revisions) nameKey(key []byte) int {
	for i, k := range s.nameKeys {
		if k == string(key) {
			return i
		}
	}
	return -1
}

// member returns the string member of params named key, if the classifier
// read it (key must be one of the server's nameKeys).
func (in *inbound) member(s *revisions, key string) (string, bool) {
	for i, k := range s.nameKeys {
		if k == key && i < maxNamed {
			return in.named[i], in.has&(1<<i) != 0
		}
	}
	if in.req == nil || len(in.req.Params) == 0 {
		return "", false
	}
	d := wire.NewDecoder(in.req.Params)
	kind, v, err := d.PeekMember(key)
	if err != nil || kind != wire.String {
		return "", false
	}
	return string(v), true
}

// clientInfo is params._meta's clientInfo, read when asked for (rarely).
func (in *inbound) clientInfo() wire.Raw {
	if in.req == nil || len(in.req.Params) == 0 {
		return nil
	}
	var info wire.Raw
	d := wire.NewDecoder(in.req.Params)
	_ = d.Object(func(key []byte) error {
		if string(key) != "_meta" || d.Peek() != wire.Object {
			return d.Skip()
		}
		return d.Object(func(key []byte) error {
			if string(key) != MetaClientInfo {
				return d.Skip()
			}
			r, err := d.Raw()
			info = r
			return err
		})
	})
	return info
}

// errBadProgressToken answers a request whose progressToken is neither a
// string nor an integer.
var errBadProgressToken = InvalidParams("/params/_meta/progressToken", "progressToken must be a string or an integer")

// check returns the error a request whose _meta the runtime cannot use is
// answered with before it is served, or nil.
func (in *inbound) check() error {
	if in.meta.badProgress && !in.req.IsNotification {
		return errBadProgressToken
	}
	return nil
}

// toolName is params.name: the tool a tools/call names.
func (in *inbound) toolName() string { return in.named[0] }

// decode reads the keys the runtime uses from _meta.
func (m *requestMeta) decode(d *wire.Decoder) error {
	return d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case MetaProtocolVersion:
			if d.Peek() == wire.String {
				m.protocolVersion, err = d.Str()
				return err
			}
		case MetaClientCapabilities:
			if d.Peek() == wire.Object {
				m.clientCaps, err = d.Raw()
				return err
			}
		case MetaLogLevel:
			if d.Peek() == wire.String {
				m.logLevel, err = d.Str()
				m.hasLogLevel = err == nil
				return err
			}
		case "traceparent":
			if d.Peek() == wire.String {
				m.traceparent, err = d.Str()
				return err
			}
		case "tracestate":
			if d.Peek() == wire.String {
				m.tracestate, err = d.Str()
				return err
			}
		case "progressToken":
			if k := d.Peek(); k == wire.String || k == wire.Number {
				at := d.Offset()
				if err := m.progressToken.DecodeJSON(d); err == nil {
					m.hasProgress = true
					return nil
				}
				m.badProgress = true // a float
				if d.Offset() != at {
					return nil // consumed
				}
				return d.Skip()
			}
			m.badProgress = true
		}
		return d.Skip()
	})
}
