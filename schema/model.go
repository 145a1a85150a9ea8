// Package schema loads one revision of the MCP specification — schema.json,
// refined by schema.ts — into a single intermediate model that the generator
// and the tests work from.
//
// schema.json gives the structure. schema.ts adds what the JSON loses: integer
// versus floating-point numbers, the known values of open string unions,
// inheritance, deprecations, internal markers, exported constants and the
// severity order of logging levels. Facts that are in neither file (which
// request returns which result when no rule finds it, how a few unions are
// told apart) live in one reviewed table, facts.txt, which users extend with
// an overrides file (Facts).
//
// A revision the loader cannot fully derive still loads: each gap gets a
// documented fallback and a Warning (see Class); Options.Strict makes them
// errors. Only an input that is not a schema — empty, malformed JSON or
// TypeScript, a reference outside the file — fails to load; a reference
// to a definition the file lacks degrades (DanglingRef).
package schema

import "iter"

// Spec is one revision of the MCP schema.
type Spec struct {
	// Revision is the protocol version this schema describes: the value of
	// LATEST_PROTOCOL_VERSION in schema.ts, or the directory name when no
	// schema.ts is at hand.
	Revision string
	// JSONPath and TSPath are the files the model was loaded from (TSPath is
	// empty when schema.ts was absent).
	JSONPath, TSPath string
	// Dialect is the JSON Schema dialect of schema.json.
	Dialect Dialect
	// SchemaSHA256 is the hex SHA-256 of schema.json; TSSHA256 of schema.ts.
	SchemaSHA256, TSSHA256 string

	// Defs are the definitions, sorted by name.
	Defs []*Def
	// Unions lists every anyOf in the schema, named or inline, sorted by path.
	Unions []*Union
	// Methods lists every request and notification, sorted by method string.
	Methods []*Method
	// Constants are the constants schema.ts exports, in source order.
	Constants []*Constant
	// LoggingLevels is LoggingLevel's values from least to most severe, as
	// schema.ts orders them (schema.json sorts them alphabetically).
	LoggingLevels []string
	// Excluded lists exported schema.ts declarations that are deliberately
	// not in the model, with the reason.
	Excluded []Exclusion
	// Overrides lists every place where schema.ts decides a type that
	// schema.json states differently (integer vs number, a null JSON drops).
	Overrides []Override
	// TaskID is the path of members from CreateTaskResult to the task's id
	// (["task", "taskId"]; ["taskId"] where the result is the task itself),
	// nil when the revision has no CreateTaskResult or it carries no id.
	TaskID []string
	// InputRequests are the input requests (2026 multi round-trip: the
	// members of the InputRequest union) a client answers with the handler
	// of a method, in the union's order; empty when the revision has none
	// or a client cannot answer them.
	InputRequests []InputRequest
	// Warnings are the facts the loader could not derive and the fallbacks
	// it took, in the order met.
	Warnings []Warning

	defs   map[string]*Def
	strict bool
	facts  *Facts
	src    []byte // schema.json while loading, for error positions
}

