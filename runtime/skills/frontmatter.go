package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Frontmatter is the YAML frontmatter of a SKILL.md as a JSON object:
// strings, numbers (json.Number), booleans, nulls, lists and nested
// objects. Entries of skills/list carry it verbatim.
type Frontmatter map[string]any

// Name returns the frontmatter's name, or "" when it is not a string.
func (f Frontmatter) Name() string { s, _ := f["name"].(string); return s }

// Description returns the frontmatter's description, or "" when it is not
// a string.
func (f Frontmatter) Description() string { s, _ := f["description"].(string); return s }

// Equal reports whether f and g hold the same content, as JSON values
// (numbers compare by value, objects regardless of member order).
func (f Frontmatter) Equal(g Frontmatter) bool {
	a, err1 := json.Marshal(f)
	b, err2 := json.Marshal(g)
	if err1 != nil || err2 != nil {
		return false
	}
	eq, err := jsonEqual(a, b)
	return err == nil && eq
}

// ErrNoFrontmatter is returned by ParseFrontmatter for a document that
// does not open with a "---" delimited frontmatter block.
var ErrNoFrontmatter = errors.New("skills: SKILL.md does not begin with a --- delimited YAML frontmatter block")

// maxFrontmatter bounds the frontmatter block ParseFrontmatter reads.
const maxFrontmatter = 64 << 10

// ParseFrontmatter reads the YAML frontmatter at the start of a SKILL.md:
// a "---" line, the YAML, and a closing "---" line. It understands the
// subset of YAML frontmatter uses: block mappings and sequences (nested by
// indentation), plain, single- and double-quoted scalars (also continued
// over several lines), literal (|) and folded (>) block scalars with
// chomping indicators, empty flow collections and flow sequences of
// scalars, and comments. Plain scalars resolve as in YAML 1.2's core schema
// (null, booleans, numbers, else strings). Anchors, aliases, tags,
// complex keys and multiple documents are errors, as are duplicate keys.
// The top level must be a mapping.
func ParseFrontmatter(doc []byte) (Frontmatter, error) {
	block, ok := frontmatterBlock(string(doc))
	if !ok {
		return nil, ErrNoFrontmatter
	}
	if len(block) > maxFrontmatter {
		return nil, fmt.Errorf("skills: frontmatter is longer than %d bytes", maxFrontmatter)
	}
	if !utf8.ValidString(block) {
		return nil, errors.New("skills: frontmatter is not valid UTF-8")
	}
	p := &yamlParser{}
	for l := range strings.SplitSeq(block, "\n") {
		p.lines = append(p.lines, strings.TrimSuffix(l, "\r"))
	}
	m, err := p.mapping(0)
	if err != nil {
		return nil, err
	}
	if p.skipBlank(); p.i < len(p.lines) {
		return nil, p.errf("unexpected indentation")
	}
	if m == nil {
		m = map[string]any{}
	}
	return Frontmatter(m), nil
}

// frontmatterBlock returns the text between the opening and closing ---
// lines of doc (a leading byte order mark is ignored).
func frontmatterBlock(doc string) (string, bool) {
	doc = strings.TrimPrefix(doc, "\uFEFF")
	rest, ok := cutDelimiter(doc)
	if !ok {
		return "", false
	}
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if _, ok := cutDelimiter(strings.TrimSuffix(line, "\r")); ok && off > 0 {
			return strings.TrimSuffix(rest[:off-1], "\r"), true
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return "", false
}

// cutDelimiter reports whether s opens with a "---" line (trailing blanks
// allowed) and returns what follows that line.
func cutDelimiter(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "---")
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	switch {
	case rest == "":
		return "", true
	case strings.HasPrefix(rest, "\r\n"):
		return rest[2:], true
	case rest[0] == '\n':
		return rest[1:], true
	}
	return "", false
}

// yamlParser parses the lines of a frontmatter block.
type yamlParser struct {
	lines []string
	i     int
}

func (p *yamlParser) errf(format string, args ...any) error {
	return fmt.Errorf("skills: frontmatter line %d: %s", p.i+2, fmt.Sprintf(format, args...))
}

// blank reports a line with nothing but spaces or a comment.
func blank(l string) bool {
	t := strings.TrimLeft(l, " \t")
	return t == "" || t[0] == '#'
}

// indentOf counts the leading spaces of l.
func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// skipBlank moves past blank and comment lines.
func (p *yamlParser) skipBlank() {
	for p.i < len(p.lines) && blank(p.lines[p.i]) {
		p.i++
	}
}

