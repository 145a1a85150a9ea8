package fromgo

import (
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// shape is how a Go type travels as JSON.
type shape int

const (
	sString shape = iota
	sBool
	sInt
	sUint
	sFloat
	sTime
	sBytes
	sRaw
	sStruct
	sSlice
	sMap
	sPtr
)

// typ is a Go type as mcpgen tools models it.
type typ struct {
	shape shape
	// t is the Go type; bits the size of a number.
	t    types.Type
	bits int
	// elem is the element of a slice, map or pointer.
	elem *typ
	// Structs: their name (for the generated functions), fields and doc.
	name   string
	fields []*field
	doc    string
	// enum are the values of a named string type's constants.
	enum []string
}

// field is one member of a struct.
type field struct {
	// path selects the field from the struct (more than one element for
	// the fields of embedded structs).
	path     []string
	json     string
	t        *typ
	required bool
	omit     bool // omitempty or omitzero
	doc      string
	c        constraints
}

// constraints are what an mcp struct tag declares.
type constraints struct {
	enum               []string
	min, max           *float64
	exclMin, exclMax   bool
	minLen, maxLen     int // maxLen < 0: none
	minItems, maxItems int // maxItems < 0: none
	pattern            string
	format             string
	title              string
	description        string
}

func noConstraints() constraints { return constraints{maxLen: -1, maxItems: -1} }

// modeler models the types of the declarations.
type modeler struct {
	l *loader
	// structs are the modelled named structs, in the order first met.
	structs []*typ
	byType  map[types.Type]*typ
	// busy are the structs being modelled, to refuse recursion.
	busy map[types.Type]bool
	// tools … are the declarations, modelled.
	items []*item
}

// item is a modelled declaration.
type item struct {
	*decl
	name string
	// req reports a function that also takes the *mcp.Request.
	req bool
	in  *typ // arguments (nil: none)
	// out is the result; outKind how it becomes one.
	out     *typ
	outKind string // structured, text, result, content, messages, contents, contentsOne, blob
	// vars is a template's variables struct (nil: a map or none);
	// varsMap reports a map[string]string.
	vars    *typ
	varsMap bool
	varsArg bool
	// completes are a prompt's or template's completions (//mcp:complete).
	completes []*item
	// Of a completion: its argument (or variable; "" for one function
	// completing every argument), and whether the function also takes
	// the arguments already resolved.
	argName  string
	resolved bool
}

func newModeler(l *loader) *modeler {
	return &modeler{l: l, byType: map[types.Type]*typ{}, busy: map[types.Type]bool{}}
}

const (
	mcpPath      = "github.com/mcpgen/mcpgen/runtime/mcp"
	featuresPath = "github.com/mcpgen/mcpgen/runtime/features"
)

// declare models one declaration's function.
func (m *modeler) declare(d *decl) error {
	sig := d.fn.Type().(*types.Signature)
	it := &item{decl: d, name: d.arg}
	if v, ok := d.attrs["visible"]; ok {
		f, isFunc := m.l.pkg.Types.Scope().Lookup(v).(*types.Func)
		var sig *types.Signature
		if isFunc {
			sig, _ = f.Type().(*types.Signature)
		}
		if sig == nil || sig.Params().Len() != 1 || !isNamed(sig.Params().At(0).Type(), "context", "Context") ||
			sig.Results().Len() != 1 || !isBasic(sig.Results().At(0).Type(), types.Bool) {
			return fmt.Errorf("%s: %s %s: visible=%s: want a package-level func(context.Context) bool (mcp.PrincipalFrom(ctx) is who asks)", d.pos, d.kind, d.fn.Name(), v)
		}
	}
	if v, ok := d.attrs["meta"]; ok && isIdent(v) {
		if _, isVar := m.l.pkg.Types.Scope().Lookup(v).(*types.Var); !isVar {
			return fmt.Errorf("%s: %s %s: meta=%s names no package-level variable", d.pos, d.kind, d.fn.Name(), v)
		}
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s %s: %s", d.pos, d.kind, d.fn.Name(), fmt.Sprintf(format, a...))
	}
	// failed reports an error of a type the declaration uses: at the field
	// it is about, when it is about one.
	failed := func(err error) error {
		if fe, ok := errors.AsType[*fieldError](err); ok {
			return fmt.Errorf("%s: %v (in %s %s, declared at %s)", fe.pos, fe.err, d.kind, d.fn.Name(), d.pos)
		}
		return fail("%v", err)
	}
	if sig.TypeParams().Len() > 0 {
		return fail("generic functions cannot be declared")
	}
	params := sig.Params()
	if params.Len() == 0 || !isNamed(params.At(0).Type(), "context", "Context") {
		return fail("the first parameter must be a context.Context")
	}
	i := 1
	if i < params.Len() && isPtrTo(params.At(i).Type(), mcpPath, "Request") {
		it.req = true
		i++
	}
	rest := params.Len() - i
	res := sig.Results()
	if res.Len() != 2 || !isNamed(res.At(1).Type(), "", "error") {
		return fail("want results (T, error)")
	}
	rt := res.At(0).Type()
	switch d.kind {
	case "tool":
		if it.name == "" {
			it.name = snake(d.fn.Name())
		}
		if rest > 1 {
			return fail("want func(ctx[, *mcp.Request][, In]) (Out, error)")
		}
		if rest == 1 {
			in, err := m.typeOf(params.At(i).Type(), d.fn.Name()+" arguments")
			if err != nil {
				return failed(err)
			}
			if in.shape != sStruct {
				return fail("the arguments must be a struct type (an object), not %s", params.At(i).Type())
			}
			it.in = in
		}
		switch {
		case isPtrTo(rt, featuresPath, "Result"):
			it.outKind = "result"
		case isSliceOf(rt, featuresPath, "Content"):
			it.outKind = "content"
		case isBasic(rt, types.String):
			it.outKind = "text"
		default:
			out, err := m.typeOf(rt, d.fn.Name()+" result")
			if err != nil {
				return failed(err)
			}
			if s := out.shape; s != sStruct && !(s == sPtr && out.elem.shape == sStruct) {
				return fail("the result must be a struct (structuredContent is an object), a string, []features.Content or *features.Result, not %s", rt)
			}
			it.out, it.outKind = out, "structured"
		}
	case "prompt":
		if it.name == "" {
			it.name = snake(d.fn.Name())
		}
		if rest > 1 {
			return fail("want func(ctx[, *mcp.Request][, Args]) ([]features.Message, error)")
		}
		if rest == 1 {
			in, err := m.typeOf(params.At(i).Type(), d.fn.Name()+" arguments")
			if err != nil {
				return failed(err)
			}
			if err := stringFields(in); err != nil {
				return failed(err)
			}
			it.in = in
		}
		switch {
		case isSliceOf(rt, featuresPath, "Message"):
			it.outKind = "messages"
		case isBasic(rt, types.String):
			it.outKind = "text"
		default:
			return fail("a prompt returns []features.Message or string, not %s", rt)
		}
	case "complete":
		if d.arg == "" {
			return fail("the directive needs what it completes: a prompt's name or a template's URI template")
		}
		it.argName = d.attrs["arg"]
		strs := 1 // value
		if it.argName == "" {
			strs = 2 // argument, value
		}
		ok := rest == strs || rest == strs+1
		for k := range strs {
			ok = ok && isBasic(params.At(i+k).Type(), types.String)
		}
		if ok && rest == strs+1 {
			mt, isMap := params.At(i + strs).Type().Underlying().(*types.Map)
			ok = isMap && isBasic(mt.Key(), types.String) && isBasic(mt.Elem(), types.String)
			it.resolved = true
		}
		sl, isSlice := rt.(*types.Slice)
		if !ok || !isSlice || !isBasic(sl.Elem(), types.String) {
			return fail("want func(ctx[, *mcp.Request]%s, value string[, resolved map[string]string]) ([]string, error)", map[bool]string{true: ", argument string"}[it.argName == ""])
		}
	case "resource", "template", "app":
		if d.kind == "app" && !strings.HasPrefix(d.arg, "ui://") {
			return fail("an MCP App's UI resource has a ui:// URI, not %q", d.arg)
		}
		if v, ok := d.attrs["permissions"]; ok {
			for _, p := range strings.Split(v, ",") {
				if !slices.Contains([]string{"camera", "microphone", "geolocation", "clipboardWrite"}, p) {
					return fail("permissions: %q is none of camera, microphone, geolocation, clipboardWrite", p)
				}
			}
		}
		if d.arg == "" {
			return fail("the directive needs the URI%s", map[bool]string{true: " template"}[d.kind == "template"])
		}
		it.name = d.attrs["name"]
		if it.name == "" {
			it.name = snake(d.fn.Name())
		}
		want := 0
		if d.kind == "template" {
			want = 1
		}
		if rest < want || rest > want+1 {
			return fail("want func(ctx[, *mcp.Request]%s) (string | []byte | []features.Contents, error)", map[bool]string{true: ", uri string[, Vars]"}[d.kind == "template"])
		}
		if d.kind == "template" {
			if !isBasic(params.At(i).Type(), types.String) {
				return fail("the parameter after the context is the URI, a string")
			}
			if rest == 2 {
				it.varsArg = true
				vt := params.At(i + 1).Type()
				if mt, ok := vt.Underlying().(*types.Map); ok && isBasic(mt.Key(), types.String) && isBasic(mt.Elem(), types.String) {
					it.varsMap = true
				} else {
					vars, err := m.typeOf(vt, d.fn.Name()+" variables")
					if err != nil {
						return failed(err)
					}
					if err := stringFields(vars); err != nil {
						return failed(err)
					}
					for _, name := range templateVars(d.arg) {
						if vars.fieldNamed(name) == nil {
							return fail("the template's variable {%s} has no field in %s", name, vt)
						}
					}
					it.vars = vars
				}
			}
		}
		switch {
		case isBasic(rt, types.String):
			it.outKind = "text"
		case isByteSlice(rt):
			it.outKind = "blob"
		case isSliceOf(rt, featuresPath, "Contents"):
			it.outKind = "contents"
		case isNamed(rt, featuresPath, "Contents"):
			it.outKind = "contentsOne"
		default:
			return fail("a resource returns string, []byte, features.Contents or []features.Contents, not %s", rt)
		}
	}
	m.items = append(m.items, it)
	return nil
}

// stringFields checks that a prompt's arguments or a template's variables
// are strings.
func stringFields(t *typ) error {
	if t.shape != sStruct {
		return fmt.Errorf("want a struct of string fields, not %s", t.t)
	}
	for _, f := range t.fields {
		s := f.t.shape
		if s == sPtr {
			s = f.t.elem.shape
		}
		if s != sString {
			return fmt.Errorf("%s.%s: prompt arguments and template variables are strings, not %s", t.name, strings.Join(f.path, "."), f.t.t)
		}
	}
	return nil
}

func (t *typ) fieldNamed(json string) *field {
	for _, f := range t.fields {
		if f.json == json {
			return f
		}
	}
	return nil
}

// typeOf models a Go type; where names it in errors.
func (m *modeler) typeOf(t types.Type, where string) (*typ, error) {
	if x, ok := m.byType[t]; ok {
		return x, nil
	}
	switch {
	case isNamed(t, "time", "Time"):
		return &typ{shape: sTime, t: t}, nil
	case isNamed(t, "encoding/json", "RawMessage"), isNamed(t, "github.com/mcpgen/mcpgen/runtime/wire", "Raw"):
		return &typ{shape: sRaw, t: t}, nil
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		x := &typ{t: t}
		switch {
		case u.Kind() == types.String:
			x.shape = sString
			x.enum = m.constants(t)
		case u.Kind() == types.Bool:
			x.shape = sBool
		case u.Info()&types.IsInteger != 0 && u.Info()&types.IsUnsigned == 0:
			x.shape, x.bits = sInt, intBits(u.Kind())
		case u.Info()&types.IsUnsigned != 0 && u.Kind() != types.Uintptr:
			x.shape, x.bits = sUint, intBits(u.Kind())
		case u.Kind() == types.Float32:
			x.shape, x.bits = sFloat, 32
		case u.Kind() == types.Float64:
			x.shape, x.bits = sFloat, 64
		default:
			return nil, fmt.Errorf("%s: %s has no JSON Schema", where, t)
		}
		return x, nil
	case *types.Pointer:
		elem, err := m.typeOf(u.Elem(), where)
		if err != nil {
			return nil, err
		}
		if elem.shape == sPtr {
			return nil, fmt.Errorf("%s: %s: a pointer to a pointer has no JSON Schema", where, t)
		}
		return &typ{shape: sPtr, t: t, elem: elem}, nil
	case *types.Slice:
		if isBasic(u.Elem(), types.Byte) {
			return &typ{shape: sBytes, t: t}, nil
		}
		elem, err := m.typeOf(u.Elem(), where+"[]")
		if err != nil {
			return nil, err
		}
		return &typ{shape: sSlice, t: t, elem: elem}, nil
	case *types.Map:
		if k, ok := u.Key().Underlying().(*types.Basic); !ok || k.Kind() != types.String {
			return nil, fmt.Errorf("%s: %s: a map's keys must be strings (JSON object keys)", where, t)
		}
		elem, err := m.typeOf(u.Elem(), where+"[key]")
		if err != nil {
			return nil, err
		}
		return &typ{shape: sMap, t: t, elem: elem}, nil
	case *types.Struct:
		named, ok := t.(*types.Named)
		if !ok {
			return nil, fmt.Errorf("%s: an anonymous struct: give it a name (its decoder and schema are named after it)", where)
		}
		if named.TypeArgs().Len() > 0 {
			return nil, fmt.Errorf("%s: %s: generic types are not supported", where, t)
		}
		if m.busy[t] {
			return nil, fmt.Errorf("%s: %s refers to itself: recursive types are not supported", where, t)
		}
		m.busy[t] = true
		defer delete(m.busy, t)
		x := &typ{shape: sStruct, t: t, name: named.Obj().Name(), doc: m.l.docs[named.Obj().Pos()]}
		if named.Obj().Pkg() != nil && named.Obj().Pkg().Path() != m.l.pkg.PkgPath {
			x.name = exported(named.Obj().Pkg().Name()) + x.name
		}
		if err := m.structFields(x, u, nil, named.Obj().Name()); err != nil {
			return nil, err
		}
		m.byType[t] = x
		m.structs = append(m.structs, x)
		return x, nil
	}
	if _, ok := t.Underlying().(*types.Interface); ok {
		return nil, fmt.Errorf("%s: %s has no JSON Schema: an interface cannot travel as JSON; for any JSON value use json.RawMessage (or wire.Raw), for one of several shapes a struct with a field for each", where, t)
	}
	return nil, fmt.Errorf("%s: %s has no JSON Schema (channels, functions and complex numbers cannot travel as JSON)", where, t)
}

// attachCompletions gives each completion to the prompt or template it
// completes, checking that the argument (or variable) exists and has one
// completion at most.
func (m *modeler) attachCompletions() error {
	var items []*item
	for _, it := range m.items {
		if it.kind != "complete" {
			items = append(items, it)
			continue
		}
		var target *item
		var names []string
		for _, t := range m.items {
			switch {
			case t.kind == "prompt" && t.name == it.arg:
				target = t
				if t.in != nil {
					for _, f := range t.in.fields {
						names = append(names, f.json)
					}
				}
			case t.kind == "template" && t.arg == it.arg:
				target = t
				names = templateVars(t.arg)
			}
		}
		if target == nil {
			return fmt.Errorf("%s: complete %s: %s is no prompt or template declared in the package", it.pos, it.fn.Name(), it.arg)
		}
		if it.argName != "" && !slices.Contains(names, it.argName) {
			return fmt.Errorf("%s: complete %s: %s has no argument %q (it has %s)", it.pos, it.fn.Name(), it.arg, it.argName, strings.Join(names, ", "))
		}
		for _, c := range target.completes {
			if c.argName == it.argName {
				return fmt.Errorf("%s: complete %s: %s's %s is completed by %s already", it.pos, it.fn.Name(), it.arg, map[bool]string{true: "arguments", false: "argument " + it.argName}[it.argName == ""], c.fn.Name())
			}
		}
		target.completes = append(target.completes, it)
	}
	m.items = items
	return nil
}

// checkApps checks that each tool linked to an MCP App (app=) names a UI
// resource the package declares (//mcp:app), and how it is shown.
func (m *modeler) checkApps() error {
	for _, it := range m.items {
		uri, ok := it.attrs["app"]
		if !ok {
			if _, vis := it.attrs["appVisibility"]; vis {
				return fmt.Errorf("%s: tool %s: appVisibility without app=", it.pos, it.fn.Name())
			}
			continue
		}
		if !slices.ContainsFunc(m.items, func(a *item) bool { return a.kind == "app" && a.arg == uri }) {
			return fmt.Errorf("%s: tool %s: app=%s: no //mcp:app declares that UI resource in the package", it.pos, it.fn.Name(), uri)
		}
		if v, ok := it.attrs["appVisibility"]; ok {
			for _, w := range strings.Split(v, ",") {
				if w != "model" && w != "app" {
					return fmt.Errorf("%s: tool %s: appVisibility: %q is neither model nor app", it.pos, it.fn.Name(), w)
				}
			}
		}
		if v, ok := it.attrs["meta"]; ok && isIdent(v) {
			return fmt.Errorf("%s: tool %s: app= with meta=%s: put ui.resourceUri in the value, or give meta as JSON", it.pos, it.fn.Name(), v)
		}
	}
	return nil
}

// fieldError is an error about a struct field, at its position.
type fieldError struct {
	pos token.Position
	err error
}

func (e *fieldError) Error() string { return fmt.Sprintf("%s: %v", e.pos, e.err) }
func (e *fieldError) Unwrap() error { return e.err }

// checkTagKeys warns of a struct tag key one edit from one mcpgen reads
// (mpc:"minimum=1", jsno:"name"): its constraints or name would be
// dropped in silence.
func (m *modeler) checkTagKeys(f *types.Var, tag, owner string) {
	for _, key := range tagKeys(tag) {
		for _, known := range []string{"mcp", "json"} {
			if key != known && editDistance(key, known) == 1 {
				m.l.warn(m.l.pkg.Fset.Position(f.Pos()), "%s.%s: the struct tag key %q is not read (mcpgen reads %s:\"…\"), so what it says is dropped: write %s", owner, f.Name(), key, known, known)
			}
		}
	}
}

// tagKeys are the keys of a struct tag in the conventional format
// (key:"value" pairs separated by spaces), as reflect.StructTag reads it.
func tagKeys(tag string) []string {
	var keys []string
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		i := 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		key := tag[:i]
		tag = tag[i+1:]
		// The quoted value, escapes included.
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		keys = append(keys, key)
		tag = tag[i+1:]
	}
	return keys
}

