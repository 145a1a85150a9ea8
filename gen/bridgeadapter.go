package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// adapter emits bridge.gen.go: the adapter implementing the client
// revision's handler methods by conversion to the handlers' revision, the
// runtime's description of the bridge, and Mount.
func (b *bridgeGen) adapter() []jen.Code {
	c, h := b.client, b.handler
	if c.g.spec.Era() == schema.Stateless && h.g.spec.Era() != schema.Stateless {
		b.loss(b.direction(false), "requests to the client", LossMember, "%s has none: a handler's calls to its client (sampling, elicitation, roots) fail with mcp.ErrNoPeer", c.rev)
	}
	code, methods := b.adaptAll("adapter", func(m *schema.Method) bool { return m.SentBy(schema.Client) },
		"%s has no such method for handlers", h.rev)
	out := []jen.Code{
		jen.Comment(fmt.Sprintf("adapter serves the requests of revision %s with a handler written for revision %s.", c.rev, h.rev)).Line().
			Type().Id("adapter").Struct(append([]jen.Code{jen.Id("h").Any()}, b.caches...)...),
	}
	out = append(out, code...)
	clientCode, desc := b.clientSide()
	out = append(out, clientCode...)
	desc[jen.Id("Client")] = jen.Qual(c.path, "Protocol").Call()
	desc[jen.Id("Handlers")] = jen.Qual(h.path, "Protocol").Call()
	desc[jen.Id("Methods")] = jen.Index().String().Values(methods...)
	desc[jen.Id("Adapt")] = jen.Func().Params(jen.Id("h").Any()).Any().Block(
		jen.Return(jen.Op("&").Id("adapter").Values(jen.Dict{jen.Id("h"): jen.Id("h")})))
	out = append(out,
		jen.Comment("bridge describes the bridge to the runtime.").Line().
			Var().Id("bridge").Op("=").Qual(protoPkg, "Bridge").Values(desc),
		jen.Comment(fmt.Sprintf("Mount mounts handler for revision %s, written for revision %s. On a server (mcp.NewServer), handler implements methods of the Server of revision %s and serves the clients of revision %s; an override implements methods of the Server of revision %s: each method one of them implements is served by it instead of the conversion. Capabilities follow revision %s: a method it does not have is not served.", c.rev, h.rev, h.rev, c.rev, c.rev, c.rev)).Line().
			Comment("").Line().
			Comment(fmt.Sprintf("On a client (mcp.Connect), handler implements methods of the ClientHandler of revision %s and answers servers of revision %s (an override, methods of the ClientHandler of revision %s), and the calls of the Client of revision %s reach such a server converted: a call it cannot carry fails before it is sent (protocol.NotCarriedError); the package documentation lists them.", h.rev, c.rev, c.rev, h.rev)).Line().
			Func().Id("Mount").Params(jen.Id("handler").Any(), jen.Id("overrides").Op("...").Any()).Qual(mcpPkg, "Mount").Block(
			jen.List(jen.Id("p"), jen.Id("h")).Op(":=").Qual(protoPkg, "NewBridge").Call(jen.Id("bridge"), jen.Id("handler"), jen.Id("overrides").Op("...")),
			jen.Return(jen.Qual(mcpPkg, "Mount").Values(jen.Dict{jen.Id("Protocol"): jen.Id("p"), jen.Id("Handler"): jen.Id("h")}))),
	)
	return out
}

// adaptAll emits the methods of the adapter type recv: one for each method
// of the client revision that handlers answer and sent picks, when the
// handlers' revision has it (else a loss, why). It returns them and the
// names of the methods.
func (b *bridgeGen) adaptAll(recv string, sent func(*schema.Method) bool, why string, args ...any) (code, methods []jen.Code) {
	for _, m := range b.client.g.spec.Methods {
		if !handled(m) || !sent(m) {
			continue
		}
		hm := b.handler.g.spec.Method(m.Name)
		if hm == nil || !handled(hm) || !sent(hm) || hm.Kind != m.Kind {
			b.loss(b.direction(true), m.Name, LossMethod, why, args...)
			continue
		}
		c, ok := b.adapt(recv, m, hm)
		if !ok {
			continue
		}
		code = append(code, c)
		methods = append(methods, jen.Lit(m.Name))
	}
	return code, methods
}

