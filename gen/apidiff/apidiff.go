// Package apidiff compares the Go APIs mcpgen generates for two revisions
// of the MCP schema (gen.API) and says what changed in the terms user code
// sees — types, fields, capability members, union members, enum values,
// methods, error codes and constants — and which changes break code
// written against the older package.
//
// The JSON form of a Report is stable (mcpgen diff --json):
//
//	{
//	  "from": {"revision": "2025-11-25", "schemaSha256": "268a…"},
//	  "to":   {"revision": "2026-07-28", "schemaSha256": "ef70…"},
//	  "summary": {"changes": 180, "breaking": 120, "compile": 100, "runtime": 20,
//	              "kinds": {"type": {"added": 42, "removed": 32, "changed": 2}, …}},
//	  "changes": [
//	    {"kind": "field", "change": "removed", "type": "Tool", "name": "Execution",
//	     "json": "execution", "old": "*ToolExecution", "breaks": "compile",
//	     "note": "code using it no longer compiles"},
//	    …
//	  ],
//	  "for": {"patterns": ["./..."], "packages": ["example.com/weather", …],
//	          "generated": ["example.com/weather/mcp/v20251125"], "uses": 41, "constructs": 6}
//	}
//
// kind is one of type, field, capability, member, value, method, code,
// constant; change one of added, removed, changed, deprecated; breaks is
// "compile" (code using it no longer compiles), "runtime" (it compiles,
// but values that were valid are not, a value may now be absent, or an
// enum has a value a switch without a default misses), or absent.
// from.dir and to.dir are the directories compared, when known; for is
// present on a report filtered for a module's code (mcpgen diff --for):
// the packages examined and the uses counted. type names the enclosing Go type of fields, capabilities, union
// members and enum values; json the member name, method string or enum
// value. Changes are sorted by kind (in the order above), type, name.
package apidiff

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
)

// Kind is what a change is about.
type Kind string

// The kinds of change, in report order.
const (
	Type       Kind = "type"
	Field      Kind = "field"
	Capability Kind = "capability" // a member of ServerCapabilities or ClientCapabilities
	Member     Kind = "member"     // a union member
	Value      Kind = "value"      // an enum value
	Method     Kind = "method"
	Code       Kind = "code" // a JSON-RPC error code
	Constant   Kind = "constant"
)

// Kinds lists the kinds in report order.
func Kinds() []Kind { return []Kind{Type, Field, Capability, Member, Value, Method, Code, Constant} }

// Op is what happened.
type Op string

// What can happen to a thing.
const (
	Added      Op = "added"
	Removed    Op = "removed"
	Changed    Op = "changed"
	Deprecated Op = "deprecated"
)

// Break says how a change affects code written against the older package.
type Break string

// How changes break user code.
const (
	// Compile: code using the thing no longer compiles.
	Compile Break = "compile"
	// Runtime: code compiles, but values that were valid are not (they
	// fail Validate), or a value may now be absent.
	Runtime Break = "runtime"
)

// Change is one difference between two APIs.
type Change struct {
	Kind Kind `json:"kind"`
	Op   Op   `json:"change"`
	// Type is the enclosing Go type (fields, capabilities, members,
	// values).
	Type string `json:"type,omitempty"`
	// Name is the Go name of what changed.
	Name string `json:"name"`
	// JSON is its JSON name: member name, method string, enum value.
	JSON string `json:"json,omitempty"`
	// Old and New describe it before and after (a Go type, signature,
	// kind or value).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Inline reports a type named after where it sits in a definition
	// (ServerCapabilitiesPrompts), not a definition of the schema.
	Inline bool `json:"inline,omitempty"`
	// Breaks is how it breaks user code; "" when it does not.
	Breaks Break `json:"breaks,omitempty"`
	// Note says why it breaks, or what to do.
	Note string `json:"note,omitempty"`
	// Uses are where the code a report was made for (mcpgen diff --for)
	// uses what changed: file:line, in order.
	Uses []string `json:"uses,omitempty"`
}

