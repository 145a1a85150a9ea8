package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// types emits every named type except union interfaces.
func (g *generator) types(f *jen.File) error {
	for _, n := range g.order {
		if n.shape == shapeUnion {
			continue
		}
		comment(f, typeDoc(n))
		switch n.shape {
		case shapeStruct:
			fields, err := g.fields(n)
			if err != nil {
				return err
			}
			var body []jen.Code
			for _, fl := range fields {
				if fl.mode == modeConst {
					continue
				}
				doc := fieldDoc(fl.prop)
				if len(doc) > 0 && len(body) > 0 {
					body = append(body, jen.Line())
				}
				body = append(body, commentCode(doc)...)
				if fl.nullable {
					body = append(body, jen.Comment("Unset encodes as null."))
				}
				body = append(body, jen.Id(fl.name).Add(g.fieldType(fl)))
			}
			if c := constComment(fields); c != "" {
				if len(body) > 0 {
					body = append(body, jen.Line())
				}
				body = append(body, commentCode(wrap(c))...)
			}
			if n.t.Additional == schema.Open {
				if len(body) > 0 {
					body = append(body, jen.Line())
				}
				body = append(body,
					jen.Comment("Extra holds the members the schema does not name, in arrival order;"),
					jen.Comment("they are written back after the named ones."),
					jen.Id("Extra").Qual(wirePkg, "Members"))
			}
			if hasAbsent(fields) {
				body = append(body, jen.Line(), jen.Comment("absent marks the required members a decoded value lacked."), jen.Id("absent").Uint64())
			}
			f.Type().Id(n.name).Struct(body...)
		case shapeRawObject:
			f.Type().Id(n.name).Qual(wirePkg, "Raw")
		case shapeAnyJSON:
			f.Type().Id(n.name).Qual(wirePkg, "Raw")
		case shapeStringOrInt:
			f.Type().Id(n.name).Op("=").Qual(wirePkg, "StringOrInt")
		case shapeMap:
			f.Type().Id(n.name).Index().Qual(wirePkg, "Entry").Types(g.typeCode(n.elem))
			g.entryMethods(f, n)
		case shapeSlice:
			f.Type().Id(n.name).Index().Add(g.typeCode(n.elem))
		case shapeAlias:
			f.Type().Id(n.name).Op("=").Add(g.typeCode(n.alias))
		case shapeNull:
			f.Type().Id(n.name).Struct()
		case shapeEnum:
			f.Type().Id(n.name).String()
			g.enumConsts(f, n)
		case shapeString, shapeInt, shapeFloat, shapeBool:
			base := map[shape]jen.Code{shapeString: jen.String(), shapeInt: jen.Int64(), shapeFloat: jen.Float64(), shapeBool: jen.Bool()}[n.shape]
			if g.isAlias(n) {
				f.Type().Id(n.name).Op("=").Add(base)
			} else {
				f.Type().Id(n.name).Add(base)
			}
		default:
			return fmt.Errorf("no declaration for %s (shape %d)", n.name, n.shape)
		}
	}
	return nil
}

