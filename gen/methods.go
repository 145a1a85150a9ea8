package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

const (
	mcpRuntimePkg = mcpPkg
	contextPkg    = "context"
)

// goMethod is the Go method name of a protocol method: CallToolRequest is
// CallTool, ToolListChangedNotification is ToolListChanged.
func goMethod(m *schema.Method) string {
	return strings.TrimSuffix(strings.TrimSuffix(m.Type, "Request"), "Notification")
}

// handled reports whether code the user writes answers m on the receiving
// side.
func handled(m *schema.Method) bool { return !owned(m) }

// paramsType is the Go type of m's params, or nil when m has none.
func (g *generator) paramsType(m *schema.Method) *gotype {
	if m.Params == nil {
		return nil
	}
	return g.goType(m.Params)
}

// paramsTypeCode is how params are passed: a pointer to a struct, a union
// value as it is.
func (g *generator) paramsTypeCode(pt *gotype) jen.Code {
	if pt.underlying().shape == shapeUnion {
		return g.typeCode(pt)
	}
	return jen.Op("*").Add(g.typeCode(pt))
}

// decodeParams emits the statements that decode raw params into p.
func (g *generator) decodeParams(m *schema.Method, pt *gotype, target string) []jen.Code {
	if u := pt.underlying(); u.shape == shapeUnion {
		return []jen.Code{
			jen.Var().Id(target).Add(g.typeCode(pt)),
			jen.If(jen.Err().Op(":=").Qual(protoPkg, "DecodeParamsWith").Call(jen.Id("params"), jen.Lit(m.ParamsRequired),
				jen.Func().Params(jen.Id("d").Op("*").Qual(wirePkg, "Decoder")).Error().Block(
					jen.Var().Err().Error(),
					jen.List(jen.Id(target), jen.Err()).Op("=").Id("decode"+u.named.name).Call(jen.Id("d")),
					jen.Return(jen.Err()),
				),
				jen.Func().Params().Error().Block(jen.Return(jen.Id(target).Dot("Validate").Call())),
			), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		}
	}
	return []jen.Code{
		jen.Id(target).Op(":=").New(g.typeCode(pt)),
		// Through method values, not the protocol.Params interface: a
		// call of DecodeJSON through an interface would keep the
		// decoder of every type the program stores in one (wire.Into).
		jen.If(jen.Err().Op(":=").Qual(protoPkg, "DecodeParamsWith").Call(jen.Id("params"), jen.Lit(m.ParamsRequired), jen.Id(target).Dot("DecodeJSON"), jen.Id(target).Dot("Validate")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
}

// replyCode is the Go type a request's handler returns: a pointer to the
// result, or the Reply union when the request has alternatives.
func (g *generator) replyCode(m *schema.Method) jen.Code {
	if m.Reply != nil {
		return jen.Id(m.Reply.Name)
	}
	return g.resultCode(g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result}))
}

// resultCode is how a result is passed: a pointer to a struct (or raw
// JSON), a union value as it is (a draft's CallToolResult = structured |
// unstructured).
func (g *generator) resultCode(gt *gotype) jen.Code {
	if isUnion(gt) {
		return g.typeCode(gt)
	}
	return jen.Op("*").Add(g.typeCode(gt))
}

// isUnion reports a sealed-interface union (one a decoder can tell apart
// without the request).
func isUnion(gt *gotype) bool {
	u := gt.underlying()
	return u.shape == shapeUnion && u.named != nil
}

// signature is the handler method's parameter and result lists.
func (g *generator) signature(m *schema.Method) (params []jen.Code, results []jen.Code) {
	params = []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}
	if pt := g.paramsType(m); pt != nil {
		params = append(params, jen.Id("params").Add(g.paramsTypeCode(pt)))
	}
	if m.Kind == schema.Notification {
		return params, []jen.Code{jen.Error()}
	}
	return params, []jen.Code{g.replyCode(m), jen.Error()}
}

// The methods of a revision are emitted by concern, one file each:
//
//	methods.gen.go      the revision's descriptor for the runtime (the method
//	                    table and the data of what differs between
//	                    revisions) and Mount
//	side_server.gen.go  the Server interface and what serves it: the
//	                    decoding, validation and dispatch of the requests
//	                    and notifications a client sends
//	side_client.gen.go  the ClientHandler interface and what serves it, the
//	                    typed calls (Client; Peer for a server's handlers)
//	                    and the answers to input requests
//
// (The sides' files sort after compat.gen.go, whose error must come first.)

// server emits side_server.gen.go.
func (g *generator) server(f *jen.File) error {
	g.handlerInterface(f, schema.Client, "Server", "the requests and notifications a client sends to a server that server code answers")
	for _, m := range g.spec.Methods {
		if receiver(m) == schema.Server {
			g.serveFunc(f, m)
		}
	}
	return nil
}

// client emits side_client.gen.go.
func (g *generator) client(f *jen.File) error {
	g.handlerInterface(f, schema.Server, "ClientHandler", "the requests and notifications a server sends to a client that client code answers")
	for _, m := range g.spec.Methods {
		if receiver(m) == schema.Client {
			g.serveFunc(f, m)
		}
	}
	g.clientCalls(f)
	g.fulfil(f)
	return nil
}

// protocolFile emits methods.gen.go: the decoding of the methods the
// runtime answers itself, and the descriptor.
func (g *generator) protocolFile(f *jen.File) error {
	for _, m := range g.spec.Methods {
		if receiver(m) == 0 {
			g.serveFunc(f, m)
		}
	}
	g.protocol(f)
	return nil
}

// receiver is the side whose handler code answers m (and whose file holds
// its decoding): the server for what a client sends, the client for what a
// server sends; zero for the methods the runtime answers itself.
func receiver(m *schema.Method) schema.Side {
	switch {
	case !handled(m):
		return 0
	case m.SentBy(schema.Client):
		return schema.Server
	default:
		return schema.Client
	}
}

// fulfil emits how a client answers an InputRequiredResult: each input
// request goes to the matching method of the session's handler, and the
// results become the InputResponses of the retry.
func (g *generator) fulfil(f *jen.File) {
	if !g.canFulfil() {
		return
	}
	var cases []jen.Code
	for _, in := range g.spec.InputRequests {
		m := in.Method
		params, results := g.signature(m)
		iface := jen.Interface(jen.Id(goMethod(m)).Params(params...).Params(results...))
		var arg, sent jen.Code = nil, jen.Nil()
		if pt := g.paramsType(m); pt != nil {
			arg, sent = jen.Id("req").Dot("Params"), g.paramsArg(pt, jen.Id("req").Dot("Params"))
		}
		// The handler answers through protocol.ServeInput, which shows the
		// input request to the session's middleware; res keeps its typed
		// result.
		call := []jen.Code{jen.Id("ctx")}
		if arg != nil {
			call = append(call, arg)
		}
		body := []jen.Code{
			jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Id("h").Assert(iface),
			jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "NoInputHandler").Call(jen.Lit(m.Name)))),
			jen.Var().Id("res").Add(g.replyCode(m)),
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual(protoPkg, "ServeInput").Call(jen.Id("ctx"), jen.Id("c"), jen.Lit(m.Name), sent,
				jen.Func().Params(jen.Id("ctx").Qual(contextPkg, "Context")).Params(jen.Qual(wirePkg, "Marshaler"), jen.Error()).Block(
					jen.Var().Err().Error(),
					jen.List(jen.Id("res"), jen.Err()).Op("=").Id("x").Dot(goMethod(m)).Call(call...),
					jen.Return(jen.Id("res"), jen.Err()),
				)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Id("res").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "NilResult").Call(jen.Lit(m.Name)))),
		}
		if m.Reply != nil {
			// Only the result itself answers an input request (a task
			// handle does not).
			body = append(body,
				jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("res").Assert(jen.Op("*").Id(m.Result)),
				jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "UnexpectedAlternative").Call(jen.Lit(m.Name), jen.Lit("a reply other than "+m.Result+" to an input request")))),
				jen.Id("out").Dot("Set").Call(jen.Id("key"), jen.Id("r")))
		} else {
			body = append(body, jen.Id("out").Dot("Set").Call(jen.Id("key"), jen.Id("res")))
		}
		cases = append(cases, jen.Case(jen.Op("*").Id(in.Def)).Block(body...))
	}
	cases = append(cases, jen.Default().Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "UnexpectedAlternative").Call(jen.Lit("input request"), jen.Lit("unknown")))))
	f.Comment("fulfil answers input requests with the session's handler.")
	f.Func().Id("fulfil").Params(jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("c").Qual(protoPkg, "Caller"), jen.Id("requests").Id("InputRequests")).Params(jen.Id("InputResponses"), jen.Error()).Block(
		jen.Id("h").Op(":=").Qual(protoPkg, "HandlerOf").Call(jen.Id("c")),
		jen.Id("out").Op(":=").Make(jen.Id("InputResponses"), jen.Lit(0), jen.Len(jen.Id("requests"))),
		jen.Comment("In the order the server asked."),
		jen.For(jen.Id("_").Op(",").Id("x").Op(":=").Range().Id("requests")).Block(
			jen.Id("key").Op(":=").Id("x").Dot("Name"),
			jen.Switch(jen.Id("req").Op(":=").Id("x").Dot("Value").Assert(jen.Type())).Block(cases...),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	f.Comment("answerTask answers the input requests of a task the session waits for")
	f.Comment("(protocol.AwaitTask).")
	f.Func().Id("answerTask").Params(jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("c").Qual(protoPkg, "Caller"), jen.Id("requests").Qual(wirePkg, "Raw")).Params(jen.Qual(wirePkg, "Marshaler"), jen.Error()).Block(
		jen.Var().Id("reqs").Id("InputRequests"),
		jen.If(jen.Err().Op(":=").Qual(wirePkg, "UnmarshalWith").Call(jen.Id("requests"), jen.Id("reqs").Dot("DecodeJSON")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("fulfil").Call(jen.Id("ctx"), jen.Id("c"), jen.Id("reqs"))),
	)
}

// canFulfil reports whether the revision has input requests (multi
// round-trip requests) a client answers with fulfil.
func (g *generator) canFulfil() bool {
	return len(g.spec.InputRequests) > 0
}

// handlerInterface declares the interface of the methods a side receives
// and answers, and its Unimplemented type.
func (g *generator) handlerInterface(f *jen.File, from schema.Side, name, what string) {
	var methods []jen.Code
	var unimpl []*schema.Method
	for _, m := range g.spec.Methods {
		if !m.SentBy(from) || !handled(m) {
			continue
		}
		params, results := g.signature(m)
		lines := []string{fmt.Sprintf("%s answers %s.", goMethod(m), m.Name)}
		if d := strings.TrimSpace(m.Doc.Text); d != "" {
			lines = append(append(lines, ""), wrap(d)...)
		}
		if m.Doc.Deprecated != nil {
			lines = append(append(lines, ""), wrap("Deprecated: "+strings.TrimSpace(*m.Doc.Deprecated))...)
		}
		if len(methods) > 0 {
			methods = append(methods, jen.Line())
		}
		methods = append(methods, commentCode(lines)...)
		methods = append(methods, jen.Id(goMethod(m)).Params(params...).Params(results...))
		unimpl = append(unimpl, m)
	}
	if len(methods) == 0 {
		return
	}
	comment(f, wrap(fmt.Sprintf("%s lists %s; the runtime answers the rest (initialize, ping, logging levels, subscriptions, cancellation, progress). "+
		"A value may implement any subset: a method it lacks is answered -32601, and its capabilities follow from the methods it has. "+
		"Embedding Unimplemented%s instead keeps a type compiling when a later revision adds methods, at the price of declaring every capability.", name, what, name)))
	f.Type().Id(name).Interface(methods...)
	un := "Unimplemented" + name
	comment(f, wrap(fmt.Sprintf("%s answers every method of %s with -32601, naming the method. Embed it to implement %s gradually.", un, name, name)))
	f.Type().Id(un).Struct()
	for _, m := range unimpl {
		params, results := g.signature(m)
		var body jen.Code
		if m.Kind == schema.Notification {
			body = jen.Return(jen.Qual(jsonrpcPk, "MethodNotFound").Call(jen.Lit(m.Name)))
		} else {
			body = jen.Return(jen.Nil(), jen.Qual(jsonrpcPk, "MethodNotFound").Call(jen.Lit(m.Name)))
		}
		f.Commentf("%s answers -32601.", goMethod(m))
		f.Func().Params(jen.Id(un)).Id(goMethod(m)).Params(params...).Params(results...).Block(body)
	}
}

// serveFunc emits the function the method table calls for m: decode and
// validate params, call the handler, return the result.
func (g *generator) serveFunc(f *jen.File, m *schema.Method) {
	gm := goMethod(m)
	pt := g.paramsType(m)
	// validate<M>Params checks raw params without serving.
	var vbody []jen.Code
	if pt == nil {
		vbody = []jen.Code{jen.Return(jen.Qual(protoPkg, "NoParams").Call(jen.Id("params")))}
	} else {
		vbody = []jen.Code{jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("decode" + gm + "Params").Call(jen.Id("params")), jen.Return(jen.Err())}
		dec := g.decodeParams(m, pt, "p")
		dec = append(dec, jen.Return(jen.Id("p"), jen.Nil()))
		f.Func().Id("decode"+gm+"Params").Params(jen.Id("params").Qual(wirePkg, "Raw")).Params(g.paramsTypeCode(pt), jen.Error()).Block(dec...)
	}
	f.Func().Id("validate" + gm + "Params").Params(jen.Id("params").Qual(wirePkg, "Raw")).Error().Block(vbody...)
	if !handled(m) {
		return
	}
	params, results := g.signature(m)
	iface := jen.Interface(jen.Id(gm).Params(params...).Params(results...))
	var body []jen.Code
	body = append(body,
		jen.List(jen.Id("h"), jen.Id("ok")).Op(":=").Id("handler").Assert(iface),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Qual(jsonrpcPk, "MethodNotFound").Call(jen.Lit(m.Name)))),
	)
	args := []jen.Code{jen.Id("ctx")}
	if pt != nil {
		body = append(body,
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id("decode"+gm+"Params").Call(jen.Id("params")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		)
		args = append(args, jen.Id("p"))
	} else {
		body = append(body, jen.If(jen.Err().Op(":=").Qual(protoPkg, "NoParams").Call(jen.Id("params")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	if m.Kind == schema.Notification {
		body = append(body, jen.Return(jen.Nil(), jen.Id("h").Dot(gm).Call(args...)))
	} else {
		body = append(body,
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("h").Dot(gm).Call(args...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "NilResult").Call(jen.Lit(m.Name)))),
			jen.Return(jen.Id("r"), jen.Nil()),
		)
	}
	f.Commentf("serve%s decodes and validates the params of %s and calls the handler.", gm, m.Name)
	f.Func().Id("serve"+gm).Params(jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("handler").Any(), jen.Id("params").Qual(wirePkg, "Raw")).Params(jen.Qual(wirePkg, "Marshaler"), jen.Error()).Block(body...)
	if v := g.resultValidation(m); v != nil {
		f.Commentf("resultCheck%s validates a %s result of this revision's types (one", gm, m.Name)
		f.Comment("the runtime built passes) by their methods, not through an interface:")
		f.Comment("a program links the validators of the results it serves.")
		f.Func().Id("resultCheck" + gm).Params(jen.Id("res").Qual(wirePkg, "Marshaler")).Error().Block(v...)
		f.Line()
	}
	f.Func().Id("implements"+gm).Params(jen.Id("handler").Any()).Bool().Block(
		jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("handler").Assert(iface),
		jen.Return(jen.Id("ok")),
	)
}

// protocol emits the method table and Mount.
func (g *generator) protocol(f *jen.File) {
	dict := jen.Dict{}
	// clientDict: what only a server sends, as a client receives it
	// (protocol.Protocol.ClientTable), in a package for both ends;
	// serverDict: what only a client sends, as a server receives it
	// (ServerTable).
	clientDict, serverDict := jen.Dict{}, jen.Dict{}
	for _, m := range g.spec.Methods {
		gm := goMethod(m)
		// received: the package's side can receive m (--side).
		received := true
		switch g.opts.Side {
		case "server":
			received = m.SentBy(schema.Client)
		case "client":
			received = m.SentBy(schema.Server)
		}
		fields := jen.Dict{
			jen.Id("Name"): jen.Id(methodConst(m)),
		}
		// rx: the fields that receive m, in the table or, for what only
		// one end receives in a package for both ends, in that end's
		// table alone (apart).
		rx := fields
		var apart jen.Dict
		switch {
		case g.opts.Side != "":
		case !m.SentBy(schema.Client):
			apart = clientDict
		case !m.SentBy(schema.Server):
			apart = serverDict
		}
		if apart != nil {
			rx = jen.Dict{}
		}
		if received {
			rx[jen.Id("ValidateParams")] = jen.Id("validate" + gm + "Params")
		}
		if m.Kind == schema.Notification {
			fields[jen.Id("Notification")] = jen.True()
		}
		if m.SentBy(schema.Client) {
			fields[jen.Id("FromClient")] = jen.True()
		}
		if m.SentBy(schema.Server) {
			fields[jen.Id("FromServer")] = jen.True()
		}
		if m.NameParam != "" {
			fields[jen.Id("NameParam")] = jen.Lit(m.NameParam)
		}
		if g.cacheable(m) {
			fields[jen.Id("Cacheable")] = jen.True()
		}
		roleFields(m, fields)
		if handled(m) {
			if received {
				rx[jen.Id("Serve")] = jen.Id("serve" + gm)
				if g.resultValidation(m) != nil {
					rx[jen.Id("ValidateResult")] = jen.Id("resultCheck" + gm)
				}
				rx[jen.Id("Implemented")] = jen.Id("implements" + gm)
				params, results := g.signature(m)
				iface := jen.Interface(jen.Id(gm).Params(params...).Params(results...))
				rx[jen.Id("HandlerType")] = jen.Qual("reflect", "TypeFor").Types(iface).Call()
				// The name a constant, so the linker keeps methods of this
				// name only (protocol.Method.HandlerMethod).
				rx[jen.Id("HandlerMethod")] = jen.Func().Params(jen.Id("t").Qual("reflect", "Type")).
					Params(jen.Qual("reflect", "Method"), jen.Bool()).
					Block(jen.Return(jen.Id("t").Dot("MethodByName").Call(jen.Lit(gm))))
			}
			if nr := g.newResult(m); nr != nil {
				fields[jen.Id("NewResult")] = nr
				fields[jen.Id("DecodeResult")] = g.decodeResult(m)
			}
		}
		dict[jen.Id(methodConst(m))] = jen.Values(fields)
		if apart != nil && len(rx) > 0 {
			apart[jen.Id(methodConst(m))] = jen.Values(rx)
		}
	}
	pfields := jen.Dict{
		jen.Id("Revision"): jen.Id("Revision"),
		jen.Id("Methods"):  jen.Map(jen.String()).Op("*").Qual(protoPkg, "Method").Values(dict),
	}
	switch g.opts.Side {
	case "server":
		pfields[jen.Id("Side")] = jen.Qual(protoPkg, "ServerSide")
	case "client":
		pfields[jen.Id("Side")] = jen.Qual(protoPkg, "ClientSide")
	}
	// The stateless era stamps its results; a stateful revision whose
	// results carry resultType too (drafts between the eras) does as well.
	stamps := g.stampCases()
	if g.spec.Era() == schema.Stateless {
		pfields[jen.Id("Era")] = jen.Qual(protoPkg, "Stateless")
	} else {
		pfields[jen.Id("Era")] = jen.Qual(protoPkg, "Stateful")
	}
	if g.spec.Era() == schema.Stateless || len(stamps) > 0 {
		pfields[jen.Id("Stamp")] = jen.Id("stamp")
	}
	if g.spec.Holds(schema.RuleRetryOnClose, g.opts.ProtocolVersion) && g.spec.Era() == schema.Stateful {
		pfields[jen.Id("RetryOnClose")] = jen.True()
	}
	if g.spec.Holds(schema.RuleResourceNotFoundInvalidParams, g.opts.ProtocolVersion) {
		pfields[jen.Id("ResourceNotFoundCode")] = jen.Qual(jsonrpcPk, "CodeInvalidParams")
	} else {
		pfields[jen.Id("ResourceNotFoundCode")] = jen.Lit(-32002)
	}
	irr := g.inputRequiredField()
	if irr != "" {
		pfields[jen.Id("InputRequired")] = jen.Id("inputRequired")
	}
	if g.spec.Def("JSONRPCBatchRequest") != nil {
		pfields[jen.Id("Batches")] = jen.True()
	}
	if noID := g.noIDField(); noID != nil {
		pfields[jen.Id("NoID")] = noID
	}
	if code := g.missingCapabilityCode(); code != "" {
		pfields[jen.Id("MissingCapabilityCode")] = jen.Id(code)
	}
	if codec := g.taskCodec(f); codec != nil {
		pfields[jen.Id("Tasks")] = codec
	}
	// Arguments that break a tool's inputSchema are a tool execution
	// error where the rule holds, else a protocol error (no ToolError).
	if g.spec.Holds(schema.RuleToolArgumentErrors, g.opts.ProtocolVersion) {
		if te := g.toolError(f); te != "" {
			pfields[jen.Id("ToolError")] = jen.Id(te)
		}
	}
	if members := g.members(); members != nil {
		// A package-level slice of constants is static data: no code
		// runs at program start (a map literal here was the largest
		// function of a generated package).
		f.Comment("memberTable lists the members of the revision's object definitions (protocol.Protocol.Has).")
		f.Var().Id("memberTable").Op("=").Add(members)
		pfields[jen.Id("MemberTable")] = jen.Id("memberTable")
	}
	for field, def := range map[string]string{"ServerCapabilities": "ServerCapabilities", "ClientCapabilities": "ClientCapabilities"} {
		if d := g.spec.Def(def); d != nil && d.Type.Kind == schema.Object {
			var names []jen.Code
			for _, p := range d.Type.Props {
				names = append(names, jen.Lit(p.Name))
			}
			pfields[jen.Id(field)] = jen.Index().String().Values(names...)
		}
	}
	if len(clientDict) > 0 {
		pfields[jen.Id("ClientTable")] = jen.Id("clientTable").Values()
	}
	if len(serverDict) > 0 {
		pfields[jen.Id("ServerTable")] = jen.Id("serverTable").Values()
	}
	f.Comment("descriptor is this revision's method table for the runtime.")
	f.Var().Id("descriptor").Op("=").Op("&").Qual(protoPkg, "Protocol").Values(pfields)
	sideTable(f, "client", "server", "checks, decodes and answers", clientDict)
	sideTable(f, "server", "client", "checks, decodes and serves", serverDict)
	f.Comment("Protocol describes this revision to the runtime. It must not be modified.")
	f.Func().Id("Protocol").Params().Op("*").Qual(protoPkg, "Protocol").Block(jen.Return(jen.Id("descriptor")))
	f.Comment("Mount mounts this revision, served by handler. On a server")
	f.Comment("(mcp.NewServer), handler implements any of the methods of Server; on a")
	f.Comment("client (mcp.Connect), any of the methods of ClientHandler, answering the")
	f.Comment("server's requests and notifications.")
	f.Func().Id("Mount").Params(jen.Id("handler").Any()).Qual(mcpPkg, "Mount").Block(
		jen.Return(jen.Qual(mcpPkg, "Mount").Values(jen.Dict{jen.Id("Protocol"): jen.Id("descriptor"), jen.Id("Handler"): jen.Id("handler")})),
	)
	if g.spec.Era() == schema.Stateless || len(stamps) > 0 {
		g.stamp(f, stamps)
	}
	if irr != "" {
		g.inputRequired(f, irr)
	}
}

// sideTable emits the table of the receiving fields of what only end
// receives (clientTable for "client", serverTable for "server";
// protocol.Protocol.ClientTable and ServerTable), when there is any: what
// the other end never runs, reached only through the interface method
// that only end's runtime calls, so that the linker leaves it out of the
// other's programs.
func sideTable(f *jen.File, end, other, does string, dict jen.Dict) {
	if len(dict) == 0 {
		return
	}
	End := strings.ToUpper(end[:1]) + end[1:]
	typ := end + "Table"
	f.Commentf("%s completes descriptor for %ss (protocol.Protocol.%sTable):", typ, end, End)
	f.Commentf("how a %s %s what only a %s sends (the", end, does, other)
	f.Comment("receiving fields of those entries; the runtime keeps the others). The")
	f.Commentf("runtime asks for it only on a %s (protocol.Protocol.For%s), so the", end, End)
	f.Commentf("linker leaves it, and the code it reaches, out of a %s.", other)
	f.Type().Id(typ).Struct()
	f.Commentf("%sMethods implements protocol.%sTable.", End, End)
	f.Func().Params(jen.Id(typ)).Id(End+"Methods").Params().Map(jen.String()).Op("*").Qual(protoPkg, "Method").Block(
		jen.Return(jen.Map(jen.String()).Op("*").Qual(protoPkg, "Method").Values(dict)),
	)
}

// newResult is the function that makes a new, empty complete result of m
// (for results the runtime writes as JSON and decodes into the revision's
// type: the features declared in Go), or nil when m has no result of its
// own or the result is a union.
func (g *generator) newResult(m *schema.Method) jen.Code {
	if m.Kind == schema.Notification || m.Result == "" {
		return nil
	}
	gt := g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result})
	if u := gt.underlying(); u.shape != shapeStruct || u.named == nil {
		return nil
	}
	return jen.Func().Params().Qual(protoPkg, "Result").Block(jen.Return(jen.New(g.typeCode(gt))))
}

// resultValidation is the body of resultCheck<M>: the validation of a
// result of the handler's reply type (a union: its validator) or result
// type; nil when the method has no result of a named type.
func (g *generator) resultValidation(m *schema.Method) []jen.Code {
	if m.Kind == schema.Notification || m.Result == "" {
		return nil
	}
	var union string
	var typ jen.Code
	if m.Reply != nil {
		union, typ = m.Reply.Name, jen.Id(m.Reply.Name)
	} else {
		gt := g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result})
		u := gt.underlying()
		switch {
		case isUnion(gt):
			union, typ = u.named.name, g.typeCode(gt)
		case u.named != nil:
			return []jen.Code{
				jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("res").Assert(jen.Op("*").Add(g.typeCode(gt))), jen.Id("ok")).Block(jen.Return(jen.Id("r").Dot("Validate").Call())),
				jen.Return(jen.Nil()),
			}
		default:
			return nil
		}
	}
	return []jen.Code{
		jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("res").Assert(typ), jen.Id("ok")).Block(
			jen.Var().Id("c").Qual(validPkg, "Collector"),
			jen.Id("validate"+union).Call(jen.Op("&").Id("c"), jen.Id("r")),
			jen.Return(jen.Id("c").Dot("Err").Call()),
		),
		jen.Return(jen.Nil()),
	}
}

