// Package ts parses the subset of TypeScript declarations used by the Model
// Context Protocol specification's schema.ts files.
//
// The subset is: interfaces (with heritage clauses such as
// `extends A, Omit<B, "x">`, named members, quoted member names and index
// signatures), type aliases (keywords, literals, references with type
// arguments, postfix arrays, unions, intersections, parenthesised types,
// object literal types and `typeof NAME`) and constants initialised with a
// string, number or boolean literal. JSDoc comments are kept and attached to
// the declaration or member that follows them; see [Doc].
//
// The package uses a hand-written tokenizer and a recursive-descent parser.
// It never panics: malformed input yields an [*Error] naming the position and
// what was expected.
package ts

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// File is a parsed schema.ts.
type File struct {
	Path  string
	Decls []*Decl // in source order; a merged interface appears once
	// Duplicates are second declarations of a name that TypeScript would
	// not merge with the first (two type aliases, interfaces that disagree
	// on a member). The first declaration stands.
	Duplicates []Duplicate
}

// Duplicate is a declaration of a name declared before.
type Duplicate struct {
	Name  string
	Pos   Pos // of the second declaration's name
	First Pos // of the first
	Why   string
}

// Lookup returns the declaration with the given name, or nil.
func (f *File) Lookup(name string) *Decl {
	if f == nil {
		return nil
	}
	for _, d := range f.Decls {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// DeclKind says what kind of top-level declaration a [Decl] is.
type DeclKind int

// The declaration kinds.
const (
	Interface DeclKind = iota + 1 // interface Name extends ... { ... }
	TypeAlias                     // type Name = T;
	Const                         // const NAME = literal;
)

// String returns the TypeScript keyword of the declaration kind.
func (k DeclKind) String() string {
	switch k {
	case Interface:
		return "interface"
	case TypeAlias:
		return "type"
	case Const:
		return "const"
	}
	return "DeclKind(" + strconv.Itoa(int(k)) + ")"
}

// Decl is a top-level declaration.
type Decl struct {
	Kind     DeclKind
	Name     string
	Exported bool
	Pos      Pos       // position of the declared name
	Doc      *Doc      // nil if none
	Extends  []*Type   // Interface: heritage clause, each a Ref (possibly Omit<...>)
	Members  []*Member // Interface: named members in source order
	Index    *IndexSig // Interface: index signature, if any
	Type     *Type     // TypeAlias: right-hand side; Const: declared type annotation or nil
	Value    *Literal  // Const: the initializer
}

// Member returns the interface member with the given (unquoted) name, or nil.
func (d *Decl) Member(name string) *Member {
	if d == nil {
		return nil
	}
	return findMember(d.Members, name)
}

// Member is a named property of an interface or object literal type.
type Member struct {
	Name     string // unquoted
	Quoted   bool   // the name was written as a string literal
	Optional bool   // name?: T
	Readonly bool   // readonly name: T (no difference on the wire)
	Type     *Type
	Doc      *Doc
	Pos      Pos // position of the name
}

// IndexSig is an index signature `[KeyName: KeyType]: Value`.
type IndexSig struct {
	KeyName  string
	Readonly bool // readonly [k: K]: V
	KeyType  *Type
	Value    *Type
	Doc      *Doc
	Pos      Pos // position of '['
}

// TypeKind says what kind of type expression a [Type] is.
type TypeKind int

// The type expression kinds.
const (
	Keyword      TypeKind = iota + 1 // string, number, boolean, null, unknown, any, undefined, object, never
	LiteralType                      // "x", 1, true
	Ref                              // Name or Name<Args>
	Array                            // Elem[]
	Union                            // A | B
	Intersection                     // A & B
	Object                           // { a: T; [k: string]: U }
	TypeOf                           // typeof NAME
)

// String returns a short name of the kind.
func (k TypeKind) String() string {
	switch k {
	case Keyword:
		return "Keyword"
	case LiteralType:
		return "LiteralType"
	case Ref:
		return "Ref"
	case Array:
		return "Array"
	case Union:
		return "Union"
	case Intersection:
		return "Intersection"
	case Object:
		return "Object"
	case TypeOf:
		return "TypeOf"
	}
	return "TypeKind(" + strconv.Itoa(int(k)) + ")"
}

// Type is a type expression.
type Type struct {
	Kind    TypeKind
	Pos     Pos       // position of the first token
	Keyword string    // Keyword: "string", "number", ...
	Lit     *Literal  // LiteralType
	Name    string    // Ref: referenced name (dotted if qualified); TypeOf: the const name
	Args    []*Type   // Ref: type arguments
	Elem    *Type     // Array
	Types   []*Type   // Union / Intersection members, flattened, source order
	Members []*Member // Object literal
	Index   *IndexSig // Object literal index signature
}

// IsNullable reports whether t is the keyword null or a union containing null.
func (t *Type) IsNullable() bool {
	if t == nil {
		return false
	}
	if t.isKeyword("null") {
		return true
	}
	if t.Kind == Union {
		for _, u := range t.Types {
			if u.isKeyword("null") {
				return true
			}
		}
	}
	return false
}

func (t *Type) isKeyword(kw string) bool {
	return t != nil && t.Kind == Keyword && t.Keyword == kw
}

// Member returns the member of an object literal type with the given name,
// or nil (also if t is not an object literal type).
func (t *Type) Member(name string) *Member {
	if t == nil || t.Kind != Object {
		return nil
	}
	return findMember(t.Members, name)
}

func findMember(ms []*Member, name string) *Member {
	for _, m := range ms {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// String renders t back to TypeScript-like text. The output is deterministic:
// string literals use double quotes, object types are written on one line
// with members separated by "; " and doc comments are omitted.
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	if t == nil {
		b.WriteString("<nil>")
		return
	}
	switch t.Kind {
	case Keyword:
		b.WriteString(t.Keyword)
	case LiteralType:
		b.WriteString(t.Lit.String())
	case Ref:
		b.WriteString(t.Name)
		if len(t.Args) > 0 {
			b.WriteByte('<')
			for i, a := range t.Args {
				if i > 0 {
					b.WriteString(", ")
				}
				a.write(b)
			}
			b.WriteByte('>')
		}
	case Array:
		if t.Elem != nil && (t.Elem.Kind == Union || t.Elem.Kind == Intersection) {
			b.WriteByte('(')
			t.Elem.write(b)
			b.WriteByte(')')
		} else {
			t.Elem.write(b)
		}
		b.WriteString("[]")
	case Union, Intersection:
		sep := " | "
		if t.Kind == Intersection {
			sep = " & "
		}
		for i, u := range t.Types {
			if i > 0 {
				b.WriteString(sep)
			}
			paren := u != nil && (u.Kind == Union || (u.Kind == Intersection && t.Kind == Intersection))
			if paren {
				b.WriteByte('(')
			}
			u.write(b)
			if paren {
				b.WriteByte(')')
			}
		}
	case Object:
		if len(t.Members) == 0 && t.Index == nil {
			b.WriteString("{}")
			return
		}
		b.WriteString("{ ")
		for i, m := range t.Members {
			if i > 0 {
				b.WriteString("; ")
			}
			if m.Quoted {
				b.WriteString(quote(m.Name))
			} else {
				b.WriteString(m.Name)
			}
			if m.Optional {
				b.WriteByte('?')
			}
			b.WriteString(": ")
			m.Type.write(b)
		}
		if ix := t.Index; ix != nil {
			if len(t.Members) > 0 {
				b.WriteString("; ")
			}
			b.WriteString("[" + ix.KeyName + ": ")
			ix.KeyType.write(b)
			b.WriteString("]: ")
			ix.Value.write(b)
		}
		b.WriteString(" }")
	case TypeOf:
		b.WriteString("typeof " + t.Name)
	default:
		fmt.Fprintf(b, "<%v>", t.Kind)
	}
}

// LitKind says what kind of value a [Literal] holds.
type LitKind int

// The literal kinds.
const (
	StringLit LitKind = iota + 1
	NumberLit
	BoolLit
)

// Literal is a string, number or boolean literal.
type Literal struct {
	Kind LitKind
	Str  string  // StringLit: the decoded value
	Num  float64 // NumberLit: the value (negative if written with '-')
	Raw  string  // the source text, quotes and sign included
	Bool bool    // BoolLit: the value
}

// String renders the literal as TypeScript source: strings are
// double-quoted, numbers use their source text.
func (l *Literal) String() string {
	if l == nil {
		return "<nil>"
	}
	switch l.Kind {
	case StringLit:
		return quote(l.Str)
	case NumberLit:
		if l.Raw != "" {
			return l.Raw
		}
		return strconv.FormatFloat(l.Num, 'g', -1, 64)
	case BoolLit:
		return strconv.FormatBool(l.Bool)
	}
	return l.Raw
}

// quote returns s as a double-quoted TypeScript string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError && n == 1:
			b.WriteByte(s[i]) // invalid UTF-8 is kept as is
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
	return b.String()
}

// Doc is a parsed JSDoc comment.
//
// Text and tag texts are cleaned: the comment delimiters and leading " * "
// are removed, trailing blanks are trimmed, runs of blank lines collapse to a
// single blank line (a paragraph break) and line breaks inside paragraphs are
// kept. Inline {@link Target}, {@link Target | label}, {@link Target label}
// and {@linkcode ...} are rendered as the label if present, else the target.
// {@includeCode path} is removed (a line holding nothing else is dropped) and
// its path recorded in Examples.
//
// A block tag is a line starting with @name (outside ``` fences). Tag texts
// are kept verbatim apart from that cleaning, so a category written as
// "@category `tools/list`" keeps its backquotes.
type Doc struct {
	Text       string   // cleaned description (before the first block tag), links rendered
	Tags       []Tag    // every block tag in order
	Category   string   // @category (first), "" if none
	Deprecated *string  // non-nil if @deprecated present (text may be "")
	Internal   bool     // @internal
	TJSType    string   // @TJS-type value, "" if none
	Links      []string // {@link} targets in order of appearance (description and tags)
	Examples   []string // {@includeCode} paths in order of appearance
}

// Tag is a JSDoc block tag such as `@category Errors`. Name has no '@';
// Text is cleaned like [Doc.Text] and runs to the next block tag.
type Tag struct{ Name, Text string }

// Pos is a source position. Line and Col are 1-based; Col counts bytes.
type Pos struct {
	File      string
	Line, Col int
}

// String returns "file:line:col" ("line:col" if File is empty).
func (p Pos) String() string {
	s := strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
	if p.File != "" {
		s = p.File + ":" + s
	}
	return s
}

// Error is a parse error at a position; Error() returns "file:line:col: message".
type Error struct {
	Pos Pos
	Msg string
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }
