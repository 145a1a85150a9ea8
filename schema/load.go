package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/schema/ts"
)

// Options control loading.
type Options struct {
	// Strict makes every warning an error: loading stops at the first fact
	// the revision does not let the loader derive.
	Strict bool
	// Overrides are facts the user states (an --overrides file); they take
	// precedence over the embedded table (BuiltinFacts).
	Overrides *Facts
}

// Load reads the revision at path with the default options; see LoadWith.
func Load(path string) (*Spec, error) { return LoadWith(path, Options{}) }

// LoadWith reads the revision at path — a directory holding schema.json
// and, usually, schema.ts, or the path of a schema.json alone — and builds
// its model. What the revision does not let the loader derive degrades to a
// documented fallback and a warning (Spec.Warnings); only an input that is
// not a schema stops loading. Every error names the file and, where it
// applies, the JSON pointer or line and column.
func LoadWith(path string, opts Options) (*Spec, error) {
	jsonPath, tsPath, err := locate(path)
	if err != nil {
		return nil, err
	}
	jsonSrc, err := os.ReadFile(jsonPath)
	if err != nil {
		return nil, fmt.Errorf("reading spec: %w", err)
	}
	var tsFile *ts.File
	var tsSrc []byte
	if tsPath != "" {
		if tsSrc, err = os.ReadFile(tsPath); err != nil {
			return nil, fmt.Errorf("reading spec: %w", err)
		}
		if tsFile, err = ts.ParseBytes(tsPath, tsSrc); err != nil {
			return nil, err
		}
	}
	spec := &Spec{JSONPath: jsonPath, SchemaSHA256: sha(jsonSrc), defs: map[string]*Def{}, strict: opts.Strict, facts: BuiltinFacts().With(opts.Overrides), src: jsonSrc}
	err = build(spec, jsonSrc, tsFile, tsSrc, filepath.Base(filepath.Dir(jsonPath)))
	spec.src = nil // only errors need it
	if err != nil {
		return nil, err
	}
	return spec, nil
}

// locate finds schema.json and the schema.ts beside it.
func locate(path string) (jsonPath, tsPath string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", fmt.Errorf("spec %s: %w", path, unwrapPathErr(err))
	}
	if fi.IsDir() {
		jsonPath = filepath.Join(path, "schema.json")
		if _, err := os.Stat(jsonPath); err != nil {
			return "", "", fmt.Errorf("spec %s: no schema.json in this directory", path)
		}
	} else {
		jsonPath = path
	}
	candidate := filepath.Join(filepath.Dir(jsonPath), "schema.ts")
	if _, err := os.Stat(candidate); err == nil {
		tsPath = candidate
	}
	return jsonPath, tsPath, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// build assembles the model from the parsed files, in order: schema.json's
// definitions (checked, compiled, converted), allOf flattened, schema.ts
// merged, members stated by facts added (extensions), shapes fitted to Go, inline types named, unions analyzed,
// methods derived. dirName
// names the revision when schema.ts does not.
func build(spec *Spec, jsonSrc []byte, tsFile *ts.File, tsSrc []byte, dirName string) error {
	jsonPath := spec.JSONPath
	doc, err := decodeJSON(jsonPath, jsonSrc)
	if err != nil {
		return err
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("%s:1:1: top level is not an object; expected a JSON Schema document", jsonPath)
	}
	if tsFile != nil {
		spec.TSPath = tsFile.Path
		spec.TSSHA256 = sha(tsSrc)
	}
	dialect, _ := root["$schema"].(string)
	defsKey := "$defs"
	switch Dialect(dialect) {
	case Draft07:
		defsKey = "definitions"
	case Draft2020:
	default:
		return spec.invalid("/$schema", "unsupported dialect %q (want %q or %q)", dialect, Draft07, Draft2020)
	}
	spec.Dialect = Dialect(dialect)
	rawDefs, ok := root[defsKey].(map[string]any)
	if !ok {
		return spec.invalid("/"+defsKey, "missing or not an object; expected the definitions")
	}
	rewritten, err := checkRefs(spec, root, defsKey)
	if err != nil {
		return err
	}
	compiled := jsonSrc
	if rewritten {
		// The reference compiler sees the references as resolved.
		if compiled, err = json.Marshal(root); err != nil {
			return fmt.Errorf("%s: re-encoding after resolving references: %w", jsonPath, err)
		}
	}
	if err := compile(spec, compiled, defsKey, rawDefs); err != nil {
		return err
	}

	c := &converter{defsKey: defsKey, spec: spec}
	names := make([]string, 0, len(rawDefs))
	for name := range rawDefs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		node, ok := rawDefs[name].(map[string]any)
		if !ok {
			return spec.invalid("/"+defsKey+"/"+escapePtr(name), "definition is not an object; expected a schema")
		}
		t, err := c.convert(node, "/"+defsKey+"/"+escapePtr(name))
		if err != nil {
			return err
		}
		d := &Def{Name: name, Type: t, Doc: Doc{Text: description(node)}}
		spec.Defs = append(spec.Defs, d)
		spec.defs[name] = d
	}

	if err := resolveAllOf(spec); err != nil {
		return err
	}
	spec.Revision = dirName
	if tsFile != nil {
		if err := mergeTS(spec, tsFile); err != nil {
			return err
		}
	}
	addMembers(spec)
	if err := fitShapes(spec); err != nil {
		return err
	}
	if err := nameInline(spec); err != nil {
		return err
	}
	if err := analyzeUnions(spec); err != nil {
		return err
	}
	return buildMethods(spec)
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// decodeJSON parses src, reporting syntax errors as file:line:col.
func decodeJSON(path string, src []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := lineCol(src, int(se.Offset))
			return nil, fmt.Errorf("%s:%d:%d: malformed JSON: %s", path, line, col, se.Error())
		case errors.As(err, &te):
			line, col := lineCol(src, int(te.Offset))
			return nil, fmt.Errorf("%s:%d:%d: malformed JSON: %s", path, line, col, te.Error())
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, truncated(path, src)
		default:
			return nil, fmt.Errorf("%s: malformed JSON: %v", path, err)
		}
	}
	if _, err := dec.Token(); err == nil {
		off := int(dec.InputOffset())
		line, col := lineCol(src, off)
		return nil, fmt.Errorf("%s:%d:%d: malformed JSON: data after the top-level value", path, line, col)
	}
	return v, nil
}

