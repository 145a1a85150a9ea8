package gen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// The bodies of the conversion functions: struct members, values, unions.

// structBody converts the members of s to those of dn.
func (b *bridgeGen) structBody(d dir, s, dn *named) ([]jen.Code, bool) {
	sf, err1 := d.src.g.fields(s)
	df, err2 := d.dst.g.fields(dn)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	byJSON := map[string]*field{}
	for _, f := range sf {
		byJSON[f.prop.Name] = f
	}
	defs := [2]string{s.name, dn.name}
	used := map[*field]bool{}
	var body []jen.Code
	ok, filled := true, false
	for _, f := range df {
		if f.mode == modeConst {
			continue
		}
		where := dn.name + "." + f.prop.Name
		from := byJSON[f.prop.Name]
		if from == nil {
			if other := b.table.renamed(defs, f.prop.Name); other != "" {
				from = byJSON[other]
			}
		}
		if from != nil && from.mode != modeConst {
			used[from] = true
			code, conv := b.field(d, from, f, where)
			if conv {
				body = append(body, code...)
				if from.bit < 0 && f.bit >= 0 && f.mode == modeValue {
					b.loss(d, where, LossZero, "required by %s, optional in %s", d.dst.rev, d.src.rev)
				}
				continue
			}
		}
		if src := b.table.request(dn.name, f.prop.Name); d.up && src != "" {
			if !filled {
				body = append(body, jen.Id(b.fill(d, dn).name).Call(jen.Id("r"), jen.Id("out")))
				filled = true
			}
			continue
		}
		if u := f.gt.underlying(); d.up && from == nil && f.mode == modePtr && u.shape == shapeStruct && b.table.fills(u.named.name) {
			// A member that moved into each request: made from the request.
			fn := b.fill(d, u.named)
			body = append(body, jen.Id("out").Dot(f.name).Op("=").New(d.dst.qual(u)), jen.Id(fn.name).Call(jen.Id("r"), jen.Id("out").Dot(f.name)))
			continue
		}
		if v, ok := b.table.absent(dn.name, f.prop.Name); ok && d.up && from == nil {
			if code := b.constant(d, f, v); code != nil {
				body = append(body, code...)
				if b.absences == nil {
					b.absences = map[string]bool{}
				}
				b.absences[dn.name+"."+f.prop.Name+" → "+strconv.Quote(v)] = true
			}
		}
		if from == nil && s.t.Additional == schema.Open {
			if code, ok := b.fromExtra(d, f); ok {
				body = append(body, code...)
				if f.bit >= 0 && !b.table.runtime(dn.name, f.prop.Name) {
					b.loss(d, where, LossZero, "required by %s; %s has no such member, so it is taken from Extra when there", d.dst.rev, d.src.rev)
				}
				continue
			}
		}
		switch {
		case b.table.runtime(dn.name, f.prop.Name):
		case f.bit >= 0 && from != nil && from.mode != modeConst:
			b.loss(d, where, LossRequired, "required by %s; the %s value (%s) does not convert", d.dst.rev, d.src.rev, b.describe(d.src, from))
			ok = false
		case f.bit >= 0:
			b.loss(d, where, LossRequired, "required by %s; %s has no such member", d.dst.rev, d.src.rev)
			ok = false
		case from != nil && from.mode != modeConst:
			b.loss(d, where, LossDropped, "the %s value (%s) does not convert to %s", d.src.rev, b.describe(d.src, from), b.describe(d.dst, f))
		}
	}
	if !ok {
		return nil, false
	}
	open := dn.t.Additional == schema.Open
	for _, f := range sf {
		if used[f] || f.mode == modeConst || b.table.runtime(s.name, f.prop.Name) {
			continue
		}
		where := s.name + "." + f.prop.Name
		drop := func(format string, args ...any) {
			b.loss(d, where, LossDropped, format, args...)
			k := fkey{s, dn, d.up}
			b.dropped[k] = append(b.dropped[k], f)
		}
		switch {
		case !open:
			drop("%s has no such member", d.dst.rev)
			continue
		case !d.up && !dn.t.OpenByDesign && !b.table.keeps(dn.name, f.prop.Name):
			// Toward the older revision, its shape exactly: a member it
			// does not define is not sent (an object that carries any
			// member by design, a JSON Schema, keeps it).
			drop("%s has no such member; its peers get their revision's shape", d.dst.rev)
			continue
		}
		code, kept := b.extra(d.src.g, f)
		if !kept {
			drop("%s has no such member, and %s has no JSON of its own", d.dst.rev, b.describe(d.src, f))
			continue
		}
		b.loss(d, where, LossExtra, "%s has no such member", d.dst.rev)
		body = append(body, code)
	}
	if open && s.t.Additional == schema.Open {
		// Members neither revision names travel on; those only the target
		// names cannot be told apart from its own and stay behind.
		var names []jen.Code
		for _, f := range df {
			if byJSON[f.prop.Name] == nil {
				names = append(names, jen.Lit(f.prop.Name))
			}
		}
		if len(names) == 0 {
			body = append(body, jen.Id("out").Dot("Extra").Op("=").Append(jen.Id("out").Dot("Extra"), jen.Id("in").Dot("Extra").Op("...")))
		} else {
			body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("m")).Op(":=").Range().Id("in").Dot("Extra")).Block(
				jen.Switch(jen.Id("m").Dot("Name")).Block(jen.Case(names...).Block(jen.Continue())),
				jen.Id("out").Dot("Extra").Op("=").Append(jen.Id("out").Dot("Extra"), jen.Id("m")),
			))
		}
	}
	return body, true
}