// decodeResult is the method's DecodeResult (for a method newResult gives
// a NewResult): the result type's decoder through a method value, so that
// the runtime decodes a result written as JSON without calling DecodeJSON
// through an interface (wire.Into says what that would link).
func (g *generator) decodeResult(m *schema.Method) jen.Code {
	gt := g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result})
	return jen.Func().Params(jen.Id("data").Index().Byte()).Params(jen.Qual(protoPkg, "Result"), jen.Error()).Block(
		jen.Id("v").Op(":=").New(g.typeCode(gt)),
		jen.Return(jen.Id("v"), jen.Qual(wirePkg, "UnmarshalWith").Call(jen.Id("data"), jen.Id("v").Dot("DecodeJSON"))),
	)
}

// members lists the members of every object definition, by definition
// name: what the runtime may write in the revision's shapes when it builds
// a result from JSON (Protocol.Has).
func (g *generator) members() jen.Code {
	var rows []jen.Code
	for _, d := range g.spec.Defs {
		if d.Type.Kind != schema.Object || len(d.Type.Props) == 0 {
			continue
		}
		var names []jen.Code
		for _, p := range d.Type.Props {
			names = append(names, jen.Lit(p.Name))
		}
		rows = append(rows, jen.Line().Values(jen.Id("Def").Op(":").Lit(d.Name), jen.Id("Members").Op(":").Index().String().Values(names...)))
	}
	if len(rows) == 0 {
		return nil
	}
	return jen.Index().Qual(protoPkg, "DefMembers").Values(append(rows, jen.Line())...)
}