// checkDuplicates refuses two declarations of one name (tools, prompts)
// or URI (resources and apps, templates): a client would reach only one
// of them, and server.json would list the name twice. The error names
// both positions.
func (m *modeler) checkDuplicates() error {
	seen := map[string]*item{}
	for _, it := range m.items {
		var key, what string
		switch it.kind {
		case "tool", "prompt":
			key, what = it.kind+"\x00"+it.name, it.kind+" "+strconv.Quote(it.name)
		case "resource", "app":
			key, what = "resource\x00"+it.arg, "resource URI "+strconv.Quote(it.arg)
		case "template":
			key, what = "template\x00"+it.arg, "URI template "+strconv.Quote(it.arg)
		default:
			continue
		}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s: %s %s: the %s is declared twice, here and at %s (%s %s): a client would reach only one of them; rename one or remove it", it.pos, it.kind, it.fn.Name(), what, prev.pos, prev.kind, prev.fn.Name())
		}
		seen[key] = it
	}
	return nil
}

// atField places err at field f, unless it is about a field already (one
// of a nested struct's).
func (m *modeler) atField(f *types.Var, err error) error {
	if _, ok := errors.AsType[*fieldError](err); ok {
		return err
	}
	return &fieldError{pos: m.l.pkg.Fset.Position(f.Pos()), err: err}
}

