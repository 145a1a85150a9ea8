package gen

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"
)

// validate emits Validate() and the collector-based validate(c) of every
// named type, and the validator of every union.
func (g *generator) validate(f *jen.File) error {
	g.needs = map[*named]bool{}
	for _, n := range g.order {
		if g.isAlias(n) {
			continue
		}
		var body []jen.Code
		switch n.shape {
		case shapeStruct:
			fields, err := g.fields(n)
			if err != nil {
				return err
			}
			for _, fl := range fields {
				body = append(body, g.checkField(fl)...)
			}
			for _, name := range n.t.Forbidden {
				body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("v").Dot("Extra").Dot("Get").Call(jen.Lit(name)), jen.Id("ok")).Block(
					jen.Id("c").Dot("FailMember").Call(jen.Lit(name), jen.Lit("forbidden"), jen.Lit("member not allowed: "+n.t.ForbiddenWhy)),
				))
			}
		case shapeUnion:
			g.unionValidate(f, n)
			continue
		case shapeEnum:
			if !n.t.EnumOpen {
				body = []jen.Code{jen.If(jen.Op("!").Id("v").Dot("Known").Call()).Block(
					jen.Id("c").Dot("Fail").Call(jen.Lit("enum"), jen.Lit("unknown value ").Op("+").Qual("strconv", "Quote").Call(jen.String().Call(jen.Id("v")))),
				)}
			}
		case shapeMap:
			// Decoded entries have unique names; a program's may not.
			body = []jen.Code{jen.If(jen.List(jen.Id("name"), jen.Id("dup")).Op(":=").Qual(wirePkg, "Duplicate").Call(jen.Id("v")), jen.Id("dup")).Block(
				jen.Id("c").Dot("Fail").Call(jen.Lit("unique"), jen.Lit("duplicate member ").Op("+").Qual("strconv", "Quote").Call(jen.Id("name"))))}
			if g.needsCheck(n.elem) {
				body = append(body, jen.For(jen.Id("i").Op(":=").Range().Id("v")).Block(
					append([]jen.Code{jen.Id("c").Dot("Enter").Call(jen.Id("v").Index(jen.Id("i")).Dot("Name"))},
						append(g.check(jen.Id("v").Index(jen.Id("i")).Dot("Value"), n.elem, nil), jen.Id("c").Dot("Leave").Call())...)...,
				))
			}
		case shapeSlice:
			body = g.check(jen.Id("v"), &gotype{shape: shapeSlice, elem: n.elem, t: n.t}, nil)
		case shapeRawObject:
			// The schema's rule is the kind of value. Whether the bytes
			// are JSON at all is the wire's to check, where they cross it:
			// the decoder made these (so they are), or the encoder will
			// write them and refuses what is not JSON, naming the member
			// (before version 12 this rescanned every raw value).
			body = []jen.Code{jen.If(jen.Len(jen.Id("v")).Op(">").Lit(0).Op("&&").Qual(wirePkg, "Raw").Call(jen.Id("v")).Dot("Kind").Call().Op("!=").Qual(wirePkg, "Object")).Block(
				jen.Id("c").Dot("Fail").Call(jen.Lit("type"), jen.Lit("not a JSON object")))}
		case shapeAnyJSON:
			// Any JSON value: nothing for the schema to check (see above).
		default:
			body = g.check(jen.Id("v"), &gotype{shape: n.shape, t: n.t}, nil)
		}
		f.Comment("Validate checks v against the schema and reports every violation as a")
		f.Comment("*valid.Error.")
		f.Func().Params(recv(n)).Id("Validate").Params().Error().Block(
			jen.Var().Id("c").Qual(validPkg, "Collector"),
			jen.Id("v").Dot("validate").Call(jen.Op("&").Id("c")),
			jen.Return(jen.Id("c").Dot("Err").Call()),
		)
		f.Line()
		if len(body) == 0 {
			f.Func().Params(recv(n)).Id("validate").Params(jen.Op("*").Qual(validPkg, "Collector")).Block()
		} else {
			f.Func().Params(recv(n)).Id("validate").Params(jen.Id("c").Op("*").Qual(validPkg, "Collector")).Block(body...)
		}
	}
	return nil
}