// replyMembers are the results a method's reply may be, and whether the
// reply is a union.
func replyMembers(s *bside, m *schema.Method) ([]*named, *named) {
	var n *named
	if m.Reply != nil {
		n = s.g.named[m.Reply.Name]
	} else if m.Result != "" {
		n = s.g.named[m.Result]
	}
	if n == nil {
		return nil, nil
	}
	for n.shape == shapeAlias && n.alias.named != nil {
		n = n.alias.named
	}
	if n.shape != shapeUnion {
		return []*named{n}, nil
	}
	var out []*named
	for _, mt := range n.members {
		out = append(out, mt.underlying().named)
	}
	return out, n
}

// replyType is the Go type of a handler's reply.
func replyType(s *bside, m *schema.Method) jen.Code {
	if m.Reply != nil {
		return jen.Qual(s.path, m.Reply.Name)
	}
	gt := s.g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result})
	if isUnion(gt) {
		return s.qual(gt)
	}
	return jen.Op("*").Add(s.qual(gt))
}

// paramsType is the Go type of a handler's params argument, or nil.
func paramsArg(s *bside, m *schema.Method) (jen.Code, *gotype) {
	pt := s.g.paramsType(m)
	if pt == nil {
		return nil, nil
	}
	if pt.underlying().shape == shapeUnion {
		return s.qual(pt), pt
	}
	return jen.Op("*").Add(s.qual(pt)), pt
}

