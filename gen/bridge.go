package gen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// BridgeSide is one of the two revisions a bridge converts between: its
// model and the package Generate made from it.
type BridgeSide struct {
	Spec *schema.Spec
	// Path is the import path of the generated package; Name its package
	// name.
	Path, Name string
}

// BridgeOptions control GenerateBridge.
type BridgeOptions struct {
	// Package is the package name of the bridge.
	Package string
	// Version is the mcpgen version named in the file headers.
	Version string
	// Client is the revision the bridge serves; Handlers the revision the
	// handlers it mounts are written for.
	Client, Handlers BridgeSide
	// Table states what differs in meaning; nil is BuiltinBridgeTable.
	Table *BridgeTable
}

// BridgeReport is what the conversions of a bridge cannot carry, found
// when it is generated: the losses, sorted.
type BridgeReport struct {
	Client, Handlers string
	Losses           []Loss
}

// LossKind says what a Loss loses.
type LossKind string

// The kinds of loss, from the worst.
const (
	// LossMethod: a method of the client revision the bridge does not
	// serve (only an override can).
	LossMethod LossKind = "method"
	// LossRequired: the target requires a member the source has no value
	// for; the definition is not converted in that direction.
	LossRequired LossKind = "required"
	// LossMember: a union member (a result, a content block) without a
	// counterpart; converted to the target's unknown member, or refused
	// as a result.
	LossMember LossKind = "member"
	// LossZero: the target requires a member the source may omit; the
	// zero value is written when it does.
	LossZero LossKind = "zero"
	// LossDropped: a member the target neither names nor keeps in Extra.
	LossDropped LossKind = "dropped"
	// LossValue: enum values of the source the target does not allow.
	LossValue LossKind = "value"
	// LossExtra: a member the target does not name, kept in its Extra.
	LossExtra LossKind = "extra"
)

// Loss is one thing a conversion cannot carry.
type Loss struct {
	// From and To are the revisions of the conversion.
	From, To string
	// Where is the definition and member ("CallToolRequestParams.task"),
	// or the method ("tools/call").
	Where string
	Kind  LossKind
	Why   string
}

func (l Loss) String() string {
	return fmt.Sprintf("%s → %s  %-8s %s: %s", l.From, l.To, l.Kind, l.Where, l.Why)
}

// Severe reports a loss that leaves something unconverted.
func (l Loss) Severe() bool { return l.Kind == LossMethod || l.Kind == LossRequired }

// bside is one revision of a bridge.
type bside struct {
	g    *generator
	path string
	rev  string
}

// qual is the Go type expression of a value type in the side's package.
func (s *bside) qual(gt *gotype) jen.Code {
	return typeCodeNamed(gt, func(name string) *jen.Statement { return jen.Qual(s.path, name) })
}

// dir is one direction of conversion.
type dir struct {
	src, dst *bside
	up       bool // client → handlers
}

func (d dir) prefix() string {
	if d.up {
		return "up"
	}
	return "down"
}

// bfunc is one generated conversion function.
type bfunc struct {
	name   string
	state  int // planning, ok, failed
	code   jen.Code
	s, d   *named
	exists bool
}

const (
	planning = iota
	converted
	failed
)

type fkey struct {
	s, d *named
	up   bool
}

// bridgeGen generates one bridge.
type bridgeGen struct {
	opts    BridgeOptions
	table   *BridgeTable
	client  *bside
	handler *bside
	funcs   map[fkey]*bfunc
	fills   map[*named]*bfunc
	losses  map[Loss]bool
	depth   int
}

// GenerateBridge emits the package that serves opts.Client's revision
// with handlers written for opts.Handlers' revision: conversions in both
// directions for every definition both revisions have (convert.gen.go),
// an adapter and Mount (bridge.gen.go), and the report of what the
// conversions cannot carry (doc.gen.go, and returned).
func GenerateBridge(opts BridgeOptions) ([]File, *BridgeReport, error) {
	if opts.Package == "" {
		return nil, nil, fmt.Errorf("gen: no package name")
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.Table == nil {
		opts.Table = BuiltinBridgeTable()
	}
	b := &bridgeGen{opts: opts, table: opts.Table, funcs: map[fkey]*bfunc{}, fills: map[*named]*bfunc{}, losses: map[Loss]bool{}}
	for _, s := range []struct {
		side BridgeSide
		out  **bside
	}{{opts.Client, &b.client}, {opts.Handlers, &b.handler}} {
		g, err := newGenerator(s.side.Spec, Options{Package: s.side.Name})
		if err != nil {
			return nil, nil, err
		}
		*s.out = &bside{g: g, path: s.side.Path, rev: s.side.Spec.Revision}
	}
	if b.client.path == b.handler.path {
		return nil, nil, fmt.Errorf("gen: a bridge needs two packages, not %s twice", b.client.path)
	}
	conv, exported := b.conversions()
	adapter := b.adapter()
	report := b.report()
	var files []File
	for _, f := range []struct {
		name string
		body []jen.Code
	}{
		{"convert.gen.go", append(exported, conv...)},
		{"bridge.gen.go", adapter},
	} {
		jf := b.file()
		for _, c := range f.body {
			jf.Add(c)
			jf.Line()
		}
		src, err := render(f.name, jf)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, File{Name: f.name, Content: src})
	}
	doc := b.file()
	doc.PackageComment(b.doc(report))
	src, err := render("doc.gen.go", doc)
	if err != nil {
		return nil, nil, err
	}
	files = append(files, File{Name: "doc.gen.go", Content: src})
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, report, nil
}

