package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// json emits EncodeJSON/DecodeJSON (and the encoding/json adapters) for
// every named type, and the decoder of every union.
func (g *generator) json(f *jen.File) error {
	for _, n := range g.order {
		var err error
		switch n.shape {
		case shapeStruct:
			err = g.structJSON(f, n)
		case shapeUnion:
			g.unionJSON(f, n)
		case shapeAlias, shapeStringOrInt:
		default:
			if g.isAlias(n) {
				continue
			}
			g.valueJSON(f, n)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// isAlias reports a named type declared as an alias (type Cursor = string),
// which therefore has no methods of its own.
func (g *generator) isAlias(n *named) bool {
	switch n.shape {
	case shapeAlias, shapeStringOrInt:
		return true
	case shapeString, shapeInt, shapeFloat, shapeBool:
		return n.def != nil && len(n.unions) == 0
	}
	return false
}

// recv is the receiver of a method on n: pointers for structs (they are
// large and decoded in place), values for everything else.
func recv(n *named) *jen.Statement {
	if n.shape == shapeStruct {
		return jen.Id("v").Op("*").Id(n.name)
	}
	return jen.Id("v").Id(n.name)
}

// stdAdapters emits MarshalJSON/UnmarshalJSON so the type also works with
// encoding/json.
func stdAdapters(f *jen.File, n *named) {
	f.Comment("MarshalJSON implements json.Marshaler with the generated encoder.")
	f.Func().Params(recv(n)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Qual(wirePkg, "Marshal").Call(jen.Id("v"))),
	)
	f.Comment("UnmarshalJSON implements json.Unmarshaler with the generated decoder.")
	f.Func().Params(jen.Id("v").Op("*").Id(n.name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(jen.Qual(wirePkg, "UnmarshalWith").Call(jen.Id("data"), jen.Id("v").Dot("DecodeJSON"))),
	)
}

func (g *generator) structJSON(f *jen.File, n *named) error {
	fields, err := g.fields(n)
	if err != nil {
		return err
	}
	tracked := hasAbsent(fields)
	// EncodeJSON.
	var enc []jen.Code
	enc = append(enc, jen.Id("e").Dot("ObjectStart").Call())
	for _, fl := range fields {
		key := jen.Id("e").Dot("FieldRaw").Call(jen.Lit(quotedColon(fl.prop.Name)))
		x := jen.Id("v").Dot(fl.name)
		// member writes the member with value val of type gt: one call of
		// a Field* writer for a scalar, the name then the value otherwise.
		member := func(val *jen.Statement, gt *gotype) []jen.Code {
			if w := fieldWriter(g.plain(gt)); w != "" {
				return []jen.Code{jen.Id("e").Dot(w).Call(jen.Lit(quotedColon(fl.prop.Name)), val)}
			}
			return append([]jen.Code{key}, g.encode(val, gt, 0)...)
		}
		// present is the condition under which a tracked required member
		// is written: it was not decoded absent, or it has been set since.
		present := func(nonZero jen.Code) *jen.Statement {
			cond := jen.Id("v").Dot("absent").Op("&").Add(bitOp(fl.bit)).Op("==").Lit(0)
			if nonZero != nil {
				cond = cond.Op("||").Add(nonZero)
			}
			return cond
		}
		switch fl.mode {
		case modeConst:
			c := fl.prop.Type.Const
			method := "FieldStr"
			if c.IsInt {
				method = "FieldInt64"
			}
			enc = append(enc, jen.If(present(nil)).Block(jen.Id("e").Dot(method).Call(jen.Lit(quotedColon(fl.prop.Name)), constValue(c))))
		case modeValue:
			enc = append(enc, jen.If(present(g.nonZero(x, fl.gt))).Block(member(x, fl.gt)...))
		case modeOpt:
			stmt := jen.If(x.Clone().Dot("Set")).Block(member(x.Clone().Dot("Value"), fl.gt)...)
			if fl.nullable {
				stmt = stmt.Else().If(present(nil)).Block(key, jen.Id("e").Dot("Null").Call())
			}
			enc = append(enc, stmt)
		case modePtr:
			enc = append(enc, jen.If(x.Clone().Op("!=").Nil()).Block(key, x.Clone().Dot("EncodeJSON").Call(jen.Id("e"))))
		case modeNil:
			stmt := jen.If(x.Clone().Op("!=").Nil()).Block(append([]jen.Code{key}, g.encode(x, fl.gt, 0)...)...)
			if fl.tracksAbsence() {
				// An unset required slice or object is written empty.
				stmt = stmt.Else().If(present(nil)).Block(append([]jen.Code{key}, g.encodeEmpty(fl.gt)...)...)
			}
			enc = append(enc, stmt)
		}
	}
	if n.t.Additional == schema.Open {
		enc = append(enc, jen.Id("e").Dot("Members").Call(jen.Id("v").Dot("Extra")))
	}
	enc = append(enc, jen.Id("e").Dot("ObjectEnd").Call())
	f.Comment("EncodeJSON writes v as a JSON object: the named members in schema order, then")
	f.Comment("Extra. Required members a decoded value lacked stay out.")
	f.Func().Params(recv(n)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Qual(wirePkg, "Encoder")).Block(enc...)

	// DecodeJSON.
	var cases []jen.Code
	var mask uint64
	page := paged(n.t)
	for _, fl := range fields {
		var body []jen.Code
		if fl.tracksAbsence() {
			mask |= 1 << fl.bit
			body = append(body, jen.Id("seen").Op("|=").Add(bitOp(fl.bit)))
		}
		wrap := fieldWrap(fl.prop.Name)
		x := jen.Id("v").Dot(fl.name)
		switch fl.mode {
		case modeConst:
			c := fl.prop.Type.Const
			if c.IsInt {
				body = append(body,
					jen.List(jen.Id("n"), jen.Err()).Op(":=").Id("d").Dot("Int64").Call(),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err()))),
					jen.If(jen.Id("n").Op("!=").Add(constValue(c))).Block(jen.Return(wrap(jen.Qual(wirePkg, "ConstMismatch").Call(jen.Lit(constText(c)))))),
				)
			} else {
				body = append(body,
					jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("d").Dot("StrBytes").Call(),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err()))),
					jen.If(jen.String().Call(jen.Id("s")).Op("!=").Add(constValue(c))).Block(jen.Return(wrap(jen.Qual(wirePkg, "ConstMismatch").Call(jen.Lit(constText(c)))))),
				)
			}
		case modeValue, modeNil:
			if gt := g.plain(fl.gt); gt.named == nil && gt.shape == shapeSlice && page {
				body = append(body, g.decodePage(x, gt, wrap)...)
				break
			}
			body = append(body, g.decode(x, fl.gt, wrap, 0)...)
		case modePtr:
			// Cut from a block the decoder keeps for the type (the
			// annotations of each tool of a page), see wire.New.
			body = append(body,
				x.Clone().Op("=").Qual(wirePkg, "New").Types(g.typeCode(fl.gt)).Call(jen.Id("d")),
				jen.If(jen.Err().Op(":=").Add(x.Clone()).Dot("DecodeJSON").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err()))),
			)
		case modeOpt:
			if fl.nullable {
				body = append(body, jen.If(jen.Id("d").Dot("Peek").Call().Op("==").Qual(wirePkg, "Null")).Block(
					x.Clone().Dot("Clear").Call(),
					jen.Return(wrap(jen.Id("d").Dot("Null").Call())),
				))
			}
			body = append(body, g.decode(x.Clone().Dot("Value"), fl.gt, wrap, 0)...)
			body = append(body, x.Clone().Dot("Set").Op("=").True())
		}
		cases = append(cases, jen.Case(jen.Lit(fl.prop.Name)).Block(body...))
	}
	switch n.t.Additional {
	case schema.Open:
		// Kept verbatim, in room the decoder keeps (see wire.Decoder.Extra).
		cases = append(cases, jen.Default().Block(
			jen.Return(jen.Id("d").Dot("Extra").Call(jen.Op("&").Id("v").Dot("Extra"), jen.Id("key"))),
		))
	case schema.Closed:
		cases = append(cases, jen.Default().Block(
			jen.Return(jen.Qual(wirePkg, "WithField").Call(jen.Qual(wirePkg, "NotAllowed").Call(), jen.String().Call(jen.Id("key")))),
		))
	}
	var dec []jen.Code
	dec = append(dec, jen.Op("*").Id("v").Op("=").Id(n.name).Values())
	if tracked {
		dec = append(dec, jen.Var().Id("seen").Uint64())
	}
	dec = append(dec,
		jen.If(jen.Err().Op(":=").Id("d").Dot("Object").Call(jen.Func().Params(jen.Id("key").Index().Byte()).Error().Block(
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...),
			jen.Return(jen.Nil()),
		)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	)
	if tracked {
		dec = append(dec, jen.Id("v").Dot("absent").Op("=").Op(fmt.Sprintf("0b%b", mask)).Op("&^").Id("seen"))
	}
	dec = append(dec, jen.Return(jen.Nil()))
	f.Comment("DecodeJSON reads a JSON object into v, replacing its contents. Members the")
	f.Comment("schema does not name are kept in Extra; absent required members are")
	f.Comment("remembered for Validate. A value of the wrong JSON type or a wrong const is")
	f.Comment("an error naming the member.")
	f.Func().Params(jen.Id("v").Op("*").Id(n.name)).Id("DecodeJSON").Params(jen.Id("d").Op("*").Qual(wirePkg, "Decoder")).Error().Block(dec...)
	stdAdapters(f, n)
	return nil
}

