package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/schema/ts"
)

// merger refines the JSON-derived model with what schema.ts says.
//
// The rule where the two files disagree: schema.json decides the structure
// — which members exist, which are required, their JSON types — because it
// is what peers validate against; schema.ts refines what JSON cannot say —
// integers versus floats, open enums and the order of known values,
// documentation, inheritance, deprecation, constants. A disagreement on
// structure is a TSJSONMismatch warning and schema.json's version stands.
// One disagreement is no disagreement: a member schema.ts types `never` is
// one that must be absent, which schema.json says by leaving it out.
type merger struct {
	spec *Spec
	file *ts.File
	// trial counts the nested attempts to match a TS union member: inside
	// one, a mismatch means "not this member", not a warning.
	trial int
	// mismatches groups the warnings of one TS declaration met in every
	// definition that inherits it (Result.result_type in each result), in
	// the order first met.
	mismatches []*mismatchGroup
}

type mismatchGroup struct {
	w      Warning
	others []string // the other places, as JSON pointers
}

// mismatchError is a place where schema.ts and schema.json disagree.
type mismatchError struct {
	w Warning
}

func (e *mismatchError) Error() string { return e.w.Where + ": " + e.w.What }

// mismatch reports a place where schema.ts and schema.json disagree in a
// way the model cannot reconcile; soft turns it into a warning where the
// merge can go on.
func (m *merger) mismatch(jsonPath string, pos ts.Pos, format string, args ...any) error {
	return &mismatchError{Warning{
		Class:    TSJSONMismatch,
		Where:    m.spec.at(jsonPath),
		What:     fmt.Sprintf("schema.ts (%s) and schema.json disagree: %s", pos, fmt.Sprintf(format, args...)),
		Fallback: "schema.json decides the structure; schema.ts does not refine this place",
	}}
}

// soft records a mismatch as a warning, outside trials, so the merge goes
// on with schema.json's version of the place; other errors pass.
func (m *merger) soft(err error) error {
	var me *mismatchError
	if err == nil || m.trial > 0 || !errors.As(err, &me) {
		return err
	}
	if m.spec.strict {
		return m.spec.warn(me.w)
	}
	for _, g := range m.mismatches {
		if g.w.What == me.w.What {
			g.others = append(g.others, strings.TrimPrefix(me.w.Where, m.spec.JSONPath))
			return nil
		}
	}
	m.mismatches = append(m.mismatches, &mismatchGroup{w: me.w})
	return nil
}

// flush records the grouped mismatches as warnings.
func (m *merger) flush() error {
	for _, g := range m.mismatches {
		w := g.w
		if n := len(g.others); n > 0 {
			w.What += fmt.Sprintf(" (and at %d more places that inherit it, the last %s)", n, g.others[n-1])
		}
		if err := m.spec.warn(w); err != nil {
			return err
		}
	}
	return nil
}