// inputRequiredField is the Go name of InputRequiredResult's
// inputRequests, or "" for revisions without multi round-trip requests.
func (g *generator) inputRequiredField() string {
	d := g.spec.Def("InputRequiredResult")
	if d == nil || d.Type.Kind != schema.Object {
		return ""
	}
	for _, p := range d.Type.Props {
		if p.Name == "inputRequests" && g.goType(p.Type).underlying().shape == shapeMap {
			return p.GoName
		}
	}
	return ""
}

// inputRequired emits the function that tells the runtime whether a
// result asks for input, and what for (it checks them against the
// client's capabilities).
func (g *generator) inputRequired(f *jen.File, field string) {
	// A request held by value (not a union) encodes through its pointer.
	var req jen.Code = jen.Id("req")
	for _, p := range g.spec.Def("InputRequiredResult").Type.Props {
		if m := g.goType(p.Type).underlying(); p.GoName == field && m.named != nil && m.named.elem != nil && m.named.elem.underlying().shape == shapeStruct {
			req = jen.Op("&").Id("req")
		}
	}
	f.Comment("inputRequired reports whether result is an InputRequiredResult and returns")
	f.Comment("its input requests as JSON, by key.")
	f.Func().Id("inputRequired").Params(jen.Id("result").Qual(wirePkg, "Marshaler")).Params(jen.Map(jen.String()).Qual(wirePkg, "Raw"), jen.Bool()).Block(
		jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("result").Assert(jen.Op("*").Id("InputRequiredResult")),
		jen.If(jen.Op("!").Id("ok").Op("||").Id("r").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.False())),
		jen.Id("requests").Op(":=").Make(jen.Map(jen.String()).Qual(wirePkg, "Raw"), jen.Len(jen.Id("r").Dot(field))),
		jen.For(jen.Id("_").Op(",").Id("x").Op(":=").Range().Id("r").Dot(field)).Block(
			jen.Id("req").Op(":=").Id("x").Dot("Value"),
			jen.If(jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Any().Parens(req).Assert(jen.Qual(wirePkg, "Marshaler")), jen.Id("ok")).Block(
				jen.List(jen.Id("requests").Index(jen.Id("x").Dot("Name")), jen.Id("_")).Op("=").Qual(wirePkg, "Marshal").Call(jen.Id("m")),
			),
		),
		jen.Return(jen.Id("requests"), jen.True()),
	)
}

