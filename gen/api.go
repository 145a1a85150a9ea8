package gen

import (
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// API is the Go API Generate gives one revision, in the terms a user's
// code sees: types with their fields, union members and enum values, the
// protocol methods with the Go signatures of their handlers, and the
// constants. Comparing two (package apidiff) tells what changed between
// revisions and what breaks user code.
type API struct {
	Revision     string
	SchemaSHA256 string
	// Types lists every generated type, sorted by name.
	Types []APIType
	// Methods lists every protocol method, sorted by method string.
	Methods []APIMethod
	// Constants lists the constants schema.ts exports (error codes among
	// them), sorted by Go name.
	Constants []APIConst
}

// APIType is one generated type.
type APIType struct {
	// Name is the Go type name.
	Name string
	// Kind is how the type is declared: struct, union (a sealed
	// interface), enum (a string type with constants), alias (type X = Y),
	// map, slice, raw (JSON kept as is), string, int64, float64, bool,
	// null, or string|int.
	Kind string
	// Def reports a definition of the schema, not a named inline type.
	Def bool
	// Underlying is the Go type of an alias, map, slice or scalar kind.
	Underlying string `json:",omitempty"`
	// Fields are a struct's members in schema order.
	Fields []APIField `json:",omitempty"`
	// Open reports a struct that keeps unnamed members in Extra.
	Open bool `json:",omitempty"`
	// Members are a union's member types.
	Members []string `json:",omitempty"`
	// Values are an enum's known values; EnumOpen reports that others are
	// valid too.
	Values   []string `json:",omitempty"`
	EnumOpen bool     `json:",omitempty"`
	// Deprecated reports a @deprecated definition.
	Deprecated bool `json:",omitempty"`
}

// APIField is one member of a struct.
type APIField struct {
	// Name is the Go field name; JSON the member name.
	Name, JSON string
	// Type is the Go type of the field ("wire.Opt[string]", "*Tool",
	// "[]ContentBlock"); for a member with a fixed value, which has no
	// field, "const" and the value.
	Type     string
	Required bool
	// Const is the fixed value of a const member ("" otherwise).
	Const      string `json:",omitempty"`
	Deprecated bool   `json:",omitempty"`
}

// APIMethod is one request or notification.
type APIMethod struct {
	// Method is the method string ("tools/call"); Go the Go method name of
	// its handler and typed call (CallTool).
	Method, Go string
	// Kind is request or notification.
	Kind string
	// FromClient and FromServer tell who may send it.
	FromClient, FromServer bool
	// Handler reports a method user code answers (in Server or
	// ClientHandler); the runtime answers the others itself.
	Handler bool
	// Signature is the Go signature of the handler method:
	// func(ctx context.Context, params *CallToolRequestParams) (CallToolReply, error).
	Signature string
	// Params and Reply are the Go types of the handler's params argument
	// ("" for none) and of its reply ("" for a notification).
	Params, Reply string
}

// APIConst is one constant of schema.ts.
type APIConst struct {
	// Name is the Go name (CodeParseError, LatestProtocolVersion).
	Name string
	// Value is the Go literal of its value.
	Value     string
	ErrorCode bool `json:",omitempty"`
}

// APIOf describes the Go API Generate gives spec.
func APIOf(spec *schema.Spec) (*API, error) {
	g, err := newGenerator(spec, Options{Package: "x"})
	if err != nil {
		return nil, err
	}
	api := &API{Revision: spec.Revision, SchemaSHA256: spec.SchemaSHA256}
	for _, n := range g.order {
		at, err := g.apiType(n)
		if err != nil {
			return nil, err
		}
		api.Types = append(api.Types, at)
	}
	for _, m := range spec.Methods {
		am := APIMethod{
			Method: m.Name, Go: goMethod(m), Kind: m.Kind.String(),
			FromClient: m.SentBy(schema.Client), FromServer: m.SentBy(schema.Server),
			Handler: handled(m),
		}
		if pt := g.paramsType(m); pt != nil {
			am.Params = goSource(g.paramsTypeCode(pt))
		}
		if m.Kind == schema.Request {
			am.Reply = goSource(g.replyCode(m))
		}
		params, results := g.signature(m)
		am.Signature = goSource(jen.Func().Params(params...).Params(results...))
		api.Methods = append(api.Methods, am)
	}
	for _, c := range spec.Constants {
		api.Constants = append(api.Constants, APIConst{Name: constName(c), Value: constText(&c.Value), ErrorCode: c.ErrorCode})
	}
	sort.Slice(api.Constants, func(i, j int) bool { return api.Constants[i].Name < api.Constants[j].Name })
	return api, nil
}

// apiType describes one named type.
func (g *generator) apiType(n *named) (APIType, error) {
	at := APIType{Name: n.name, Kind: n.shape.kind(), Def: n.def != nil}
	if n.def != nil {
		at.Deprecated = n.def.Doc.Deprecated != nil
	}
	switch n.shape {
	case shapeStruct:
		fields, err := g.fields(n)
		if err != nil {
			return APIType{}, err
		}
		for _, f := range fields {
			af := APIField{Name: f.name, JSON: f.prop.Name, Required: f.prop.Required, Deprecated: f.prop.Doc.Deprecated != nil}
			if f.mode == modeConst {
				af.Const = constText(f.prop.Type.Const)
				af.Type = "const " + af.Const
			} else {
				af.Type = goSource(g.fieldType(f))
			}
			at.Fields = append(at.Fields, af)
		}
		at.Open = n.t.Additional == schema.Open
	case shapeUnion:
		for _, m := range n.members {
			at.Members = append(at.Members, m.underlying().named.name)
		}
	case shapeEnum:
		at.Values = append(at.Values, n.t.Enum...)
		at.EnumOpen = n.t.EnumOpen
	case shapeAlias:
		at.Underlying = goSource(g.typeCode(n.alias))
	case shapeMap:
		at.Underlying = "[]wire.Entry[" + goSource(g.typeCode(n.elem)) + "]"
	case shapeSlice:
		at.Underlying = "[]" + goSource(g.typeCode(n.elem))
	case shapeString, shapeInt, shapeFloat, shapeBool:
		at.Underlying = at.Kind
		if g.isAlias(n) {
			at.Kind = "alias"
		}
	}
	return at, nil
}

// kind names a shape for API.
func (s shape) kind() string {
	switch s {
	case shapeStruct:
		return "struct"
	case shapeRawObject, shapeAnyJSON:
		return "raw"
	case shapeMap:
		return "map"
	case shapeUnion:
		return "union"
	case shapeStringOrInt:
		return "string|int"
	case shapeEnum:
		return "enum"
	case shapeString:
		return "string"
	case shapeInt:
		return "int64"
	case shapeFloat:
		return "float64"
	case shapeBool:
		return "bool"
	case shapeNull:
		return "null"
	case shapeSlice:
		return "slice"
	case shapeAlias:
		return "alias"
	}
	return "?"
}

// goSource is the Go source of a type expression or func type, formatted
// as the declaration var _ T would be.
func goSource(c jen.Code) string {
	return strings.TrimPrefix(strings.TrimSpace(jen.Var().Id("_").Add(c).GoString()), "var _ ")
}