// structFields models the fields of s into x, promoting those of embedded
// structs as encoding/json does.
func (m *modeler) structFields(x *typ, s *types.Struct, prefix []string, owner string) error {
	for i := range s.NumFields() {
		f := s.Field(i)
		tag := reflect.StructTag(s.Tag(i))
		m.checkTagKeys(f, s.Tag(i), owner)
		jsonTag, hasJSON := tag.Lookup("json")
		name, opts, _ := strings.Cut(jsonTag, ",")
		if name == "-" && opts == "" {
			continue
		}
		path := append(append([]string(nil), prefix...), f.Name())
		if f.Embedded() && !hasJSON {
			if st, ok := f.Type().Underlying().(*types.Struct); ok {
				if _, isPtr := f.Type().(*types.Pointer); !isPtr {
					if err := m.structFields(x, st, path, owner); err != nil {
						return err
					}
					continue
				}
			}
			if _, isPtr := f.Type().(*types.Pointer); isPtr {
				return fmt.Errorf("%s.%s: an embedded pointer: embed the struct itself", owner, f.Name())
			}
		}
		if !f.Exported() {
			continue
		}
		if name == "" {
			name = f.Name()
		}
		ft, err := m.typeOf(f.Type(), owner+"."+strings.Join(path, "."))
		if err != nil {
			return m.atField(f, err)
		}
		fd := &field{path: path, json: name, t: ft, doc: m.l.docs[f.Pos()]}
		fd.omit = strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		fd.required = !fd.omit && ft.shape != sPtr
		if fd.c, err = parseConstraints(tag.Get("mcp"), ft); err != nil {
			return m.atField(f, fmt.Errorf("%s.%s: mcp tag: %w", owner, strings.Join(path, "."), err))
		}
		if tag.Get("mcp") != "" && strings.Contains(","+tag.Get("mcp")+",", ",required,") {
			fd.required = true
		}
		if ft.shape == sPtr && !fd.required {
			// Optional: left out when nil (its schema has no null).
			fd.omit = true
		}
		if prev := x.fieldNamed(name); prev != nil {
			return m.atField(f, fmt.Errorf("%s.%s: the JSON name %q is also %s's", owner, strings.Join(path, "."), name, strings.Join(prev.path, ".")))
		}
		x.fields = append(x.fields, fd)
	}
	if n := len(x.fields); n > 64 {
		return fmt.Errorf("%s: %d fields: at most 64 are supported", owner, n)
	}
	return nil
}

