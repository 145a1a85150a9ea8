package mcp

import (
	"context"
	"strings"

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

// parseMeta reads the keys the runtime uses from params._meta, in place:
// the raw values alias params, which the request owns.
func parseMeta(params wire.Raw) requestMeta { return scanParams(params).meta }

// paramScan is what the runtime reads from a request's params besides what
// the handler decodes, found in one pass over them, in place (views of
// params, which the request owns).
type paramScan struct {
	meta requestMeta
	// task is params.task (2025-11-25 task augmentation), nil when absent.
	task wire.Raw
	// name and uri are the string members Mcp-Name and requestState bind
	// to; args is tools/call's arguments.
	name, uri string
	args      wire.Raw
}

// scanParams reads a request's params once for the runtime.
func scanParams(params wire.Raw) paramScan {
	var s paramScan
	if len(params) == 0 {
		return s
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
			return s.meta.decode(d)
		case "task":
			s.task, err = d.Raw()
		case "arguments":
			s.args, err = d.Raw()
		case "name", "uri":
			if d.Peek() != wire.String {
				return d.Skip()
			}
			var v string
			v, err = d.Str()
			if key[0] == 'n' {
				s.name = v
			} else {
				s.uri = v
			}
		default:
			err = d.Skip()
		}
		return err
	})
	return s
}

// target is the value of the params member m's Mcp-Name mirrors.
func (s *paramScan) target(m *Method) string {
	if m == nil {
		return ""
	}
	switch m.NameParam {
	case "name":
		return s.name
	case "uri":
		return s.uri
	}
	return ""
}

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
		case MetaClientInfo:
			m.clientInfo, err = d.Raw()
			return err
		case MetaLogLevel:
			if d.Peek() == wire.String {
				m.logLevel, err = d.Str()
				m.hasLogLevel = err == nil
				return err
			}
		case "progressToken":
			if k := d.Peek(); k == wire.String || k == wire.Number {
				if err := m.progressToken.DecodeJSON(d); err == nil {
					m.hasProgress = true
					return nil
				}
				return nil
			}
		}
		return d.Skip()
	})
}

// MetaVersion returns params._meta's protocol version, if any: what makes a
// request stateless on a transport that serves both eras.
func MetaVersion(params wire.Raw) string {
	if len(params) == 0 {
		return ""
	}
	d := wire.NewDecoder(params)
	k, s, err := d.PeekMember("_meta", MetaProtocolVersion)
	if err != nil || k != wire.String {
		return ""
	}
	return string(s)
}

// HandleStateless serves one stateless (2026-07-28 on) request or
// notification. out carries the messages related to it (progress, logs,
// and for subscriptions/listen the stream's notifications). Errors are
// *jsonrpc.Error values whose codes map to HTTP statuses (see HTTPStatus).
func (s *Server) HandleStateless(ctx context.Context, req *jsonrpc.Request, out Outbound) (wire.Marshaler, error) {
	if req.IsNotification {
		// The only client notification of the stateless era is
		// notifications/cancelled, which the transport handles.
		return nil, nil
	}
	scan := scanParams(req.Params)
	meta := scan.meta
	if meta.protocolVersion != "" {
		if err := s.StatelessError(meta.protocolVersion, req.Method, false); err != nil {
			return nil, err
		}
	}
	var missing []string
	if meta.protocolVersion == "" {
		missing = append(missing, MetaProtocolVersion)
	}
	if meta.clientCaps == nil {
		missing = append(missing, MetaClientCapabilities)
	}
	if len(missing) > 0 {
		return nil, InvalidParams("/params/_meta", "missing _meta keys: "+strings.Join(missing, ", "))
	}
	mount := s.byRev[meta.protocolVersion]
	if mount == nil || !mount.Protocol.Stateless {
		return nil, unsupportedVersion(meta.protocolVersion, s.StatelessVersions())
	}
	p := mount.Protocol
	m := p.Methods[req.Method]
	rc := &reqCtx{Context: ctx}
	rc.r = Request{Method: req.Method, ID: req.ID, Protocol: p, server: s, out: out, meta: meta, nameParam: scan.target(m), toolName: scan.name, toolArgs: scan.args}
	rc.r.ctx = rc
	defer rc.r.finish()
	if res, err, ok := s.taskMethod(rc, &rc.r, req.Method, req.Params); ok {
		return res, err
	}
	if res, err, ok := s.skillMethod(&rc.r, req.Method, req.Params); ok {
		return res, err
	}
	if m == nil || !m.FromClient || m.Notification {
		return nil, jsonrpc.MethodNotFound(req.Method)
	}
	switch req.Method {
	case "server/discover":
		if err := m.ValidateParams(req.Params); err != nil {
			return nil, err
		}
		return s.discover(mount), nil
	case "subscriptions/listen":
		if err := m.ValidateParams(req.Params); err != nil {
			return nil, err
		}
		return s.listen(rc, mount, req)
	}
	if req.Method == "resources/list" && s.opts.Skills != nil && (m.Implemented == nil || !m.Implemented(mount.Handler)) {
		// Only the skills list resources.
		if err := m.ValidateParams(req.Params); err != nil {
			return nil, err
		}
		return s.listSkillResources(nil)
	}
	if m.Serve == nil {
		return nil, jsonrpc.MethodNotFound(req.Method)
	}
	res, err := s.serve(rc, mount, m, req.Params)
	if err != nil || res == nil {
		return res, err
	}
	if req.Method == "resources/list" && s.opts.Skills != nil {
		return s.listSkillResources(res)
	}
	return res, nil
}