// Revision identifies one side of a report.
type Revision struct {
	Revision     string `json:"revision"`
	SchemaSHA256 string `json:"schemaSha256"`
	// Dir is the directory the schema was read from, when the report
	// says (mcpgen diff sets it).
	Dir string `json:"dir,omitempty"`
}

// Examined is what a report filtered for a module's code (mcpgen diff
// --for) examined: the evidence behind "0 changes".
type Examined struct {
	// Patterns are the package patterns given; Packages the packages
	// they loaded (tests included), by import path.
	Patterns []string `json:"patterns"`
	Packages []string `json:"packages"`
	// Generated are the packages generated for the older revision the
	// code imports; Uses counts the code's uses of them (identifiers,
	// declared handler methods and composite literals), Constructs the
	// composite literals among them.
	Generated  []string `json:"generated"`
	Uses       int      `json:"uses"`
	Constructs int      `json:"constructs"`
}

// Counts counts changes of one kind.
type Counts struct {
	Added      int `json:"added"`
	Removed    int `json:"removed"`
	Changed    int `json:"changed"`
	Deprecated int `json:"deprecated"`
}

// Summary counts a report's changes.
type Summary struct {
	Changes  int `json:"changes"`
	Breaking int `json:"breaking"`
	Compile  int `json:"compile"`
	Runtime  int `json:"runtime"`
	// Kinds counts the changes of each kind.
	Kinds map[Kind]Counts `json:"kinds"`
}

// Report is what changed from one API to another.
type Report struct {
	From    Revision `json:"from"`
	To      Revision `json:"to"`
	Summary Summary  `json:"summary"`
	Changes []Change `json:"changes"`
	// For is what the code the report was filtered for consists of
	// (mcpgen diff --for); nil for an unfiltered report.
	For *Examined `json:"for,omitempty"`
}

// capabilityTypes are the structs whose members are capabilities.
func isCapabilityType(name string) bool {
	return name == "ServerCapabilities" || name == "ClientCapabilities"
}