func (b *bridgeGen) file() *jen.File {
	f := jen.NewFile(b.opts.Package)
	f.HeaderComment(fmt.Sprintf("Code generated by mcpgen %s from %s (schema sha256 %s) and %s (schema sha256 %s). DO NOT EDIT.",
		b.opts.Version, b.client.rev, b.client.g.spec.SchemaSHA256, b.handler.rev, b.handler.g.spec.SchemaSHA256))
	f.ImportName(wirePkg, "wire")
	f.ImportName(mcpPkg, "mcp")
	f.ImportName(jsonrpcPk, "jsonrpc")
	f.ImportName(b.opts.Client.Path, b.opts.Client.Name)
	f.ImportName(b.opts.Handlers.Path, b.opts.Handlers.Name)
	return f
}

func (b *bridgeGen) loss(d dir, where string, kind LossKind, format string, args ...any) {
	b.losses[Loss{From: d.src.rev, To: d.dst.rev, Where: where, Kind: kind, Why: fmt.Sprintf(format, args...)}] = true
}

// report sorts the losses: by direction, kind (worst first) and place.
func (b *bridgeGen) report() *BridgeReport {
	r := &BridgeReport{Client: b.client.rev, Handlers: b.handler.rev}
	for l := range b.losses {
		r.Losses = append(r.Losses, l)
	}
	rank := map[LossKind]int{LossMethod: 0, LossRequired: 1, LossMember: 2, LossZero: 3, LossDropped: 4, LossValue: 5, LossExtra: 6}
	sort.Slice(r.Losses, func(i, j int) bool {
		a, c := r.Losses[i], r.Losses[j]
		switch {
		case a.From != c.From:
			return a.From == r.Client
		case a.Kind != c.Kind:
			return rank[a.Kind] < rank[c.Kind]
		case a.Where != c.Where:
			return a.Where < c.Where
		}
		return a.Why < c.Why
	})
	return r
}

func (b *bridgeGen) doc(r *BridgeReport) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Package %s serves revision %s of MCP with handlers written for revision %s.\n\n", b.opts.Package, b.client.rev, b.handler.rev)
	fmt.Fprintf(&sb, "It was generated by mcpgen convert from the packages %s and %s. Mount mounts a handler of %s for clients of %s: each request is decoded as %s, converted, handled and its result converted back; what %s lacks is not served. The <Definition>To and <Definition>From functions convert single values.\n\n",
		b.opts.Client.Path, b.opts.Handlers.Path, b.handler.rev, b.client.rev, b.client.rev, b.client.rev)
	sb.WriteString("What the conversions cannot carry (method: not served; required: not converted; member: a union member without a counterpart; zero: written as the zero value when absent; dropped: left out; value: enum values the target refuses; extra: kept in Extra):\n\n")
	if len(r.Losses) == 0 {
		sb.WriteString("\tnothing\n")
	}
	for _, l := range r.Losses {
		sb.WriteString("\t" + l.String() + "\n")
	}
	return sb.String()
}