// cacheable reports a method whose result carries ttlMs and cacheScope.
func (g *generator) cacheable(m *schema.Method) bool {
	if m.Kind != schema.Request {
		return false
	}
	d := g.spec.Def(m.Result)
	if d == nil || d.Type.Kind != schema.Object {
		return false
	}
	var ttl, scope bool
	for _, p := range d.Type.Props {
		ttl = ttl || p.Name == "ttlMs"
		scope = scope || p.Name == "cacheScope"
	}
	return ttl && scope
}

// stampCases are the cases of the stamp function: one per result type
// with something to complete (stamp).
func (g *generator) stampCases() []jen.Code {
	var cases []jen.Code
	for _, n := range g.order {
		if n.shape != shapeStruct || n.def == nil {
			continue
		}
		var rt, meta, ttl, scope *schema.Prop
		for _, p := range n.t.Props {
			switch p.Name {
			case "resultType":
				rt = p
			case "_meta":
				meta = p
			case "ttlMs":
				ttl = p
			case "cacheScope":
				scope = p
			}
		}
		if rt == nil {
			continue
		}
		// A required constant resultType has no field: the encoder writes
		// it. Only required members are completed (an optional one may
		// stay unset: drafts between the eras have those).
		stampRT := rt.Required && rt.Type.Const == nil
		stampCache := ttl != nil && scope != nil && ttl.Required && scope.Required
		withInfo := meta != nil && meta.Type.Kind == schema.Ref && g.hasServerInfo(meta.Type.Ref)
		if !stampRT && !withInfo && !stampCache {
			continue
		}
		// With a _meta to stamp, the copy, its _meta and the Implementation
		// in it are one allocation.
		var body []jen.Code
		if withInfo {
			body = []jen.Code{
				jen.Id("x").Op(":=").Op("&").Struct(
					jen.Id("r").Id(n.name),
					jen.Id("m").Id(meta.Type.Ref),
					jen.Id("i").Id("Implementation"),
				).Values(jen.Dict{jen.Id("r"): jen.Op("*").Id("r")}),
				jen.Id("c").Op(":=").Op("&").Id("x").Dot("r"),
			}
		} else {
			body = []jen.Code{jen.Id("c").Op(":=").Op("*").Id("r")}
		}
		def := "complete"
		if n.name == "InputRequiredResult" {
			def = "input_required"
		}
		if stampRT {
			body = append(body, jen.If(jen.Id("c").Dot(rt.GoName).Op("==").Lit("")).Block(
				jen.Id("c").Dot(rt.GoName).Op("=").Lit(def)))
		}
		if stampCache {
			// A handler that set a TTL but no scope keeps its TTL; its
			// zero TTL means "unset" unless it also chose the scope.
			set := []jen.Code{
				jen.Id("c").Dot(scope.GoName).Op("=").Add(g.typeCode(g.goType(scope.Type))).Call(jen.Id("s").Dot("CacheScope")),
				jen.If(jen.Id("c").Dot(ttl.GoName).Op("==").Lit(0)).Block(
					jen.Id("c").Dot(ttl.GoName).Op("=").Id("s").Dot("TTLMs"),
				),
			}
			// Both are present now, even if a decoded value lacked them.
			if mask := g.absentMask(n, "ttlMs", "cacheScope"); mask != 0 {
				set = append(set, jen.Id("c").Dot("absent").Op("&^=").Op(fmt.Sprintf("0b%b", mask)))
			}
			body = append(body, jen.If(jen.Id("c").Dot(scope.GoName).Op("==").Lit("").Op("&&").Id("s").Dot("CacheScope").Op("!=").Lit("")).Block(set...))
		}
		if withInfo {
			body = append(body, jen.If(jen.Id("s").Dot("ServerName").Op("!=").Lit("")).Block(
				jen.If(jen.Id("c").Dot(meta.GoName).Op("!=").Nil()).Block(jen.Id("x").Dot("m").Op("=").Op("*").Id("c").Dot(meta.GoName)),
				jen.If(jen.Id("x").Dot("m").Dot("ServerInfo").Op("==").Nil()).Block(
					jen.Id("x").Dot("i").Op("=").Id("Implementation").Values(jen.Dict{
						jen.Id("Name"): jen.Id("s").Dot("ServerName"), jen.Id("Version"): jen.Id("s").Dot("ServerVersion"),
					}),
					jen.Id("x").Dot("m").Dot("ServerInfo").Op("=").Op("&").Id("x").Dot("i"),
				),
				jen.Id("c").Dot(meta.GoName).Op("=").Op("&").Id("x").Dot("m"),
			))
		}
		if withInfo {
			body = append(body, jen.Return(jen.Id("c")))
		} else {
			body = append(body, jen.Return(jen.Op("&").Id("c")))
		}
		cases = append(cases, jen.Case(jen.Op("*").Id(n.name)).Block(body...))
	}
	return cases
}