// checkField emits the checks of one struct member.
func (g *generator) checkField(fl *field) []jen.Code {
	x := jen.Id("v").Dot(fl.name)
	name := fl.prop.Name
	missing := jen.Id("c").Dot("FailMember").Call(jen.Lit(name), jen.Lit("required"), jen.Lit("required member is missing"))
	// orMissing puts the checks behind the required-member check.
	orMissing := func(absent jen.Code, checks []jen.Code) []jen.Code {
		if absent == nil {
			return checks
		}
		if len(checks) == 0 {
			return []jen.Code{jen.If(absent).Block(missing)}
		}
		return []jen.Code{jen.If(absent).Block(missing).Else().Block(checks...)}
	}
	switch fl.mode {
	case modeConst:
		return []jen.Code{jen.If(absentExpr(fl.bit)).Block(missing)}
	case modeValue:
		absent := absentExpr(fl.bit)
		if nz := g.nonZero(x, fl.gt); nz != nil {
			absent = absent.Op("&&").Op("!").Parens(nz)
		}
		return orMissing(absent, g.checkAt(x, fl.gt, name))
	case modeOpt:
		checks := g.checkAt(x.Clone().Dot("Value"), fl.gt, name)
		var out []jen.Code
		if len(checks) > 0 {
			out = append(out, jen.If(x.Clone().Dot("Set")).Block(checks...))
		}
		if fl.nullable {
			out = append(out, jen.If(jen.Op("!").Add(x.Clone()).Dot("Set").Op("&&").Add(absentExpr(fl.bit))).Block(missing))
		}
		return out
	case modePtr:
		checks := g.checkAt(x, fl.gt, name)
		if fl.bit >= 0 {
			return orMissing(x.Clone().Op("==").Nil(), checks)
		}
		if len(checks) == 0 {
			return nil
		}
		return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(checks...)}
	case modeNil:
		checks := g.checkAt(x, fl.gt, name)
		union := fl.gt.underlying().shape == shapeUnion
		switch {
		case fl.bit >= 0 && union:
			return orMissing(x.Clone().Op("==").Nil(), checks)
		case fl.bit >= 0:
			return orMissing(x.Clone().Op("==").Nil().Op("&&").Add(absentExpr(fl.bit)), checks)
		case union && len(checks) > 0:
			return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(checks...)}
		}
		return checks
	}
	return nil
}

// checkAt emits the checks of value x at member name of the current value.
func (g *generator) checkAt(x *jen.Statement, gt *gotype, name string) []jen.Code {
	inner := g.check(x, gt, &name)
	return inner
}

// check emits the checks of value x. member names the member x is at, or
// is nil when x is the current value itself.
func (g *generator) check(x *jen.Statement, gt *gotype, member *string) []jen.Code {
	fail := func(rule string, msg jen.Code) jen.Code {
		if member == nil {
			return jen.Id("c").Dot("Fail").Call(jen.Lit(rule), msg)
		}
		return jen.Id("c").Dot("FailMember").Call(jen.Lit(*member), jen.Lit(rule), msg)
	}
	enter := func(body []jen.Code) []jen.Code {
		if len(body) == 0 {
			return nil
		}
		if member == nil {
			return body
		}
		out := []jen.Code{jen.Id("c").Dot("Enter").Call(jen.Lit(*member))}
		out = append(out, body...)
		return append(out, jen.Id("c").Dot("Leave").Call())
	}
	gt = g.plain(gt)
	if gt.named != nil {
		u := gt.underlying()
		if !g.needsCheck(gt) {
			return nil
		}
		if u.shape == shapeUnion {
			return enter([]jen.Code{jen.Id("validate"+u.named.name).Call(jen.Id("c"), x)})
		}
		return ifAny(x, u.shape, member, enter([]jen.Code{x.Clone().Dot("validate").Call(jen.Id("c"))}))
	}
	t := gt.t
	var out []jen.Code
	switch gt.shape {
	case shapeString:
		if t.Const != nil {
			out = append(out, jen.If(x.Clone().Op("!=").Lit(t.Const.Str)).Block(fail("const", jen.Lit("must be "+strconv.Quote(t.Const.Str)))))
		}
		if fn, ok := map[string]string{"uri": "URI", "uri-template": "URITemplate", "byte": "Base64"}[t.Format]; ok {
			out = append(out, jen.If(jen.Op("!").Qual(validPkg, fn).Call(x)).Block(fail("format", jen.Lit("not a valid "+t.Format))))
		}
	case shapeInt, shapeFloat:
		if t.Const != nil {
			out = append(out, jen.If(x.Clone().Op("!=").Lit(t.Const.Int)).Block(fail("const", jen.Lit(fmt.Sprintf("must be %d", t.Const.Int)))))
		}
		if t.Minimum != nil {
			out = append(out, jen.If(x.Clone().Op("<").Add(numLit(gt.shape, *t.Minimum))).Block(fail("minimum", jen.Lit("must be at least "+strconv.FormatFloat(*t.Minimum, 'g', -1, 64)))))
		}
		if t.Maximum != nil {
			out = append(out, jen.If(x.Clone().Op(">").Add(numLit(gt.shape, *t.Maximum))).Block(fail("maximum", jen.Lit("must be at most "+strconv.FormatFloat(*t.Maximum, 'g', -1, 64)))))
		}
	case shapeSlice:
		if t.MaxItems != nil {
			out = append(out, jen.If(jen.Len(x).Op(">").Lit(*t.MaxItems)).Block(fail("maxItems", jen.Lit(fmt.Sprintf("must have at most %d items", *t.MaxItems)))))
		}
		if g.needsCheck(gt.elem) {
			i := "i"
			elem := g.check(x.Clone().Index(jen.Id(i)), gt.elem, nil)
			loop := jen.For(jen.Id(i).Op(":=").Range().Add(x.Clone())).Block(
				append(append([]jen.Code{jen.Id("c").Dot("EnterIndex").Call(jen.Id(i))}, elem...), jen.Id("c").Dot("Leave").Call())...,
			)
			out = append(out, ifAny(x, shapeSlice, member, enter([]jen.Code{loop}))...)
		}
	}
	return out
}