// Compare reports what changed from old to new.
func Compare(old, new *gen.API) *Report {
	r := &Report{
		From:    Revision{Revision: old.Revision, SchemaSHA256: old.SchemaSHA256},
		To:      Revision{Revision: new.Revision, SchemaSHA256: new.SchemaSHA256},
		Changes: []Change{},
	}
	d := &differ{r: r}
	d.types(old.Types, new.Types)
	d.methods(old.Methods, new.Methods)
	d.constants(old.Constants, new.Constants)
	order := map[Kind]int{}
	for i, k := range Kinds() {
		order[k] = i
	}
	sort.SliceStable(r.Changes, func(i, j int) bool {
		a, b := r.Changes[i], r.Changes[j]
		if a.Kind != b.Kind {
			return order[a.Kind] < order[b.Kind]
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Kind == Method && a.JSON != b.JSON {
			return a.JSON < b.JSON // by method string
		}
		return a.Name < b.Name
	})
	r.Summary = summarize(r.Changes)
	return r
}

func summarize(changes []Change) Summary {
	s := Summary{Changes: len(changes), Kinds: map[Kind]Counts{}}
	for _, c := range changes {
		switch c.Breaks {
		case Compile:
			s.Compile++
		case Runtime:
			s.Runtime++
		}
		n := s.Kinds[c.Kind]
		switch c.Op {
		case Added:
			n.Added++
		case Removed:
			n.Removed++
		case Changed:
			n.Changed++
		case Deprecated:
			n.Deprecated++
		}
		s.Kinds[c.Kind] = n
	}
	s.Breaking = s.Compile + s.Runtime
	return s
}

type differ struct{ r *Report }

func (d *differ) add(c Change) { d.r.Changes = append(d.r.Changes, c) }

// byName indexes a slice by a key.
func byName[T any](xs []T, key func(T) string) map[string]T {
	m := make(map[string]T, len(xs))
	for _, x := range xs {
		m[key(x)] = x
	}
	return m
}

func (d *differ) types(old, new []gen.APIType) {
	oldBy := byName(old, func(t gen.APIType) string { return t.Name })
	newBy := byName(new, func(t gen.APIType) string { return t.Name })
	var removed, added []gen.APIType
	for _, o := range old {
		n, ok := newBy[o.Name]
		if !ok {
			removed = append(removed, o)
			continue
		}
		d.typeChanges(o, n)
	}
	for _, n := range new {
		if _, ok := oldBy[n.Name]; !ok {
			added = append(added, n)
		}
	}
	for _, o := range removed {
		c := Change{Kind: Type, Op: Removed, Name: o.Name, Old: o.Kind, Inline: !o.Def, Breaks: Compile}
		if to := renamedTo(o, added); to != "" {
			c.Note = "same shape as the new " + to + " (renamed?)"
		}
		d.add(c)
	}
	for _, n := range added {
		d.add(Change{Kind: Type, Op: Added, Name: n.Name, New: n.Kind, Inline: !n.Def})
	}
}

// renamedTo finds the one added type with the same shape as a removed one.
func renamedTo(o gen.APIType, added []gen.APIType) string {
	found := ""
	for _, n := range added {
		if o.Kind == n.Kind && shape(o) != "" && shape(o) == shape(n) {
			if found != "" {
				return ""
			}
			found = n.Name
		}
	}
	return found
}

// shape summarizes what a type holds, to spot renames.
func shape(t gen.APIType) string {
	switch {
	case len(t.Fields) > 0:
		var parts []string
		for _, f := range t.Fields {
			parts = append(parts, f.JSON+" "+f.Type)
		}
		return strings.Join(parts, ";")
	case len(t.Members) > 0:
		return strings.Join(t.Members, "|")
	case len(t.Values) > 0:
		return strings.Join(t.Values, "|")
	}
	return ""
}

func (d *differ) typeChanges(o, n gen.APIType) {
	if o.Kind != n.Kind {
		d.add(Change{Kind: Type, Op: Changed, Name: n.Name, Old: describe(o), New: describe(n), Inline: !n.Def, Breaks: Compile,
			Note: "declared differently: code using it needs rewriting"})
		return
	}
	if o.Underlying != n.Underlying {
		d.add(Change{Kind: Type, Op: Changed, Name: n.Name, Old: describe(o), New: describe(n), Inline: !n.Def, Breaks: Compile})
	}
	if n.Deprecated && !o.Deprecated {
		d.add(Change{Kind: Type, Op: Deprecated, Name: n.Name, Inline: !n.Def})
	}
	switch n.Kind {
	case "struct":
		d.fields(o, n)
	case "union":
		d.members(o, n)
	case "enum":
		d.values(o, n)
	}
}

// describe is a type's kind with its underlying type.
func describe(t gen.APIType) string {
	if t.Underlying != "" && t.Underlying != t.Kind {
		return t.Kind + " " + t.Underlying
	}
	return t.Kind
}

func (d *differ) fields(o, n gen.APIType) {
	kind := Field
	if isCapabilityType(n.Name) {
		kind = Capability
	}
	oldBy := byName(o.Fields, func(f gen.APIField) string { return f.JSON })
	newBy := byName(n.Fields, func(f gen.APIField) string { return f.JSON })
	for _, of := range o.Fields {
		nf, ok := newBy[of.JSON]
		if !ok {
			c := Change{Kind: kind, Op: Removed, Type: n.Name, Name: of.Name, JSON: of.JSON, Old: fieldDesc(of), Breaks: Compile}
			if of.Const != "" {
				c.Breaks, c.Note = Runtime, "no longer written"
			}
			d.add(c)
			continue
		}
		d.fieldChanges(kind, n.Name, of, nf)
	}
	for _, nf := range n.Fields {
		if _, ok := oldBy[nf.JSON]; ok {
			continue
		}
		c := Change{Kind: kind, Op: Added, Type: n.Name, Name: nf.Name, JSON: nf.JSON, New: fieldDesc(nf)}
		if nf.Required && nf.Const == "" {
			c.Breaks, c.Note = Runtime, "required: values built without it fail Validate"
		}
		d.add(c)
	}
	if o.Open != n.Open {
		c := Change{Kind: kind, Op: Added, Type: n.Name, Name: "Extra", New: "wire.Members", Note: "unnamed members are kept"}
		if o.Open {
			c.Op, c.New, c.Old, c.Breaks, c.Note = Removed, "", "wire.Members", Compile, "unnamed members are no longer allowed"
		}
		d.add(c)
	}
}

func (d *differ) fieldChanges(kind Kind, typ string, o, n gen.APIField) {
	base := Change{Kind: kind, Op: Changed, Type: typ, Name: n.Name, JSON: n.JSON, Old: fieldDesc(o), New: fieldDesc(n)}
	switch {
	case o.Const == "" && n.Const != "":
		base.Breaks, base.Note = Compile, "now fixed: the field is gone, the encoder writes "+n.Const
		d.add(base)
	case o.Const != "" && n.Const == "":
		base.Breaks, base.Note = Runtime, "no longer fixed: a field now, values built without it fail Validate"
		d.add(base)
	case o.Name != n.Name || o.Type != n.Type:
		base.Breaks = Compile
		if o.Required != n.Required {
			base.Note = optionality(n) + " now"
		}
		d.add(base)
	case o.Const != n.Const:
		base.Breaks, base.Note = Runtime, "another fixed value"
		d.add(base)
	case !o.Required && n.Required:
		base.Breaks, base.Note = Runtime, "required now: values built without it fail Validate"
		d.add(base)
	case o.Required && !n.Required:
		base.Breaks, base.Note = Runtime, "optional now: a decoded value may lack it"
		d.add(base)
	}
	if n.Deprecated && !o.Deprecated {
		d.add(Change{Kind: kind, Op: Deprecated, Type: typ, Name: n.Name, JSON: n.JSON})
	}
}

func optionality(f gen.APIField) string {
	if f.Required {
		return "required"
	}
	return "optional"
}

// fieldDesc is a field's Go type and optionality.
func fieldDesc(f gen.APIField) string {
	return f.Type + ", " + optionality(f)
}

func (d *differ) members(o, n gen.APIType) {
	for _, m := range o.Members {
		if !slices.Contains(n.Members, m) {
			d.add(Change{Kind: Member, Op: Removed, Type: n.Name, Name: m, Breaks: Compile,
				Note: "type switch cases and assignments of it no longer compile"})
		}
	}
	for _, m := range n.Members {
		if !slices.Contains(o.Members, m) {
			d.add(Change{Kind: Member, Op: Added, Type: n.Name, Name: m,
				Note: "values of it decoded as Unknown" + n.Name + " before"})
		}
	}
}

func (d *differ) values(o, n gen.APIType) {
	for _, v := range o.Values {
		if !slices.Contains(n.Values, v) {
			d.add(Change{Kind: Value, Op: Removed, Type: n.Name, Name: n.Name + gen.GoValueName(v), JSON: v, Breaks: Compile})
		}
	}
	for _, v := range n.Values {
		if !slices.Contains(o.Values, v) {
			d.add(Change{Kind: Value, Op: Added, Type: n.Name, Name: n.Name + gen.GoValueName(v), JSON: v, Breaks: Runtime,
				Note: "a switch over " + n.Name + " without a default misses it"})
		}
	}
	switch {
	case o.EnumOpen && !n.EnumOpen:
		d.add(Change{Kind: Type, Op: Changed, Name: n.Name, Old: "open enum", New: "closed enum", Breaks: Runtime,
			Note: "values it does not list fail Validate now"})
	case !o.EnumOpen && n.EnumOpen:
		d.add(Change{Kind: Type, Op: Changed, Name: n.Name, Old: "closed enum", New: "open enum", Note: "values it does not list are valid now"})
	}
}

func (d *differ) methods(old, new []gen.APIMethod) {
	oldBy := byName(old, func(m gen.APIMethod) string { return m.Method })
	newBy := byName(new, func(m gen.APIMethod) string { return m.Method })
	for _, o := range old {
		n, ok := newBy[o.Method]
		if !ok {
			c := Change{Kind: Method, Op: Removed, Name: o.Go, JSON: o.Method, Old: methodDesc(o), Breaks: Compile, Note: "its constant is gone"}
			switch {
			case o.Handler && o.Kind == "request":
				c.Note = "its handler method, typed call and constant are gone"
			case o.Handler:
				c.Note = "its handler method and constant are gone"
			}
			d.add(c)
			continue
		}
		base := Change{Kind: Method, Op: Changed, Name: n.Go, JSON: n.Method}
		if o.Go != n.Go || o.Kind != n.Kind {
			c := base
			c.Old, c.New, c.Breaks = o.Kind+" "+o.Go, n.Kind+" "+n.Go, Compile
			d.add(c)
		}
		if o.Params != n.Params {
			c := base
			c.Old, c.New, c.Breaks, c.Note = "params "+orNone(o.Params), "params "+orNone(n.Params), Compile, "handlers and calls need the new params type"
			d.add(c)
		}
		if o.Reply != n.Reply {
			c := base
			c.Old, c.New, c.Breaks, c.Note = "reply "+orNone(o.Reply), "reply "+orNone(n.Reply), Compile, "handlers return the new reply type"
			d.add(c)
		}
		if senders(o) != senders(n) {
			c := base
			c.Old, c.New, c.Breaks, c.Note = senders(o), senders(n), Runtime, "sent by others now"
			d.add(c)
		}
		if o.Handler != n.Handler {
			c := base
			c.Old, c.New, c.Breaks = answeredBy(o), answeredBy(n), Runtime
			c.Note = "the runtime answers it now: handler methods for it are not called"
			if n.Handler {
				c.Note = "handlers answer it now: implement " + n.Go + " to serve it"
			}
			d.add(c)
		}
	}
	for _, n := range new {
		if _, ok := oldBy[n.Method]; !ok {
			c := Change{Kind: Method, Op: Added, Name: n.Go, JSON: n.Method, New: methodDesc(n)}
			if n.Handler {
				c.Note = "implement " + n.Go + " to serve it"
			}
			d.add(c)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func methodDesc(m gen.APIMethod) string {
	return fmt.Sprintf("%s, %s, %s", m.Kind, senders(m), answeredBy(m))
}

func senders(m gen.APIMethod) string {
	switch {
	case m.FromClient && m.FromServer:
		return "both sides send it"
	case m.FromClient:
		return "client → server"
	case m.FromServer:
		return "server → client"
	}
	return "no sender"
}

func answeredBy(m gen.APIMethod) string {
	if m.Handler {
		return "answered by handlers"
	}
	return "answered by the runtime"
}

func (d *differ) constants(old, new []gen.APIConst) {
	oldBy := byName(old, func(c gen.APIConst) string { return c.Name })
	newBy := byName(new, func(c gen.APIConst) string { return c.Name })
	kindOf := func(c gen.APIConst) Kind {
		if c.ErrorCode {
			return Code
		}
		return Constant
	}
	for _, o := range old {
		n, ok := newBy[o.Name]
		switch {
		case !ok:
			d.add(Change{Kind: kindOf(o), Op: Removed, Name: o.Name, Old: o.Value, Breaks: Compile})
		case o.Value != n.Value:
			c := Change{Kind: kindOf(n), Op: Changed, Name: n.Name, Old: o.Value, New: n.Value}
			if n.ErrorCode {
				c.Breaks, c.Note = Runtime, "peers send and expect the new code"
			}
			d.add(c)
		}
	}
	for _, n := range new {
		if _, ok := oldBy[n.Name]; !ok {
			d.add(Change{Kind: kindOf(n), Op: Added, Name: n.Name, New: n.Value})
		}
	}
}