// nonZero is the expression "x holds a non-zero value" for a scalar.
func (g *generator) nonZero(x *jen.Statement, gt *gotype) jen.Code {
	switch g.plain(gt).underlying().shape {
	case shapeString, shapeEnum:
		return x.Clone().Op("!=").Lit("")
	case shapeInt, shapeFloat:
		return x.Clone().Op("!=").Lit(0)
	case shapeBool:
		return x.Clone()
	case shapeStringOrInt:
		return jen.Op("!").Add(x.Clone()).Dot("IsZero").Call()
	}
	return nil
}

func fieldWrap(name string) func(jen.Code) jen.Code {
	return func(err jen.Code) jen.Code {
		return jen.Qual(wirePkg, "WithField").Call(err, jen.Lit(name))
	}
}

// encodeEmpty writes the empty value of a slice ([]) or object ({}).
func (g *generator) encodeEmpty(gt *gotype) []jen.Code {
	if gt.underlying().shape == shapeSlice {
		return []jen.Code{jen.Id("e").Dot("ArrayStart").Call(), jen.Id("e").Dot("ArrayEnd").Call()}
	}
	if s := gt.underlying().shape; s == shapeMap || s == shapeRawObject {
		return []jen.Code{jen.Id("e").Dot("ObjectStart").Call(), jen.Id("e").Dot("ObjectEnd").Call()}
	}
	return []jen.Code{jen.Id("e").Dot("Null").Call()}
}

