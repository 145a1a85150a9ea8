package gen

import (
	"fmt"
	"maps"
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
	// LossCall: a typed call of the handlers' revision's Client that a
	// server of the client revision cannot be asked (a method it lacks,
	// params that do not convert); the call fails before it is sent.
	LossCall LossKind = "call"
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

// String is the loss as a line of the report.
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
	name  string
	state int // planning, ok, failed
	code  jen.Code
	s, d  *named
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
	// dropped are the members of a source definition a conversion leaves
	// out (LossDropped), by conversion: a client's call fails when its
	// params set one (NotCarriedError).
	dropped map[fkey][]*field
	depth   int
	// caches are the adapter's fields keeping the last conversion of a
	// list method's result (protocol.ResultCache), in method order.
	caches []jen.Code
	// absences are the members a source revision lacks that convert to
	// the bridge table's value for absence ("Definition.member → value").
	absences map[string]bool
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
	b := &bridgeGen{opts: opts, table: opts.Table, funcs: map[fkey]*bfunc{}, fills: map[*named]*bfunc{}, losses: map[Loss]bool{}, dropped: map[fkey][]*field{}}
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
	exported := b.plan()
	adapter := b.adapter() // may plan more conversions
	conv := b.conversions()
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
	f.ImportName(protoPkg, "protocol")
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
	rank := map[LossKind]int{LossMethod: 0, LossCall: 1, LossRequired: 2, LossMember: 3, LossZero: 4, LossDropped: 5, LossValue: 6, LossExtra: 7}
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
	fmt.Fprintf(&sb, "The same Mount, on a client (mcp.Connect), lets client code written for %s talk to servers of %s: the server's requests and notifications reach a client handler of %s converted, and the calls of the Client of %s are converted down, sent, and their results converted up. A call %s cannot carry (call, below; or params setting a member dropped toward %s) fails before it is sent, with a protocol.NotCarriedError naming it.\n\n",
		b.handler.rev, b.client.rev, b.handler.rev, b.handler.rev, b.client.rev, b.client.rev)
	sb.WriteString("What the conversions cannot carry (method: not served; call: a client call that fails before it is sent; required: not converted; member: a union member without a counterpart; zero: written as the zero value when absent; dropped: left out; value: enum values the target refuses; extra: kept in Extra):\n\n")
	if len(r.Losses) == 0 {
		sb.WriteString("\tnothing\n")
	}
	for _, l := range r.Losses {
		sb.WriteString("\t" + l.String() + "\n")
	}
	if len(b.absences) > 0 {
		fmt.Fprintf(&sb, "\nWhat %s lacks and %s requires converts to the value that means its absence (the bridge table's absent rows), never to an invalid zero value:\n\n", b.client.rev, b.handler.rev)
		for _, a := range slices.Sorted(maps.Keys(b.absences)) {
			sb.WriteString("\t" + a + "\n")
		}
	}
	return sb.String()
}

// plan plans the conversion functions of every definition both revisions
// have, both ways, and returns the exported wrappers of those that
// convert.
func (b *bridgeGen) plan() (exported []jen.Code) {
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
	return exported
}

// conversions emits the conversion functions planned, sorted by name.
func (b *bridgeGen) conversions() (funcs []jen.Code) {
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
	return funcs
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
	case s.shape == shapeStruct && dn.shape == shapeUnion:
		body, ok = b.structToUnion(d, s, dn)
		f.code = jen.Func().Id(name).Params(reqParam(), jen.Id("in").Op("*").Qual(d.src.path, s.name)).Qual(d.dst.path, dn.name).Block(body...)
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

// structToUnion converts an object of one revision to the union that
// took its place in the other (2025-06-18's ElicitRequestParams, one
// object, is 2025-11-25's union of form and URL params): to the first
// member, in the union's order, the object converts to. The losses of the
// members tried in vain are not reported.
func (b *bridgeGen) structToUnion(d dir, s, dn *named) ([]jen.Code, bool) {
	for _, mt := range dn.members {
		m := mt.underlying().named
		if m == nil || m.shape != shapeStruct {
			continue
		}
		before := maps.Clone(b.losses)
		f, ok := b.pair(d, s, m)
		if !ok {
			b.losses = before
			continue
		}
		return []jen.Code{
			jen.If(jen.Id("in").Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Id("o").Op(":=").New(jen.Qual(d.dst.path, m.name)),
			jen.Id(f.name).Call(jen.Id("r"), jen.Id("in"), jen.Id("o")),
			jen.Return(jen.Id("o")),
		}, true
	}
	return nil, false
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
			jen.If(jen.Qual(wirePkg, "UnmarshalWith").Call(jen.Id("raw"), jen.Id("v").Dot("DecodeJSON")).Op("==").Nil()).Block(out.Clone().Op("=").Id("v")),
		),
	}
}