// stamp emits the function that completes results the way the stateless
// revision asks (cases from stampCases): resultType, the server's
// Implementation in _meta, and the cache fields. It works on a copy, so a
// handler may return shared values.
func (g *generator) stamp(f *jen.File, cases []jen.Code) {
	body := []jen.Code{jen.Return(jen.Id("result"))}
	if len(cases) > 0 {
		cases = append(cases, jen.Default().Block(jen.Return(jen.Id("result"))))
		body = []jen.Code{jen.Switch(jen.Id("r").Op(":=").Id("result").Assert(jen.Type())).Block(cases...)}
	}
	f.Comment("stamp returns a copy of result completed with what this revision asks of")
	f.Comment("every result: resultType, the server's Implementation in _meta, and the")
	f.Comment("cache fields of cacheable results that the handler left unset.")
	f.Func().Id("stamp").Params(jen.Id("result").Qual(wirePkg, "Marshaler"), jen.Id("s").Op("*").Qual(protoPkg, "Stamp")).Qual(wirePkg, "Marshaler").Block(body...)
}

func (g *generator) hasServerInfo(def string) bool {
	d := g.spec.Def(def)
	if d == nil {
		return false
	}
	for _, p := range d.Type.Props {
		if p.GoName == "ServerInfo" {
			return true
		}
	}
	return false
}