// parseConstraints reads an mcp struct tag: comma-separated enum=a|b,
// minimum=, maximum=, exclusiveMinimum=, exclusiveMaximum=, minLength=,
// maxLength=, minItems=, maxItems=, format=, title=, description=,
// required, and pattern= (last: it takes the rest of the tag).
func parseConstraints(tag string, t *typ) (constraints, error) {
	c := noConstraints()
	base := t
	for base.shape == sPtr || base.shape == sSlice {
		base = base.elem
	}
	for tag != "" {
		var item string
		if strings.HasPrefix(tag, "pattern=") {
			item, tag = tag, ""
		} else {
			item, tag, _ = strings.Cut(tag, ",")
		}
		key, val, _ := strings.Cut(item, "=")
		num := func() (*float64, error) {
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%s=%s: not a number", key, val)
			}
			if (base.shape == sInt || base.shape == sUint) && f != math.Trunc(f) {
				return nil, fmt.Errorf("%s=%s: an integer's bound is an integer", key, val)
			}
			return &f, nil
		}
		count := func() (int, error) {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("%s=%s: not a count", key, val)
			}
			return n, nil
		}
		isNum := base.shape == sInt || base.shape == sUint || base.shape == sFloat
		var err error
		switch key {
		case "enum":
			if base.shape != sString {
				return c, fmt.Errorf("enum is for strings")
			}
			c.enum = strings.Split(val, "|")
		case "minimum", "min", "exclusiveMinimum":
			if !isNum {
				return c, fmt.Errorf("%s is for numbers", key)
			}
			c.min, err = num()
			c.exclMin = key == "exclusiveMinimum"
		case "maximum", "max", "exclusiveMaximum":
			if !isNum {
				return c, fmt.Errorf("%s is for numbers", key)
			}
			c.max, err = num()
			c.exclMax = key == "exclusiveMaximum"
		case "minLength", "maxLength", "pattern", "format":
			if base.shape != sString {
				return c, fmt.Errorf("%s is for strings", key)
			}
			switch key {
			case "minLength":
				c.minLen, err = count()
			case "maxLength":
				c.maxLen, err = count()
			case "pattern":
				if _, rerr := regexp.Compile(val); rerr != nil {
					return c, fmt.Errorf("pattern: %v", rerr)
				}
				c.pattern = val
			case "format":
				switch val {
				case "uri", "date", "date-time":
				default:
					return c, fmt.Errorf("format %q: mcpgen checks uri, date and date-time", val)
				}
				c.format = val
			}
		case "minItems", "maxItems":
			if t.shape != sSlice && !(t.shape == sPtr && t.elem.shape == sSlice) {
				return c, fmt.Errorf("%s is for slices", key)
			}
			if key == "minItems" {
				c.minItems, err = count()
			} else {
				c.maxItems, err = count()
			}
		case "title":
			c.title = val
		case "description":
			c.description = val
		case "required":
		default:
			return c, fmt.Errorf("unknown constraint %q (want enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, format, minItems, maxItems, title, description, required)", key)
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// constants are the values of the string constants of a named type
// declared in the package, in declaration order (its enum).
func (m *modeler) constants(t types.Type) []string {
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != m.l.pkg.PkgPath {
		return nil
	}
	scope := m.l.pkg.Types.Scope()
	type cv struct {
		pos int
		v   string
	}
	var vals []cv
	for _, n := range scope.Names() {
		c, ok := scope.Lookup(n).(*types.Const)
		if !ok || !types.Identical(c.Type(), t) {
			continue
		}
		s, err := strconv.Unquote(c.Val().ExactString())
		if err == nil {
			vals = append(vals, cv{int(c.Pos()), s})
		}
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i].pos < vals[j].pos })
	var out []string
	for _, v := range vals {
		out = append(out, v.v)
	}
	return out
}

