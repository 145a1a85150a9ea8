package protocol

import (
	"context"
	"reflect"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Protocol describes one protocol revision to the runtime. Generated code
// builds it; it must not be modified.
type Protocol struct {
	// Revision is the protocol version ("2025-11-25").
	Revision string
	// Era is the era the revision belongs to.
	Era Era
	// Batches reports a revision with JSON-RPC batches (2025-03-26).
	Batches bool
	// RetryOnClose reports a revision whose server, closing an SSE stream
	// the client did not end, first sends an event with the retry
	// interval (Streamable HTTP, 2025-11-25 on).
	RetryOnClose bool
	// Methods are the requests and notifications of the revision, by
	// method string.
	Methods map[string]*Method
	// Stamp returns a copy of a handler's result completed with what the
	// revision asks of every result (resultType, _meta serverInfo, cache
	// fields). Nil for revisions that ask nothing.
	Stamp func(result wire.Marshaler, s *Stamp) wire.Marshaler
	// ServerCapabilities and ClientCapabilities list the members of the
	// revision's capability objects, so the runtime declares only what the
	// revision knows.
	ServerCapabilities []string
	ClientCapabilities []string
	// InputRequired reports whether a result is the revision's
	// InputRequiredResult and returns its input requests, by key, each as
	// the JSON of {"method": ..., "params": ...}. Nil for revisions
	// without multi round-trip requests.
	InputRequired func(result wire.Marshaler) (requests map[string]wire.Raw, ok bool)
	// NoID is how the revision writes the id of an error response that
	// cannot name its request (see jsonrpc.NoID): left out where its error
	// response makes the id optional, else null.
	NoID jsonrpc.NoID
	// MissingCapabilityCode is the error code of a request that needs a
	// client capability the client did not declare: the revision's
	// MISSING_REQUIRED_CLIENT_CAPABILITY, or 0 for revisions without one
	// (which answer -32602).
	MissingCapabilityCode int64
	// Tasks writes the runtime's tasks in the revision's task types; nil
	// for revisions that define none (the 2026 tasks extension, which no
	// schema defines, has the runtime's own encoders).
	Tasks *TaskCodec
	// ResourceNotFoundCode is the error code of a resource that does not
	// exist: -32002 before 2026-07-28, -32602 (with data.uri) from it.
	ResourceNotFoundCode int64
	// ToolError builds the revision's CallToolResult reporting a tool
	// execution error with text: how a revision that reports arguments
	// breaking a tool's inputSchema as a tool execution error (2025-11-25
	// on) answers them. Nil where such arguments are a protocol error,
	// answered -32602.
	ToolError func(text string) wire.Marshaler

	// Converter, set on the revision a bridge mounts, carries the calls
	// of client code written for another revision to this one (see
	// Converted); nil elsewhere.
	Converter *Converter

	// Side is the end of a connection the package was generated for
	// (mcpgen --side): both (the zero value), or only one, whose
	// descriptor leaves out what only the other end receives.
	Side Side
	// MemberTable lists the member names of the revision's object
	// definitions, by definition name (see Has). Generated code (version
	// 7 on) writes it as a static table, which costs no code at program
	// start; the runtime indexes it on first use.
	MemberTable []DefMembers
	// Members is MemberTable as the map generated code before version 7
	// writes (built by code at program start); it wins when set.
	Members map[string][]string
	// ClientTable completes Methods for clients. Generated code (version
	// 11 on) leaves out of Methods how a client checks, decodes and
	// answers what only a server sends (elicitation/create,
	// sampling/createMessage, roots/list, the server's notifications) and
	// gives it here, behind an interface: the linker keeps that code only
	// in programs that call ForClient (mcp.Connect does), so a server
	// does not link what it never receives. Nil when Methods is whole.
	ClientTable ClientTable
	// ServerTable is ClientTable's counterpart: how a server checks,
	// decodes and serves what only a client sends (tools/call,
	// resources/read, …), which only ForServer asks for (mcp.NewServer
	// does), so that a client does not link it. Nil when Methods is
	// whole.
	ServerTable ServerTable
	index       struct {
		once   sync.Once
		byRole [numRoles]*Method
	}
	memberIndex struct {
		once sync.Once
		m    map[string][]string
	}
	// clientView and serverView are ForClient's and ForServer's
	// Protocols, each made once.
	clientView, serverView view
}

// ClientTable is what Protocol.ClientTable holds: what a client needs to
// receive the methods only a server sends.
type ClientTable interface {
	// ClientMethods returns, by method string, what a client needs to
	// receive the methods Methods has without it: their Serve,
	// Implemented, HandlerType, HandlerMethod, ValidateParams and
	// ValidateResult (the other fields of these entries are not read).
	ClientMethods() map[string]*Method
}

// ServerTable is what Protocol.ServerTable holds: what a server needs to
// receive the methods only a client sends.
type ServerTable interface {
	// ServerMethods returns, by method string, what a server needs to
	// receive the methods Methods has without it, as ClientMethods does
	// for a client.
	ServerMethods() map[string]*Method
}

// ForClient returns p as a client uses it: the same revision, with what
// ClientTable gives in the entries of Methods. It is p itself when p has no
// ClientTable, and the same Protocol on every call. Code that reads
// Methods on the client's side (mcp.Connect, bridges) calls it; a server
// never needs to.
func (p *Protocol) ForClient() *Protocol {
	if p.ClientTable == nil {
		return p
	}
	return p.clientView.of(p, p.ClientTable.ClientMethods)
}

// ForServer returns p as a server uses it: the same revision, with what
// ServerTable gives in the entries of Methods. It is p itself when p has no
// ServerTable, and the same Protocol on every call. Code that reads
// Methods on the server's side (mcp.NewServer, bridges) calls it; a
// client never needs to.
func (p *Protocol) ForServer() *Protocol {
	if p.ServerTable == nil {
		return p
	}
	return p.serverView.of(p, p.ServerTable.ServerMethods)
}

// view is a Protocol made from another once (ForClient, ForServer).
type view struct {
	once sync.Once
	p    *Protocol
}

// of is p with the receiving fields of the entries table returns set in
// copies of its Methods' entries, made on the first call. The other
// end's table stays, so that a view of a view is whole.
func (v *view) of(p *Protocol, table func() map[string]*Method) *Protocol {
	v.once.Do(func() {
		t := table()
		q := p.copyWith(make(map[string]*Method, len(p.Methods)))
		for name, md := range p.Methods {
			if e := t[name]; e != nil {
				m := *md
				m.Serve, m.Implemented, m.ValidateParams = e.Serve, e.Implemented, e.ValidateParams
				m.ValidateResult = e.ValidateResult
				m.HandlerType, m.HandlerMethod = e.HandlerType, e.HandlerMethod
				md = &m
			}
			q.Methods[name] = md
		}
		q.Converter = p.Converter
		if v == &p.clientView {
			q.ServerTable = p.ServerTable
		} else {
			q.ClientTable = p.ClientTable
		}
		v.p = q
	})
	return v.p
}

// copyWith is a new Protocol with every exported field of p but Methods
// (methods instead), Converter, ClientTable and ServerTable
// (TestBridgeCopiesProtocol keeps this list whole).
func (p *Protocol) copyWith(methods map[string]*Method) *Protocol {
	return &Protocol{
		Revision:              p.Revision,
		Era:                   p.Era,
		Batches:               p.Batches,
		RetryOnClose:          p.RetryOnClose,
		Methods:               methods,
		Stamp:                 p.Stamp,
		ServerCapabilities:    p.ServerCapabilities,
		ClientCapabilities:    p.ClientCapabilities,
		InputRequired:         p.InputRequired,
		NoID:                  p.NoID,
		MissingCapabilityCode: p.MissingCapabilityCode,
		Tasks:                 p.Tasks,
		ResourceNotFoundCode:  p.ResourceNotFoundCode,
		ToolError:             p.ToolError,
		Members:               p.Members,
		MemberTable:           p.MemberTable,
		Side:                  p.Side,
	}
}

// Side is the end of a connection a generated package serves.
type Side uint8

const (
	// BothSides: the package serves servers and clients (the default).
	BothSides Side = iota
	// ServerSide: the package serves servers only (mcpgen --side server).
	ServerSide
	// ClientSide: the package serves clients only (mcpgen --side client).
	ClientSide
)

// Serves reports whether the package can be mounted on a server (server
// true) or on a client.
func (p *Protocol) Serves(server bool) bool {
	switch p.Side {
	case ServerSide:
		return server
	case ClientSide:
		return !server
	}
	return true
}

// DefMembers are the member names of one object definition.
type DefMembers struct {
	Def     string
	Members []string
}

// members returns the member names by definition: Members, or MemberTable
// indexed once.
func (p *Protocol) members() map[string][]string {
	if p.Members != nil || p.MemberTable == nil {
		return p.Members
	}
	p.memberIndex.once.Do(func() {
		m := make(map[string][]string, len(p.MemberTable))
		for _, d := range p.MemberTable {
			m[d.Def] = d.Members
		}
		p.memberIndex.m = m
	})
	return p.memberIndex.m
}

// KnowsMembers reports whether the revision lists its definitions'
// members (Members or MemberTable): whether Has can tell.
func (p *Protocol) KnowsMembers() bool { return p.Members != nil || p.MemberTable != nil }

// Stateless reports a revision of the stateless era.
func (p *Protocol) Stateless() bool { return p.Era == Stateless }

// Has reports whether the revision defines def, and, when members are
// given, whether def has every one of them: what a runtime that builds a
// result from JSON may write for this revision.
func (p *Protocol) Has(def string, members ...string) bool {
	have, ok := p.members()[def]
	if !ok {
		return false
	}
	for _, m := range members {
		if !slices.Contains(have, m) {
			return false
		}
	}
	return true
}

// Knows reports whether the revision's server capabilities object has the
// member name ("extensions", "tasks", ...).
func (p *Protocol) Knows(member string) bool {
	return slices.Contains(p.ServerCapabilities, member)
}

// Result is a revision's result type, as NewResult makes it: decoded from
// JSON, then written as the revision writes it.
type Result interface {
	wire.Marshaler
	wire.Unmarshaler
}

// Method returns the method named name, or nil.
func (p *Protocol) Method(name string) *Method { return p.Methods[name] }

// Lookup returns the table entry of method: the revision's own, or on a
// revision with capability extensions, the entry of an extension the
// runtime serves (ExtensionMethods); nil when there is none.
func (p *Protocol) Lookup(method string) *Method {
	if md := p.Methods[method]; md != nil {
		return md
	}
	if p.Knows("extensions") {
		for _, md := range extensionMethods {
			if md.Name == method {
				return md
			}
		}
	}
	return nil
}

// RoleOf is the role of method in revision p (extension methods included;
// RoleNone when p is nil or lacks it).
func RoleOf(p *Protocol, method string) Role {
	if p == nil {
		return RoleNone
	}
	if md := p.Lookup(method); md != nil {
		return md.Role
	}
	return RoleNone
}

// Role returns the method of the revision in role r, or nil when the
// revision has none.
func (p *Protocol) Role(r Role) *Method {
	p.index.once.Do(func() {
		for _, m := range p.Methods {
			if m.Role != RoleNone && m.Role < numRoles {
				p.index.byRole[m.Role] = m
			}
		}
	})
	if r >= numRoles {
		return nil
	}
	return p.index.byRole[r]
}

// RoleName is the name of the method in role r, or "" when the revision
// has none.
func (p *Protocol) RoleName(r Role) string {
	if m := p.Role(r); m != nil {
		return m.Name
	}
	return ""
}

// Preferred reports whether version a is preferred to b as a default: a
// published revision (a date) to any other version — a draft generated
// with mcpgen --protocol-version ("DRAFT-2026-v1") is spoken only when a
// peer asks for it — and, among published revisions, the newer.
func Preferred(a, b string) bool {
	if pa, pb := Published(a), Published(b); pa != pb {
		return pa
	}
	return a > b
}

// Published reports a version of the form YYYY-MM-DD: a published
// revision, as opposed to a draft.
func Published(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range v {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Method is one request or notification of a revision.
type Method struct {
	// Name is the method string.
	Name string
	// Notification is set for notifications.
	Notification bool
	// FromClient and FromServer tell who sends it.
	FromClient, FromServer bool
	// NameParam is the params member the Mcp-Name header mirrors on
	// stateless HTTP ("name", "uri"), or "".
	NameParam string
	// Cacheable reports a stateless result that carries ttlMs and
	// cacheScope.
	Cacheable bool
	// Role is the part the method plays in what the runtime does (RoleNone
	// for methods it never looks at).
	Role Role
	// Feature names the runtime feature that answers the method; zero for
	// the methods handlers answer.
	Feature Feature
	// Implemented reports whether handler serves this method.
	Implemented func(handler any) bool
	// HandlerType is the one-method interface a handler implements to
	// serve this method, so that the runtime can refuse a handler whose
	// method of that name has another signature, which would otherwise
	// leave the method silently unserved (CheckHandler).
	HandlerType reflect.Type
	// HandlerMethod looks the method of HandlerType up by its name in t
	// (t.MethodByName with the name as a constant), for CheckHandler to
	// report a method of that name with another signature. The name is a
	// constant so that the linker keeps only methods of that name: a
	// lookup by a name it cannot see makes it keep every exported method
	// of every type in the program (2.8 MB of a two-revision server).
	// Code generated before version 10 leaves it nil: the signature is
	// then not checked.
	HandlerMethod func(t reflect.Type) (reflect.Method, bool)
	// Serve decodes and validates params (nil when absent), calls the
	// handler and returns its result (nil for a notification). Errors that
	// are not *jsonrpc.Error become -32603.
	Serve func(ctx context.Context, handler any, params wire.Raw) (wire.Marshaler, error)
	// NewResult makes an empty result of the method's own result type
	// (nil when it has none, or it is a union).
	NewResult func() Result
	// DecodeResult decodes a result of the method's own result type from
	// JSON (nil when NewResult is). Generated code decodes with the type's
	// method, not through the Result interface, so that the program keeps
	// only the decoders it uses (wire.Into). Code generated before version
	// 14 leaves it nil: results written as JSON (mcp.Request.Written) are
	// then sent as written, not decoded and validated.
	DecodeResult func(data []byte) (Result, error)
	// ValidateResult validates a result of the method in the revision's
	// types (its result type, or a member of its reply union) and returns
	// nil for any other (the runtime's own results, raw JSON). Generated
	// code calls the types' Validate methods, not an interface, so that
	// the program keeps only the validators of the results it serves. Nil
	// when the method has no result of a named type, and in code
	// generated before version 14, whose results are then not validated.
	ValidateResult func(res wire.Marshaler) error
	// ValidateParams checks params without serving (for methods the
	// runtime answers itself, such as initialize).
	ValidateParams func(params wire.Raw) error
}

// Stamp is what the runtime adds to results.
type Stamp struct {
	// Method is the method the result answers.
	Method string
	// ServerName and ServerVersion are the server's Implementation, for
	// _meta io.modelcontextprotocol/serverInfo.
	ServerName, ServerVersion string
	// TTLMs and CacheScope fill the cache fields of a cacheable result that
	// the handler left unset: an empty scope gets CacheScope, and then a
	// zero TTL gets TTLMs (a handler that means an immediately stale result
	// sets its scope too).
	TTLMs      int64
	CacheScope string
}