// clientCalls emits typed calls: Client (a client calling a server) and,
// in stateful revisions, Peer (a server handler calling its client).
func (g *generator) clientCalls(f *jen.File) {
	g.callType(f, "Client", schema.Client, "Client makes typed calls to an MCP server of this revision over a session.",
		jen.Func().Id("NewClient").Params(jen.Id("c").Qual(protoPkg, "Caller")).Op("*").Id("Client").Block(jen.Return(jen.Op("&").Id("Client").Values(jen.Dict{jen.Id("c"): jen.Id("c")}))))
	if g.spec.Era() == schema.Stateful {
		g.callType(f, "Peer", schema.Server, "Peer makes typed calls from a server's handler to the client of the session (sampling, elicitation, roots).",
			jen.Func().Id("PeerFrom").Params(jen.Id("ctx").Qual(contextPkg, "Context")).Op("*").Id("Peer").Block(jen.Return(jen.Op("&").Id("Peer").Values(jen.Dict{jen.Id("c"): jen.Qual(mcpPkg, "ClientOf").Call(jen.Id("ctx"))}))))
	}
}

// typedCall reports whether the calls of side from get a typed call for m.
// A client calls the methods the runtime answers too (ping, logging
// level, subscriptions, discovery, tasks), except initialize, which
// Connect sends, and subscriptions/listen, a stream rather than a call
// (listen.Stream). The server's peer calls only what handlers
// answer.
func typedCall(m *schema.Method, from schema.Side) bool {
	if !owned(m) {
		return true
	}
	if from != schema.Client {
		return false
	}
	r := runtimeMethods[m.Name].role
	return r != "RoleInitialize" && r != "RoleListen"
}