func intBits(k types.BasicKind) int {
	switch k {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	}
	return 64
}

// intRange is the range of an integer type.
func intRange(t *typ) (lo, hi string) {
	if t.shape == sUint {
		return "0", strconv.FormatUint(uint64(1)<<t.bits-1, 10)
	}
	return strconv.FormatInt(-1<<(t.bits-1), 10), strconv.FormatInt(1<<(t.bits-1)-1, 10)
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := t.(*types.Named)
	if !ok {
		return pkg == "" && types.Identical(t, types.Universe.Lookup(name).Type())
	}
	o := n.Obj()
	if pkg == "" {
		return o.Pkg() == nil && o.Name() == name
	}
	return o.Pkg() != nil && o.Pkg().Path() == pkg && o.Name() == name
}

func isPtrTo(t types.Type, pkg, name string) bool {
	p, ok := t.(*types.Pointer)
	return ok && isNamed(p.Elem(), pkg, name)
}

func isSliceOf(t types.Type, pkg, name string) bool {
	s, ok := t.(*types.Slice)
	return ok && isNamed(s.Elem(), pkg, name)
}

func isBasic(t types.Type, k types.BasicKind) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == k
}

func isByteSlice(t types.Type) bool {
	s, ok := t.(*types.Slice)
	return ok && isBasic(s.Elem(), types.Byte)
}

// snake turns a Go name into a tool name: getWeather → get_weather.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func exported(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// templateVars lists the variables of a URI template.
func templateVars(t string) []string {
	var out []string
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, strings.TrimLeft(t[i+1:i+j], "+#"))
		t = t[i+j+1:]
	}
}
