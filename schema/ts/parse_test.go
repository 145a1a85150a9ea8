package ts

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := ParseBytes("test.ts", []byte(src))
	if err != nil {
		t.Fatalf("ParseBytes(%q): %v", src, err)
	}
	return f
}

func TestTypes(t *testing.T) {
	tests := []struct {
		src  string // right-hand side of a type alias
		kind TypeKind
		want string // String() rendering
	}{
		{`string`, Keyword, `string`},
		{`never`, Keyword, `never`},
		{`"a\"b"`, LiteralType, `"a\"b"`},
		{`'it\'s'`, LiteralType, `"it's"`},
		{`-1.5`, LiteralType, `-1.5`},
		{`true`, LiteralType, `true`},
		{`Foo`, Ref, `Foo`},
		{`ns.Foo`, Ref, `ns.Foo`},
		{`Record<string, unknown>`, Ref, `Record<string, unknown>`},
		{`Array<Array<X>>`, Ref, `Array<Array<X>>`},
		{`Omit<X, "a" | "b",>`, Ref, `Omit<X, "a" | "b">`},
		{`X[]`, Array, `X[]`},
		{`X[][]`, Array, `X[][]`},
		{`(A | B)[]`, Array, `(A | B)[]`},
		{`(A & B)[][]`, Array, `(A & B)[][]`},
		{`A | B | null`, Union, `A | B | null`},
		{"\n  | \"a\"\n  | \"b\"", Union, `"a" | "b"`},
		{`| A`, Ref, `A`},
		{`A | (B | C)`, Union, `A | B | C`},
		{`A & B | C`, Union, `A & B | C`},
		{`A & (B | C)`, Intersection, `A & (B | C)`},
		{`(string)`, Keyword, `string`},
		{`{}`, Object, `{}`},
		{`{ a: T; b?: U, "c-d": V }`, Object, `{ a: T; b?: U; "c-d": V }`},
		{"{\n a: string\n [k: string]: unknown\n}", Object, `{ a: string; [k: string]: unknown }`},
		{`{ a: { b: { c: X[] } } }`, Object, `{ a: { b: { c: X[] } } }`},
		{`typeof FOO`, TypeOf, `typeof FOO`},
		{`Array<{ const: string; title: string; }>`, Ref, `Array<{ const: string; title: string }>`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			f := mustParse(t, "type X = "+tt.src+";")
			ty := f.Decls[0].Type
			if ty.Kind != tt.kind {
				t.Errorf("kind = %v, want %v", ty.Kind, tt.kind)
			}
			if got := ty.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			checkRoundTrip(t, ty)
		})
	}
}

func TestDeclarations(t *testing.T) {
	src := `/* header */
/** Doc of A. */
export interface A extends B, Omit<C, "x" | "y"> {
  a: string;
  b?: number,
  "io.x/y"?: boolean
  [key: string]: unknown;
}

interface Hidden {}

export type T = A;
export const S = 'str';
export const N: number = -32700;
export const F = 2
export const B = false;
`
	f := mustParse(t, src)
	if len(f.Decls) != 7 {
		t.Fatalf("got %d decls", len(f.Decls))
	}
	a := f.Lookup("A")
	if a.Kind != Interface || !a.Exported || a.Pos != (Pos{"test.ts", 3, 18}) || a.Doc == nil || a.Doc.Text != "Doc of A." {
		t.Errorf("A = %+v", a)
	}
	if len(a.Extends) != 2 || a.Extends[0].String() != "B" || a.Extends[1].String() != `Omit<C, "x" | "y">` {
		t.Errorf("A extends %v", a.Extends)
	}
	var got []string
	for _, m := range a.Members {
		got = append(got, m.Name+map[bool]string{true: "?", false: ""}[m.Optional]+map[bool]string{true: "(q)", false: ""}[m.Quoted]+":"+m.Type.String())
	}
	want := []string{"a:string", "b?:number", "io.x/y?(q):boolean"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("members = %q, want %q", got, want)
	}
	if a.Index == nil || a.Index.KeyName != "key" || a.Index.Pos.Line != 7 {
		t.Errorf("index = %+v", a.Index)
	}
	if h := f.Lookup("Hidden"); h == nil || h.Exported || h.Doc != nil || len(h.Members) != 0 {
		t.Errorf("Hidden = %+v", h)
	}
	if d := f.Lookup("S"); d.Kind != Const || d.Value.Kind != StringLit || d.Value.Str != "str" || d.Value.Raw != "'str'" || d.Type != nil {
		t.Errorf("S = %+v", d)
	}
	if d := f.Lookup("N"); d.Value.Num != -32700 || d.Type.String() != "number" {
		t.Errorf("N = %+v", d)
	}
	if d := f.Lookup("F"); d.Value.Num != 2 || d.Value.Raw != "2" {
		t.Errorf("F = %+v", d)
	}
	if d := f.Lookup("B"); d.Value.Kind != BoolLit || d.Value.Bool {
		t.Errorf("B = %+v", d)
	}
	if f.Lookup("Nope") != nil {
		t.Errorf("Lookup(Nope) != nil")
	}
}

