package schema

import (
	"slices"

	"github.com/mcpgen/mcpgen/runtime/protocol"
)

// Side is a party of an MCP conversation.
type Side int

// The two sides.
const (
	Client Side = iota + 1
	Server
)

func (s Side) String() string {
	switch s {
	case Client:
		return "client"
	case Server:
		return "server"
	}
	return "side?"
}

// MethodKind tells requests from notifications.
type MethodKind int

// Method kinds.
const (
	Request MethodKind = iota + 1
	Notification
)

func (k MethodKind) String() string {
	switch k {
	case Request:
		return "request"
	case Notification:
		return "notification"
	}
	return "kind?"
}

// Era is the protocol family a revision belongs to: the runtime's
// protocol.Era, which generated packages write into their descriptor.
type Era = protocol.Era

// The eras.
const (
	// Stateful revisions (2024-11-05 … 2025-11-25) open with initialize.
	Stateful = protocol.Stateful
	// Stateless revisions (2026-07-28 on) carry version and capabilities
	// in every request's _meta.
	Stateless = protocol.Stateless
)

// Era tells the revision's era: a revision that defines initialize is
// stateful.
func (s *Spec) Era() Era {
	if s.Def("InitializeRequest") != nil {
		return Stateful
	}
	return Stateless
}

// Method is one request or notification of the protocol.
type Method struct {
	// Name is the method string ("tools/call").
	Name string
	Kind MethodKind
	// Type is the definition of the whole message (CallToolRequest).
	Type string
	// Senders are the sides that send it, from the Client*/Server* unions
	// (and 2026's InputRequest); SenderUnions names those unions.
	Senders      []Side
	SenderUnions []string
	// Params is the type of the params member (a reference or an inline
	// object), nil when the message declares none.
	Params         *Type
	ParamsRequired bool
	// Result is the result definition of a request; Alternatives are the
	// other results it may be answered with (CreateTaskResult,
	// InputRequiredResult); ResultResponse is the 2026 definition of the
	// whole response message, if the schema has one.
	Result         string
	Alternatives   []string
	ResultResponse string
	// NameParam is the params member the Mcp-Name header mirrors on the
	// stateless HTTP transport ("" if none).
	NameParam string
	// Aliases are other definitions that declare the same method (a
	// revision keeping an old name, or 2026 drafts' separate input-request
	// definitions); Type is the one the method is served as.
	Aliases []string
	// Reply is the union of Result and Alternatives, named XReply and
	// discriminated like any union; nil when there are no alternatives.
	Reply *Union
	Doc   Doc
}

// SentBy reports whether side sends the method.
func (m *Method) SentBy(side Side) bool { return slices.Contains(m.Senders, side) }

// Holds reports whether the protocol rule (RuleToolArgumentErrors, ...)
// holds for the revision negotiating version, as the facts date it (see
// Facts.Holds).
func (s *Spec) Holds(rule, version string) bool { return s.facts.Holds(rule, version) }