// fieldWriter names the wire.Encoder method that writes a member of the
// plain type gt with its name in one call (FieldStr, ...), or "" when gt is
// not a scalar written by encode's Str, Int64, Float64 or Bool.
func fieldWriter(gt *gotype) string {
	if gt.named != nil {
		return ""
	}
	switch gt.shape {
	case shapeString, shapeEnum:
		return "FieldStr"
	case shapeInt:
		return "FieldInt64"
	case shapeFloat:
		return "FieldFloat64"
	case shapeBool:
		return "FieldBool"
	}
	return ""
}

// encode writes the value x of type gt.
func (g *generator) encode(x *jen.Statement, gt *gotype, depth int) []jen.Code {
	gt = g.plain(gt)
	if gt.named != nil {
		return []jen.Code{x.Clone().Dot("EncodeJSON").Call(jen.Id("e"))}
	}
	e := jen.Id("e")
	switch gt.shape {
	case shapeString, shapeEnum:
		return []jen.Code{e.Dot("Str").Call(x)}
	case shapeInt:
		return []jen.Code{e.Dot("Int64").Call(x)}
	case shapeFloat:
		return []jen.Code{e.Dot("Float64").Call(x)}
	case shapeBool:
		return []jen.Code{e.Dot("Bool").Call(x)}
	case shapeAnyJSON:
		return []jen.Code{e.Dot("RawValue").Call(x)}
	case shapeStringOrInt:
		return []jen.Code{x.Clone().Dot("EncodeJSON").Call(jen.Id("e"))}
	case shapeSlice:
		i := fmt.Sprintf("i%d", depth)
		return []jen.Code{
			jen.Id("e").Dot("ArrayStart").Call(),
			jen.For(jen.Id(i).Op(":=").Range().Add(x)).Block(g.encode(x.Clone().Index(jen.Id(i)), gt.elem, depth+1)...),
			jen.Id("e").Dot("ArrayEnd").Call(),
		}
	}
	panic(fmt.Sprintf("gen: cannot encode shape %d at %s", gt.shape, gt.t.Path))
}