// next returns the indentation of the next content line, or -1 at the end.
func (p *yamlParser) next() int {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return -1
	}
	return indentOf(p.lines[p.i])
}

// mapping parses a block mapping whose keys sit at indent; nil when there
// are no lines at that indentation.
func (p *yamlParser) mapping(indent int) (map[string]any, error) {
	var m map[string]any
	for {
		ind := p.next()
		if ind < indent {
			return m, nil
		}
		if ind > indent {
			return nil, p.errf("unexpected indentation")
		}
		line := p.lines[p.i][ind:]
		if line[0] == '\t' {
			return nil, p.errf("tabs are not allowed in indentation")
		}
		if line == "---" || line == "..." || strings.HasPrefix(line, "--- ") {
			return nil, p.errf("only one document is allowed")
		}
		if strings.HasPrefix(line, "- ") || line == "-" {
			return nil, p.errf("a sequence where a mapping key was expected")
		}
		key, rest, err := p.key(line)
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]any{}
		}
		if _, dup := m[key]; dup {
			return nil, p.errf("duplicate key %q", key)
		}
		v, err := p.value(indent, rest)
		if err != nil {
			return nil, err
		}
		m[key] = v
	}
}

// key splits a mapping line into its key and what follows the colon.
func (p *yamlParser) key(line string) (string, string, error) {
	switch line[0] {
	case '"', '\'':
		s, n, err := quoted(line)
		if err != nil {
			return "", "", p.errf("%v", err)
		}
		rest, ok := strings.CutPrefix(line[n:], ":")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			return "", "", p.errf("expected ':' after a quoted key")
		}
		return s, rest, nil
	case '?', '&', '*', '!', '[', '{', '|', '>', '%', '@', '`':
		return "", "", p.errf("unsupported YAML syntax %q", line[0])
	}
	for i := 0; i < len(line); i++ {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			key := strings.TrimRight(line[:i], " \t")
			if strings.Contains(key, " #") {
				break
			}
			return key, line[i+1:], nil
		}
	}
	return "", "", p.errf("expected 'key: value'")
}

// value parses what follows a key's colon (rest, on the key's line at
// indent) and the lines that belong to it.
func (p *yamlParser) value(indent int, rest string) (any, error) {
	text := strings.TrimSpace(stripComment(rest))
	p.i++
	if text == "" {
		// A nested block, a sequence at the key's own indentation, or null.
		ind := p.next()
		switch {
		case ind > indent:
			if isItem(p.lines[p.i][ind:]) {
				return p.sequence(ind)
			}
			return p.mapping(ind)
		case ind == indent && isItem(p.lines[p.i][ind:]):
			return p.sequence(ind)
		}
		return nil, nil
	}
	if text[0] == '|' || text[0] == '>' {
		return p.blockScalar(indent, strings.TrimSpace(rest))
	}
	// Continuation lines of a multi-line flow scalar.
	var cont []string
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if !blank(l) && indentOf(l) <= indent {
			break
		}
		if strings.TrimSpace(l) != "" && strings.TrimSpace(l)[0] == '#' && text[0] != '"' && text[0] != '\'' {
			break
		}
		cont = append(cont, strings.TrimSpace(l))
		p.i++
	}
	for len(cont) > 0 && cont[len(cont)-1] == "" {
		cont = cont[:len(cont)-1]
	}
	if len(cont) > 0 {
		text = strings.TrimSpace(rest)
		if text[0] != '"' && text[0] != '\'' {
			text = stripComment(text)
		}
		text = fold(append([]string{strings.TrimSpace(text)}, cont...))
	}
	v, err := scalar(text)
	if err != nil {
		return nil, p.errf("%v", err)
	}
	return v, nil
}

// isItem reports a block sequence item.
func isItem(l string) bool { return l == "-" || strings.HasPrefix(l, "- ") }