func TestDocAttachment(t *testing.T) {
	src := `/**
 * @category X
 */
// a line comment between doc and declaration
export interface A {
  /** doc a */
  a: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  b: number;
  /** doc c */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  c?: {};
  /* plain comment */
  d: string;
  e: /** misplaced */ string;
  f: string;
  /** index doc */
  [k: string]: unknown;
}
/** not attached to anything but B */
/** the last one wins */
export type B = { /** inner */ x: string };
`
	f := mustParse(t, src)
	a := f.Lookup("A")
	if a.Doc == nil || a.Doc.Category != "X" {
		t.Errorf("A doc = %+v", a.Doc)
	}
	docs := map[string]string{"a": "doc a", "b": "", "c": "doc c", "d": "", "e": "", "f": ""}
	for name, want := range docs {
		m := a.Member(name)
		got := ""
		if m.Doc != nil {
			got = m.Doc.Text
		}
		if got != want {
			t.Errorf("member %s doc = %q, want %q", name, got, want)
		}
	}
	if a.Index.Doc == nil || a.Index.Doc.Text != "index doc" {
		t.Errorf("index doc = %+v", a.Index.Doc)
	}
	b := f.Lookup("B")
	if b.Doc == nil || b.Doc.Text != "the last one wins" {
		t.Errorf("B doc = %+v", b.Doc)
	}
	if m := b.Type.Member("x"); m.Doc == nil || m.Doc.Text != "inner" {
		t.Errorf("B.x doc = %+v", m.Doc)
	}
}

func TestDoc(t *testing.T) {
	dep := func(s string) *string { return &s }
	tests := []struct {
		name string
		raw  string
		want Doc
	}{
		{"one line", `/** @internal */`, Doc{Tags: []Tag{{"internal", ""}}, Internal: true}},
		{"empty", `/***/`, Doc{}},
		{
			"paragraphs",
			"/**\n * First line\n * second line.\n *\n *\n * Second paragraph.\n *   indented\n */",
			Doc{Text: "First line\nsecond line.\n\nSecond paragraph.\n  indented"},
		},
		{
			"tags",
			"/**\n * Text.\n *\n * @deprecated Use X\n * instead.\n *\n * @TJS-type number\n * @category `tools/list`\n * @category Second\n * @minimum 0\n */",
			Doc{
				Text: "Text.",
				Tags: []Tag{
					{"deprecated", "Use X\ninstead."}, {"TJS-type", "number"},
					{"category", "`tools/list`"}, {"category", "Second"}, {"minimum", "0"},
				},
				Deprecated: dep("Use X\ninstead."), TJSType: "number", Category: "`tools/list`",
			},
		},
		{"empty deprecated", "/** @deprecated */", Doc{Tags: []Tag{{"deprecated", ""}}, Deprecated: dep("")}},
		{
			"links",
			"/**\n * See {@link A}, {@link B | the b}, {@link C label c}, {@linkcode D},\n * {@link E| e} and {@link https://x.org/#y | X spec} or {@link https://z.org}.\n * Keep {@unknown tag} and {@link unterminated\n */",
			Doc{
				Text:  "See A, the b, label c, D,\ne and X spec or https://z.org.\nKeep {@unknown tag} and {@link unterminated",
				Links: []string{"A", "B", "C", "D", "E", "https://x.org/#y", "https://z.org"},
			},
		},
		{
			"includeCode",
			"/**\n * Desc.\n *\n * @example First\n * {@includeCode ./examples/A/one.json}\n *\n * @example Second\n * {@includeCode ./examples/A/two.json}\n * @see {@link Other} for more.\n */",
			Doc{
				Text: "Desc.",
				Tags: []Tag{
					{"example", "First"}, {"example", "Second"}, {"see", "Other for more."},
				},
				Links:    []string{"Other"},
				Examples: []string{"./examples/A/one.json", "./examples/A/two.json"},
			},
		},
		{
			"fenced code keeps @",
			"/**\n * ```\n * @notATag\n * ```\n * @real yes\n */",
			Doc{Text: "```\n@notATag\n```", Tags: []Tag{{"real", "yes"}}},
		},
		{
			"no stars",
			"/**\n  Plain text\n  @category C\n*/",
			Doc{Text: "Plain text", Tags: []Tag{{"category", "C"}}, Category: "C"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.raw+"\ntype X = string;")
			got := f.Decls[0].Doc
			if got == nil {
				t.Fatal("no doc")
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("doc =\n%#v\nwant\n%#v", *got, tt.want)
			}
		})
	}
}