// decode reads a value of type gt into the addressable x; errors are
// returned through wrap.
func (g *generator) decode(x *jen.Statement, gt *gotype, wrap func(jen.Code) jen.Code, depth int) []jen.Code {
	gt = g.plain(gt)
	ret := func() jen.Code { return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err()))) }
	if gt.named != nil && gt.underlying().shape == shapeUnion {
		u := gt.underlying().named
		return []jen.Code{
			jen.List(jen.Id("u"), jen.Err()).Op(":=").Id("decode" + u.name).Call(jen.Id("d")),
			ret(),
			x.Clone().Op("=").Id("u"),
		}
	}
	if gt.named != nil || gt.shape == shapeStringOrInt {
		return []jen.Code{jen.If(jen.Err().Op(":=").Add(x.Clone()).Dot("DecodeJSON").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err())))}
	}
	scalar := func(method string) []jen.Code {
		return []jen.Code{
			jen.List(jen.Id("val"), jen.Err()).Op(":=").Id("d").Dot(method).Call(),
			ret(),
			x.Clone().Op("=").Id("val"),
		}
	}
	switch gt.shape {
	case shapeString, shapeEnum:
		return scalar("Str")
	case shapeInt:
		return scalar("Int64")
	case shapeFloat:
		return scalar("Float64")
	case shapeBool:
		return scalar("Bool")
	case shapeAnyJSON:
		return scalar("Raw")
	case shapeSlice:
		if p := g.plain(gt.elem); p.named == nil && scalarShape(p.shape) {
			return g.decodeList(x, gt, wrap, depth)
		}
		i := fmt.Sprintf("i%d", depth)
		elem := x.Clone().Index(jen.Len(x.Clone()).Op("-").Lit(1))
		inner := g.decode(elem, gt.elem, func(err jen.Code) jen.Code {
			return jen.Qual(wirePkg, "WithIndex").Call(err, jen.Id(i))
		}, depth+1)
		body := []jen.Code{
			jen.Id(i).Op(":=").Len(x.Clone()),
			x.Clone().Op("=").Append(x.Clone(), jen.Op("*").New(g.typeCode(gt.elem))),
		}
		body = append(body, inner...)
		body = append(body, jen.Return(jen.Nil()))
		return []jen.Code{
			x.Clone().Op("=").Add(g.typeCode(gt)).Values(),
			jen.If(jen.Err().Op(":=").Id("d").Dot("Array").Call(jen.Func().Params().Error().Block(body...)), jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err()))),
		}
	}
	panic(fmt.Sprintf("gen: cannot decode shape %d at %s", gt.shape, gt.t.Path))
}

// decodePage decodes into x the array of gt that a list method's result
// pages through (a page of tools, say: the longest arrays a peer sends).
// Each element is decoded in place in the slice wire.List returns, which a
// pooled decoder starts at the length of the last page of the type: one
// allocation of the right size, no element copied. Arrays of scalars
// decode in place too (decodeList: one wire.List per underlying type);
// other arrays are short: they grow, which costs no code per element type
// (wire.List's is a few hundred bytes a type).
func (g *generator) decodePage(x *jen.Statement, gt *gotype, wrap func(jen.Code) jen.Code) []jen.Code {
	return g.decodeInPlace(x, gt, wrap, "l", "el", 1)
}

// decodeInPlace decodes the array of gt into x in a wire.List named l,
// each element in place at el; the element's decoder runs at depth.
func (g *generator) decodeInPlace(x *jen.Statement, gt *gotype, wrap func(jen.Code) jen.Code, l, el string, depth int) []jen.Code {
	inner := g.decode(g.inPlace(gt.elem, el), gt.elem, func(err jen.Code) jen.Code {
		return jen.Qual(wirePkg, "WithIndex").Call(err, jen.Id(l).Dot("Len").Call().Op("-").Lit(1))
	}, depth)
	body := []jen.Code{jen.Id(el).Op(":=").Id(l).Dot("Next").Call()}
	body = append(body, inner...)
	body = append(body, jen.Return(jen.Nil()))
	return []jen.Code{
		jen.Id(l).Op(":=").Qual(wirePkg, "ListOf").Types(g.typeCode(gt.elem)).Call(jen.Id("d")),
		jen.Err().Op(":=").Id("d").Dot("Array").Call(jen.Func().Params().Error().Block(body...)),
		x.Clone().Op("=").Id(l).Dot("Take").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err()))),
	}
}