// adapt emits the method of the adapter type recv for m (of the client
// revision), calling hm (of the handlers'). The server's adapter
// ("adapter") converts with the request being served; the client's
// ("clientAdapter") without (a client serves no mcp.Request).
func (b *bridgeGen) adapt(recv string, m, hm *schema.Method) (jen.Code, bool) {
	server := recv == "adapter"
	var rq jen.Code = jen.Id("r")
	if !server {
		rq = jen.Nil()
	}
	c, h := b.client, b.handler
	up, down := b.direction(true), b.direction(false)
	name := goMethod(m)
	cParams, cpt := paramsArg(c, m)
	hParams, hpt := paramsArg(h, hm)
	// The handler's interface for this method.
	hsig := []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}
	if hParams != nil {
		hsig = append(hsig, jen.Id("params").Add(hParams))
	}
	var hres []jen.Code
	if hm.Kind == schema.Notification {
		hres = []jen.Code{jen.Error()}
	} else {
		hres = []jen.Code{replyType(h, hm), jen.Error()}
	}
	csig := []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}
	if cParams != nil {
		csig = append(csig, jen.Id("params").Add(cParams))
	}
	notFound := jen.Qual(jsonrpcPk, "MethodNotFound").Call(jen.Lit(m.Name))
	var cres []jen.Code
	var fail jen.Code
	if m.Kind == schema.Notification {
		cres = []jen.Code{jen.Error()}
		fail = jen.Return(notFound)
	} else {
		cres = []jen.Code{replyType(c, m), jen.Error()}
		fail = jen.Return(jen.Nil(), notFound)
	}
	body := []jen.Code{
		jen.List(jen.Id("h"), jen.Id("ok")).Op(":=").Id("a").Dot("h").Assert(jen.Interface(jen.Id(goMethod(hm)).Params(hsig...).Params(hres...))),
		jen.If(jen.Op("!").Id("ok")).Block(fail),
	}
	if server && (hpt != nil || m.Kind == schema.Request) {
		// The request being served: what conversions fill from it.
		body = append(body, jen.Id("r").Op(":=").Qual(mcpPkg, "RequestFrom").Call(jen.Id("ctx")))
	}
	// Params, client's → handlers'.
	args := []jen.Code{jen.Id("ctx")}
	switch {
	case hpt == nil:
	case cpt != nil && cpt.underlying().shape == shapeStruct && hpt.underlying().shape == shapeStruct:
		f, ok := b.pair(up, cpt.underlying().named, hpt.underlying().named)
		if !ok {
			b.loss(up, m.Name, LossMethod, "its params (%s) do not convert", cpt.underlying().named.name)
			return nil, false
		}
		body = append(body,
			jen.Id("in").Op(":=").New(h.qual(hpt)),
			jen.If(jen.Id("params").Op("!=").Nil()).Block(jen.Id(f.name).Call(rq, jen.Id("params"), jen.Id("in"))))
		args = append(args, jen.Id("in"))
	case cpt != nil && hpt.underlying().shape == shapeUnion && (cpt.underlying().shape == shapeStruct || cpt.underlying().shape == shapeUnion):
		// To a union: the conversion returns it (a struct becomes the
		// member that took its place).
		f, ok := b.pair(up, cpt.underlying().named, hpt.underlying().named)
		if !ok {
			b.loss(up, m.Name, LossMethod, "its params (%s) do not convert", cpt.underlying().named.name)
			return nil, false
		}
		args = append(args, jen.Id(f.name).Call(rq, jen.Id("params")))
	case cpt == nil && hpt.underlying().shape == shapeStruct:
		body = append(body, jen.Id("in").Op(":=").New(h.qual(hpt)))
		args = append(args, jen.Id("in"))
	default:
		b.loss(up, m.Name, LossMethod, "its params do not convert")
		return nil, false
	}
	if m.Kind == schema.Notification {
		body = append(body, jen.Return(jen.Id("h").Dot(goMethod(hm)).Call(args...)))
		return b.method(recv, name, csig, cres, body), true
	}
	// The reply, handlers' → client's.
	hMembers, hUnion := replyMembers(h, hm)
	cMembers, cUnion := replyMembers(c, m)
	if len(hMembers) == 0 || len(cMembers) == 0 {
		b.loss(up, m.Name, LossMethod, "no result type")
		return nil, false
	}
	call := jen.List(jen.Id("reply"), jen.Err()).Op(":=").Id("h").Dot(goMethod(hm)).Call(args...)
	check := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	if hUnion == nil {
		hr, cr := hMembers[0], memberByName(cMembers, hMembers[0].name)
		conv, ok := b.replyConv(down, rq, hr, cr, jen.Id("reply"))
		if !ok {
			b.loss(down, m.Name, LossMethod, "its result %s does not convert", hr.name)
			return nil, false
		}
		if server && listMethod(c, m) && hr.shape == shapeStruct && cr.shape == shapeStruct {
			conv = b.cachedReply(m, hr, cr)
		}
		body = append(body, call, check, jen.If(jen.Id("reply").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Nil())))
		body = append(body, conv...)
		return b.method(recv, name, csig, cres, body), true
	}
	var cases []jen.Code
	rounds := false
	converted := 0
	for _, hr := range hMembers {
		if cr := memberByName(cMembers, hr.name); cr != nil {
			if conv, ok := b.replyConv(down, rq, hr, cr, jen.Id("v")); ok {
				cases = append(cases, jen.Case(unionMember(h, hr)).Block(conv...))
				converted++
				continue
			}
		}
		if code, ok := b.rounds(m, hm, hr, hpt); server && ok {
			cases = append(cases, jen.Case(unionMember(h, hr)).Block(code...))
			rounds = true
			continue
		}
		b.loss(down, m.Name, LossMember, "a %s result has no counterpart in %s; it is answered with an error", hr.name, c.rev)
	}
	if converted == 0 {
		b.loss(down, m.Name, LossMethod, "no result of %s converts", h.rev)
		return nil, false
	}
	if cUnion != nil {
		cases = append(cases, jen.Case(jen.Op("*").Qual(h.path, "Unknown"+hUnion.name)).Block(
			jen.Return(jen.Op("&").Qual(c.path, "Unknown"+cUnion.name).Values(jen.Dict{jen.Id("Raw"): jen.Id("v").Dot("Raw")}), jen.Nil())))
	}
	cases = append(cases, jen.Case(jen.Nil()).Block(jen.Return(jen.Nil(), jen.Nil())))
	sw := jen.Switch(jen.Id("v").Op(":=").Id("reply").Assert(jen.Type())).Block(cases...)
	last := jen.Return(jen.Nil(), jen.Qual(protoPkg, "Unconvertible").Call(jen.Lit(m.Name), jen.Lit(c.rev), jen.Id("reply")))
	if rounds {
		body = append(body, jen.For(jen.Id("round").Op(":=").Lit(0), jen.Empty(), jen.Id("round").Op("++")).Block(call, check, sw, last))
	} else {
		body = append(body, call, check, sw, last)
	}
	return b.method(recv, name, csig, cres, body), true
}

func (b *bridgeGen) method(recv, name string, params, results, body []jen.Code) jen.Code {
	return jen.Func().Params(jen.Id("a").Op("*").Id(recv)).Id(name).Params(params...).Params(results...).Block(body...)
}

func memberByName(ns []*named, name string) *named {
	for _, n := range ns {
		if n.name == name {
			return n
		}
	}
	return nil
}

