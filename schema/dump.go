package schema

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Dump writes a readable, deterministic description of the model: header,
// constants, types with their members, unions with their decision trees,
// methods with senders and results, and the places schema.ts overrides
// schema.json.
func (s *Spec) Dump(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("revision %s (%s)\n", s.Revision, s.Era())
	p("dialect  %s\n", s.Dialect)
	p("schema.json sha256 %s\n", s.SchemaSHA256)
	if s.TSSHA256 != "" {
		p("schema.ts   sha256 %s\n", s.TSSHA256)
	}

	p("\nconstants (%d)\n", len(s.Constants))
	for _, c := range s.Constants {
		kind := ""
		if c.ErrorCode {
			kind = "  error code"
		}
		p("  %s = %s%s\n", c.Name, c.Value, kind)
	}
	if len(s.LoggingLevels) > 0 {
		p("\nlogging levels (least to most severe): %s\n", strings.Join(s.LoggingLevels, " < "))
	}

	named := s.namedTypes()
	p("\ndefinitions (%d), inline types (%d)\n", len(s.Defs), len(named)-len(s.Defs))
	for _, nt := range named {
		p("\n%s", nt.name)
		if nt.def == nil {
			p("  (inline at #%s)", nt.t.Path)
		}
		p("  %s\n", typeSummary(nt.t))
		if d := nt.def; d != nil {
			var tags []string
			for _, base := range d.Extends {
				e := "extends " + base.Name
				if len(base.Omitted) > 0 {
					e += " minus " + strings.Join(base.Omitted, ",")
				}
				tags = append(tags, e)
			}
			if d.Doc.Category != "" {
				tags = append(tags, "category "+d.Doc.Category)
			}
			if d.Doc.Deprecated != nil {
				tags = append(tags, "deprecated")
			}
			if d.Doc.Internal {
				tags = append(tags, "internal")
			}
			if len(tags) > 0 {
				p("  [%s]\n", strings.Join(tags, "; "))
			}
		}
		if nt.t.Kind == Object {
			for _, pr := range nt.t.Props {
				req := "optional"
				if pr.Required {
					req = "required"
				}
				dep := ""
				if pr.Doc.Deprecated != nil {
					dep = "  deprecated"
				}
				p("    %-44s %-16s %s %s%s\n", strconv.Quote(pr.Name), pr.GoName, req, typeString(pr.Type), dep)
			}
			if len(nt.t.Forbidden) > 0 {
				p("    (forbidden members: %s — %s)\n", strings.Join(nt.t.Forbidden, ", "), nt.t.ForbiddenWhy)
			}
			switch nt.t.Additional {
			case Open:
				p("    (other members: kept)\n")
			case Typed:
				p("    (other members: %s)\n", typeString(nt.t.AdditionalType))
			case Closed:
				p("    (other members: rejected)\n")
			}
		}
	}

	p("\nunions (%d)\n", len(s.Unions))
	for _, u := range s.Unions {
		var names []string
		for _, m := range u.Members {
			names = append(names, typeString(m))
		}
		p("\n%s  #%s\n  members: %s\n  told apart by %s", u.Name, u.Path, strings.Join(names, ", "), u.Rule)
		if u.Root == nil {
			p(" (the originating request)\n")
			continue
		}
		p("\n")
		writeDecision(&b, u, u.Root, "    ")
	}

	p("\nmethods (%d)\n", len(s.Methods))
	for _, m := range s.Methods {
		var senders []string
		for _, sd := range m.Senders {
			senders = append(senders, sd.String())
		}
		p("  %-40s %-12s from %-13s %s", m.Name, m.Kind, strings.Join(senders, "+"), m.Type)
		if m.Params != nil {
			opt := ""
			if !m.ParamsRequired {
				opt = "?"
			}
			p("  params%s %s", opt, typeString(m.Params))
		}
		if m.Result != "" {
			p("  -> %s", strings.Join(append([]string{m.Result}, m.Alternatives...), " | "))
		}
		if m.ResultResponse != "" {
			p("  response %s", m.ResultResponse)
		}
		if m.NameParam != "" {
			p("  Mcp-Name=params.%s", m.NameParam)
		}
		if len(m.Aliases) > 0 {
			p("  aliases %s", strings.Join(m.Aliases, ","))
		}
		if m.Doc.Deprecated != nil {
			p("  deprecated")
		}
		p("\n")
	}
	for _, m := range s.Methods {
		if m.Reply == nil {
			continue
		}
		u := m.Reply
		var names []string
		for _, mt := range u.Members {
			names = append(names, typeString(mt))
		}
		p("\nreply %s of %s\n  members: %s\n  told apart by %s\n", u.Name, m.Name, strings.Join(names, ", "), u.Rule)
		writeDecision(&b, u, u.Root, "    ")
	}

	if len(s.Overrides) > 0 {
		p("\nschema.ts overrides schema.json (%d)\n", len(s.Overrides))
		for _, o := range s.Overrides {
			p("  #%s: %s -> %s (%s)\n", o.Path, o.JSON, o.Model, o.Why)
		}
	}
	if len(s.Excluded) > 0 {
		p("\nexcluded schema.ts declarations (%d)\n", len(s.Excluded))
		for _, e := range s.Excluded {
			p("  %s: %s\n", e.Name, e.Reason)
		}
	}
	if len(s.InputRequests) > 0 {
		p("\ninput requests (%d)\n", len(s.InputRequests))
		for _, in := range s.InputRequests {
			p("  %s answered as %s -> %s\n", in.Def, in.Method.Name, in.Method.Result)
		}
	}
	if s.TaskID != nil {
		p("\ntask id: CreateTaskResult.%s\n", strings.Join(s.TaskID, "."))
	}
	if len(s.Warnings) > 0 {
		p("\nwarnings (%d)\n", len(s.Warnings))
		for _, w := range s.Warnings {
			p("  %s\n", s.Relative(w.String()))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Relative rewrites the paths of the spec's files in text relative to the
// spec directory (schema.json#/$defs/X, schema.ts:3:4), so that output
// naming them does not depend on where the spec was read from.
func (s *Spec) Relative(text string) string {
	return strings.ReplaceAll(text, filepath.Dir(s.JSONPath)+string(filepath.Separator), "")
}

func (v Value) String() string {
	if v.IsInt {
		return strconv.FormatInt(v.Int, 10)
	}
	return strconv.Quote(v.Str)
}

type namedType struct {
	name string
	t    *Type
	def  *Def
}

// namedTypes lists definitions and named inline types, sorted by name.
func (s *Spec) namedTypes() []namedType {
	var out []namedType
	var walk func(t *Type)
	walk = func(t *Type) {
		if t == nil {
			return
		}
		if t.Name != "" {
			out = append(out, namedType{name: t.Name, t: t})
		}
		for c := range t.Children() {
			walk(c)
		}
	}
	for _, d := range s.Defs {
		out = append(out, namedType{name: d.Name, t: d.Type, def: d})
		walk(d.Type)
	}
	// A definition's own top-level type carries no Name; inline ones do.
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func typeSummary(t *Type) string {
	switch t.Kind {
	case Object:
		return "object"
	case AnyOf:
		return "union"
	}
	return typeString(t)
}

// typeString renders a type expression compactly.
func typeString(t *Type) string {
	var s string
	switch t.Kind {
	case Ref:
		s = t.Ref
	case Object, AnyOf:
		if t.Name != "" {
			s = t.Name
		} else {
			s = t.Kind.String()
		}
	case Array:
		s = "[]" + typeString(t.Items)
		if t.MaxItems != nil {
			s += fmt.Sprintf(" maxItems=%d", *t.MaxItems)
		}
	case String:
		switch {
		case t.Const != nil:
			s = t.Const.String()
		case len(t.Enum) > 0:
			q := make([]string, len(t.Enum))
			for i, e := range t.Enum {
				q[i] = strconv.Quote(e)
			}
			s = strings.Join(q, "|")
			if t.EnumOpen {
				s += "|string"
			}
		default:
			s = "string"
		}
		if t.Format != "" {
			s += " format=" + t.Format
		}
	case Integer, Number:
		s = t.Kind.String()
		if t.Const != nil {
			s += " const=" + t.Const.String()
		}
		if t.Minimum != nil {
			s += " min=" + strconv.FormatFloat(*t.Minimum, 'g', -1, 64)
		}
		if t.Maximum != nil {
			s += " max=" + strconv.FormatFloat(*t.Maximum, 'g', -1, 64)
		}
	default:
		s = t.Kind.String()
	}
	if t.Nullable {
		s += "|null"
	}
	return s
}

func writeDecision(b *strings.Builder, u *Union, d *Decision, indent string) {
	leaf := func(d *Decision) string {
		if d == nil {
			return "unknown member"
		}
		if d.Test == Leaf {
			return typeString(u.Members[d.Member])
		}
		return ""
	}
	branch := func(label string, then *Decision) {
		if l := leaf(then); l != "" {
			fmt.Fprintf(b, "%s%s -> %s\n", indent, label, l)
			return
		}
		fmt.Fprintf(b, "%s%s:\n", indent, label)
		writeDecision(b, u, then, indent+"  ")
	}
	switch d.Test {
	case Leaf:
		fmt.Fprintf(b, "%s-> %s\n", indent, leaf(d))
		return
	case TestKind:
		for _, c := range d.Cases {
			var ks []string
			for _, k := range c.Kinds {
				ks = append(ks, k.String())
			}
			branch("JSON "+strings.Join(ks, "/"), c.Then)
		}
	case TestValue:
		for _, c := range d.Cases {
			q := make([]string, len(c.Values))
			for i, v := range c.Values {
				q[i] = strconv.Quote(v)
			}
			branch(fmt.Sprintf("%s = %s", strings.Join(d.Property, "."), strings.Join(q, "|")), c.Then)
		}
		if d.Absent != nil {
			branch(strings.Join(d.Property, ".")+" absent", d.Absent)
		}
	case TestPresent:
		branch(strings.Join(d.Property, ".")+" present", d.Cases[0].Then)
	case TestFirstItem:
		branch("first element", d.Cases[0].Then)
	}
	if d.Test != Leaf {
		branch("otherwise", d.Else)
	}
}
