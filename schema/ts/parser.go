package ts

import (
	"fmt"
	"os"
)

// maxDepth bounds the nesting of type expressions so that hostile input
// cannot exhaust the stack.
const maxDepth = 200

// keywords are the TypeScript type keywords recognised as [Keyword] types.
var keywords = map[string]bool{
	"string": true, "number": true, "boolean": true, "null": true, "unknown": true,
	"any": true, "undefined": true, "object": true, "never": true,
}

// ParseFile reads and parses path.
func ParseFile(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseBytes(path, src)
}

// ParseBytes parses src, naming it path in positions.
// Any error it returns is an [*Error].
func ParseBytes(path string, src []byte) (*File, error) {
	toks, err := lex(path, src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	f := &File{Path: path}
	seen := map[string]*Decl{}
	for p.tok().kind != tEOF {
		if p.isPunct(";") {
			p.next()
			continue
		}
		d, err := p.parseDecl()
		if err != nil {
			return nil, err
		}
		if prev := seen[d.Name]; prev != nil {
			if why := merge(prev, d); why != "" {
				f.Duplicates = append(f.Duplicates, Duplicate{Name: d.Name, Pos: d.Pos, First: prev.Pos, Why: why})
			}
			continue
		}
		seen[d.Name] = d
		f.Decls = append(f.Decls, d)
	}
	return f, nil
}

// merge merges a second declaration of a name into the first, as
// TypeScript merges interfaces: the bases and members of both, where a
// member both declare must have the same type. It returns why the two
// cannot merge ("" when they can); the first then stands unchanged.
func merge(first, again *Decl) string {
	if first.Kind != Interface || again.Kind != Interface {
		return fmt.Sprintf("only interfaces merge (declared as %s, then as %s)", first.Kind, again.Kind)
	}
	if first.Index != nil && again.Index != nil && first.Index.Value.String() != again.Index.Value.String() {
		return "the index signatures differ"
	}
	var add []*Member
	for _, m := range again.Members {
		if prev := first.Member(m.Name); prev != nil {
			if prev.Optional != m.Optional || prev.Type.String() != m.Type.String() {
				return fmt.Sprintf("member %q differs (%s vs %s)", m.Name, prev.Type, m.Type)
			}
			continue
		}
		add = append(add, m)
	}
	for _, e := range again.Extends {
		dup := false
		for _, f := range first.Extends {
			dup = dup || f.String() == e.String()
		}
		if !dup {
			first.Extends = append(first.Extends, e)
		}
	}
	first.Members = append(first.Members, add...)
	if first.Index == nil {
		first.Index = again.Index
	}
	if first.Doc == nil {
		first.Doc = again.Doc
	}
	return ""
}

// peek returns the token after the current one.
func (p *parser) peek() *token {
	if p.i+1 < len(p.toks) {
		return &p.toks[p.i+1]
	}
	return &p.toks[len(p.toks)-1]
}

// readonly consumes a `readonly` modifier before a member or index
// signature (a member named readonly is followed by ':' or '?' instead).
func (p *parser) readonly() bool {
	if !p.isIdent("readonly") {
		return false
	}
	if n := p.peek(); n.kind == tPunct && (n.text == ":" || n.text == "?" || n.text == ";" || n.text == "," || n.text == "}") {
		return false
	}
	p.next()
	return true
}

type parser struct {
	toks  []token // always ends with tEOF
	i     int
	depth int
}

func (p *parser) tok() *token { return &p.toks[p.i] }

func (p *parser) next() {
	if p.i < len(p.toks)-1 {
		p.i++
	}
}

func (p *parser) isPunct(s string) bool {
	t := p.tok()
	return t.kind == tPunct && t.text == s
}

func (p *parser) isIdent(s string) bool {
	t := p.tok()
	return t.kind == tIdent && t.text == s
}

func (p *parser) errorAt(pos Pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// expected reports that what was expected at the current token.
func (p *parser) expected(what string) error {
	t := p.tok()
	return p.errorAt(t.pos, "expected %s, found %s", what, t.describe())
}

// expect consumes the punctuation s or reports "expected 's' <why>".
func (p *parser) expect(s, why string) error {
	if !p.isPunct(s) {
		return p.expected("'" + s + "' " + why)
	}
	p.next()
	return nil
}

// doc returns the parsed JSDoc attached to the current token, or nil.
func (p *parser) doc() *Doc {
	t := p.tok()
	if !t.hasDoc {
		return nil
	}
	return parseDoc(t.doc)
}

// ident consumes an identifier and returns it with its position.
func (p *parser) ident(what string) (string, Pos, error) {
	t := p.tok()
	if t.kind != tIdent {
		return "", t.pos, p.expected(what)
	}
	p.next()
	return t.text, t.pos, nil
}

// endStatement consumes a ';', or accepts its omission where automatic
// semicolon insertion would apply (line break, end of file).
func (p *parser) endStatement(what string) error {
	if p.isPunct(";") {
		p.next()
		return nil
	}
	if t := p.tok(); t.kind == tEOF || t.nlBefore {
		return nil
	}
	return p.expected("';' after " + what)
}

func (p *parser) parseDecl() (*Decl, error) {
	d := &Decl{Doc: p.doc()}
	if p.isIdent("export") {
		d.Exported = true
		p.next()
		if d.Doc == nil {
			d.Doc = p.doc()
		}
	}
	var err error
	switch {
	case p.isIdent("interface"):
		d.Kind = Interface
		err = p.parseInterface(d)
	case p.isIdent("type"):
		d.Kind = TypeAlias
		err = p.parseTypeAlias(d)
	case p.isIdent("const"):
		d.Kind = Const
		err = p.parseConst(d)
	default:
		if d.Exported {
			return nil, p.expected("'interface', 'type' or 'const' after 'export'")
		}
		return nil, p.expected("declaration ('export', 'interface', 'type' or 'const')")
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (p *parser) parseInterface(d *Decl) error {
	p.next() // interface
	var err error
	if d.Name, d.Pos, err = p.ident("interface name"); err != nil {
		return err
	}
	if p.isIdent("extends") {
		p.next()
		for {
			t, err := p.parseRef("base type after 'extends'")
			if err != nil {
				return err
			}
			d.Extends = append(d.Extends, t)
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
	}
	if err := p.expect("{", "to open body of interface "+d.Name); err != nil {
		return err
	}
	if d.Members, d.Index, err = p.parseMembers(); err != nil {
		return err
	}
	return p.expect("}", "to close body of interface "+d.Name)
}

func (p *parser) parseTypeAlias(d *Decl) error {
	p.next() // type
	var err error
	if d.Name, d.Pos, err = p.ident("type name"); err != nil {
		return err
	}
	if err := p.expect("=", "after type name "+d.Name); err != nil {
		return err
	}
	if d.Type, err = p.parseType(); err != nil {
		return err
	}
	return p.endStatement("type " + d.Name)
}

func (p *parser) parseConst(d *Decl) error {
	p.next() // const
	var err error
	if d.Name, d.Pos, err = p.ident("constant name"); err != nil {
		return err
	}
	if p.isPunct(":") {
		p.next()
		if d.Type, err = p.parseType(); err != nil {
			return err
		}
	}
	if err := p.expect("=", "after constant name "+d.Name); err != nil {
		return err
	}
	lit, ok := p.literal()
	if !ok {
		return p.expected("string, number or boolean literal to initialise constant " + d.Name)
	}
	d.Value = lit
	return p.endStatement("const " + d.Name)
}

// literal consumes a string, number or boolean literal if there is one.
func (p *parser) literal() (*Literal, bool) {
	t := p.tok()
	var l *Literal
	switch {
	case t.kind == tString:
		l = &Literal{Kind: StringLit, Str: t.str, Raw: t.text}
	case t.kind == tNumber:
		l = &Literal{Kind: NumberLit, Num: t.num, Raw: t.text}
	case t.kind == tIdent && (t.text == "true" || t.text == "false"):
		l = &Literal{Kind: BoolLit, Bool: t.text == "true", Raw: t.text}
	default:
		return nil, false
	}
	p.next()
	return l, true
}

// parseMembers parses interface or object-literal members up to (not
// including) the closing '}'.
func (p *parser) parseMembers() ([]*Member, *IndexSig, error) {
	var members []*Member
	var index *IndexSig
	seen := map[string]bool{}
	for {
		t := p.tok()
		if t.kind == tEOF || p.isPunct("}") {
			return members, index, nil
		}
		if p.isPunct(";") || p.isPunct(",") {
			p.next()
			continue
		}
		doc := p.doc()
		readonly := p.readonly()
		t = p.tok()
		what := ""
		if p.isPunct("[") {
			if index != nil {
				return nil, nil, p.errorAt(t.pos, "duplicate index signature (previous at %d:%d)", index.Pos.Line, index.Pos.Col)
			}
			ix, err := p.parseIndexSig()
			if err != nil {
				return nil, nil, err
			}
			ix.Doc = doc
			ix.Readonly = readonly
			index = ix
			what = "index signature"
		} else {
			m := &Member{Doc: doc, Pos: t.pos, Readonly: readonly}
			switch t.kind {
			case tIdent:
				m.Name = t.text
			case tString:
				m.Name, m.Quoted = t.str, true
			case tNumber:
				m.Name = t.text
			default:
				return nil, nil, p.expected("member name, index signature or '}'")
			}
			p.next()
			if seen[m.Name] {
				return nil, nil, p.errorAt(m.Pos, "duplicate member %q", m.Name)
			}
			seen[m.Name] = true
			if p.isPunct("?") {
				m.Optional = true
				p.next()
			}
			if err := p.expect(":", "after member name "+shorten(m.Name)); err != nil {
				return nil, nil, err
			}
			var err error
			if m.Type, err = p.parseType(); err != nil {
				return nil, nil, err
			}
			members = append(members, m)
			what = "member " + shorten(m.Name)
		}
		// Separator: ';' or ',' or a line break, or the closing '}'.
		switch {
		case p.isPunct(";") || p.isPunct(","):
			p.next()
		case p.isPunct("}") || p.tok().nlBefore:
		default:
			return nil, nil, p.expected("';', ',' or line break after " + what)
		}
	}
}

func (p *parser) parseIndexSig() (*IndexSig, error) {
	ix := &IndexSig{Pos: p.tok().pos}
	p.next() // [
	var err error
	if ix.KeyName, _, err = p.ident("index signature parameter name"); err != nil {
		return nil, err
	}
	if err := p.expect(":", "after index signature parameter name"); err != nil {
		return nil, err
	}
	if ix.KeyType, err = p.parseType(); err != nil {
		return nil, err
	}
	if err := p.expect("]", "to close index signature parameter"); err != nil {
		return nil, err
	}
	if err := p.expect(":", "after index signature"); err != nil {
		return nil, err
	}
	if ix.Value, err = p.parseType(); err != nil {
		return nil, err
	}
	return ix, nil
}

// parseType parses a type expression: a union of intersections of postfix
// (array) types.
func (p *parser) parseType() (*Type, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errorAt(p.tok().pos, "type nested too deeply")
	}
	return p.parseList(Union, "|", p.parseIntersection)
}

func (p *parser) parseIntersection() (*Type, error) {
	return p.parseList(Intersection, "&", p.parsePostfix)
}

// parseList parses `[op] elem (op elem)*`, flattening nested lists of the
// same kind. A single element is returned as is.
func (p *parser) parseList(kind TypeKind, op string, elem func() (*Type, error)) (*Type, error) {
	pos := p.tok().pos
	if p.isPunct(op) {
		p.next()
	}
	list := &Type{Kind: kind, Pos: pos}
	for {
		t, err := elem()
		if err != nil {
			return nil, err
		}
		if t.Kind == kind {
			list.Types = append(list.Types, t.Types...)
		} else {
			list.Types = append(list.Types, t)
		}
		if !p.isPunct(op) {
			break
		}
		p.next()
	}
	if len(list.Types) == 1 {
		return list.Types[0], nil
	}
	return list, nil
}

func (p *parser) parsePostfix() (*Type, error) {
	t, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	// As in TypeScript, '[' on a new line does not continue the type, so
	// that a following index signature is not taken for an array suffix.
	for p.isPunct("[") && !p.tok().nlBefore {
		pos := p.tok().pos
		p.next()
		if err := p.expect("]", "in array type (indexed access types are not supported)"); err != nil {
			return nil, err
		}
		t = &Type{Kind: Array, Pos: pos, Elem: t}
	}
	return t, nil
}

func (p *parser) parsePrimary() (*Type, error) {
	t := p.tok()
	pos := t.pos
	if lit, ok := p.literal(); ok {
		return &Type{Kind: LiteralType, Pos: pos, Lit: lit}, nil
	}
	switch {
	case p.isPunct("("):
		p.next()
		inner, err := p.parseType()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")", "to close parenthesised type"); err != nil {
			return nil, err
		}
		return inner, nil
	case p.isPunct("{"):
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		members, index, err := p.parseMembers()
		if err != nil {
			return nil, err
		}
		if err := p.expect("}", "to close object type"); err != nil {
			return nil, err
		}
		return &Type{Kind: Object, Pos: pos, Members: members, Index: index}, nil
	case t.kind != tIdent:
		return nil, p.expected("type")
	case t.text == "readonly" && p.peek().kind == tIdent || t.text == "readonly" && p.peek().kind == tPunct && p.peek().text == "(":
		// The type operator readonly T[]: the same JSON as T[].
		p.next()
		return p.parsePostfix()
	case t.text == "typeof":
		p.next()
		name, err := p.qualifiedName("name after 'typeof'")
		if err != nil {
			return nil, err
		}
		return &Type{Kind: TypeOf, Pos: pos, Name: name}, nil
	case keywords[t.text]:
		p.next()
		return &Type{Kind: Keyword, Pos: pos, Keyword: t.text}, nil
	}
	return p.parseRef("type")
}

// qualifiedName parses Ident ('.' Ident)*.
func (p *parser) qualifiedName(what string) (string, error) {
	name, _, err := p.ident(what)
	if err != nil {
		return "", err
	}
	for p.isPunct(".") {
		p.next()
		part, _, err := p.ident("identifier after '.'")
		if err != nil {
			return "", err
		}
		name += "." + part
	}
	return name, nil
}

// parseRef parses a type reference Name or Name<Args>.
func (p *parser) parseRef(what string) (*Type, error) {
	pos := p.tok().pos
	name, err := p.qualifiedName(what)
	if err != nil {
		return nil, err
	}
	t := &Type{Kind: Ref, Pos: pos, Name: name}
	if !p.isPunct("<") {
		return t, nil
	}
	p.next()
	for {
		if len(t.Args) > 0 && p.isPunct(">") { // trailing comma
			break
		}
		arg, err := p.parseType()
		if err != nil {
			return nil, err
		}
		t.Args = append(t.Args, arg)
		if !p.isPunct(",") {
			break
		}
		p.next()
	}
	if err := p.expect(">", "to close type arguments"); err != nil {
		return nil, err
	}
	return t, nil
}
