package gen

import (
	"fmt"
	"sort"

	"github.com/mcpgen/mcpgen/schema"
)

// shape is how a model type is represented in Go.
type shape int

const (
	shapeStruct      shape = iota + 1 // object with members: struct
	shapeRawObject                    // object of any members: named wire.Raw holding an object
	shapeMap                          // object of typed members only: named []wire.Entry[T], in member order
	shapeUnion                        // anyOf: sealed interface
	shapeAnyJSON                      // any JSON value: named wire.Raw
	shapeStringOrInt                  // string | integer: wire.StringOrInt
	shapeEnum                         // string enum: named string with constants
	shapeString                       // string
	shapeInt                          // int64
	shapeFloat                        // float64
	shapeBool                         // bool
	shapeNull                         // null (a union member only)
	shapeSlice                        // array: []T
	shapeAlias                        // a definition that is another definition
)

// named is a Go type the generator declares: a definition or a named
// inline type.
type named struct {
	name  string
	shape shape
	t     *schema.Type // the model type (for definitions, the definition's type)
	def   *schema.Def  // nil for inline types
	doc   string
	// elem is the element type of a slice, or the value type of a map.
	elem *gotype
	// unions lists the unions this type is a member of (marker methods).
	unions []*named
	// union is the model union of a shapeUnion.
	union *schema.Union
	// members are a union's member Go types, in model order.
	members []*gotype
	// alias is the target of a shapeAlias.
	alias *gotype
	// replyOf is the method whose Reply union this is.
	replyOf *schema.Method
}

// gotype is the Go type of a value position (field, element, member).
type gotype struct {
	shape shape
	named *named  // for named types; nil for builtins and slices
	elem  *gotype // slice element
	t     *schema.Type
}

// generator holds the model and the Go view of it.
type generator struct {
	spec  *schema.Spec
	opts  Options
	named map[string]*named
	order []*named // sorted by name
	// byType maps model types that carry a name to their named type.
	byType map[*schema.Type]*named
	// needs memoizes whether a named type has anything to validate.
	needs map[*named]bool
}

func newGenerator(spec *schema.Spec, opts Options) (*generator, error) {
	g := &generator{spec: spec, opts: opts, named: map[string]*named{}, byType: map[*schema.Type]*named{}}
	for _, d := range spec.Defs {
		if err := g.declare(d.Name, d.Type, d, d.Doc.Text); err != nil {
			return nil, err
		}
	}
	for _, m := range spec.Methods {
		if m.Reply != nil {
			t := &schema.Type{Kind: schema.AnyOf, Union: m.Reply, Path: m.Reply.Path}
			if err := g.declare(m.Reply.Name, t, nil, ""); err != nil {
				return nil, err
			}
			g.named[m.Reply.Name].replyOf = m
		}
	}
	// Resolve elements, members and aliases now that every name exists.
	for _, n := range g.sorted() {
		if err := g.complete(n); err != nil {
			return nil, err
		}
	}
	g.order = g.sorted()
	// Reject what the generator cannot represent before emitting anything.
	for _, n := range g.order {
		if n.shape == shapeStruct {
			if _, err := g.fields(n); err != nil {
				return nil, fmt.Errorf("%s#%w", spec.JSONPath, err)
			}
		}
	}
	return g, nil
}