// describe is the Go type of a field, for the report.
func (b *bridgeGen) describe(s *bside, f *field) string {
	return goSource(s.g.fieldType(f))
}

// extra keeps a source member the target does not name in its Extra.
func (b *bridgeGen) extra(g *generator, f *field) (jen.Code, bool) {
	in := jen.Id("in").Dot(f.name)
	var present, value jen.Code
	switch f.mode {
	case modeValue:
		present, value = jen.True(), in.Clone()
	case modeOpt:
		present, value = in.Clone().Dot("Set"), in.Clone().Dot("Value")
	case modePtr, modeNil:
		present, value = in.Clone().Op("!=").Nil(), in.Clone()
	default:
		return nil, false
	}
	if v, ok := builtinValue(g, f.gt, value); ok {
		value = v
	} else if f.gt.named == nil || g.isAlias(f.gt.named) {
		// Only named types encode themselves.
		return nil, false
	}
	return jen.If(present).Block(
		jen.If(jen.List(jen.Id("v"), jen.Err()).Op(":=").Qual(wirePkg, "ValueOf").Call(value), jen.Err().Op("==").Nil()).Block(
			jen.Id("out").Dot("Extra").Dot("Add").Call(jen.Lit(f.prop.Name), jen.Id("v")),
		),
	), true
}

// builtinValue is v as the builtin type wire.ValueOf and wire.ValueFrom
// take (string, int64, float64, bool, []string, wire.Raw), when gt is one
// of those or a scalar named after one.
func builtinValue(g *generator, gt *gotype, v jen.Code) (jen.Code, bool) {
	u := gt.underlying()
	switch u.shape {
	case shapeString, shapeEnum:
		return jen.String().Parens(v), true
	case shapeInt:
		return jen.Int64().Parens(v), true
	case shapeFloat:
		return jen.Float64().Parens(v), true
	case shapeBool:
		return jen.Bool().Parens(v), true
	case shapeAnyJSON, shapeRawObject:
		if gt.named == nil || g.isAlias(gt.named) {
			return jen.Qual(wirePkg, "Raw").Parens(v), true
		}
	case shapeSlice:
		if gt.named == nil && u.elem.named == nil && u.elem.shape == shapeString {
			return v, true
		}
	}
	return nil, false
}