func (g *generator) callType(f *jen.File, name string, from schema.Side, doc string, ctor jen.Code) {
	comment(f, wrap(doc))
	f.Type().Id(name).Struct(jen.Id("c").Qual(protoPkg, "Caller"))
	switch name {
	case "Client":
		f.Comment("NewClient returns typed calls over c.")
	default:
		f.Comment("PeerFrom returns typed calls to the client of the request in ctx. In a")
		f.Comment("stateless exchange they fail: use InputRequiredResult instead.")
	}
	f.Add(ctor)
	taken := map[string]bool{}
	for _, m := range g.spec.Methods {
		if !m.SentBy(from) || m.Kind != schema.Request || !typedCall(m, from) {
			continue
		}
		gm := goMethod(m)
		pt := g.paramsType(m)
		resultT := g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result})
		params := []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}
		var pexpr jen.Code = jen.Nil()
		if pt != nil {
			params = append(params, jen.Id("params").Add(g.paramsTypeCode(pt)))
			pexpr = jen.Id("params")
		}
		var body, prologue []jen.Code
		if name == "Client" {
			// A session speaking another revision through a bridge
			// mounted for this one converts the call (generated-code
			// version 6).
			var arg jen.Code = jen.Nil()
			if pt != nil {
				arg = jen.Id("params")
			}
			prologue = append(prologue, jen.If(jen.Id("call").Op(":=").Qual(protoPkg, "Converted").Call(jen.Id("c").Dot("c"), jen.Id("descriptor"), jen.Id(methodConst(m))), jen.Id("call").Op("!=").Nil()).Block(
				jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("call").Call(jen.Id("ctx"), jen.Id("c").Dot("c"), arg),
				jen.List(jen.Id("r"), jen.Id("_")).Op(":=").Id("v").Assert(g.resultCode(resultT)),
				jen.Return(jen.Id("r"), jen.Err()),
			))
		}
		switch {
		case m.Reply == nil && isUnion(resultT):
			body = []jen.Code{
				jen.Var().Id("raw").Qual(wirePkg, "Raw"),
				jen.If(jen.Err().Op(":=").Id("c").Dot("c").Dot("CallInto").Call(jen.Id("ctx"), jen.Id(methodConst(m)), g.paramsArg(pt, pexpr), jen.Id("raw").Dot("Into").Call()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("Unmarshal" + resultT.underlying().named.name).Call(jen.Id("raw"))),
			}
		case m.Reply == nil:
			body = []jen.Code{
				jen.Id("r").Op(":=").New(g.typeCode(resultT)),
				jen.If(jen.Err().Op(":=").Id("c").Dot("c").Dot("CallInto").Call(jen.Id("ctx"), jen.Id(methodConst(m)), g.paramsArg(pt, pexpr), jen.Qual(wirePkg, "Into").Values(jen.Id("Value").Op(":").Id("r"), jen.Id("Decode").Op(":").Id("r").Dot("DecodeJSON"))), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("r"), jen.Nil()),
			}
		default:
			body = g.replyCall(m, pt, pexpr, resultT)
		}
		f.Commentf("%s sends %s and waits for its result.", gm, m.Name)
		f.Func().Params(jen.Id("c").Op("*").Id(name)).Id(gm).Params(params...).Params(g.resultCode(resultT), jen.Error()).Block(append(prologue, body...)...)
		taken[gm] = true
	}
	if name == "Client" {
		g.describeServer(f, taken)
	}
}