func (g *generator) sorted() []*named {
	out := make([]*named, 0, len(g.named))
	for _, n := range g.named {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// declare registers the named type for t and, recursively, the named inline
// types inside it.
func (g *generator) declare(name string, t *schema.Type, def *schema.Def, doc string) error {
	if prev, ok := g.named[name]; ok {
		return fmt.Errorf("gen: two types named %s (%s and %s)", name, prev.t.Path, t.Path)
	}
	n := &named{name: name, t: t, def: def, doc: doc}
	n.shape = g.shapeOf(t, def != nil)
	g.named[name] = n
	g.byType[t] = n
	if n.shape == shapeStringOrInt || n.shape == shapeAnyJSON || n.shape == shapeRawObject {
		// Kept as wire types or raw JSON: what is inside needs no Go type.
		return nil
	}
	return g.declareInner(t)
}

// declareInner declares the named inline types within t.
func (g *generator) declareInner(t *schema.Type) error {
	visit := func(c *schema.Type) error {
		if c == nil || c.Kind == schema.Ref {
			return nil
		}
		if c.Name != "" {
			if _, done := g.byType[c]; done {
				return nil
			}
			return g.declare(c.Name, c, nil, c.Doc)
		}
		return g.declareInner(c)
	}
	for c := range t.Children() {
		if err := visit(c); err != nil {
			return err
		}
	}
	return nil
}

// shapeOf decides the Go representation of a named model type.
func (g *generator) shapeOf(t *schema.Type, isDef bool) shape {
	switch t.Kind {
	case schema.Ref:
		return shapeAlias
	case schema.Object:
		switch {
		case len(t.Props) > 0:
			return shapeStruct
		case t.Additional == schema.Typed && !g.anyJSON(t.AdditionalType, map[*schema.Type]bool{}):
			return shapeMap
		default:
			return shapeRawObject
		}
	case schema.AnyOf:
		switch {
		case g.anyJSON(t, map[*schema.Type]bool{}):
			return shapeAnyJSON
		case isStringOrInt(t):
			return shapeStringOrInt
		}
		return shapeUnion
	case schema.String:
		if len(t.Enum) > 0 {
			return shapeEnum
		}
		return shapeString
	case schema.Integer:
		return shapeInt
	case schema.Number:
		return shapeFloat
	case schema.Boolean:
		return shapeBool
	case schema.Null:
		return shapeNull
	case schema.Array:
		return shapeSlice
	case schema.Any:
		return shapeAnyJSON
	}
	return shapeAnyJSON
}

// isStringOrInt reports the string | integer union of ids and tokens.
func isStringOrInt(t *schema.Type) bool {
	if t.Kind != schema.AnyOf || len(t.Union.Members) != 2 {
		return false
	}
	var s, i bool
	for _, m := range t.Union.Members {
		s = s || m.Kind == schema.String && m.Const == nil && len(m.Enum) == 0
		i = i || m.Kind == schema.Integer && m.Const == nil
	}
	return s && i
}

// anyJSON reports a type that admits every JSON value (JSONValue, an
// object of any members): it is kept as raw JSON text.
func (g *generator) anyJSON(t *schema.Type, seen map[*schema.Type]bool) bool {
	if t == nil {
		return true
	}
	if seen[t] {
		return true
	}
	seen[t] = true
	switch t.Kind {
	case schema.Any:
		return true
	case schema.Ref:
		d := g.spec.Def(t.Ref)
		return d != nil && g.anyJSON(d.Type, seen)
	case schema.AnyOf:
		kinds := map[schema.Kind]bool{}
		for _, m := range t.Union.Members {
			r := g.resolve(m)
			switch r.Kind {
			case schema.Object:
				if len(r.Props) > 0 || (r.Additional == schema.Typed && !g.anyJSON(r.AdditionalType, seen)) || r.Additional == schema.Closed {
					return false
				}
			case schema.Array:
				if !g.anyJSON(r.Items, seen) {
					return false
				}
			case schema.String:
				if r.Const != nil || len(r.Enum) > 0 && !r.EnumOpen || r.Format != "" {
					return false
				}
			case schema.Integer, schema.Number:
				if r.Const != nil || r.Minimum != nil || r.Maximum != nil {
					return false
				}
				if r.Kind == schema.Integer {
					return false // integers only: not every number
				}
			case schema.Boolean, schema.Null:
			default:
				return false
			}
			kinds[r.Kind] = true
		}
		return kinds[schema.Object] && kinds[schema.Array] && kinds[schema.String] && kinds[schema.Number] && kinds[schema.Boolean] && kinds[schema.Null]
	}
	return false
}

// resolve follows references to the definition's type.
func (g *generator) resolve(t *schema.Type) *schema.Type {
	for i := 0; t != nil && t.Kind == schema.Ref && i < 64; i++ {
		d := g.spec.Def(t.Ref)
		if d == nil {
			return t
		}
		t = d.Type
	}
	return t
}

// complete fills in the parts of n that need other names.
func (g *generator) complete(n *named) error {
	switch n.shape {
	case shapeAlias:
		n.alias = g.goType(n.t)
	case shapeMap:
		n.elem = g.goType(n.t.AdditionalType)
	case shapeSlice:
		n.elem = g.goType(n.t.Items)
	case shapeUnion:
		n.union = n.t.Union
		for _, m := range n.t.Union.Members {
			mt := g.goType(m)
			n.members = append(n.members, mt)
			if mt.named == nil {
				return fmt.Errorf("gen: union %s has an unnamed member at %s", n.name, m.Path)
			}
			target := mt.named
			for target.shape == shapeAlias && target.alias.named != nil {
				target = target.alias.named
			}
			target.unions = append(target.unions, n)
		}
	}
	return nil
}

// goType is the Go type of a value position.
func (g *generator) goType(t *schema.Type) *gotype {
	if t.Kind == schema.Ref {
		n := g.named[t.Ref]
		if n == nil {
			panic("gen: unknown definition " + t.Ref)
		}
		return &gotype{shape: n.shape, named: n, t: n.t}
	}
	if n := g.byType[t]; n != nil {
		return &gotype{shape: n.shape, named: n, t: t}
	}
	sh := g.shapeOf(t, false)
	gt := &gotype{shape: sh, t: t}
	if sh == shapeSlice {
		gt.elem = g.goType(t.Items)
	}
	return gt
}

// underlying follows aliases to the type that has the representation.
func (gt *gotype) underlying() *gotype {
	for i := 0; gt.shape == shapeAlias && i < 64; i++ {
		gt = gt.named.alias
	}
	return gt
}

// plain returns gt as its builtin type when it names a scalar alias
// (type Cursor = string), which has no methods of its own.
func (g *generator) plain(gt *gotype) *gotype {
	if gt.named == nil || !g.isAlias(gt.named) {
		return gt
	}
	switch gt.named.shape {
	case shapeString, shapeInt, shapeFloat, shapeBool:
		return &gotype{shape: gt.named.shape, t: gt.named.t}
	}
	return gt
}