// fromExtra takes a member the source revision does not name from the
// source's Extra, where a peer of the target's revision would have put it.
func (b *bridgeGen) fromExtra(d dir, f *field) ([]jen.Code, bool) {
	out := jen.Id("out").Dot(f.name)
	u := f.gt.underlying()
	var decode []jen.Code
	switch {
	case f.mode == modePtr:
		decode = []jen.Code{
			jen.Id("v").Op(":=").New(d.dst.qual(u)),
			jen.If(jen.Qual(wirePkg, "UnmarshalWith").Call(jen.Id("raw"), jen.Id("v").Dot("DecodeJSON")).Op("==").Nil()).Block(out.Clone().Op("=").Id("v")),
		}
	case f.mode == modeConst || u.shape == shapeUnion:
		return nil, false
	case f.mode == modeNil && (f.gt.named != nil && !d.dst.g.isAlias(f.gt.named) || u.shape == shapeSlice && u.elem.named == nil && u.elem.shape == shapeString):
		// Decoded in place: a value that does not decode is left out.
		decode = []jen.Code{
			jen.If(jen.Qual(wirePkg, "ValueFrom").Call(jen.Id("raw"), jen.Op("&").Add(out.Clone())).Op("!=").Nil()).Block(out.Clone().Op("=").Nil()),
		}
	default:
		var t jen.Code
		var set jen.Code = jen.Id("v")
		if _, ok := builtinValue(d.dst.g, f.gt, jen.Id("v")); ok {
			t = map[shape]jen.Code{shapeString: jen.String(), shapeEnum: jen.String(), shapeInt: jen.Int64(), shapeFloat: jen.Float64(), shapeBool: jen.Bool(),
				shapeAnyJSON: jen.Qual(wirePkg, "Raw"), shapeRawObject: jen.Qual(wirePkg, "Raw"), shapeSlice: jen.Index().String()}[u.shape]
			if f.gt.named != nil {
				set = jen.Add(d.dst.qual(f.gt)).Parens(jen.Id("v"))
			}
		} else if f.gt.named != nil && !d.dst.g.isAlias(f.gt.named) {
			t = d.dst.qual(f.gt)
		} else {
			return nil, false
		}
		if f.mode == modeOpt {
			set = jen.Qual(wirePkg, "Some").Call(set)
		}
		decode = []jen.Code{
			jen.Var().Id("v").Add(t),
			jen.If(jen.Qual(wirePkg, "ValueFrom").Call(jen.Id("raw"), jen.Op("&").Id("v")).Op("==").Nil()).Block(out.Clone().Op("=").Add(set)),
		}
	}
	return []jen.Code{jen.If(jen.List(jen.Id("raw"), jen.Id("ok")).Op(":=").Id("in").Dot("Extra").Dot("Get").Call(jen.Lit(f.prop.Name)), jen.Id("ok")).Block(decode...)}, true
}

// field converts one member; both exist.
func (b *bridgeGen) field(d dir, sf, df *field, where string) ([]jen.Code, bool) {
	in := jen.Id("in").Dot(sf.name)
	out := jen.Id("out").Dot(df.name)
	su, du := sf.gt.underlying(), df.gt.underlying()
	// The source value as a plain value, and when it is there.
	var present *jen.Statement
	var value *jen.Statement
	switch sf.mode {
	case modeValue:
		value = in.Clone()
	case modeOpt:
		present, value = in.Clone().Dot("Set"), in.Clone().Dot("Value")
	case modePtr, modeNil:
		present, value = in.Clone().Op("!=").Nil(), in.Clone()
	}
	guard := func(c ...jen.Code) []jen.Code {
		if present == nil {
			return c
		}
		return []jen.Code{jen.If(present).Block(c...)}
	}
	b.enumLoss(d, su, du, where)
	switch df.mode {
	case modeValue, modeOpt:
		if sf.mode == modeOpt && df.mode == modeOpt && sameScalar(su, du) && sf.gt.named == nil && df.gt.named == nil {
			return []jen.Code{out.Clone().Op("=").Add(in.Clone())}, true
		}
		if sf.mode != modeValue && sf.mode != modeOpt {
			return nil, false
		}
		v, ok := b.scalar(d, value, sf.gt, df.gt)
		if !ok {
			return nil, false
		}
		if df.mode == modeOpt {
			return guard(out.Clone().Op("=").Qual(wirePkg, "Some").Call(v)), true
		}
		return []jen.Code{out.Clone().Op("=").Add(v)}, true
	case modePtr:
		switch {
		case sf.mode == modePtr && su.shape == shapeStruct:
			f, ok := b.pair(d, su.named, du.named)
			if !ok {
				return nil, false
			}
			conv := []jen.Code{out.Clone().Op("=").New(d.dst.qual(du)), jen.Id(f.name).Call(jen.Id("r"), in.Clone(), out.Clone())}
			if d.up && b.table.fills(du.named.name) {
				// Made from the request when the client sent none.
				fn := b.fill(d, du.named)
				return []jen.Code{jen.If(present).Block(conv...).Else().Block(
					out.Clone().Op("=").New(d.dst.qual(du)), jen.Id(fn.name).Call(jen.Id("r"), out.Clone()))}, true
			}
			return guard(conv...), true
		case su.shape == shapeAnyJSON || su.shape == shapeRawObject:
			return guard(
				out.Clone().Op("=").New(d.dst.qual(du)),
				jen.If(jen.Qual(wirePkg, "UnmarshalWith").Call(in.Clone(), out.Clone().Dot("DecodeJSON")).Op("!=").Nil()).Block(out.Clone().Op("=").Nil()),
			), true
		}
		return nil, false
	case modeNil:
		if sf.mode == modePtr && su.shape == shapeStruct && (du.shape == shapeAnyJSON || du.shape == shapeRawObject) {
			return guard(jen.If(jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(wirePkg, "Marshal").Call(in.Clone()), jen.Err().Op("==").Nil()).Block(
				out.Clone().Op("=").Add(d.dst.qual(df.gt)).Parens(jen.Id("b")))), true
		}
		if sf.mode != modeNil {
			return nil, false
		}
		return b.assign(d, out, in, sf.gt, df.gt)
	}
	return nil, false
}