// truncated explains a document that ends too early: an empty file, an
// unterminated string, or the innermost object or array left open.
func truncated(path string, src []byte) error {
	line, col := lineCol(src, len(src))
	if len(bytes.TrimSpace(src)) == 0 {
		return fmt.Errorf("%s:%d:%d: malformed JSON: the file is empty; expected a JSON Schema document (an object)", path, line, col)
	}
	type open struct {
		c   byte
		off int
	}
	var stack []open
	inString, escaped, strStart := false, false, 0
	for i, c := range src {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString, strStart = true, i
		case c == '{' || c == '[':
			stack = append(stack, open{c, i})
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	what := "a value"
	switch {
	case inString:
		l, c := lineCol(src, strStart)
		what = fmt.Sprintf("'\"' to end the string that starts at %d:%d", l, c)
	case len(stack) > 0:
		top := stack[len(stack)-1]
		l, c := lineCol(src, top.off)
		if top.c == '{' {
			what = fmt.Sprintf("'}' to close the object opened at %d:%d", l, c)
		} else {
			what = fmt.Sprintf("']' to close the array opened at %d:%d", l, c)
		}
	}
	return fmt.Errorf("%s:%d:%d: malformed JSON: unexpected end of file (truncated?); expected %s", path, line, col, what)
}

func lineCol(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

// invalid is the error for an input that is not a schema at the JSON
// pointer ptr: file:line:column of the place, the pointer, the message.
func (s *Spec) invalid(ptr, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if off, ok := pointerOffset(s.src, ptr); ok {
		line, col := lineCol(s.src, off)
		return fmt.Errorf("%s:%d:%d: #%s: %s", s.JSONPath, line, col, ptr, msg)
	}
	return fmt.Errorf("%s#%s: %s", s.JSONPath, ptr, msg)
}

// pointerOffset finds where the JSON pointer ptr points in src: the offset
// of the member's name for an object member, of the element for an array
// element. ok is false when src does not hold it.
func pointerOffset(src []byte, ptr string) (int, bool) {
	var want []string
	if ptr != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			want = append(want, unescapePtr(tok))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	next := func() int { // the offset of the next token
		i := int(dec.InputOffset())
		for i < len(src) && strings.IndexByte(" \t\r\n,:", src[i]) >= 0 {
			i++
		}
		return i
	}
	var skip func() error
	skip = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		for dec.More() {
			if d == '{' {
				if _, err := dec.Token(); err != nil {
					return err
				}
			}
			if err := skip(); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	// walk descends into the next value along want[depth:].
	var walk func(depth int) (int, bool)
	walk = func(depth int) (int, bool) {
		at := next()
		if depth == len(want) {
			return at, true
		}
		tok, err := dec.Token()
		if err != nil {
			return 0, false
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return 0, false
		}
		for i := 0; dec.More(); i++ {
			if d == '{' {
				keyAt := next()
				k, err := dec.Token()
				if err != nil {
					return 0, false
				}
				if k == want[depth] {
					if depth+1 == len(want) {
						return keyAt, true
					}
					return walk(depth + 1)
				}
			} else if strconv.Itoa(i) == want[depth] {
				return walk(depth + 1)
			}
			if skip() != nil {
				return 0, false
			}
		}
		return 0, false
	}
	return walk(0)
}

// escapePtr escapes one JSON pointer token (RFC 6901).
func escapePtr(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func description(node map[string]any) string {
	s, _ := node["description"].(string)
	return s
}