// ifAny puts the checks of member x behind len(x) > 0 when x is an array,
// a raw object or an object of typed members, whose empty value has nothing
// to fail (maxItems is the only count rule the model keeps, and it is checked
// outside; a minItems or minProperties added to schema.Type must be checked
// here too): an absent _meta or an empty icons list then costs no Enter and
// Leave.
func ifAny(x *jen.Statement, sh shape, member *string, checks []jen.Code) []jen.Code {
	if member == nil || len(checks) == 0 {
		return checks
	}
	switch sh {
	case shapeSlice, shapeRawObject, shapeMap:
		return []jen.Code{jen.If(jen.Len(x.Clone()).Op(">").Lit(0)).Block(checks...)}
	}
	return checks
}

func numLit(sh shape, v float64) jen.Code {
	if sh == shapeInt {
		return jen.Lit(int64(v))
	}
	return jen.Lit(v)
}

// needsCheck reports whether values of gt have anything to validate.
func (g *generator) needsCheck(gt *gotype) bool {
	gt = g.plain(gt)
	if gt.named != nil {
		return g.namedNeeds(gt.underlying().named)
	}
	t := gt.t
	switch gt.shape {
	case shapeString:
		return t.Const != nil || t.Format != ""
	case shapeInt, shapeFloat:
		return t.Const != nil || t.Minimum != nil || t.Maximum != nil
	case shapeSlice:
		return t.MaxItems != nil || g.needsCheck(gt.elem)
	}
	return false
}

func (g *generator) namedNeeds(n *named) bool {
	if n == nil {
		return false
	}
	if v, ok := g.needs[n]; ok {
		return v
	}
	g.needs[n] = true // assume yes while recursing (cycles)
	var v bool
	switch n.shape {
	case shapeUnion:
		v = true // Unknown members are invalid
	case shapeEnum:
		v = !n.t.EnumOpen
	case shapeStruct:
		fields, _ := g.fields(n)
		v = len(n.t.Forbidden) > 0
		for _, fl := range fields {
			switch {
			case fl.bit >= 0:
				v = true // required members may be missing
			case fl.mode == modeOpt || fl.mode == modeValue || fl.mode == modeNil || fl.mode == modePtr:
				if fl.gt.named == nil {
					v = v || g.needsCheck(fl.gt)
				} else {
					v = v || g.namedNeeds(fl.gt.underlying().named)
				}
			}
		}
	case shapeMap:
		v = true // a program may repeat a name
	case shapeSlice:
		v = g.needsCheck(n.elem) || n.t.MaxItems != nil
	case shapeString, shapeInt, shapeFloat:
		v = g.needsCheck(&gotype{shape: n.shape, t: n.t})
	case shapeRawObject:
		v = true // a program may set another kind of value
	}
	g.needs[n] = v
	return v
}

// unionValidate emits validateX and the Validate of Unknown members.
func (g *generator) unionValidate(f *jen.File, n *named) {
	var cases []jen.Code
	cases = append(cases, jen.Case(jen.Nil()).Block(jen.Id("c").Dot("Fail").Call(jen.Lit("required"), jen.Lit("required member is missing"))))
	for _, m := range n.members {
		target := m.underlying().named
		typ := jen.Id(target.name)
		if target.shape == shapeStruct {
			typ = jen.Op("*").Id(target.name)
		}
		cases = append(cases, jen.Case(typ).Block(jen.Id("m").Dot("validate").Call(jen.Id("c"))))
	}
	msg := fmt.Sprintf("matches no member of %s (told apart %s)", n.name, ruleDoc(n.union))
	cases = append(cases, jen.Case(jen.Op("*").Id("Unknown"+n.name)).Block(jen.Id("c").Dot("Fail").Call(jen.Lit("union"), jen.Lit(msg))))
	f.Commentf("validate%s checks whichever member x holds.", n.name)
	f.Func().Id("validate"+n.name).Params(jen.Id("c").Op("*").Qual(validPkg, "Collector"), jen.Id("x").Id(n.name)).Block(
		jen.Switch(jen.Id("m").Op(":=").Id("x").Assert(jen.Type())).Block(cases...),
	)
	unknown := "Unknown" + n.name
	f.Commentf("Validate reports that the value matches no member of %s.", n.name)
	f.Func().Params(jen.Id("v").Op("*").Id(unknown)).Id("Validate").Params().Error().Block(
		jen.Var().Id("c").Qual(validPkg, "Collector"),
		jen.Id("validate"+n.name).Call(jen.Op("&").Id("c"), jen.Id("v")),
		jen.Return(jen.Id("c").Dot("Err").Call()),
	)
}