// replyConv converts the handler's result v (hr) to the client's (cr),
// with rq the request being served.
func (b *bridgeGen) replyConv(d dir, rq jen.Code, hr, cr *named, v jen.Code) ([]jen.Code, bool) {
	if cr == nil {
		return nil, false
	}
	switch {
	case hr.shape == shapeStruct && cr.shape == shapeStruct:
		f, ok := b.pair(d, hr, cr)
		if !ok {
			return nil, false
		}
		return []jen.Code{
			jen.Id("o").Op(":=").New(jen.Qual(d.dst.path, cr.name)),
			jen.Id(f.name).Call(rq, v, jen.Id("o")),
			jen.Return(jen.Id("o"), jen.Nil()),
		}, true
	case isRaw(hr.t0()) && isRaw(cr.t0()):
		return []jen.Code{jen.Id("o").Op(":=").Qual(d.dst.path, cr.name).Parens(jen.Op("*").Add(v)), jen.Return(jen.Op("&").Id("o"), jen.Nil())}, true
	}
	return nil, false
}

// listMethod reports a method of s whose result is a page of a list (see
// paged): tools/list, prompts/list, resources/list and the like, whose
// handlers mostly answer with the same list every time.
func listMethod(s *bside, m *schema.Method) bool {
	d := s.g.spec.Def(m.Result)
	return d != nil && paged(d.Type)
}

// cachedReply converts the handler's result of the list method m (hr) to
// the client's (cr) through a protocol.ResultCache of the adapter's, so a
// list the handler answers with again is not converted again. A result's
// conversion never reads the request (what comes from the request is
// filled in toward the handlers' revision only), so it converts without
// one.
func (b *bridgeGen) cachedReply(m *schema.Method, hr, cr *named) []jen.Code {
	d := b.direction(false)
	f, _ := b.pair(d, hr, cr) // converted: replyConv succeeded
	field := "cache" + goMethod(m)
	in, out := jen.Op("*").Qual(d.src.path, hr.name), jen.Op("*").Qual(d.dst.path, cr.name)
	b.caches = append(b.caches, jen.Comment(fmt.Sprintf("%s keeps the last conversion of a %s result.", field, m.Name)).Line().
		Id(field).Qual(protoPkg, "ResultCache").Types(in, out))
	return []jen.Code{jen.Return(jen.Id("a").Dot(field).Dot("Convert").Call(jen.Id("reply"),
		jen.Func().Params(jen.Id("v").Add(in)).Add(out).Block(
			jen.Id("o").Op(":=").New(jen.Qual(d.dst.path, cr.name)),
			jen.Id(f.name).Call(jen.Nil(), jen.Id("v"), jen.Id("o")),
			jen.Return(jen.Id("o")))), jen.Nil())}
}

// t0 is the named type as a value position.
func (n *named) t0() *gotype { return &gotype{shape: n.shape, named: n, t: n.t} }

// rounds is the case of a handler's result that asks for input (a rounds
// row of the table), for a client revision without it: the requests go to
// the client, and the method is called again with the responses.
func (b *bridgeGen) rounds(m, hm *schema.Method, hr *named, hpt *gotype) ([]jen.Code, bool) {
	requests, responses, state, ok := b.table.rounds(hr.name)
	if !ok || hpt == nil || hr.shape != shapeStruct {
		return nil, false
	}
	h := b.handler
	pfields, _ := h.g.fields(hpt.underlying().named)
	rfields, _ := h.g.fields(hr)
	find := func(fs []*field, name string) *field {
		for _, f := range fs {
			if f.prop.Name == name {
				return f
			}
		}
		return nil
	}
	resp, st, rst, req := find(pfields, responses), find(pfields, state), find(rfields, state), find(rfields, requests)
	if resp == nil || req == nil || resp.mode != modeNil {
		return nil, false
	}
	code := []jen.Code{
		jen.List(jen.Id("answers"), jen.Err()).Op(":=").Qual(protoPkg, "AskClient").Call(jen.Id("ctx"), jen.Qual(mcpPkg, "ClientOf").Call(jen.Id("ctx")), jen.Qual(h.path, "Protocol").Call(), jen.Lit(m.Name), jen.Id("round"), jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("in").Dot(resp.name).Op("=").Nil(),
		jen.If(jen.Err().Op(":=").Qual(wirePkg, "UnmarshalWith").Call(jen.Id("answers"), jen.Id("in").Dot(resp.name).Dot("DecodeJSON")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Name+": the client's answers: %w"), jen.Err()))),
	}
	if st != nil && rst != nil && goSource(h.g.fieldType(st)) == goSource(h.g.fieldType(rst)) {
		code = append(code, jen.Id("in").Dot(st.name).Op("=").Id("v").Dot(rst.name))
	}
	return append(code, jen.Continue()), true
}
