package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// The client side of a bridge: the same Mount, on a client (mcp.Connect),
// lets client code written for the handlers' revision speak to a server
// of the client revision. The server's requests and notifications
// (sampling, elicitation, roots, list changes) reach a client handler of
// the handlers' revision through clientAdapter; the handlers' revision's
// typed calls (its Client) reach the server through calls, each converted
// down, made with the client revision's own Client, and its result
// converted up; values convert what the server told of itself.

// clientSide emits the client half of bridge.gen.go and returns the
// members it adds to the runtime's description of the bridge.
func (b *bridgeGen) clientSide() ([]jen.Code, jen.Dict) {
	c, h := b.client, b.handler
	out := []jen.Code{
		jen.Comment(fmt.Sprintf("clientAdapter answers the requests and notifications a server of revision %s sends with a client handler written for revision %s.", c.rev, h.rev)).Line().
			Type().Id("clientAdapter").Struct(jen.Id("h").Any()),
	}
	code, methods := b.adaptAll("clientAdapter", func(m *schema.Method) bool { return m.SentBy(schema.Server) && !m.SentBy(schema.Client) },
		"%s has no such method for client handlers; a client of %s does not answer it", h.rev, h.rev)
	out = append(out, code...)
	calls := jen.Dict{}
	for _, hm := range h.g.spec.Methods {
		if !hm.SentBy(schema.Client) || hm.Kind != schema.Request || !typedCall(hm, schema.Client) {
			continue
		}
		code, ok := b.call(hm)
		if !ok {
			continue
		}
		out = append(out, code)
		calls[jen.Lit(hm.Name)] = jen.Id(callName(hm))
	}
	values := jen.Dict{}
	for _, def := range []string{"ServerCapabilities", "Implementation"} {
		cn, hn := c.g.named[def], h.g.named[def]
		if cn == nil || hn == nil || cn.shape != shapeStruct || hn.shape != shapeStruct {
			continue
		}
		f, ok := b.pair(b.direction(true), cn, hn)
		if !ok {
			b.loss(b.direction(true), def, LossCall, "the server's %s does not convert: the Client's accessor fails", def)
			continue
		}
		name := "value" + def
		out = append(out, jen.Comment(fmt.Sprintf("%s decodes a %s of %s and converts it to %s.", name, def, c.rev, h.rev)).Line().
			Func().Id(name).Params(jen.Id("raw").Qual(wirePkg, "Raw")).Params(jen.Any(), jen.Error()).Block(
			jen.Id("v").Op(":=").New(jen.Qual(c.path, def)),
			jen.If(jen.Err().Op(":=").Qual(wirePkg, "UnmarshalWith").Call(jen.Id("raw"), jen.Id("v").Dot("DecodeJSON")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("out").Op(":=").New(jen.Qual(h.path, def)),
			jen.Id(f.name).Call(jen.Nil(), jen.Id("v"), jen.Id("out")),
			jen.Return(jen.Id("out"), jen.Nil()),
		))
		values[jen.Lit(def)] = jen.Id(name)
	}
	fields := jen.Dict{
		jen.Id("ServerMethods"): jen.Index().String().Values(methods...),
		jen.Id("AdaptClient"): jen.Func().Params(jen.Id("h").Any()).Any().Block(
			jen.Return(jen.Op("&").Id("clientAdapter").Values(jen.Dict{jen.Id("h"): jen.Id("h")}))),
	}
	if len(calls) > 0 {
		fields[jen.Id("Calls")] = jen.Map(jen.String()).Qual(protoPkg, "CallFunc").Values(calls)
	}
	if len(values) > 0 {
		fields[jen.Id("Values")] = jen.Map(jen.String()).Func().Params(jen.Qual(wirePkg, "Raw")).Params(jen.Any(), jen.Error()).Values(values)
	}
	return out, fields
}

func callName(m *schema.Method) string { return "call" + goMethod(m) }

// call emits the function carrying hm, a typed call of the handlers'
// revision's Client, to a server of the client revision: params converted
// down (a member the client revision has no place for, when set, fails
// the call before it is sent), the call made with the client revision's
// Client, its result converted up.
func (b *bridgeGen) call(hm *schema.Method) (jen.Code, bool) {
	c, h := b.client, b.handler
	up, down := b.direction(true), b.direction(false)
	m := c.g.spec.Method(hm.Name)
	if m == nil || !m.SentBy(schema.Client) || m.Kind != schema.Request || !typedCall(m, schema.Client) {
		b.loss(down, hm.Name, LossCall, "%s has no such call: a client of %s making it to a server of %s fails before sending it (protocol.NotCarriedError)", c.rev, h.rev, c.rev)
		return nil, false
	}
	fail := func(format string, args ...any) (jen.Code, bool) {
		b.loss(down, hm.Name, LossCall, format+": a client of %s making it to a server of %s fails before sending it", append(args, h.rev, c.rev)...)
		return nil, false
	}
	_, cpt := paramsArg(c, m)
	_, hpt := paramsArg(h, hm)
	var body []jen.Code
	var arg jen.Code
	switch {
	case cpt == nil:
		// The client revision's call takes no params: nothing to carry.
	case hpt == nil:
		arg = jen.Nil()
	case cpt.underlying().shape == shapeStruct && hpt.underlying().shape == shapeStruct:
		hn, cn := hpt.underlying().named, cpt.underlying().named
		f, ok := b.pair(down, hn, cn)
		if !ok {
			return fail("its params (%s) do not convert", hn.name)
		}
		var checks []jen.Code
		for _, df := range b.dropped[fkey{hn, cn, false}] {
			set := isSet(df, jen.Id("in").Dot(df.name))
			if set == nil {
				continue
			}
			checks = append(checks, jen.If(set).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "NotCarried").Call(jen.Lit(hm.Name), jen.Lit(df.prop.Name), jen.Lit(c.rev)))))
		}
		inner := append(checks,
			jen.Id("p").Op("=").New(c.qual(cpt)),
			jen.Id(f.name).Call(jen.Nil(), jen.Id("in"), jen.Id("p")))
		body = append(body,
			jen.Var().Id("p").Op("*").Add(c.qual(cpt)),
			jen.If(jen.List(jen.Id("in"), jen.Id("_")).Op(":=").Id("params").Assert(jen.Op("*").Add(h.qual(hpt))), jen.Id("in").Op("!=").Nil()).Block(inner...))
		arg = jen.Id("p")
	case cpt.underlying().shape == shapeUnion && hpt.underlying().shape == shapeUnion:
		f, ok := b.pair(down, hpt.underlying().named, cpt.underlying().named)
		if !ok {
			return fail("its params (%s) do not convert", hpt.underlying().named.name)
		}
		body = append(body,
			jen.List(jen.Id("in"), jen.Id("_")).Op(":=").Id("params").Assert(h.qual(hpt)),
			jen.Id("p").Op(":=").Id(f.name).Call(jen.Nil(), jen.Id("in")))
		arg = jen.Id("p")
	default:
		return fail("its params do not convert")
	}
	cres := c.g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result})
	hres := h.g.goType(&schema.Type{Kind: schema.Ref, Ref: hm.Result})
	cu, hu := cres.underlying(), hres.underlying()
	if isUnion(cres) || isUnion(hres) || cu.shape != shapeStruct || hu.shape != shapeStruct {
		return fail("its result is not an object of both revisions")
	}
	f, ok := b.pair(up, cu.named, hu.named)
	if !ok {
		return fail("its result (%s) does not convert", cu.named.name)
	}
	args := []jen.Code{jen.Id("ctx")}
	if arg != nil {
		args = append(args, arg)
	}
	// The results as the conversion function takes them: a defined
	// result type (EmptyResult) is converted as its underlying struct.
	asU := func(s *bside, gt, u *gotype, v jen.Code) jen.Code {
		if gt.named == u.named {
			return v
		}
		return jen.Parens(jen.Op("*").Add(s.qual(u))).Call(v)
	}
	body = append(body,
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Qual(c.path, "NewClient").Call(jen.Id("c")).Dot(goMethod(m)).Call(args...),
		jen.If(jen.Err().Op("!=").Nil().Op("||").Id("res").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("out").Op(":=").New(h.qual(hres)),
		jen.Id(f.name).Call(jen.Nil(), asU(c, cres, cu, jen.Id("res")), asU(h, hres, hu, jen.Id("out"))),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	params := jen.Id("params")
	if arg == nil || hpt == nil {
		params = jen.Id("_")
	}
	return jen.Comment(fmt.Sprintf("%s carries %s of %s's Client to a server of %s.", callName(hm), hm.Name, h.rev, c.rev)).Line().
		Func().Id(callName(hm)).Params(jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("c").Qual(protoPkg, "Caller"), params.Any()).Params(jen.Any(), jen.Error()).Block(body...), true
}

// isSet is the condition that a member of a Go value v is set, or nil
// where the generator cannot tell (a required scalar).
func isSet(f *field, v *jen.Statement) jen.Code {
	switch f.mode {
	case modePtr, modeNil:
		return v.Op("!=").Nil()
	case modeOpt:
		return v.Dot("Set")
	}
	return nil
}