func TestLexerDetails(t *testing.T) {
	tests := []struct {
		lit  string
		kind LitKind
		str  string
		num  float64
	}{
		{`"tab\there"`, StringLit, "tab\there", 0},
		{`"\x41\u0042\u{43}\u{1F600}\uD83D\uDE00"`, StringLit, "ABC😀😀", 0},
		{`'\q\'"'`, StringLit, `q'"`, 0},
		{"\"line\\\ncont\"", StringLit, "linecont", 0},
		{`"\uD800x"`, StringLit, "\uFFFDx", 0},
		{`0x1F`, NumberLit, "", 31},
		{`1e3`, NumberLit, "", 1000},
		{`.5`, NumberLit, "", 0.5},
		{`-0.25`, NumberLit, "", -0.25},
	}
	for _, tt := range tests {
		t.Run(tt.lit, func(t *testing.T) {
			f := mustParse(t, "export const C = "+tt.lit+";")
			v := f.Decls[0].Value
			if v.Kind != tt.kind || v.Str != tt.str || v.Num != tt.num || v.Raw != tt.lit {
				t.Errorf("literal = %+v", v)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		msg  string // substring of the message
	}{
		{"unterminated string", "export const X = \"abc;\n", 1, "unterminated string literal"},
		{"unterminated string EOF", "export const X = 'abc", 1, "unterminated string literal"},
		{"unterminated comment", "type A = string;\n\n/* abc\n", 3, "unterminated comment"},
		{"unterminated jsdoc", "/** abc *", 1, "unterminated comment"},
		{"missing }", "interface A {\n  a: string;\n", 3, "expected '}' to close body of interface A, found end of file"},
		{"missing } in object", "type A = {\n  a: string;\n;", 3, "expected '}' to close object type, found end of file"},
		{"bad type", "type X = ;", 1, "expected type, found ';'"},
		{"garbage token", "\nexport type X = #;", 2, "unexpected character '#'"},
		{"template literal", "type X = `a`;", 1, "unexpected character '`'"},
		{"invalid utf8", "type X = \xff;", 1, "invalid UTF-8 byte 0xff"},
		{"truncated Omit", "export interface A extends Omit<", 1, "expected type, found end of file"},
		{"unclosed type args", "type X = Omit<A, \"b\";", 1, "expected '>' to close type arguments, found ';'"},
		{"empty type args", "type X = Foo<>;", 1, "expected type, found '>'"},
		{"indexed access", "type X = A[\"k\"];", 1, "expected ']' in array type"},
		{"unclosed paren", "type X = (A | B;", 1, "expected ')' to close parenthesised type, found ';'"},
		{"typeof nothing", "type X = typeof 1;", 1, "expected name after 'typeof', found number 1"},
		{"const non-literal", "export const X = foo;", 1, "expected string, number or boolean literal"},
		{"function", "export function f() {}", 1, "expected 'interface', 'type' or 'const' after 'export', found 'function'"},
		{"top-level garbage", "type A = B;\nfoo", 2, "expected declaration"},
		{"no interface name", "interface { }", 1, "expected interface name, found '{'"},
		{"missing =", "type X string;", 1, "expected '=' after type name X, found 'string'"},
		{"missing ;", "type X = A B;", 1, "expected ';' after type X, found 'B'"},
		{"member separator", "interface A { a: string b: number }", 1, "expected ';', ',' or line break after member a, found 'b'"},
		{"member colon", "interface A {\n  a string;\n}", 2, "expected ':' after member name a, found 'string'"},
		{"bad member name", "interface A {\n  (: string;\n}", 2, "expected member name, index signature or '}', found '('"},
		{"index key", "interface A { [k string]: T }", 1, "expected ':' after index signature parameter name"},
		{"index close", "interface A { [k: string: T }", 1, "expected ']' to close index signature parameter"},
		{"duplicate index", "interface A {\n [k: string]: T;\n [j: string]: U;\n}", 3, "duplicate index signature"},
		{"duplicate member", "interface A {\n a: T;\n a?: U;\n}", 3, `duplicate member "a"`},
		{"bad escape", `type X = "\u12";`, 1, "invalid \\u escape"},
		{"bad brace escape", `type X = "\u{110000}";`, 1, "invalid \\u{...} escape"},
		{"bad x escape", `type X = "\xZ1";`, 1, "invalid \\x escape"},
		{"bad number", "type X = 1abc;", 1, "invalid number literal"},
		{"bad hex", "type X = 0x;", 1, "invalid number literal"},
		{"too deep", "type X = " + strings.Repeat("(", 10000) + "A", 1, "type nested too deeply"},
		{"too deep objects", "type X = " + strings.Repeat("{a:", 10000), 1, "type nested too deeply"},
		{"lone minus", "type X = -;", 1, "expected type, found '-'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseBytes("bad.ts", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; got %d decls", len(f.Decls))
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, not *Error", err, err)
			}
			if e.Pos.File != "bad.ts" || e.Pos.Line != tt.line || e.Pos.Col < 1 {
				t.Errorf("position %v, want line %d", e.Pos, tt.line)
			}
			if !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Msg, tt.msg)
			}
			if want := e.Pos.String() + ": " + e.Msg; err.Error() != want || !strings.HasPrefix(want, "bad.ts:") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

// A name declared twice: interfaces merge, as in TypeScript; anything
// else is reported in Duplicates and the first declaration stands.
func TestRedeclarations(t *testing.T) {
	tests := []struct {
		name, src string
		members   []string // of the merged A
		why       string   // of the one duplicate, "" for none
	}{
		{"interfaces merge", "interface A { a: T }\ninterface A { b?: U }", []string{"a", "b"}, ""},
		{"identical copies merge", "interface A { a: T }\ninterface A { a: T }", []string{"a"}, ""},
		{"conflicting member", "interface A { a: T }\ninterface A { a?: U }", []string{"a"}, `member "a" differs (T vs U)`},
		{"alias and interface", "type A = B;\ninterface A { a: T }", nil, "only interfaces merge (declared as type, then as interface)"},
		{"two aliases", "type A = B;\ntype A = C;", nil, "only interfaces merge (declared as type, then as type)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.src)
			if len(f.Decls) != 1 {
				t.Fatalf("%d declarations, want 1", len(f.Decls))
			}
			var names []string
			for _, m := range f.Decls[0].Members {
				names = append(names, m.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.members, ",") {
				t.Errorf("members %v, want %v", names, tt.members)
			}
			switch {
			case tt.why == "" && len(f.Duplicates) > 0:
				t.Errorf("duplicates %+v, want none", f.Duplicates)
			case tt.why != "" && (len(f.Duplicates) != 1 || f.Duplicates[0].Why != tt.why || f.Duplicates[0].Pos.Line != 2 || f.Duplicates[0].First.Line != 1):
				t.Errorf("duplicates %+v, want one at line 2 because %q", f.Duplicates, tt.why)
			}
		})
	}
}

// readonly is a modifier of members and index signatures and a type
// operator; a member may still be named readonly.
func TestReadonly(t *testing.T) {
	f := mustParse(t, "interface A {\n  readonly a: number & { readonly minimum: 0 };\n  readonly [k: string]: unknown;\n  readonly: boolean;\n  b: readonly string[];\n}\ninterface B { readonly?: string }")
	d := f.Decls[0]
	if len(d.Members) != 3 || !d.Members[0].Readonly || d.Members[0].Name != "a" || d.Index == nil || !d.Index.Readonly {
		t.Fatalf("members %+v index %+v", d.Members, d.Index)
	}
	if m := d.Members[1]; m.Name != "readonly" || m.Readonly || m.Optional {
		t.Errorf("member named readonly: %+v", m)
	}
	if m := f.Decls[1].Members[0]; m.Name != "readonly" || !m.Optional {
		t.Errorf("optional member named readonly: %+v", m)
	}
	if got := d.Members[2].Type.String(); got != "string[]" {
		t.Errorf("readonly string[] = %s", got)
	}
	if in := d.Members[0].Type.Types[1].Members[0]; in.Name != "minimum" || !in.Readonly {
		t.Errorf("nested readonly member %+v", in)
	}
}

func TestErrorColumn(t *testing.T) {
	_, err := ParseBytes("f.ts", []byte("type X = Omit<A, \"b\";"))
	if err == nil || err.Error() != "f.ts:1:21: expected '>' to close type arguments, found ';'" {
		t.Errorf("err = %v", err)
	}
}

func TestParseFileMissing(t *testing.T) {
	if _, err := ParseFile("does/not/exist.ts"); err == nil {
		t.Error("no error for missing file")
	}
}

func TestIsNullable(t *testing.T) {
	for src, want := range map[string]bool{
		"number | null": true, "null": true, "number": false, "(A | null)[]": false, "A & B": false,
	} {
		if got := mustParse(t, "type X = "+src+";").Decls[0].Type.IsNullable(); got != want {
			t.Errorf("IsNullable(%s) = %v", src, got)
		}
	}
	var nilType *Type
	if nilType.IsNullable() || nilType.String() != "<nil>" {
		t.Error("nil type")
	}
}
