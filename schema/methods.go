package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"
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

// Era is the protocol family a revision belongs to.
type Era int

// The eras.
const (
	// Stateful revisions (2024-11-05 … 2025-11-25) open with initialize.
	Stateful Era = iota + 1
	// Stateless revisions (2026-07-28 on) carry version and capabilities
	// in every request's _meta.
	Stateless
)

func (e Era) String() string {
	if e == Stateless {
		return "stateless"
	}
	return "stateful"
}

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
	// Reply is the union of Result and Alternatives, named XReply and
	// discriminated like any union; nil when there are no alternatives.
	Reply *Union
	Doc   Doc
}

// SentBy reports whether side sends the method.
func (m *Method) SentBy(side Side) bool { return slices.Contains(m.Senders, side) }

// buildMethods derives the method table from the definitions, the sender
// unions and the exception table.
func buildMethods(spec *Spec) error {
	byMethod := map[string]*Method{}
	// Every definition whose method member is const is a message.
	for _, d := range spec.Defs {
		if d.Type.Kind != Object {
			continue
		}
		mp := findProp(d.Type, "method")
		if mp == nil || mp.Type.Kind != String || mp.Type.Const == nil {
			continue
		}
		name := mp.Type.Const.Str
		if prev := byMethod[name]; prev != nil {
			// 2026 ClientNotification is an inlined copy of
			// CancelledNotification: keep the real definition.
			if isSenderUnion(d.Name) {
				continue
			}
			if !isSenderUnion(prev.Type) {
				return fmt.Errorf("%s: method %q is defined by both %s and %s", spec.JSONPath, name, prev.Type, d.Name)
			}
		}
		m := &Method{Name: name, Type: d.Name, Doc: d.Doc}
		switch {
		case strings.HasSuffix(d.Name, "Notification"):
			m.Kind = Notification
		case strings.HasSuffix(d.Name, "Request"):
			m.Kind = Request
		default:
			if !isSenderUnion(d.Name) {
				return fmt.Errorf("%s: definition %s has method %q but is named neither ...Request nor ...Notification", spec.JSONPath, d.Name, name)
			}
			m.Kind = Notification
		}
		if pp := findProp(d.Type, "params"); pp != nil {
			m.Params, m.ParamsRequired = pp.Type, pp.Required
		}
		byMethod[name] = m
	}
	// Senders.
	for _, su := range senderUnions {
		d := spec.Def(su.union)
		if d == nil {
			continue
		}
		for _, name := range unionMethodNames(spec, d) {
			m := byMethod[name]
			if m == nil {
				return fmt.Errorf("%s: %s lists method %q, which no definition declares", spec.JSONPath, su.union, name)
			}
			if m.Kind != su.kind {
				return fmt.Errorf("%s: %s lists %s, which is a %s", spec.JSONPath, su.union, m.Type, m.Kind)
			}
			if !slices.Contains(m.Senders, su.side) {
				m.Senders = append(m.Senders, su.side)
			}
			m.SenderUnions = append(m.SenderUnions, su.union)
		}
	}
	// Results.
	for _, m := range byMethod {
		if len(m.Senders) == 0 {
			return fmt.Errorf("%s: method %q (%s) is in no Client*/Server* union, so its sender is unknown", spec.JSONPath, m.Name, m.Type)
		}
		slices.Sort(m.Senders)
		if m.Kind != Request {
			continue
		}
		if err := pairResult(spec, m); err != nil {
			return err
		}
		if len(m.Alternatives) > 0 {
			u := &Union{Name: strings.TrimSuffix(m.Type, "Request") + "Reply", Path: "/methods/" + escapePtr(m.Name) + "/reply"}
			for _, r := range append([]string{m.Result}, m.Alternatives...) {
				u.Members = append(u.Members, &Type{Kind: Ref, Ref: r, Path: u.Path})
			}
			if err := (&analyzer{spec: spec}).analyze(u); err != nil {
				return err
			}
			if spec.Def(u.Name) != nil {
				return fmt.Errorf("%s: the reply union of %s would be named %s, which is a definition", spec.JSONPath, m.Name, u.Name)
			}
			m.Reply = u
		}
		if spec.Era() == Stateless {
			m.NameParam = mcpNameParams[m.Name]
		}
	}
	for _, m := range byMethod {
		spec.Methods = append(spec.Methods, m)
	}
	applyForbidden(spec)
	sort.Slice(spec.Methods, func(i, j int) bool { return spec.Methods[i].Name < spec.Methods[j].Name })
	return nil
}

func isSenderUnion(name string) bool {
	for _, su := range senderUnions {
		if su.union == name {
			return true
		}
	}
	return false
}

// unionMethodNames lists the method strings a sender union admits. The
// union is an anyOf of references, or (2026 ClientNotification) a single
// inlined message.
func unionMethodNames(spec *Spec, d *Def) []string {
	var members []*Type
	switch d.Type.Kind {
	case AnyOf:
		members = d.Type.Union.Members
	default:
		members = []*Type{d.Type}
	}
	var out []string
	for _, mt := range members {
		t := mt
		if t.Kind == Ref {
			if rd := spec.Def(t.Ref); rd != nil {
				t = rd.Type
			}
		}
		if mp := findProp(t, "method"); mp != nil && mp.Type.Const != nil {
			out = append(out, mp.Type.Const.Str)
		}
	}
	return out
}

// pairResult finds a request's result by the naming rule XRequest ->
// XResult, the EmptyResult exceptions and the alternatives table, and
// checks the table against the 2026 XResultResponse definitions.
func pairResult(spec *Spec, m *Method) error {
	base := strings.TrimSuffix(m.Type, "Request")
	switch {
	case emptyResultRequests[m.Type]:
		m.Result = "EmptyResult"
	default:
		m.Result = base + "Result"
	}
	if spec.Def(m.Result) == nil {
		return fmt.Errorf("%s: request %s (%q) has no result definition %s; if the prose names another result, add it to schema/exceptions.go", spec.JSONPath, m.Type, m.Name, m.Result)
	}
	for _, alt := range resultAlternatives {
		if alt.method == m.Name && spec.Def(alt.alt) != nil {
			m.Alternatives = append(m.Alternatives, alt.alt)
		}
	}
	if d := spec.Def(base + "ResultResponse"); d != nil {
		m.ResultResponse = d.Name
		want := append([]string{m.Result}, m.Alternatives...)
		var got []string
		if rp := findProp(d.Type, "result"); rp != nil {
			switch rp.Type.Kind {
			case Ref:
				got = []string{rp.Type.Ref}
			case AnyOf:
				for _, mt := range rp.Type.Union.Members {
					got = append(got, mt.Ref)
				}
			}
		}
		if !sameSet(want, got) {
			return fmt.Errorf("%s: %s.result admits %v but the method table says %v; update schema/exceptions.go", spec.JSONPath, d.Name, got, want)
		}
	}
	return nil
}

// applyForbidden marks the members the exception table forbids.
func applyForbidden(spec *Spec) {
	for _, f := range forbiddenMembers {
		d := spec.Def(f.union)
		if d == nil || d.Type.Kind != AnyOf {
			continue
		}
		for _, m := range d.Type.Union.Members {
			if m.Kind != Ref {
				continue
			}
			if md := spec.Def(m.Ref); md != nil && md.Type.Kind == Object {
				for _, name := range f.members {
					if findProp(md.Type, name) == nil && !slices.Contains(md.Type.Forbidden, name) {
						md.Type.Forbidden = append(md.Type.Forbidden, name)
						md.Type.ForbiddenWhy = f.why
					}
				}
			}
		}
	}
}