// constComment documents the const members a struct writes itself.
func constComment(fields []*field) string {
	var parts []string
	for _, fl := range fields {
		if fl.mode == modeConst {
			parts = append(parts, fmt.Sprintf("%q is always %s", fl.prop.Name, constText(fl.prop.Type.Const)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "The encoder writes the constant members itself (" + strings.Join(parts, "; ") + ")."
}

// enumConsts emits the known values of an enum and the methods that know
// them.
func (g *generator) enumConsts(f *jen.File, n *named) {
	var defs []jen.Code
	for _, v := range n.t.Enum {
		defs = append(defs, jen.Id(n.name+GoValueName(v)).Id(n.name).Op("=").Lit(v))
	}
	kind := "closed: other values are invalid"
	if n.t.EnumOpen {
		kind = "open: other values are valid too"
	}
	f.Commentf("The known values of %s (%s).", n.name, kind)
	f.Const().Defs(defs...)

	var cases []jen.Code
	for _, v := range n.t.Enum {
		cases = append(cases, jen.Id(n.name+GoValueName(v)))
	}
	f.Commentf("Known reports whether v is one of the values the schema lists.")
	f.Func().Params(jen.Id("v").Id(n.name)).Id("Known").Params().Bool().Block(
		jen.Switch(jen.Id("v")).Block(
			jen.Case(cases...).Block(jen.Return(jen.True())),
		),
		jen.Return(jen.False()),
	)
	if n.def != nil && n.def.Name == "LoggingLevel" && len(g.spec.LoggingLevels) > 0 {
		var sev []jen.Code
		for i, v := range g.spec.LoggingLevels {
			sev = append(sev, jen.Case(jen.Id(n.name+GoValueName(v))).Block(jen.Return(jen.Lit(i))))
		}
		f.Comment("Severity orders the levels from least (0) to most severe, as schema.ts")
		f.Comment("lists them; unknown levels are -1.")
		f.Func().Params(jen.Id("v").Id(n.name)).Id("Severity").Params().Int().Block(
			jen.Switch(jen.Id("v")).Block(sev...),
			jen.Return(jen.Lit(-1)),
		)
	}
}

// GoValueName turns an enum value into an identifier suffix:
// "input_required" -> InputRequired, "ref/prompt" -> RefPrompt.
func GoValueName(v string) string {
	return schema.GoName(strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(v))
}

// unions emits the sealed interfaces of unions, the marker methods of
// their members and their Unknown members.
func (g *generator) unions(f *jen.File) error {
	for _, n := range g.order {
		if n.shape != shapeUnion {
			continue
		}
		var names []string
		for _, m := range n.members {
			names = append(names, m.underlying().named.name)
		}
		comment(f, typeDoc(n))
		f.Comment("")
		comment(f, wrap(fmt.Sprintf("It is one of %s, told apart %s; a value that matches none decodes into Unknown%s, which keeps its JSON.",
			strings.Join(names, ", "), ruleDoc(n.union), n.name)))
		f.Type().Id(n.name).Interface(
			jen.Comment("EncodeJSON writes the member as JSON."),
			jen.Id("EncodeJSON").Params(jen.Op("*").Qual(wirePkg, "Encoder")),
			jen.Comment("Validate checks the member against the schema."),
			jen.Id("Validate").Params().Error(),
			jen.Id("is"+n.name).Params(),
		)
		unknown := "Unknown" + n.name
		comment(f, wrap(fmt.Sprintf("%s is a %s that matches no member the schema names (a newer peer's extension, say). Raw is its JSON, re-encoded as it arrived.", unknown, n.name)))
		f.Type().Id(unknown).Struct(jen.Id("Raw").Qual(wirePkg, "Raw"))
		f.Func().Params(jen.Op("*").Id(unknown)).Id("is" + n.name).Params().Block()
		for _, m := range n.members {
			target := m.underlying().named
			r := jen.Id(target.name)
			if target.shape == shapeStruct {
				r = jen.Op("*").Id(target.name)
			}
			f.Func().Params(r).Id("is" + n.name).Params().Block()
		}
	}
	return nil
}

// entryMethods emits the lookups of an object kept as entries (shapeMap):
// its members in order, looked up by name the way a map would be.
func (g *generator) entryMethods(f *jen.File, n *named) {
	elem := g.typeCode(n.elem)
	f.Comment("Get returns the value of the member called name, and whether there is one.")
	f.Func().Params(jen.Id("v").Id(n.name)).Id("Get").Params(jen.Id("name").String()).Params(elem, jen.Bool()).Block(
		jen.Return(jen.Qual(wirePkg, "EntryGet").Call(jen.Id("v"), jen.Id("name"))))
	f.Comment("Set replaces the value of the member called name, or appends the member.")
	f.Func().Params(jen.Id("v").Op("*").Id(n.name)).Id("Set").Params(jen.Id("name").String(), jen.Id("x").Add(g.typeCode(n.elem))).Block(
		jen.Qual(wirePkg, "EntrySet").Call(jen.Id("v"), jen.Id("name"), jen.Id("x")))
	f.Comment("Delete removes the member called name.")
	f.Func().Params(jen.Id("v").Op("*").Id(n.name)).Id("Delete").Params(jen.Id("name").String()).Block(
		jen.Qual(wirePkg, "EntryDelete").Call(jen.Id("v"), jen.Id("name")))
}