// walk calls visit on the type of every definition and every type nested
// in it, parents before their children (Type.Children, read after visit
// returns, so visit may replace what t holds), stopping at the first error.
func (s *Spec) walk(visit func(t *Type) error) error {
	var rec func(t *Type) error
	rec = func(t *Type) error {
		if t == nil {
			return nil
		}
		if err := visit(t); err != nil {
			return err
		}
		for c := range t.Children() {
			if err := rec(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range s.Defs {
		if err := rec(d.Type); err != nil {
			return err
		}
	}
	return nil
}

// Def returns the definition with the given name, or nil.
func (s *Spec) Def(name string) *Def { return s.defs[name] }

// Method returns the method with the given method string, or nil.
func (s *Spec) Method(name string) *Method {
	for _, m := range s.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Dialect is a JSON Schema dialect.
type Dialect string

// The dialects MCP schemas use.
const (
	Draft07   Dialect = "http://json-schema.org/draft-07/schema#"
	Draft2020 Dialect = "https://json-schema.org/draft/2020-12/schema"
)

// Doc is the documentation attached to a definition or property.
type Doc struct {
	// Text is the description (from schema.ts when available, with {@link}
	// rendered, else from schema.json).
	Text string
	// Category is the TS @category tag.
	Category string
	// Deprecated is non-nil when schema.ts marks the declaration @deprecated;
	// it holds the tag's text.
	Deprecated *string
	// Internal reports a TS @internal marker. Internal types are still
	// emitted: they appear on the wire.
	Internal bool
}

// Def is one named definition of the schema.
type Def struct {
	Name string
	Doc  Doc
	// Type is the definition's type. For a definition that is only a
	// reference to another (EmptyResult = Result), Type.Kind is Ref.
	Type *Type
	// Extends lists the schema.ts bases of an interface (or the members of
	// an intersection alias), in source order.
	Extends []Base
	// Pos is the schema.ts position of the declaration ("" without TS).
	Pos string
}

// Base is one base of an interface: Name, minus the Omitted members.
type Base struct {
	Name    string
	Omitted []string
}

// Kind is the kind of a Type.
type Kind int

// The kinds of type.
const (
	// Any is any JSON value (TS unknown/any, JSON {} or true).
	Any Kind = iota + 1
	Object
	Array
	String
	Integer
	Number
	Boolean
	// Null is the JSON null value.
	Null
	// Ref refers to a definition by name.
	Ref
	// AnyOf is a union: an anyOf, or a type array of several kinds.
	AnyOf
)

var kindNames = [...]string{"", "any", "object", "array", "string", "integer", "number", "boolean", "null", "ref", "union"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "kind?"
	}
	return kindNames[k]
}

// Type is a type in the model. Only the fields for its Kind are set.
type Type struct {
	Kind Kind
	// Path is the JSON pointer of the schema node this type came from.
	Path string
	// Name is a stable synthesized name for an inline object or union
	// ("ServerCapabilitiesPrompts"); empty for definitions' own types,
	// references and scalars.
	Name string
	// Doc is the description of an inline type.
	Doc string

	// Ref is the referenced definition (Kind Ref).
	Ref string

	// Const is the single value a String or Integer must have.
	Const *Value
	// Enum lists the values a String may have. When EnumOpen is set the
	// list is only the known values and any string is accepted.
	Enum     []string
	EnumOpen bool
	// Format is the JSON Schema format of a String (uri, uri-template, byte).
	Format string
	// Minimum and Maximum bound a Number or Integer.
	Minimum, Maximum *float64
	// Nullable reports that null is accepted besides the Kind
	// (type: ["integer","null"]).
	Nullable bool

	// Props are the properties of an Object, in schema.ts order when known
	// (else schema.json's order).
	Props []*Prop
	// Additional describes members an Object does not name.
	Additional Additional
	// AdditionalType is the type of unnamed members when Additional is Typed.
	AdditionalType *Type
	// OpenByDesign reports an Open object that says so
	// (additionalProperties true or {}): its unnamed members are part of
	// what it means (a JSON Schema, _meta), not just tolerated.
	OpenByDesign bool
	// Forbidden lists members an open object must not have all the same,
	// for the reason ForbiddenWhy (a forbid fact of schema/facts.txt, or a
	// member schema.ts types never).
	Forbidden    []string
	ForbiddenWhy string

	// Items is the element type of an Array; MaxItems bounds its length.
	Items    *Type
	MaxItems *int

	// Union describes the members of a Union.
	Union *Union

	allOf     []*Type // parts of an allOf, flattened into Props by resolveAllOf
	typeArray bool    // the union came from a type array, not an anyOf
}

// Children yields the types nested directly in t, in a stable order: its
// properties' types, its element type, the type of its unnamed members,
// then its union's members. A nil t has none.
func (t *Type) Children() iter.Seq[*Type] {
	return func(yield func(*Type) bool) {
		if t == nil {
			return
		}
		for _, p := range t.Props {
			if !yield(p.Type) {
				return
			}
		}
		if t.Items != nil && !yield(t.Items) {
			return
		}
		if t.AdditionalType != nil && !yield(t.AdditionalType) {
			return
		}
		if t.Union != nil {
			for _, m := range t.Union.Members {
				if !yield(m) {
					return
				}
			}
		}
	}
}

// Additional says what an object does with members it does not name.
type Additional int

// Additional member policies.
const (
	// Open: any further member is allowed and is kept verbatim. JSON Schema's
	// default, and what MCP means by extensibility.
	Open Additional = iota
	// Typed: further members are allowed and must match AdditionalType.
	Typed
	// Closed: additionalProperties: false.
	Closed
)

// Prop is one named property of an object.
type Prop struct {
	// Name is the JSON member name.
	Name string
	// GoName is the exported Go identifier for the member.
	GoName   string
	Required bool
	Type     *Type
	Doc      Doc
}

// Value is a constant value: a string or an integer.
type Value struct {
	IsInt bool
	Str   string
	Int   int64
}

// Constant is an exported constant of schema.ts.
type Constant struct {
	// Name is the TS name (LATEST_PROTOCOL_VERSION, PARSE_ERROR...).
	Name  string
	Value Value
	Doc   Doc
	// ErrorCode reports a JSON-RPC error code constant.
	ErrorCode bool
}

// InputRequest is one kind of input request a client answers.
type InputRequest struct {
	// Def is the member of the InputRequest union (ElicitRequest, or a
	// draft's ElicitationCreateRequest).
	Def string
	// Method answers it; Method.Result is a member of the union of
	// InputResponses' values.
	Method *Method
}

// Exclusion is an exported TS declaration left out of the model.
type Exclusion struct {
	Name   string
	Reason string
}

// Override records where schema.ts decides a type differently from
// schema.json.
type Override struct {
	// Path is the schema.json pointer of the type.
	Path string
	// JSON is what schema.json states; Model what the model uses.
	JSON, Model string
	// Why names the schema.ts evidence.
	Why string
}