// StatelessError is the error a stateless request of method, declaring
// protocol version (in its _meta, or on HTTP in its MCP-Protocol-Version
// header), is refused with before anything else is looked at: -32022 with
// the supported versions for a version the server does not serve
// statelessly; -32600 for a notification of the revision sent with an id;
// -32601 for a method the revision does not have (ping, say, which
// 2026-07-28 removed) and the runtime does not serve as an extension
// (tasks, skills). It is nil for a request that may be served.
func (s *Server) StatelessError(version, method string, isNotification bool) *jsonrpc.Error {
	mount := s.byRev[version]
	if mount == nil || !mount.Protocol.Stateless {
		return unsupportedVersion(version, s.StatelessVersions())
	}
	m := mount.Protocol.Methods[method]
	switch {
	case m != nil && m.Notification:
		if !isNotification {
			return notificationWithID(method)
		}
		return nil
	case isNotification, m != nil && m.FromClient, s.servesExtension(method):
		return nil
	}
	return jsonrpc.MethodNotFound(method)
}

// notificationWithID is the -32600 for a request whose method is a
// notification.
func notificationWithID(method string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: %s is a notification: it must not have an id", method)
}

// servesExtension reports a stateless method the runtime serves for an
// extension the server enabled, which no schema lists.
func (s *Server) servesExtension(method string) bool {
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return s.opts.Tasks != nil
	case "skills/list", "skills/get", "resources/read":
		return s.opts.Skills != nil
	case "resources/directory/read":
		return s.opts.Skills != nil && s.opts.Skills.DirectoryRead
	}
	return false
}

// discover builds the DiscoverResult of a stateless mount.
func (s *Server) discover(m *Mount) wire.Raw {
	pol := s.cachePolicy("server/discover")
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"resultType":`)
	e.Str("complete")
	e.FieldRaw(`"supportedVersions":`)
	e.ArrayStart()
	for _, v := range s.StatelessVersions() {
		e.Str(v)
	}
	e.ArrayEnd()
	e.FieldRaw(`"capabilities":`)
	e.Raw(s.capabilities(m))
	if s.opts.Instructions != "" {
		e.FieldRaw(`"instructions":`)
		e.Str(s.opts.Instructions)
	}
	s.endCacheable(e, pol)
	return append(wire.Raw(nil), e.Bytes()...)
}

// endCacheable writes the ttlMs and cacheScope of pol and the _meta
// serverInfo of a stateless result the runtime builds, and closes it.
func (s *Server) endCacheable(e *wire.Encoder, pol CachePolicy) {
	e.FieldRaw(`"ttlMs":`)
	e.Int64(pol.TTLMs)
	e.FieldRaw(`"cacheScope":`)
	e.Str(pol.Scope)
	e.FieldRaw(`"_meta":`)
	e.ObjectStart()
	e.Field(MetaServerInfo)
	s.implementation(e)
	e.ObjectEnd()
	e.ObjectEnd()
}

// HTTPStatus is the HTTP status a stateless error is answered with.
func HTTPStatus(err *jsonrpc.Error) int {
	switch err.Code {
	case jsonrpc.CodeMethodNotFound:
		return 404
	case jsonrpc.CodeInternalError:
		return 500
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams,
		CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion:
		return 400
	}
	return 200
}