// sequence parses a block sequence whose dashes sit at indent.
func (p *yamlParser) sequence(indent int) ([]any, error) {
	out := []any{}
	for {
		ind := p.next()
		if ind < indent || (ind == indent && !isItem(p.lines[p.i][ind:])) {
			return out, nil
		}
		if ind > indent {
			return nil, p.errf("unexpected indentation")
		}
		item := strings.TrimSpace(stripComment(p.lines[p.i][ind+1:]))
		switch {
		case item == "":
			p.i++
			ind := p.next()
			if ind <= indent {
				out = append(out, nil)
				continue
			}
			if isItem(p.lines[p.i][ind:]) {
				v, err := p.sequence(ind)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
				continue
			}
			v, err := p.mapping(ind)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		case isItem(item):
			return nil, p.errf("nested sequences on one line are not supported")
		case looksLikeKey(item):
			// "- key: value": a mapping whose keys align after the dash.
			at := ind + 1 + (len(p.lines[p.i][ind+1:]) - len(strings.TrimLeft(p.lines[p.i][ind+1:], " ")))
			p.lines[p.i] = strings.Repeat(" ", at) + p.lines[p.i][at:]
			v, err := p.mapping(at)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		default:
			v, err := p.value(indent, p.lines[p.i][ind+1:])
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
}

// looksLikeKey reports a sequence item that opens a mapping.
func looksLikeKey(s string) bool {
	if s[0] == '"' || s[0] == '\'' {
		_, n, err := quoted(s)
		return err == nil && strings.HasPrefix(s[n:], ":")
	}
	if s[0] == '[' || s[0] == '{' {
		return false
	}
	i := strings.Index(s, ": ")
	return (i > 0 || strings.HasSuffix(s, ":")) && !strings.Contains(s[:max(i, 0)], " #")
}

// blockScalar parses a literal or folded block scalar whose header is h;
// its lines are those indented more than the parent's indent.
func (p *yamlParser) blockScalar(parent int, h string) (any, error) {
	h = stripComment(h)
	h = strings.TrimSpace(h)
	folded := h[0] == '>'
	chomp, width := byte(0), 0
	for _, c := range h[1:] {
		switch {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = byte(c)
		case c >= '1' && c <= '9' && width == 0:
			width = int(c - '0')
		default:
			return nil, p.errf("bad block scalar header %q", h)
		}
	}
	var lines []string
	indent := -1
	if width > 0 {
		indent = parent + width
	}
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" {
			lines = append(lines, "")
			continue
		}
		ind := indentOf(l)
		if indent < 0 {
			if ind <= parent {
				break
			}
			indent = ind
		}
		if ind < indent {
			if ind > parent {
				return nil, p.errf("block scalar line less indented than its first line")
			}
			break
		}
		lines = append(lines, l[indent:])
	}
	// Trailing blank lines belong to the scalar only for keep chomping.
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	var b strings.Builder
	if folded {
		empty, prevMore := 0, false
		for i, l := range lines {
			if l == "" {
				empty++
				continue
			}
			more := l[0] == ' ' || l[0] == '\t'
			if i > 0 {
				switch {
				case more || prevMore:
					b.WriteString(strings.Repeat("\n", empty+1))
				case empty > 0:
					b.WriteString(strings.Repeat("\n", empty))
				default:
					b.WriteByte(' ')
				}
			}
			b.WriteString(l)
			empty, prevMore = 0, more
		}
	} else {
		b.WriteString(strings.Join(lines, "\n"))
	}
	s := b.String()
	switch {
	case len(lines) == 0:
		if chomp == '+' {
			s = strings.Repeat("\n", trailing)
		}
	case chomp == '-':
	case chomp == '+':
		s += "\n" + strings.Repeat("\n", trailing)
	default:
		s += "\n"
	}
	return s, nil
}

// fold joins the lines of a multi-line flow scalar: single line breaks
// become spaces, empty lines line feeds.
func fold(lines []string) string {
	var b strings.Builder
	empty := 0
	for i, l := range lines {
		if l == "" {
			empty++
			continue
		}
		if i > 0 {
			if empty > 0 {
				b.WriteString(strings.Repeat("\n", empty))
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
		empty = 0
	}
	return b.String()
}

// stripComment removes a trailing " # comment" from a plain value (not
// inside quotes).
func stripComment(s string) string {
	t := strings.TrimLeft(s, " \t")
	if t != "" && (t[0] == '"' || t[0] == '\'') {
		if _, n, err := quoted(t); err == nil {
			rest := strings.TrimSpace(t[n:])
			if strings.HasPrefix(rest, "#") {
				return t[:n]
			}
		}
		return s
	}
	if strings.HasPrefix(t, "#") {
		return ""
	}
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return s[:i]
		}
	}
	return s
}