func mergeTS(spec *Spec, f *ts.File) error {
	m := &merger{spec: spec, file: f}
	for _, dup := range f.Duplicates {
		err := spec.warn(Warning{Class: TSDuplicate, Where: dup.Pos.String(),
			What:     fmt.Sprintf("%s is declared again (first at %d:%d) in a way TypeScript does not merge: %s", dup.Name, dup.First.Line, dup.First.Col, dup.Why),
			Fallback: "the first declaration stands"})
		if err != nil {
			return err
		}
	}
	for _, d := range f.Decls {
		if d.Exported && d.Kind == ts.Const && d.Name == "LATEST_PROTOCOL_VERSION" && d.Value != nil {
			spec.Revision = d.Value.Str
		}
	}
	for _, d := range f.Decls {
		if !d.Exported {
			continue
		}
		switch d.Kind {
		case ts.Const:
			c, err := m.constant(d)
			if err != nil {
				return err
			}
			spec.Constants = append(spec.Constants, c)
		case ts.Interface, ts.TypeAlias:
			if spec.Def(d.Name) != nil {
				continue
			}
			if f, ok := spec.facts.lookup(FactExclude, d.Name); ok {
				spec.Excluded = append(spec.Excluded, Exclusion{Name: d.Name, Reason: f.Why})
				continue
			}
			err := spec.warn(Warning{Class: TSOnlyDeclaration, Where: d.Pos.String(),
				What:     fmt.Sprintf("exported declaration %s is not a definition of %s", d.Name, spec.JSONPath),
				Fallback: "left out of the model",
				Fact:     "exclude " + d.Name + " | WHY"})
			if err != nil {
				return err
			}
			spec.Excluded = append(spec.Excluded, Exclusion{Name: d.Name, Reason: "not in schema.json (warning)"})
		}
	}
	for _, def := range spec.Defs {
		d := f.Lookup(def.Name)
		if d == nil || d.Kind == ts.Const {
			continue
		}
		def.Pos = d.Pos.String()
		def.Doc = docFrom(d.Doc, def.Doc.Text)
		def.Extends = m.bases(d)
		var err error
		switch d.Kind {
		case ts.Interface:
			var members []*ts.Member
			var index *ts.IndexSig
			members, index, err = m.members(d, 0)
			if err == nil {
				err = m.object(def.Type, members, index, d.Pos)
			}
		case ts.TypeAlias:
			err = m.refine(def.Type, d.Type, d.Doc)
		}
		if err := m.soft(err); err != nil {
			return err
		}
	}
	if d := f.Lookup("LoggingLevel"); d != nil && d.Type != nil {
		for _, t := range unionTypes(d.Type) {
			if t.Kind == ts.LiteralType && t.Lit.Kind == ts.StringLit {
				spec.LoggingLevels = append(spec.LoggingLevels, t.Lit.Str)
			}
		}
	}
	return m.flush()
}

func (m *merger) constant(d *ts.Decl) (*Constant, error) {
	if d.Value == nil {
		return nil, fmt.Errorf("%s: constant %s has no literal value", d.Pos, d.Name)
	}
	c := &Constant{Name: d.Name, Doc: docFrom(d.Doc, "")}
	switch d.Value.Kind {
	case ts.StringLit:
		c.Value = Value{Str: d.Value.Str}
	case ts.NumberLit:
		n := int64(d.Value.Num)
		if float64(n) != d.Value.Num {
			return nil, fmt.Errorf("%s: constant %s is not an integer", d.Pos, d.Name)
		}
		c.Value = Value{IsInt: true, Int: n}
		// Every numeric constant of the MCP schema is a JSON-RPC error code.
		c.ErrorCode = true
	default:
		return nil, fmt.Errorf("%s: constant %s: unsupported literal", d.Pos, d.Name)
	}
	return c, nil
}

func docFrom(d *ts.Doc, fallback string) Doc {
	if d == nil {
		return Doc{Text: fallback}
	}
	// Categories come quoted as code (`tools/call`): keep the text.
	out := Doc{Text: d.Text, Category: strings.Trim(d.Category, "`"), Deprecated: d.Deprecated, Internal: d.Internal}
	if out.Text == "" {
		out.Text = fallback
	}
	return out
}

// bases lists an interface's heritage, or an intersection alias's parts.
func (m *merger) bases(d *ts.Decl) []Base {
	var out []Base
	var types []*ts.Type
	switch d.Kind {
	case ts.Interface:
		types = d.Extends
	case ts.TypeAlias:
		if d.Type.Kind == ts.Intersection {
			types = d.Type.Types
		}
	}
	for _, t := range types {
		if name, omitted, ok := baseRef(t); ok {
			out = append(out, Base{Name: name, Omitted: omitted})
		}
	}
	return out
}

// baseRef reads `Name` or `Omit<Name, "a" | "b">`.
func baseRef(t *ts.Type) (name string, omitted []string, ok bool) {
	if t.Kind != ts.Ref {
		return "", nil, false
	}
	if t.Name == "Omit" && len(t.Args) == 2 && t.Args[0].Kind == ts.Ref {
		for _, o := range unionTypes(t.Args[1]) {
			if o.Kind == ts.LiteralType && o.Lit.Kind == ts.StringLit {
				omitted = append(omitted, o.Lit.Str)
			}
		}
		return t.Args[0].Name, omitted, true
	}
	return t.Name, nil, true
}