// conversions emits the conversion functions of every definition both
// revisions have, both ways, and the exported wrappers of those that
// convert.
func (b *bridgeGen) conversions() (funcs, exported []jen.Code) {
	for _, up := range []bool{true, false} {
		d := b.direction(up)
		for _, sn := range d.src.g.order {
			if sn.def == nil {
				continue
			}
			dn := d.dst.g.named[sn.name]
			if dn == nil || dn.def == nil || !convertible(sn, dn) {
				continue
			}
			f, ok := b.pair(d, sn, dn)
			if !ok {
				continue
			}
			exported = append(exported, b.wrapper(d, f))
		}
	}
	all := make([]*bfunc, 0, len(b.funcs)+len(b.fills))
	for _, f := range b.funcs {
		all = append(all, f)
	}
	for _, f := range b.fills {
		all = append(all, f)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	for _, f := range all {
		if f.state == converted {
			funcs = append(funcs, f.code)
		}
	}
	return funcs, exported
}

// convertible reports definitions of shapes with conversion functions.
func convertible(s, d *named) bool {
	return (s.shape == shapeStruct && d.shape == shapeStruct) || (s.shape == shapeUnion && d.shape == shapeUnion)
}

func (b *bridgeGen) direction(up bool) dir {
	if up {
		return dir{src: b.client, dst: b.handler, up: true}
	}
	return dir{src: b.handler, dst: b.client}
}

// wrapper is the exported function converting one definition.
func (b *bridgeGen) wrapper(d dir, f *bfunc) jen.Code {
	name := f.s.name + "From"
	what := fmt.Sprintf("%s converts a %s of revision %s to revision %s.", name, f.s.name, d.src.rev, d.dst.rev)
	if d.up {
		name = f.s.name + "To"
		what = fmt.Sprintf("%s converts a %s of revision %s to revision %s.", name, f.s.name, d.src.rev, d.dst.rev)
	}
	if f.s.shape == shapeUnion {
		return jen.Comment(what).Line().Func().Id(name).Params(jen.Id("in").Qual(d.src.path, f.s.name)).Qual(d.dst.path, f.d.name).Block(
			jen.Return(jen.Id(f.name).Call(jen.Nil(), jen.Id("in"))))
	}
	return jen.Comment(what).Line().Func().Id(name).Params(jen.Id("in").Op("*").Qual(d.src.path, f.s.name)).Op("*").Qual(d.dst.path, f.d.name).Block(
		jen.If(jen.Id("in").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Id("out").Op(":=").New(jen.Qual(d.dst.path, f.d.name)),
		jen.Id(f.name).Call(jen.Nil(), jen.Id("in"), jen.Id("out")),
		jen.Return(jen.Id("out")),
	)
}

// reqParam is the first parameter of every conversion function: the
// request being served (nil outside one), for the members filled from it.
func reqParam() jen.Code { return jen.Id("r").Op("*").Qual(mcpPkg, "Request") }

// pair returns the function converting s to d (struct to struct, union to
// union), planning it on first use. A pair being planned counts as
// convertible, so recursive types convert.
func (b *bridgeGen) pair(d dir, s, dn *named) (*bfunc, bool) {
	k := fkey{s, dn, d.up}
	if f, ok := b.funcs[k]; ok {
		return f, f.state != failed
	}
	name := d.prefix() + s.name
	if s.name != dn.name {
		name += "As" + dn.name
	}
	f := &bfunc{name: name, s: s, d: dn}
	b.funcs[k] = f
	var body []jen.Code
	ok := false
	switch {
	case s.shape == shapeStruct && dn.shape == shapeStruct:
		body, ok = b.structBody(d, s, dn)
		f.code = jen.Func().Id(name).Params(reqParam(), jen.Id("in").Op("*").Qual(d.src.path, s.name), jen.Id("out").Op("*").Qual(d.dst.path, dn.name)).Block(body...)
	case s.shape == shapeUnion && dn.shape == shapeUnion:
		body, ok = b.unionBody(d, s, dn)
		f.code = jen.Func().Id(name).Params(reqParam(), jen.Id("in").Qual(d.src.path, s.name)).Qual(d.dst.path, dn.name).Block(body...)
	}
	if ok {
		f.state = converted
		what := s.name
		if s.name != dn.name {
			what += " (" + dn.name + " there)"
		}
		f.code = jen.Comment(fmt.Sprintf("%s converts a %s of %s to %s.", name, what, d.src.rev, d.dst.rev)).Line().Add(f.code)
	} else {
		f.state = failed
	}
	return f, ok
}

// fill returns the function that fills the members of n, a definition
// with request rows, from the request being served. They are computed
// once per session (mcp.Request.Memo): decoding the client's capabilities
// for every request would cost more than the rest of the conversion.
func (b *bridgeGen) fill(d dir, n *named) *bfunc {
	if f, ok := b.fills[n]; ok {
		return f
	}
	f := &bfunc{name: "fill" + n.name, d: n, state: converted}
	b.fills[n] = f
	fields, _ := d.dst.g.fields(n)
	var compute, copyOut []jen.Code
	for _, df := range fields {
		if src := b.table.request(n.name, df.prop.Name); src != "" {
			if code := b.fromRequest(d, df, src, "m"); code != nil {
				compute = append(compute, code...)
				copyOut = append(copyOut, jen.Id("out").Dot(df.name).Op("=").Id("m").Dot(df.name))
			}
		}
	}
	t := jen.Qual(d.dst.path, n.name)
	if len(copyOut) == 0 {
		// None of the rows fits this revision's members.
		f.code = jen.Comment(f.name+" would set what comes from the request; this revision has none of it.").Line().
			Func().Id(f.name).Params(reqParam(), jen.Id("out").Op("*").Add(t.Clone())).Block()
		return f
	}
	key := "memo" + n.name
	body := []jen.Code{
		jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Return()),
		jen.Id("m").Op(":=").Id("r").Dot("Memo").Call(jen.Id(key).Values(), jen.Func().Params().Any().Block(
			append(append([]jen.Code{jen.Id("m").Op(":=").New(t.Clone())}, compute...), jen.Return(jen.Id("m")))...,
		)).Assert(jen.Op("*").Add(t.Clone())),
	}
	f.code = jen.Comment(key+" is the key of "+f.name+"'s values in a session.").Line().
		Type().Id(key).Struct().Line().Line().
		Comment(f.name+" sets the members of out that come from the request, computed once per session (they must not be changed).").Line().
		Func().Id(f.name).Params(reqParam(), jen.Id("out").Op("*").Add(t.Clone())).Block(append(body, copyOut...)...)
	return f
}

// fromRequest sets a member of the value named target from the request
// being served.
func (b *bridgeGen) fromRequest(d dir, df *field, src, target string) []jen.Code {
	out := jen.Id(target).Dot(df.name)
	u := df.gt.underlying()
	switch src {
	case "protocolVersion":
		if u.shape != shapeString {
			return nil
		}
		var v jen.Code = jen.Id("r").Dot("ProtocolVersion").Call()
		if df.gt.named != nil {
			v = jen.Add(d.dst.qual(df.gt)).Parens(v)
		}
		if df.mode == modeOpt {
			v = jen.Qual(wirePkg, "Some").Call(v)
		}
		return []jen.Code{out.Clone().Op("=").Add(v)}
	}
	// clientInfo, clientCapabilities: JSON of the client's revision,
	// decoded as the target's type (what it does not name stays in Extra).
	method := map[string]string{"clientInfo": "ClientInfo", "clientCapabilities": "ClientCapabilities"}[src]
	if u.shape != shapeStruct || df.mode != modePtr {
		return nil
	}
	return []jen.Code{
		jen.If(jen.Id("raw").Op(":=").Id("r").Dot(method).Call(), jen.Id("raw").Op("!=").Nil()).Block(
			jen.Id("v").Op(":=").New(d.dst.qual(u)),
			jen.If(jen.Qual(wirePkg, "Unmarshal").Call(jen.Id("raw"), jen.Id("v")).Op("==").Nil()).Block(out.Clone().Op("=").Id("v")),
		),
	}
}

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
		switch {
		case !open:
			b.loss(d, where, LossDropped, "%s has no such member", d.dst.rev)
			continue
		case !d.up && !dn.t.OpenByDesign:
			// Toward the client, its revision's shape exactly: a member it
			// does not define is not sent (an object that carries any
			// member by design, a JSON Schema, keeps it).
			b.loss(d, where, LossDropped, "%s has no such member; its clients get their revision's shape", d.dst.rev)
			continue
		}
		code, kept := b.extra(d.src.g, f)
		if !kept {
			b.loss(d, where, LossDropped, "%s has no such member, and %s has no JSON of its own", d.dst.rev, b.describe(d.src, f))
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
	} else if f.gt.named == nil || g.isAlias(f.gt.named) || f.gt.underlying().shape == shapeUnion && f.gt.named == nil {
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
			jen.If(jen.Qual(wirePkg, "Unmarshal").Call(jen.Id("raw"), jen.Id("v")).Op("==").Nil()).Block(out.Clone().Op("=").Id("v")),
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
				jen.If(jen.Qual(wirePkg, "Unmarshal").Call(in.Clone(), out.Clone()).Op("!=").Nil()).Block(out.Clone().Op("=").Nil()),
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
		return []jen.Code{jen.Id("_").Op("=").Qual(wirePkg, "Unmarshal").Call(rhs, jen.Op("&").Add(lhs))}, true
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
		k, v, x := "k"+i[1:], "v"+i[1:], "x"+i[1:]
		inner, ok := b.assign(d, jen.Id(x), jen.Id(v), su.named.elem, du.named.elem)
		if !ok {
			return nil, false
		}
		body := append([]jen.Code{jen.Var().Id(x).Add(d.dst.qual(du.named.elem))}, inner...)
		body = append(body, lhs.Clone().Index(jen.Id(k)).Op("=").Id(x))
		return []jen.Code{jen.If(rhs.Clone().Op("!=").Nil()).Block(
			lhs.Clone().Op("=").Make(d.dst.qual(dg), jen.Len(rhs)),
			jen.For(jen.List(jen.Id(k), jen.Id(v)).Op(":=").Range().Add(rhs)).Block(body...),
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
			if ok && b.hasString(d.dst, memberNamed(dn, sub), field) {
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

// hasString reports a struct n with a required string member field.
func (b *bridgeGen) hasString(s *bside, n *named, field string) bool {
	return goFieldName(s, n, field) != ""
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