// scalarShape reports the shapes whose arrays decode in place
// (decodeList): a wire.List of each costs its code once, whatever the
// array (Go makes one instantiation per underlying type).
func scalarShape(s shape) bool {
	switch s {
	case shapeString, shapeEnum, shapeInt, shapeFloat, shapeBool, shapeAnyJSON:
		return true
	}
	return false
}

// decodeList decodes into x an array of scalars (the required members of a
// tool's input schema) in place: a reused decoder cuts the slice from a
// block for the element type, so the arrays of the tools of a page cost no
// allocation each. Names carry depth: a list may be decoded within
// another's element.
func (g *generator) decodeList(x *jen.Statement, gt *gotype, wrap func(jen.Code) jen.Code, depth int) []jen.Code {
	return g.decodeInPlace(x, gt, wrap, fmt.Sprintf("l%d", depth), fmt.Sprintf("el%d", depth), depth+1)
}

// inPlace is what decode decodes an element of type gt into when el points
// at it (wire.List.Next): el itself where decode calls a DecodeJSON method,
// *el where it assigns.
func (g *generator) inPlace(gt *gotype, el string) *jen.Statement {
	p := g.plain(gt)
	if (p.named != nil && p.underlying().shape != shapeUnion) || p.shape == shapeStringOrInt {
		return jen.Id(el)
	}
	return jen.Op("*").Id(el)
}

// paged reports the type of a list method's result: an object with a
// nextCursor member, whose arrays are the page of the list (the tools of
// tools/list).
func paged(t *schema.Type) bool {
	if t == nil || t.Kind != schema.Object {
		return false
	}
	for _, p := range t.Props {
		if p.Name == "nextCursor" {
			return true
		}
	}
	return false
}

// valueJSON emits the methods of a named non-struct type.
func (g *generator) valueJSON(f *jen.File, n *named) {
	var enc, dec []jen.Code
	switch n.shape {
	case shapeRawObject, shapeAnyJSON:
		empty := []jen.Code{jen.Id("e").Dot("Null").Call()}
		if n.shape == shapeRawObject {
			empty = []jen.Code{jen.Id("e").Dot("ObjectStart").Call(), jen.Id("e").Dot("ObjectEnd").Call()}
		}
		enc = []jen.Code{jen.If(jen.Id("v").Op("==").Nil()).Block(empty...).Else().Block(
			jen.Id("e").Dot("RawValue").Call(jen.Qual(wirePkg, "Raw").Call(jen.Id("v"))))}
		method := "Raw"
		if n.shape == shapeRawObject {
			method = "RawObject"
		}
		dec = []jen.Code{
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("d").Dot(method).Call(),
			jen.Op("*").Id("v").Op("=").Id(n.name).Call(jen.Id("r")),
			jen.Return(jen.Err()),
		}
	case shapeMap:
		enc = []jen.Code{
			jen.Id("e").Dot("ObjectStart").Call(),
			jen.For(jen.Id("i").Op(":=").Range().Id("v")).Block(
				append([]jen.Code{
					jen.Id("e").Dot("Field").Call(jen.Id("v").Index(jen.Id("i")).Dot("Name")),
					jen.Id("x").Op(":=").Id("v").Index(jen.Id("i")).Dot("Value"),
				}, g.encode(jen.Id("x"), n.elem, 0)...)...,
			),
			jen.Id("e").Dot("ObjectEnd").Call(),
		}
		// Each member is decoded in place in the slice of entries
		// wire.List returns (see decodePage).
		entry := jen.Qual(wirePkg, "Entry").Types(g.typeCode(n.elem))
		inner := g.decode(jen.Id("el").Dot("Value"), n.elem, func(err jen.Code) jen.Code {
			return jen.Qual(wirePkg, "WithField").Call(err, jen.String().Call(jen.Id("key")))
		}, 0)
		body := []jen.Code{
			jen.Id("el").Op(":=").Id("l").Dot("Next").Call(),
			jen.Id("el").Dot("Name").Op("=").Id("d").Dot("Name").Call(jen.Id("key")),
		}
		body = append(append(body, inner...), jen.Return(jen.Nil()))
		dec = []jen.Code{
			jen.Id("l").Op(":=").Qual(wirePkg, "ListOf").Types(entry).Call(jen.Id("d")),
			jen.Err().Op(":=").Id("d").Dot("Object").Call(jen.Func().Params(jen.Id("key").Index().Byte()).Error().Block(body...)),
			jen.Op("*").Id("v").Op("=").Qual(wirePkg, "Unique").Call(jen.Id("l").Dot("Take").Call()),
			jen.Return(jen.Err()),
		}
	case shapeSlice:
		enc = g.encode(jen.Id("v"), &gotype{shape: shapeSlice, elem: n.elem, t: n.t}, 0)
		dec = append(g.decode(jen.Parens(jen.Op("*").Id("v")), &gotype{shape: shapeSlice, elem: n.elem, t: n.t}, func(err jen.Code) jen.Code { return err }, 0), jen.Return(jen.Nil()))
	case shapeNull:
		enc = []jen.Code{jen.Id("e").Dot("Null").Call()}
		dec = []jen.Code{jen.Return(jen.Id("d").Dot("Null").Call())}
	default:
		method, conv := map[shape][2]string{
			shapeEnum: {"Str", "string"}, shapeString: {"Str", "string"}, shapeInt: {"Int64", "int64"},
			shapeFloat: {"Float64", "float64"}, shapeBool: {"Bool", "bool"},
		}[n.shape][0], map[shape]string{shapeEnum: "string", shapeString: "string", shapeInt: "int64", shapeFloat: "float64", shapeBool: "bool"}[n.shape]
		enc = []jen.Code{jen.Id("e").Dot(method).Call(jen.Id(conv).Call(jen.Id("v")))}
		dec = []jen.Code{
			jen.List(jen.Id("x"), jen.Err()).Op(":=").Id("d").Dot(method).Call(),
			jen.Op("*").Id("v").Op("=").Id(n.name).Call(jen.Id("x")),
			jen.Return(jen.Err()),
		}
	}
	f.Comment("EncodeJSON writes v as JSON.")
	f.Func().Params(recv(n)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Qual(wirePkg, "Encoder")).Block(enc...)
	f.Comment("DecodeJSON reads v from JSON.")
	f.Func().Params(jen.Id("v").Op("*").Id(n.name)).Id("DecodeJSON").Params(jen.Id("d").Op("*").Qual(wirePkg, "Decoder")).Error().Block(dec...)
	stdAdapters(f, n)
}

