package fromgo

import (
	"github.com/dave/jennifer/jen"
)

// The prompts, resources and templates of the set: their definitions and
// the functions that adapt the declared functions to runtime/features.

// stringArgs emits the statements that fill in, a struct of string fields,
// from the map args, checking each value's constraints in c.
func (e *emitter) stringArgs(t *typ, args string) []jen.Code {
	var out []jen.Code
	for _, f := range t.fields {
		target := jen.Id("in")
		for _, p := range f.path {
			target = target.Dot(p)
		}
		base := f.t
		assign := target.Clone().Op("=").Add(e.conv(base, "string", jen.Id("s")))
		if f.t.shape == sPtr {
			base = f.t.elem
			assign = target.Clone().Op("=").Op("&").Id("s")
			if conv := e.conv(base, "string", jen.Id("s")); conv != nil {
				assign = jen.Block(jen.Id("x").Op(":=").Add(conv), target.Clone().Op("=").Op("&").Id("x"))
			}
		}
		body := []jen.Code{assign}
		if checks := e.stringChecks(base, f.c); len(checks) > 0 {
			body = append(body, jen.Id("c").Dot("Enter").Call(jen.Lit(f.json)))
			body = append(body, checks...)
			body = append(body, jen.Id("c").Dot("Leave").Call())
		}
		out = append(out, jen.If(jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Id(args).Index(jen.Lit(f.json)), jen.Id("ok")).Block(body...))
	}
	return out
}

func (e *emitter) promptValue(it *item) jen.Code {
	d := jen.Dict{jen.Id("Name"): jen.Lit(it.name)}
	if v := it.attrs["title"]; v != "" {
		d[jen.Id("Title")] = jen.Lit(v)
	}
	if v := doc(it.decl); v != "" {
		d[jen.Id("Description")] = jen.Lit(v)
	}
	if e := eras(it); e != nil {
		d[jen.Id("Eras")] = e
	}
	iconsMeta(it, d)
	completer(it, d)
	var body []jen.Code
	var args []jen.Code
	if it.in != nil {
		var list []jen.Code
		for _, f := range it.in.fields {
			a := jen.Dict{jen.Id("Name"): jen.Lit(f.json)}
			if f.c.title != "" {
				a[jen.Id("Title")] = jen.Lit(f.c.title)
			}
			if desc := firstNonEmpty(f.c.description, f.doc); desc != "" {
				a[jen.Id("Description")] = jen.Lit(trim(desc))
			}
			if f.required {
				a[jen.Id("Required")] = jen.True()
			}
			list = append(list, jen.Values(a))
		}
		d[jen.Id("Arguments")] = jen.Index().Qual(featuresPath, "PromptArgument").Values(list...)
		body = append(body, jen.Var().Id("in").Add(e.typeCode(it.in.t)), jen.Id("c").Op(":=").Op("&").Qual(validPath, "Collector").Values())
		body = append(body, e.stringArgs(it.in, "args")...)
		body = append(body, jen.If(jen.Err().Op(":=").Qual(featuresPath, "Check").Call(jen.Id("c"), jen.Nil()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(""), jen.Nil(), jen.Err())))
		args = append(args, jen.Id("in"))
	}
	body = append(body, jen.List(jen.Id("out"), jen.Err()).Op(":=").Id(it.fn.Name()).Call(callArgs(it, args...)...))
	if it.outKind == "text" {
		body = append(body,
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(""), jen.Nil(), jen.Err())),
			jen.Return(jen.Lit(""), jen.Index().Qual(featuresPath, "Message").Values(jen.Qual(featuresPath, "User").Call(jen.Qual(featuresPath, "Text").Call(jen.Id("out")))), jen.Nil()))
	} else {
		body = append(body, jen.Return(jen.Lit(""), jen.Id("out"), jen.Err()))
	}
	d[jen.Id("Get")] = jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Map(jen.String()).String()).Params(jen.String(), jen.Index().Qual(featuresPath, "Message"), jen.Error()).Block(body...)
	return jen.Qual(featuresPath, "Prompt").Values(d)
}