// describeServer emits the Client's accessors of what the server told of
// itself when the session opened, in this revision's types (converted when
// the session speaks another revision through a bridge): its
// capabilities, Implementation and instructions. A revision without the
// definitions, or whose methods take the names, goes without.
func (g *generator) describeServer(f *jen.File, taken map[string]bool) {
	for _, a := range []struct{ method, def, what string }{
		{"ServerCapabilities", "ServerCapabilities", "the capabilities the server declared"},
		{"ServerInfo", "Implementation", "the server's Implementation (name, version, …)"},
	} {
		n := g.named[a.def]
		if taken[a.method] || n == nil || n.shape != shapeStruct {
			continue
		}
		taken[a.method] = true
		f.Commentf("%s decodes %s when the session opened, in this", a.method, a.what)
		f.Comment("revision's types (converted from the revision the session speaks when it")
		f.Comment("speaks another through a bridge); nil when the server sent none.")
		f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(a.method).Params().Params(jen.Op("*").Id(a.def), jen.Error()).Block(
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Qual(protoPkg, "ServerValue").Call(jen.Id("c").Dot("c"), jen.Id("descriptor"), jen.Lit(a.def), jen.Func().Params(jen.Id("raw").Qual(wirePkg, "Raw")).Params(jen.Any(), jen.Error()).Block(
				jen.Id("v").Op(":=").New(jen.Id(a.def)),
				jen.Return(jen.Id("v"), jen.Qual(wirePkg, "UnmarshalWith").Call(jen.Id("raw"), jen.Id("v").Dot("DecodeJSON"))),
			)),
			jen.List(jen.Id("r"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Op("*").Id(a.def)),
			jen.Return(jen.Id("r"), jen.Err()),
		)
	}
	if !taken["Instructions"] {
		f.Comment("Instructions are the server's instructions for the model, \"\" if none.")
		f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id("Instructions").Params().String().Block(
			jen.If(jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Id("c").Dot("c").Assert(jen.Interface(jen.Id("Instructions").Params().String())), jen.Id("ok")).Block(jen.Return(jen.Id("s").Dot("Instructions").Call())),
			jen.Return(jen.Lit("")),
		)
	}
}

// paramsArg is the params argument of Caller.Call: nil for a nil pointer.
func (g *generator) paramsArg(pt *gotype, pexpr jen.Code) jen.Code {
	switch {
	case pt == nil:
		return jen.Nil()
	case pt.underlying().shape == shapeUnion:
		return pexpr
	}
	return jen.Qual(protoPkg, "ParamsOf").Call(pexpr)
}

// replyCall decodes a reply union; an InputRequiredResult is answered with
// the session's handler and the request retried, as often as the runtime
// allows; any other alternative is an error (ask for it explicitly).
func (g *generator) replyCall(m *schema.Method, pt *gotype, pexpr jen.Code, resultT *gotype) []jen.Code {
	var cases []jen.Code
	cases = append(cases, jen.Case(jen.Op("*").Add(g.typeCode(resultT))).Block(jen.Return(jen.Id("r"), jen.Nil())))
	mrtr := false
	for _, alt := range m.Alternatives {
		altT := g.goType(&schema.Type{Kind: schema.Ref, Ref: alt})
		if alt == "InputRequiredResult" && pt != nil && g.hasProp(pt, "inputResponses") && g.hasProp(altT, "inputRequests") && g.canFulfil() {
			mrtr = true
			retry := []jen.Code{
				jen.If(jen.Id("round").Op(">=").Qual(protoPkg, "MaxInputRounds")).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "TooManyInputRounds").Call(jen.Lit(m.Name)))),
				jen.List(jen.Id("responses"), jen.Err()).Op(":=").Id("fulfil").Call(jen.Id("ctx"), jen.Id("c").Dot("c"), jen.Id("r").Dot("InputRequests")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Id("retry").Op(":=").Op("*").Id("params"),
				jen.Id("retry").Dot("InputResponses").Op("=").Id("responses"),
			}
			if g.hasProp(pt, "requestState") && g.hasProp(altT, "requestState") {
				retry = append(retry, jen.Id("retry").Dot("RequestState").Op("=").Id("r").Dot("RequestState"))
			}
			retry = append(retry, jen.Id("params").Op("=").Op("&").Id("retry"))
			cases = append(cases, jen.Case(jen.Op("*").Id(alt)).Block(retry...))
			continue
		}
		if id, missing := g.taskID(); alt == "CreateTaskResult" && g.spec.Era() != schema.Stateless && id != nil {
			// Only a caller that set params.task gets one: wait for the
			// task and answer its result.
			var check []jen.Code
			for _, cond := range missing {
				check = append(check, jen.If(cond).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "UnexpectedAlternative").Call(jen.Lit(m.Name), jen.Lit("CreateTaskResult without task")))))
			}
			cases = append(cases, jen.Case(jen.Op("*").Id(alt)).Block(append(check,
				jen.List(jen.Id("raw"), jen.Err()).Op(":=").Qual(protoPkg, "AwaitTaskResult").Call(jen.Id("ctx"), jen.Id("c").Dot("c"), jen.Id("descriptor"), id),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Id("res").Op(":=").New(g.typeCode(resultT)),
				jen.If(jen.Err().Op(":=").Qual(wirePkg, "UnmarshalWith").Call(jen.Id("raw"), jen.Id("res").Dot("DecodeJSON")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("res"), jen.Nil()),
			)...))
			continue
		}
		cases = append(cases, jen.Case(jen.Op("*").Id(alt)).Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "UnexpectedAlternative").Call(jen.Lit(m.Name), jen.Lit(alt)))))
	}
	cases = append(cases, jen.Default().Block(jen.Return(jen.Nil(), jen.Qual(protoPkg, "UnexpectedAlternative").Call(jen.Lit(m.Name), jen.Lit("unknown")))))
	loop := []jen.Code{
		jen.Var().Id("raw").Qual(wirePkg, "Raw"),
		jen.If(jen.Err().Op(":=").Id("c").Dot("c").Dot("CallInto").Call(jen.Id("ctx"), jen.Id(methodConst(m)), g.paramsArg(pt, pexpr), jen.Id("raw").Dot("Into").Call()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
	if g.spec.Era() == schema.Stateless {
		// A client that accepts tasks may get a task handle instead
		// (the tasks extension): wait for its result.
		var answer jen.Code = jen.Nil()
		if g.canFulfil() {
			answer = jen.Id("answerTask")
		}
		loop = append(loop,
			jen.List(jen.Id("raw"), jen.Err()).Op(":=").Qual(protoPkg, "AwaitTask").Call(jen.Id("ctx"), jen.Id("c").Dot("c"), jen.Id("raw"), answer),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		)
	}
	loop = append(loop,
		jen.List(jen.Id("reply"), jen.Err()).Op(":=").Id("Unmarshal"+m.Reply.Name).Call(jen.Id("raw")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Switch(jen.Id("r").Op(":=").Id("reply").Assert(jen.Type())).Block(cases...),
	)
	if !mrtr {
		return loop
	}
	return []jen.Code{jen.For(jen.Id("round").Op(":=").Lit(0), jen.Empty(), jen.Id("round").Op("++")).Block(loop...)}
}

// taskID is the expression of the task id of a CreateTaskResult r, from
// the model's TaskID path (r.Task.TaskID, or r.TaskID where the result is
// the task itself), and the conditions under which r has none (a nil
// object on the way). id is nil when the revision's result carries no id.
func (g *generator) taskID() (id *jen.Statement, missing []jen.Code) {
	def := g.spec.Def("CreateTaskResult")
	if len(g.spec.TaskID) == 0 || def == nil {
		return nil, nil
	}
	t := g.resolve(def.Type)
	id = jen.Id("r")
	for i, name := range g.spec.TaskID {
		var prop *schema.Prop
		for _, p := range t.Props {
			if p.Name == name {
				prop = p
			}
		}
		if prop == nil {
			return nil, nil
		}
		id = id.Clone().Dot(prop.GoName)
		if i < len(g.spec.TaskID)-1 && g.goType(prop.Type).underlying().shape == shapeStruct {
			missing = append(missing, id.Clone().Op("==").Nil())
		}
		t = g.resolve(prop.Type)
	}
	return id, missing
}

func (g *generator) hasProp(gt *gotype, name string) bool {
	t := g.resolve(gt.t)
	for _, p := range t.Props {
		if p.Name == name {
			return true
		}
	}
	return false
}

// absentMask is the absent bits of the named required members of n.
func (g *generator) absentMask(n *named, members ...string) uint64 {
	fields, err := g.fields(n)
	if err != nil {
		return 0
	}
	var mask uint64
	for _, f := range fields {
		for _, m := range members {
			if f.prop.Name == m && f.tracksAbsence() {
				mask |= 1 << f.bit
			}
		}
	}
	return mask
}