// unionJSON emits the decoder of a union (by its decision tree) and the
// methods of its Unknown member.
func (g *generator) unionJSON(f *jen.File, n *named) {
	u := n.union
	unknown := "Unknown" + n.name
	if u.Rule != schema.ByOrigin {
		f.Commentf("decode%s reads one member of %s, chosen %s.", n.name, n.name, ruleDoc(u))
		body := g.decision(n, u.Root, "d", 0)
		f.Func().Id("decode"+n.name).Params(jen.Id("d").Op("*").Qual(wirePkg, "Decoder")).Params(jen.Id(n.name), jen.Error()).Block(body...)
		f.Commentf("Unmarshal%s decodes a %s from JSON.", n.name, n.name)
		f.Func().Id("Unmarshal"+n.name).Params(jen.Id("data").Index().Byte()).Params(jen.Id(n.name), jen.Error()).Block(
			jen.Id("d").Op(":=").Qual(wirePkg, "NewDecoder").Call(jen.Id("data")),
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("decode"+n.name).Call(jen.Id("d")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("v"), jen.Id("d").Dot("End").Call()),
		)
	}
	f.Comment("EncodeJSON writes the member's JSON as it arrived.")
	f.Func().Params(jen.Id("v").Op("*").Id(unknown)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Qual(wirePkg, "Encoder")).Block(
		jen.Id("e").Dot("RawValue").Call(jen.Id("v").Dot("Raw")),
	)
}

func ruleDoc(u *schema.Union) string {
	switch u.Rule {
	case schema.ByConst:
		return "by the value of " + strings.Join(u.Root.Property, ".")
	case schema.ByJSONType:
		return "by JSON type"
	case schema.ByPresence:
		return "by which members are present"
	case schema.ByResultType:
		return `by the value of resultType ("input_required" or not)`
	case schema.Single:
		return "(its only member)"
	}
	return "by the originating request"
}