func unionTypes(t *ts.Type) []*ts.Type {
	if t.Kind == ts.Union {
		return t.Types
	}
	return []*ts.Type{t}
}

// members returns an interface's members with inherited ones (bases first,
// an override keeping its base's position) and its index signature.
func (m *merger) members(d *ts.Decl, depth int) ([]*ts.Member, *ts.IndexSig, error) {
	if depth > 64 {
		return nil, nil, fmt.Errorf("%s: inheritance of %s is circular", d.Pos, d.Name)
	}
	var out []*ts.Member
	index := d.Index
	add := func(mem *ts.Member) {
		for i, o := range out {
			if o.Name == mem.Name {
				if mem.Doc == nil {
					cp := *mem
					cp.Doc = o.Doc
					mem = &cp
				}
				out[i] = mem
				return
			}
		}
		out = append(out, mem)
	}
	for _, b := range d.Extends {
		name, omitted, ok := baseRef(b)
		if !ok {
			return nil, nil, fmt.Errorf("%s: %s extends an unsupported type %s", b.Pos, d.Name, b)
		}
		bd := m.file.Lookup(name)
		if bd == nil {
			return nil, nil, fmt.Errorf("%s: %s extends unknown declaration %s", b.Pos, d.Name, name)
		}
		bm, bidx, err := m.declMembers(bd, depth+1)
		if err != nil {
			return nil, nil, err
		}
		for _, mem := range bm {
			if !slices.Contains(omitted, mem.Name) {
				add(mem)
			}
		}
		if index == nil {
			index = bidx
		}
	}
	for _, mem := range d.Members {
		add(mem)
	}
	return out, index, nil
}

// declMembers returns the members of an interface or of an object-like alias.
func (m *merger) declMembers(d *ts.Decl, depth int) ([]*ts.Member, *ts.IndexSig, error) {
	if d.Kind == ts.Interface {
		return m.members(d, depth)
	}
	if d.Kind == ts.TypeAlias {
		return m.typeMembers(d.Type, depth)
	}
	return nil, nil, fmt.Errorf("%s: %s is not an object type", d.Pos, d.Name)
}