// readBody is the end of a resource's Read: the declared function's result
// as contents.
func (e *emitter) readBody(it *item, args ...jen.Code) []jen.Code {
	var mime jen.Code
	if v := it.attrs["mimeType"]; v != "" {
		mime = jen.Lit(v)
	}
	if it.kind == "app" {
		mime = jen.Qual(featuresPath, "AppMIMEType")
	}
	call := jen.List(jen.Id("out"), jen.Err()).Op(":=").Id(it.fn.Name()).Call(callArgs(it, args...)...)
	ret := func(v jen.Code) []jen.Code {
		return []jen.Code{call, jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())), jen.Return(v, jen.Nil())}
	}
	one := func(member string) jen.Code {
		d := jen.Dict{jen.Id("URI"): jen.Id("uri"), jen.Id(member): jen.Id("out")}
		if mime != nil {
			d[jen.Id("MIMEType")] = mime
		}
		return jen.Index().Qual(featuresPath, "Contents").Values(jen.Values(d))
	}
	switch it.outKind {
	case "text":
		return ret(one("Text"))
	case "blob":
		return ret(one("Blob"))
	case "contentsOne":
		return ret(jen.Index().Qual(featuresPath, "Contents").Values(jen.Id("out")))
	}
	return []jen.Code{call, jen.Return(jen.Id("out"), jen.Err())}
}

// describe sets the members shared by resources and templates.
func describe(it *item, d jen.Dict) {
	d[jen.Id("Name")] = jen.Lit(it.name)
	if v := it.attrs["title"]; v != "" {
		d[jen.Id("Title")] = jen.Lit(v)
	}
	if v := doc(it.decl); v != "" {
		d[jen.Id("Description")] = jen.Lit(v)
	}
	if v := it.attrs["mimeType"]; v != "" {
		d[jen.Id("MIMEType")] = jen.Lit(v)
	}
	if it.kind == "app" {
		d[jen.Id("MIMEType")] = jen.Qual(featuresPath, "AppMIMEType")
	}
	iconsMeta(it, d)
}

func (e *emitter) resourceValue(it *item) jen.Code {
	d := jen.Dict{jen.Id("URI"): jen.Lit(it.arg)}
	describe(it, d)
	d[jen.Id("Read")] = jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("uri").String()).Params(jen.Index().Qual(featuresPath, "Contents"), jen.Error()).Block(e.readBody(it)...)
	return jen.Qual(featuresPath, "Resource").Values(d)
}

func (e *emitter) templateValue(it *item) jen.Code {
	d := jen.Dict{jen.Id("URITemplate"): jen.Lit(it.arg)}
	describe(it, d)
	completer(it, d)
	var body []jen.Code
	args := []jen.Code{jen.Id("uri")}
	switch {
	case it.varsMap:
		args = append(args, jen.Id("vars"))
	case it.vars != nil:
		body = append(body, jen.Var().Id("in").Add(e.typeCode(it.vars.t)), jen.Id("c").Op(":=").Op("&").Qual(validPath, "Collector").Values())
		body = append(body, e.stringArgs(it.vars, "vars")...)
		body = append(body, jen.If(jen.Err().Op(":=").Qual(featuresPath, "Check").Call(jen.Id("c"), jen.Nil()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		args = append(args, jen.Id("in"))
	}
	body = append(body, e.readBody(it, args...)...)
	d[jen.Id("Read")] = jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("uri").String(), jen.Id("vars").Map(jen.String()).String()).Params(jen.Index().Qual(featuresPath, "Contents"), jen.Error()).Block(body...)
	return jen.Qual(featuresPath, "Template").Values(d)
}

func trim(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	return s
}

// completer sets the Complete of a prompt or template with completions:
// a switch on the argument calling the function declared for it, else the
// one declared for every argument, else no values.
func completer(it *item, d jen.Dict) {
	if len(it.completes) == 0 {
		return
	}
	var cases []jen.Code
	var last jen.Code = jen.Return(jen.Nil(), jen.Nil())
	for _, c := range it.completes {
		var more []jen.Code
		if c.argName == "" {
			more = append(more, jen.Id("argument"))
		}
		more = append(more, jen.Id("value"))
		if c.resolved {
			more = append(more, jen.Id("resolved"))
		}
		call := jen.Return(jen.Id(c.fn.Name()).Call(callArgs(c, more...)...))
		if c.argName == "" {
			last = call
			continue
		}
		cases = append(cases, jen.Case(jen.Lit(c.argName)).Block(call))
	}
	var body []jen.Code
	if len(cases) > 0 {
		body = append(body, jen.Switch(jen.Id("argument")).Block(cases...))
	}
	body = append(body, last)
	d[jen.Id("Complete")] = jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.List(jen.Id("argument"), jen.Id("value")).String(), jen.Id("resolved").Map(jen.String()).String()).
		Params(jen.Index().String(), jen.Error()).Block(body...)
}