// scalar parses a one-line value: quoted, flow collection, or plain.
func scalar(s string) (any, error) {
	if s == "" {
		return nil, nil
	}
	switch s[0] {
	case '"', '\'':
		v, n, err := quoted(s)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(s[n:]) != "" {
			return nil, fmt.Errorf("unexpected text after a quoted scalar: %q", s[n:])
		}
		return v, nil
	case '[':
		return flowSequence(s)
	case '{':
		if strings.TrimSpace(s[1:]) == "}" {
			return map[string]any{}, nil
		}
		return nil, errors.New("flow mappings are not supported")
	case '&', '*', '!', '|', '>', '%', '@', '`', ']', '}':
		return nil, fmt.Errorf("unsupported YAML syntax %q", s[0])
	case '-', '?', ':':
		if len(s) == 1 || s[1] == ' ' {
			return nil, fmt.Errorf("unsupported YAML syntax %q", s[:1])
		}
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return nil, fmt.Errorf("a plain scalar may not contain ': ' (quote it): %q", s)
	}
	return resolve(s), nil
}

// flowSequence parses "[a, 'b', 3]": scalars only.
func flowSequence(s string) ([]any, error) {
	inner, ok := strings.CutSuffix(strings.TrimSpace(s), "]")
	if !ok {
		return nil, errors.New("unterminated flow sequence")
	}
	inner = strings.TrimSpace(inner[1:])
	out := []any{}
	for inner != "" {
		var item any
		if inner[0] == '"' || inner[0] == '\'' {
			v, n, err := quoted(inner)
			if err != nil {
				return nil, err
			}
			item, inner = v, strings.TrimSpace(inner[n:])
		} else {
			end := strings.IndexByte(inner, ',')
			if end < 0 {
				end = len(inner)
			}
			tok := strings.TrimSpace(inner[:end])
			if tok == "" || strings.ContainsAny(tok, "[]{}") {
				return nil, fmt.Errorf("unsupported flow sequence item %q", tok)
			}
			item, inner = resolve(tok), inner[end:]
		}
		out = append(out, item)
		if inner == "" {
			break
		}
		rest, ok := strings.CutPrefix(inner, ",")
		if !ok {
			return nil, errors.New("expected ',' in a flow sequence")
		}
		inner = strings.TrimSpace(rest)
	}
	return out, nil
}

// quoted decodes the quoted scalar s opens with and returns it and the
// length it spans.
func quoted(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && q == '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, nil
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && q == '"':
			n, err := unescape(&b, s[i+1:])
			if err != nil {
				return "", 0, err
			}
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unterminated quoted scalar")
}

// simpleEscapes are the one-character escapes of double-quoted scalars.
var simpleEscapes = map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f",
	'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}

// unescape writes the escape sequence s starts with (after the backslash)
// and returns its length.
func unescape(b *strings.Builder, s string) (int, error) {
	if s == "" {
		return 0, errors.New("unterminated escape")
	}
	if r, ok := simpleEscapes[s[0]]; ok {
		b.WriteString(r)
		return 1, nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
	if width == 0 || len(s) < 1+width {
		return 0, fmt.Errorf("bad escape \\%c", s[0])
	}
	n, err := strconv.ParseUint(s[1:1+width], 16, 32)
	if err != nil || n > utf8.MaxRune || (n >= 0xD800 && n <= 0xDFFF) {
		return 0, fmt.Errorf("bad escape \\%s", s[:1+width])
	}
	b.WriteRune(rune(n))
	return 1 + width, nil
}

// resolve gives a plain scalar its YAML 1.2 core schema value.
func resolve(s string) any {
	switch s {
	case "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	if isInt(s) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10))
		}
	}
	if rest, ok := strings.CutPrefix(s, "0x"); ok && rest != "" && strings.Trim(rest, "0123456789abcdefABCDEF") == "" {
		if n, err := strconv.ParseUint(rest, 16, 63); err == nil {
			return json.Number(strconv.FormatUint(n, 10))
		}
	}
	if rest, ok := strings.CutPrefix(s, "0o"); ok && rest != "" && strings.Trim(rest, "01234567") == "" {
		if n, err := strconv.ParseUint(rest, 8, 63); err == nil {
			return json.Number(strconv.FormatUint(n, 10))
		}
	}
	if isFloat(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return s
}

// isInt matches [-+]?[0-9]+.
func isInt(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// isFloat matches [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?.
func isFloat(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if exp == "" || strings.Trim(exp, "0123456789") != "" {
			return false
		}
	}
	whole, frac, dot := strings.Cut(mant, ".")
	digits := func(x string) bool { return strings.Trim(x, "0123456789") == "" }
	if !digits(whole) || !digits(frac) {
		return false
	}
	return whole != "" || (dot && frac != "")
}