// enumLoss reports enum values the target does not allow.
func (b *bridgeGen) enumLoss(d dir, su, du *gotype, where string) {
	if su.shape != shapeEnum || du.shape != shapeEnum || du.t.EnumOpen {
		return
	}
	var missing []string
	for _, v := range su.t.Enum {
		if !slices.Contains(du.t.Enum, v) {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		b.loss(d, where, LossValue, "%s does not allow %s", d.dst.rev, strings.Join(missing, ", "))
	}
}

// sameScalar reports scalar shapes with the same Go representation.
func sameScalar(s, d *gotype) bool {
	k := func(sh shape) shape {
		if sh == shapeEnum {
			return shapeString
		}
		return sh
	}
	switch k(s.shape) {
	case shapeString, shapeInt, shapeFloat, shapeBool, shapeStringOrInt:
		return k(s.shape) == k(d.shape)
	}
	return false
}

// scalar is the expression converting a scalar value.
func (b *bridgeGen) scalar(d dir, v *jen.Statement, sg, dg *gotype) (jen.Code, bool) {
	su, du := sg.underlying(), dg.underlying()
	switch {
	case su.shape == shapeStringOrInt && du.shape == shapeStringOrInt:
		return v, true
	case sameScalar(su, du) && sg.named == nil && dg.named == nil:
		return v, true
	case sameScalar(su, du), su.shape == shapeInt && du.shape == shapeFloat:
		return jen.Add(d.dst.qual(dg)).Parens(v), true
	}
	return nil, false
}

// assign converts a value held by itself (a slice, map, union or raw
// JSON; an element) from rhs to lhs.
func (b *bridgeGen) assign(d dir, lhs, rhs *jen.Statement, sg, dg *gotype) ([]jen.Code, bool) {
	su, du := sg.underlying(), dg.underlying()
	b.depth++
	defer func() { b.depth-- }()
	i := fmt.Sprintf("i%d", b.depth)
	switch {
	case isScalar(su) && isScalar(du):
		v, ok := b.scalar(d, rhs, sg, dg)
		if !ok {
			return nil, false
		}
		return []jen.Code{lhs.Clone().Op("=").Add(v)}, true
	case isRaw(su) && isRaw(du):
		if sg.named == nil && dg.named == nil {
			return []jen.Code{lhs.Clone().Op("=").Add(rhs)}, true
		}
		return []jen.Code{lhs.Clone().Op("=").Add(d.dst.qual(dg)).Parens(rhs)}, true
	case su.shape == shapeStruct && du.shape == shapeStruct:
		f, ok := b.pair(d, su.named, du.named)
		if !ok {
			return nil, false
		}
		return []jen.Code{jen.Id(f.name).Call(jen.Id("r"), jen.Op("&").Add(rhs), jen.Op("&").Add(lhs))}, true
	case su.shape == shapeStruct && isRaw(du):
		return []jen.Code{jen.If(jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(wirePkg, "Marshal").Call(jen.Op("&").Add(rhs)), jen.Err().Op("==").Nil()).Block(
			lhs.Clone().Op("=").Add(d.dst.qual(dg)).Parens(jen.Id("b")))}, true
	case isRaw(su) && du.shape == shapeStruct:
		return []jen.Code{jen.Id("_").Op("=").Qual(wirePkg, "UnmarshalWith").Call(rhs, lhs.Clone().Dot("DecodeJSON"))}, true
	case su.shape == shapeUnion && du.shape == shapeUnion:
		f, ok := b.pair(d, su.named, du.named)
		if !ok {
			return nil, false
		}
		return []jen.Code{lhs.Clone().Op("=").Id(f.name).Call(jen.Id("r"), rhs)}, true
	case su.shape == shapeSlice && du.shape == shapeSlice:
		se, de := su.elem, du.elem
		if su.named != nil {
			se = su.named.elem
		}
		if du.named != nil {
			de = du.named.elem
		}
		if isScalar(se.underlying()) && se.named == nil && de.named == nil && sameScalar(se.underlying(), de.underlying()) {
			// Same element representation: the slice is shared.
			return []jen.Code{lhs.Clone().Op("=").Add(d.dst.qual(dg)).Parens(rhs)}, true
		}
		inner, ok := b.assign(d, lhs.Clone().Index(jen.Id(i)), rhs.Clone().Index(jen.Id(i)), se, de)
		if !ok {
			return nil, false
		}
		return []jen.Code{jen.If(rhs.Clone().Op("!=").Nil()).Block(
			lhs.Clone().Op("=").Make(d.dst.qual(dg), jen.Len(rhs)),
			jen.For(jen.Id(i).Op(":=").Range().Add(rhs)).Block(inner...),
		)}, true
	case su.shape == shapeMap && du.shape == shapeMap:
		se, de := su.named.elem, du.named.elem
		if isScalar(se.underlying()) && se.named == nil && de.named == nil && sameScalar(se.underlying(), de.underlying()) {
			// Same entry representation: the entries are shared.
			return []jen.Code{lhs.Clone().Op("=").Add(d.dst.qual(dg)).Parens(rhs)}, true
		}
		// Entries in order: names copied, values converted.
		inner, ok := b.assign(d, lhs.Clone().Index(jen.Id(i)).Dot("Value"), rhs.Clone().Index(jen.Id(i)).Dot("Value"), su.named.elem, du.named.elem)
		if !ok {
			return nil, false
		}
		body := append([]jen.Code{lhs.Clone().Index(jen.Id(i)).Dot("Name").Op("=").Add(rhs.Clone().Index(jen.Id(i)).Dot("Name"))}, inner...)
		return []jen.Code{jen.If(rhs.Clone().Op("!=").Nil()).Block(
			lhs.Clone().Op("=").Make(d.dst.qual(dg), jen.Len(rhs)),
			jen.For(jen.Id(i).Op(":=").Range().Add(rhs)).Block(body...),
		)}, true
	case su.shape == shapeNull && du.shape == shapeNull:
		return nil, true
	}
	return nil, false
}

func isScalar(gt *gotype) bool {
	switch gt.shape {
	case shapeString, shapeEnum, shapeInt, shapeFloat, shapeBool, shapeStringOrInt:
		return true
	}
	return false
}

func isRaw(gt *gotype) bool { return gt.shape == shapeAnyJSON || gt.shape == shapeRawObject }

// unionMember is the Go type a union member's value has: a pointer for a
// struct, the named type for the others.
func unionMember(s *bside, m *named) jen.Code {
	if m.shape == shapeStruct {
		return jen.Op("*").Qual(s.path, m.name)
	}
	return jen.Qual(s.path, m.name)
}

// memberNamed is the member of union u that is (or aliases) name.
func memberNamed(u *named, name string) *named {
	for _, m := range u.members {
		if t := m.underlying().named; t != nil && t.name == name {
			return t
		}
	}
	return nil
}

// unionBody converts each member of s to dn's member of the same name;
// one without a counterpart becomes dn's unknown member, with its JSON.
func (b *bridgeGen) unionBody(d dir, s, dn *named) ([]jen.Code, bool) {
	unknown := func(v jen.Code) jen.Code {
		return jen.If(jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(wirePkg, "Marshal").Call(v), jen.Err().Op("==").Nil()).Block(
			jen.Return(jen.Op("&").Qual(d.dst.path, "Unknown"+dn.name).Values(jen.Dict{jen.Id("Raw"): jen.Id("b")})))
	}
	cases := []jen.Code{jen.Case(jen.Nil()).Block(jen.Return(jen.Nil()))}
	for _, m := range s.members {
		sm := m.underlying().named
		dm := memberNamed(dn, sm.name)
		var conv []jen.Code
		if dm != nil {
			o := jen.Id("o")
			switch {
			case sm.shape == shapeStruct && dm.shape == shapeStruct:
				if f, ok := b.pair(d, sm, dm); ok {
					conv = []jen.Code{o.Clone().Op(":=").New(jen.Qual(d.dst.path, dm.name)), jen.Id(f.name).Call(jen.Id("r"), jen.Id("v"), o.Clone()), jen.Return(o.Clone())}
				}
			case sm.shape == shapeNull && dm.shape == shapeNull:
				conv = []jen.Code{jen.Return(jen.Qual(d.dst.path, dm.name).Values())}
			case sm.shape != shapeStruct && dm.shape != shapeStruct:
				inner, ok := b.assign(d, o.Clone(), jen.Id("v"), &gotype{shape: sm.shape, named: sm, t: sm.t}, &gotype{shape: dm.shape, named: dm, t: dm.t})
				if ok {
					conv = append(append([]jen.Code{jen.Var().Add(o.Clone()).Qual(d.dst.path, dm.name)}, inner...), jen.Return(o.Clone()))
				}
			}
		}
		if conv == nil && !d.up {
			sub, field, ok := b.table.standin(dn.name)
			if !ok {
				sub, field, ok = b.table.standin(s.name)
			}
			if ok && goFieldName(d.dst, memberNamed(dn, sub), field) != "" {
				text := "[" + sm.name + " left out: revision " + d.dst.rev + " has no such content]"
				conv = []jen.Code{jen.Return(jen.Op("&").Qual(d.dst.path, sub).Values(jen.Dict{jen.Id(goFieldName(d.dst, memberNamed(dn, sub), field)): jen.Lit(text)}))}
				b.loss(d, s.name, LossMember, "%s has no %s; it is sent as a %s saying so", dn.name+" of "+d.dst.rev, sm.name, sub)
			}
		}
		if conv == nil {
			b.loss(d, s.name, LossMember, "%s has no %s; it is sent as %s's unknown member", dn.name+" of "+d.dst.rev, sm.name, dn.name)
			continue
		}
		cases = append(cases, jen.Case(unionMember(d.src, sm)).Block(conv...))
	}
	cases = append(cases,
		jen.Case(jen.Op("*").Qual(d.src.path, "Unknown"+s.name)).Block(
			jen.Return(jen.Op("&").Qual(d.dst.path, "Unknown"+dn.name).Values(jen.Dict{jen.Id("Raw"): jen.Id("v").Dot("Raw")}))),
	)
	return []jen.Code{
		jen.Switch(jen.Id("v").Op(":=").Id("in").Assert(jen.Type())).Block(cases...),
		unknown(jen.Id("in")),
		jen.Return(jen.Nil()),
	}, true
}

// goFieldName is the Go field of n's member field when it is a plain
// string, or "".
func goFieldName(s *bside, n *named, field string) string {
	if n == nil || n.shape != shapeStruct {
		return ""
	}
	fields, _ := s.g.fields(n)
	for _, f := range fields {
		if f.prop.Name == field && f.mode == modeValue && f.gt.underlying().shape == shapeString {
			return f.name
		}
	}
	return ""
}

// constant sets member f of out to the string v (an absent row), when it
// holds a string.
func (b *bridgeGen) constant(d dir, f *field, v string) []jen.Code {
	if sh := f.gt.underlying().shape; sh != shapeString && sh != shapeEnum {
		return nil
	}
	var val jen.Code = jen.Lit(v)
	if f.gt.named != nil {
		val = jen.Add(d.dst.qual(f.gt)).Parens(val)
	}
	if f.mode == modeOpt {
		val = jen.Qual(wirePkg, "Some").Call(val)
	}
	return []jen.Code{jen.Id("out").Dot(f.name).Op("=").Add(val)}
}