// decision emits the statements that pick and decode a union member. peek
// is the decoder the tests look through ("d", or a fork at an array's
// first element); members are always decoded from d.
func (g *generator) decision(n *named, d *schema.Decision, peek string, depth int) []jen.Code {
	if d == nil {
		return []jen.Code{
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("d").Dot("Raw").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Op("&").Id("Unknown"+n.name).Values(jen.Dict{jen.Id("Raw"): jen.Id("r")}), jen.Nil()),
		}
	}
	k, s := fmt.Sprintf("k%d", depth), fmt.Sprintf("s%d", depth)
	pathArgs := func() []jen.Code {
		var out []jen.Code
		for _, p := range d.Property {
			out = append(out, jen.Lit(p))
		}
		return out
	}
	switch d.Test {
	case schema.Leaf:
		mt := n.members[d.Member]
		target := mt.underlying().named
		if target.shape == shapeStruct {
			return []jen.Code{
				jen.Id("m").Op(":=").New(jen.Id(target.name)),
				jen.If(jen.Err().Op(":=").Id("m").Dot("DecodeJSON").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("m"), jen.Nil()),
			}
		}
		return []jen.Code{
			jen.Var().Id("m").Id(target.name),
			jen.If(jen.Err().Op(":=").Id("m").Dot("DecodeJSON").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("m"), jen.Nil()),
		}
	case schema.TestKind:
		var cases []jen.Code
		for _, c := range d.Cases {
			var kinds []jen.Code
			seen := map[string]bool{}
			for _, kind := range c.Kinds {
				wk := wireKind(kind)
				if !seen[wk] {
					seen[wk] = true
					kinds = append(kinds, jen.Qual(wirePkg, wk))
				}
			}
			cases = append(cases, jen.Case(kinds...).Block(g.decision(n, c.Then, peek, depth+1)...))
		}
		cases = append(cases, jen.Default().Block(g.decision(n, d.Else, peek, depth+1)...))
		return []jen.Code{jen.Switch(jen.Id(peek).Dot("Peek").Call()).Block(cases...)}
	case schema.TestValue:
		// Absent, then a known string value, then anything else.
		out := []jen.Code{
			jen.List(jen.Id(k), jen.Id(s), jen.Err()).Op(":=").Id(peek).Dot("PeekMember").Call(pathArgs()...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		}
		if d.Absent != nil {
			out = append(out, jen.If(jen.Id(k).Op("==").Qual(wirePkg, "Invalid")).Block(g.decision(n, d.Absent, peek, depth+1)...))
		}
		var cases []jen.Code
		for _, c := range d.Cases {
			var vals []jen.Code
			for _, v := range c.Values {
				vals = append(vals, jen.Lit(v))
			}
			cases = append(cases, jen.Case(vals...).Block(g.decision(n, c.Then, peek, depth+1)...))
		}
		out = append(out, jen.If(jen.Id(k).Op("==").Qual(wirePkg, "String")).Block(jen.Switch(jen.String().Call(jen.Id(s))).Block(cases...)))
		return append(out, g.decision(n, d.Else, peek, depth+1)...)
	case schema.TestPresent:
		return append([]jen.Code{
			jen.List(jen.Id(k), jen.Id("_"), jen.Err()).Op(":=").Id(peek).Dot("PeekMember").Call(pathArgs()...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Id(k).Op("!=").Qual(wirePkg, "Invalid")).Block(g.decision(n, d.Cases[0].Then, peek, depth+1)...),
		}, g.decision(n, d.Else, peek, depth+1)...)
	case schema.TestFirstItem:
		fork, ok := fmt.Sprintf("f%d", depth), fmt.Sprintf("ok%d", depth)
		return append([]jen.Code{
			jen.Id(fork).Op(":=").Id(peek).Dot("Fork").Call(),
			jen.List(jen.Id(ok), jen.Err()).Op(":=").Id(fork).Dot("EnterFirstItem").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Id(ok)).Block(g.decision(n, d.Cases[0].Then, fork, depth+1)...),
		}, g.decision(n, d.Else, peek, depth+1)...)
	}
	panic("gen: unknown decision test")
}

func wireKind(k schema.Kind) string {
	switch k {
	case schema.Object:
		return "Object"
	case schema.Array:
		return "Array"
	case schema.String:
		return "String"
	case schema.Integer, schema.Number:
		return "Number"
	case schema.Boolean:
		return "Bool"
	case schema.Null:
		return "Null"
	}
	return "Invalid"
}