// typeMembers returns the members of an object-like type expression.
func (m *merger) typeMembers(t *ts.Type, depth int) ([]*ts.Member, *ts.IndexSig, error) {
	if depth > 64 {
		return nil, nil, fmt.Errorf("%s: type refers to itself", t.Pos)
	}
	switch t.Kind {
	case ts.Object:
		return t.Members, t.Index, nil
	case ts.Intersection:
		var out []*ts.Member
		var index *ts.IndexSig
		for _, part := range t.Types {
			pm, pidx, err := m.typeMembers(part, depth+1)
			if err != nil {
				return nil, nil, err
			}
			for _, mem := range pm {
				replaced := false
				for i, o := range out {
					if o.Name == mem.Name {
						out[i] = mem
						replaced = true
					}
				}
				if !replaced {
					out = append(out, mem)
				}
			}
			if index == nil {
				index = pidx
			}
		}
		return out, index, nil
	case ts.Ref:
		if t.Name == "Record" && len(t.Args) == 2 {
			return nil, &ts.IndexSig{KeyName: "key", KeyType: t.Args[0], Value: t.Args[1], Pos: t.Pos}, nil
		}
		if name, omitted, ok := baseRef(t); ok {
			d := m.file.Lookup(name)
			if d == nil {
				return nil, nil, fmt.Errorf("%s: unknown type %s", t.Pos, name)
			}
			dm, idx, err := m.declMembers(d, depth+1)
			if err != nil {
				return nil, nil, err
			}
			var out []*ts.Member
			for _, mem := range dm {
				if !slices.Contains(omitted, mem.Name) {
					out = append(out, mem)
				}
			}
			return out, idx, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: %s is not an object type", t.Pos, t)
}

// object refines an object type with TS members: docs, order, and each
// member's type.
func (m *merger) object(jt *Type, members []*ts.Member, index *ts.IndexSig, pos ts.Pos) error {
	if jt.Kind == Any {
		return nil
	}
	if jt.Kind != Object {
		return m.mismatch(jt.Path, pos, "schema.ts declares an object, schema.json a %s", jt.Kind)
	}
	byName := map[string]*Prop{}
	for _, p := range jt.Props {
		byName[p.Name] = p
	}
	ordered := make([]*Prop, 0, len(jt.Props))
	for _, mem := range members {
		p := byName[mem.Name]
		if p == nil {
			if isNever(mem.Type) {
				// `x: never`: the member must be absent, as schema.json
				// says by not having it.
				if !slices.Contains(jt.Forbidden, mem.Name) {
					jt.Forbidden = append(jt.Forbidden, mem.Name)
					jt.ForbiddenWhy = "schema.ts types it never"
				}
				continue
			}
			if err := m.soft(m.mismatch(jt.Path, mem.Pos, "member %q is declared in schema.ts but missing from schema.json", mem.Name)); err != nil {
				return err
			}
			continue
		}
		if p.Required == mem.Optional {
			err := m.mismatch(jt.Path+"/properties/"+escapePtr(p.Name), mem.Pos, "member %q is %s in schema.ts but %s in schema.json",
				mem.Name, requiredWord(!mem.Optional), requiredWord(p.Required))
			if err := m.soft(err); err != nil {
				return err
			}
		}
		p.Doc = docFrom(mem.Doc, p.Doc.Text)
		if err := m.soft(m.refine(p.Type, mem.Type, mem.Doc)); err != nil {
			return err
		}
		ordered = append(ordered, p)
		delete(byName, mem.Name)
	}
	for _, p := range jt.Props {
		if _, left := byName[p.Name]; left {
			// Kept, after the members schema.ts orders.
			err := m.mismatch(jt.Path+"/properties/"+escapePtr(p.Name), pos, "property %q is in schema.json but not declared in schema.ts", p.Name)
			if err := m.soft(err); err != nil {
				return err
			}
			ordered = append(ordered, p)
		}
	}
	jt.Props = ordered
	if index != nil && jt.Additional == Typed {
		return m.refine(jt.AdditionalType, index.Value, index.Doc)
	}
	return nil
}

func requiredWord(required bool) string {
	if required {
		return "required"
	}
	return "optional"
}

// isNever reports the TS type never.
func isNever(t *ts.Type) bool { return t != nil && t.Kind == ts.Keyword && t.Keyword == "never" }

// refine applies what the TS type expression tt says to the model type jt.
// Any JSON value (which is also what an unsupported construct degrades to)
// takes no refinement.
func (m *merger) refine(jt *Type, tt *ts.Type, doc *ts.Doc) error {
	if jt.Kind == Any {
		return nil
	}
	switch tt.Kind {
	case ts.Ref:
		switch {
		case tt.Name == "Array" && len(tt.Args) == 1:
			return m.refine(jt, &ts.Type{Kind: ts.Array, Elem: tt.Args[0], Pos: tt.Pos}, doc)
		case tt.Name == "Record" && len(tt.Args) == 2:
			return m.object(jt, nil, &ts.IndexSig{Value: tt.Args[1], Pos: tt.Pos}, tt.Pos)
		case tt.Name == "Date" && len(tt.Args) == 0 && m.file.Lookup("Date") == nil && jt.Kind == String:
			// TypeScript's built-in Date, which schema.json writes as a
			// string (format date-time).
			return nil
		}
		if jt.Kind == AnyOf {
			// type ClientNotification = ChangedNotification: a union of one.
			return m.union(jt, &ts.Type{Kind: ts.Union, Types: []*ts.Type{tt}, Pos: tt.Pos}, doc)
		}
		if jt.Kind == Ref {
			if !m.sameRef(tt.Name, jt.Ref) {
				return m.mismatch(jt.Path, tt.Pos, "schema.ts refers to %s, schema.json to %s", tt.Name, jt.Ref)
			}
			return nil
		}
		// schema.json inlined what schema.ts names: refine against the
		// named declaration.
		d := m.file.Lookup(tt.Name)
		if d == nil {
			return m.mismatch(jt.Path, tt.Pos, "schema.ts refers to unknown type %s", tt.Name)
		}
		if def := m.spec.Def(tt.Name); def != nil && def.Type.Kind == jt.Kind && isScalar(jt.Kind) {
			// resultType: ResultType, which schema.json flattened to
			// {"type": "string"}: refer to the definition, so the Go type
			// is ResultType rather than a copy of it.
			if err := m.refine(jt, d.Type, d.Doc); err != nil {
				return err
			}
			*jt = Type{Kind: Ref, Ref: tt.Name, Path: jt.Path, Doc: jt.Doc}
			return nil
		}
		switch d.Kind {
		case ts.Interface:
			members, index, err := m.members(d, 0)
			if err != nil {
				return err
			}
			return m.object(jt, members, index, d.Pos)
		case ts.TypeAlias:
			return m.refine(jt, d.Type, d.Doc)
		}
		return nil
	case ts.Object:
		return m.object(jt, tt.Members, tt.Index, tt.Pos)
	case ts.Intersection:
		members, index, err := m.typeMembers(tt, 0)
		if err != nil {
			return err
		}
		return m.object(jt, members, index, tt.Pos)
	case ts.Array:
		if jt.Kind != Array {
			return m.mismatch(jt.Path, tt.Pos, "schema.ts declares an array, schema.json a %s", jt.Kind)
		}
		return m.refine(jt.Items, tt.Elem, nil)
	case ts.Union:
		return m.union(jt, tt, doc)
	case ts.Keyword:
		return m.keyword(jt, tt, doc, false)
	case ts.LiteralType:
		return m.literal(jt, tt)
	}
	return nil
}

// keyword checks a TS keyword type against the JSON type and decides
// numbers: TS number is a float where @TJS-type says so or where it stands
// for any JSON scalar (inScalarUnion), else JSON's integer stands.
func (m *merger) keyword(jt *Type, tt *ts.Type, doc *ts.Doc, inScalarUnion bool) error {
	want := map[string][]Kind{
		"string": {String}, "number": {Integer, Number}, "boolean": {Boolean}, "null": {Null},
		"unknown": {Any, Object, AnyOf}, "any": {Any, Object, AnyOf}, "object": {Object, Any},
	}[tt.Keyword]
	if want == nil {
		return nil
	}
	if !slices.Contains(want, jt.Kind) {
		return m.mismatch(jt.Path, tt.Pos, "schema.ts says %s, schema.json says %s", tt.Keyword, jt.Kind)
	}
	if tt.Keyword == "number" && jt.Kind == Integer {
		why := ""
		switch {
		case doc != nil && doc.TJSType == "number":
			why = "@TJS-type number"
		case inScalarUnion:
			why = "TS number among the JSON scalar types (string | number | boolean)"
		}
		if why != "" {
			jt.Kind = Number
			m.spec.Overrides = append(m.spec.Overrides, Override{Path: jt.Path, JSON: "integer", Model: "number", Why: why})
		}
	}
	return nil
}

func (m *merger) literal(jt *Type, tt *ts.Type) error {
	switch tt.Lit.Kind {
	case ts.StringLit:
		if jt.Kind != String {
			return m.mismatch(jt.Path, tt.Pos, "schema.ts says %q, schema.json says %s", tt.Lit.Str, jt.Kind)
		}
		if jt.Const != nil && jt.Const.Str != tt.Lit.Str {
			return m.mismatch(jt.Path, tt.Pos, "schema.ts says %q, schema.json const %q", tt.Lit.Str, jt.Const.Str)
		}
	case ts.NumberLit:
		if jt.Kind != Integer && jt.Kind != Number {
			return m.mismatch(jt.Path, tt.Pos, "schema.ts says %s, schema.json says %s", tt.Lit.Raw, jt.Kind)
		}
	}
	return nil
}

// union refines a JSON type with a TS union: string-literal unions give
// enum order and open enums; unions of types are matched member by member.
func (m *merger) union(jt *Type, tt *ts.Type, doc *ts.Doc) error {
	var lits []string
	openString, others := false, []*ts.Type{}
	hasNull := false
	for _, t := range tt.Types {
		switch {
		case t.Kind == ts.LiteralType && t.Lit.Kind == ts.StringLit:
			lits = append(lits, t.Lit.Str)
		case t.Kind == ts.Keyword && t.Keyword == "string":
			openString = true
		case t.Kind == ts.Keyword && t.Keyword == "null":
			hasNull = true
		default:
			others = append(others, t)
		}
	}
	if len(lits) > 0 && len(others) == 0 && !hasNull && jt.Kind == String {
		if openString {
			// "complete" | "input_required" | string: known values of an
			// open set. schema.json keeps only "string".
			if len(jt.Enum) > 0 {
				return m.mismatch(jt.Path, tt.Pos, "schema.ts declares an open string union, schema.json a closed enum")
			}
			jt.Enum, jt.EnumOpen = lits, true
			return nil
		}
		if jt.Const != nil && len(lits) == 1 {
			return m.literal(jt, tt.Types[0])
		}
		if !sameSet(lits, jt.Enum) {
			return m.mismatch(jt.Path, tt.Pos, "schema.ts values %q differ from schema.json enum %q", lits, jt.Enum)
		}
		jt.Enum = lits // schema.ts order: LoggingLevel severity, Role...
		return nil
	}
	if jt.Nullable && hasNull && len(tt.Types) == 2 {
		for _, t := range tt.Types {
			if !(t.Kind == ts.Keyword && t.Keyword == "null") {
				return m.refine(jt, t, doc)
			}
		}
	}
	if jt.Kind != AnyOf {
		// Only some TS members survive in the JSON (JSONValue's null, say):
		// match the one that fits.
		m.trial++
		for _, t := range tt.Types {
			if err := m.refine(jt, t, doc); err == nil {
				m.trial--
				return nil
			}
		}
		m.trial--
		return m.mismatch(jt.Path, tt.Pos, "no member of the schema.ts union %s fits the schema.json %s", tt, jt.Kind)
	}
	scalar := isScalarUnion(tt)
	if hasNull && !hasKind(jt.Union, Null) {
		// JSONValue: schema.ts allows null, schema.json forgot it.
		jt.Union.Members = append(jt.Union.Members, &Type{Kind: Null, Path: jt.Path})
		m.spec.Overrides = append(m.spec.Overrides, Override{Path: jt.Path, JSON: "no null member", Model: "null accepted", Why: "schema.ts union includes null"})
	}
	var flat []*Type
	for _, jm := range jt.Union.Members {
		if jm.Kind == AnyOf && jm.typeArray {
			flat = append(flat, jm.Union.Members...)
		} else {
			flat = append(flat, jm)
		}
	}
	for _, jm := range flat {
		tm := m.matchMember(jm, tt.Types)
		var err error
		switch {
		case tm == nil:
			err = m.mismatch(jm.Path, tt.Pos, "schema.json union member (%s) has no counterpart in schema.ts %s", describe(jm), tt)
		case tm.Kind == ts.Keyword:
			err = m.keyword(jm, tm, doc, scalar)
		default:
			err = m.refine(jm, tm, doc)
		}
		if err := m.soft(err); err != nil {
			return err
		}
	}
	return nil
}

// isScalarUnion reports a TS union that stands for JSON scalars of several
// kinds (it has both number and boolean), where number means any number.
func isScalarUnion(tt *ts.Type) bool {
	var num, boolean bool
	for _, t := range tt.Types {
		if t.Kind == ts.Keyword {
			num = num || t.Keyword == "number"
			boolean = boolean || t.Keyword == "boolean"
		}
	}
	return num && boolean
}

// matchMember finds the TS union member corresponding to a JSON member.
// TS members that name union aliases count with their own members, since
// schema.json inlines those (SamplingMessageContentBlock | ...[]).
func (m *merger) matchMember(jm *Type, tms []*ts.Type) *ts.Type {
	var first *ts.Type
	for _, t := range m.expand(tms, 0) {
		if !m.compatible(jm, t, 0) {
			continue
		}
		if jm.Kind != Object {
			return t
		}
		if first == nil {
			first = t
		}
		// Several object literals fit an object: take the one declaring
		// exactly its members ({readOnly: true} | {readOnly: false;
		// destructive?: boolean}).
		if t.Kind == ts.Object && sameMembers(jm, t) {
			return t
		}
	}
	return first
}

// sameMembers reports whether a TS object literal declares exactly the
// JSON object's properties.
func sameMembers(jm *Type, t *ts.Type) bool {
	if len(jm.Props) != len(t.Members) {
		return false
	}
	for _, mem := range t.Members {
		if findProp(jm, mem.Name) == nil {
			return false
		}
	}
	return true
}

// expand replaces references to union aliases by the aliases' members,
// keeping the reference itself first so a JSON $ref to the alias matches.
func (m *merger) expand(tms []*ts.Type, depth int) []*ts.Type {
	var out []*ts.Type
	for _, t := range tms {
		out = append(out, t)
		if t.Kind == ts.Ref && depth < 8 {
			if d := m.file.Lookup(t.Name); d != nil && d.Kind == ts.TypeAlias && d.Type.Kind == ts.Union {
				out = append(out, m.expand(d.Type.Types, depth+1)...)
			}
		}
	}
	return out
}

// compatible is a structural check, without side effects, that the TS type
// t can describe the JSON type jm.
func (m *merger) compatible(jm *Type, t *ts.Type, depth int) bool {
	if depth > 16 {
		return false
	}
	if t.Kind == ts.Ref && jm.Kind != Ref {
		if t.Name == "Array" && len(t.Args) == 1 {
			return jm.Kind == Array && m.compatible(jm.Items, t.Args[0], depth+1)
		}
		if d := m.file.Lookup(t.Name); d != nil && d.Kind == ts.TypeAlias {
			return m.compatible(jm, d.Type, depth+1)
		}
		if d := m.file.Lookup(t.Name); d != nil && d.Kind == ts.Interface {
			return jm.Kind == Object
		}
	}
	switch jm.Kind {
	case Ref:
		return t.Kind == ts.Ref && m.sameRef(t.Name, jm.Ref)
	case String:
		return (t.Kind == ts.Keyword && t.Keyword == "string") || (t.Kind == ts.LiteralType && t.Lit.Kind == ts.StringLit)
	case Integer, Number:
		return (t.Kind == ts.Keyword && t.Keyword == "number") || (t.Kind == ts.LiteralType && t.Lit.Kind == ts.NumberLit)
	case Boolean:
		return t.Kind == ts.Keyword && t.Keyword == "boolean"
	case Null:
		return t.Kind == ts.Keyword && t.Keyword == "null"
	case Object:
		return t.Kind == ts.Object || t.Kind == ts.Intersection
	case Array:
		return t.Kind == ts.Array && m.compatible(jm.Items, t.Elem, depth+1)
	case AnyOf:
		if t.Kind != ts.Union {
			return false
		}
		for _, sub := range jm.Union.Members {
			ok := false
			for _, tm := range m.expand(t.Types, 0) {
				if m.compatible(sub, tm, depth+1) {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
		return true
	case Any:
		return true
	}
	return false
}

func describe(t *Type) string {
	if t.Kind == Ref {
		return t.Ref
	}
	return t.Kind.String()
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x := slices.Clone(a)
	y := slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return strings.Join(x, "\x00") == strings.Join(y, "\x00")
}

func hasKind(u *Union, k Kind) bool {
	for _, m := range u.Members {
		if m.Kind == k || (m.Kind == AnyOf && m.typeArray && hasKind(m.Union, k)) {
			return true
		}
	}
	return false
}

// sameRef reports whether a TS reference and a JSON reference name the same
// type, seeing through plain aliases on either side (TS EmptyResult =
// Result, which schema.json resolves to Result).
func (m *merger) sameRef(tsName, jsonName string) bool {
	canon := func(name string) []string {
		out := []string{name}
		for i := 0; i < 8; i++ {
			if d := m.file.Lookup(name); d != nil && d.Kind == ts.TypeAlias && d.Type.Kind == ts.Ref && len(d.Type.Args) == 0 {
				name = d.Type.Name
			} else if def := m.spec.Def(name); def != nil && def.Type.Kind == Ref {
				name = def.Type.Ref
			} else {
				break
			}
			out = append(out, name)
		}
		return out
	}
	a, b := canon(tsName), canon(jsonName)
	return a[len(a)-1] == b[len(b)-1]
}

func isScalar(k Kind) bool {
	return k == String || k == Integer || k == Number || k == Boolean
}
