// Package fromgo is mcpgen tools: it reads a Go package, finds the tools,
// prompts and resources declared in it with //mcp: directives, and
// generates what serves them — the JSON Schemas of their argument and
// result types, reflection-free decoders, validators and encoders, and a
// function returning a *features.Set of them (runtime/features).
//
// The declarations are doc-comment directives on plain functions:
//
//	//mcp:tool [NAME] [title="…"] [readOnly] [destructive] [idempotent] [openWorld] [task=optional|required] [stateful|stateless] [icon=…]… [meta=…]
//	//mcp:prompt [NAME] [title="…"] [stateful|stateless] [icon=…]… [meta=…]
//	//mcp:resource URI [name=…] [title="…"] [mimeType=…] [icon=…]… [meta=…]
//	//mcp:template URI-TEMPLATE [name=…] [title="…"] [mimeType=…] [icon=…]… [meta=…]
//
// (Reference has the whole language.)
//
// The rest of the doc comment is the description. Directives were chosen
// over a struct literal because the declaration then sits on the function
// it declares, reads statically (no constant evaluation), and the doc
// comment is the description once for both Go readers and the model.
//
// The pipeline: load (go/packages) → collect the directives → model the
// argument and result types (types.go, which refuses what JSON Schema
// cannot express, naming the field) → emit (emit.go).
package fromgo

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Options say what to generate.
type Options struct {
	// Dir is the directory of the package (default ".").
	Dir string
	// Pattern is the package pattern to load (default ".").
	Pattern string
	// Func is the name of the generated function returning the set
	// (default "Features").
	Func string
	// File is the generated file's name in the package directory (default
	// "features.gen.go").
	File string
}

// Output is the generated file.
type Output struct {
	// Path is where it goes; Content its bytes (gofmt-clean).
	Path    string
	Content []byte
	// Declared counts the package's declarations.
	Tools, Prompts, Resources, Templates int
	// Warnings are what is declared but would be lost in silence (a
	// handler method named off by a letter, say): printed, not fatal.
	Warnings []string
	// Doc is the package's doc comment; the names are those of its
	// declarations, in source order (for server.json).
	Doc                                                string
	ToolNames, PromptNames, ResourceURIs, TemplateURIs []string
	// Restricted are the names and URIs of the declarations restricted
	// with visible=, by server.json's list ("tools", "prompts",
	// "resources", "resourceTemplates"): server.json leaves them out
	// unless asked.
	Restricted map[string][]string
}

// Generate loads the package and generates its features file.
func Generate(opts Options) (*Output, error) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.Pattern == "" {
		opts.Pattern = "."
	}
	if opts.Func == "" {
		opts.Func = "Features"
	}
	if opts.File == "" {
		opts.File = "features.gen.go"
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  opts.Dir,
	}
	pkgs, err := packages.Load(cfg, opts.Pattern)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", opts.Pattern, err)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("load %s in %s: want one package, found %d (does go list see it? its module may need go mod tidy)", opts.Pattern, opts.Dir, len(pkgs))
	}
	pkg := pkgs[0]
	if pkg.Types == nil || len(pkg.Syntax) == 0 {
		return nil, fmt.Errorf("load %s: %v", opts.Pattern, pkg.Errors)
	}
	l := &loader{pkg: pkg, docs: map[token.Pos]string{}, opts: opts}
	l.indexDocs()
	decls, err := l.collect()
	if err != nil {
		return nil, err
	}
	if pkg.TypesInfo == nil {
		return nil, fmt.Errorf("load %s: no type information: %v", opts.Pattern, pkg.Errors)
	}
	m := newModeler(l)
	for _, d := range decls {
		if err := m.declare(d); err != nil {
			return nil, err
		}
	}
	if err := m.checkDuplicates(); err != nil {
		return nil, err
	}
	if err := m.attachCompletions(); err != nil {
		return nil, err
	}
	if err := m.checkApps(); err != nil {
		return nil, err
	}
	content, err := emit(l, m, decls)
	if err != nil {
		return nil, err
	}
	out := &Output{Content: content, Warnings: append(l.warned(), l.checkHandlers()...)}
	dir := opts.Dir
	if len(pkg.GoFiles) > 0 {
		dir = dirOf(pkg.GoFiles[0])
	}
	out.Path = dir + "/" + opts.File
	for _, f := range pkg.Syntax {
		if f.Doc != nil && out.Doc == "" {
			out.Doc = f.Doc.Text()
		}
	}
	out.Restricted = map[string][]string{}
	for _, it := range m.items {
		list, key := "", ""
		switch it.kind {
		case "tool":
			out.ToolNames = append(out.ToolNames, it.name)
			list, key = "tools", it.name
		case "prompt":
			out.PromptNames = append(out.PromptNames, it.name)
			list, key = "prompts", it.name
		case "resource", "app":
			out.ResourceURIs = append(out.ResourceURIs, it.arg)
			list, key = "resources", it.arg
		case "template":
			out.TemplateURIs = append(out.TemplateURIs, it.arg)
			list, key = "resourceTemplates", it.arg
		}
		if _, ok := it.attrs["visible"]; ok && list != "" {
			out.Restricted[list] = append(out.Restricted[list], key)
		}
	}
	for _, d := range decls {
		switch d.kind {
		case "tool":
			out.Tools++
		case "prompt":
			out.Prompts++
		case "resource", "app":
			out.Resources++
		case "template":
			out.Templates++
		}
	}
	return out, nil
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i]
	}
	return "."
}

// loader holds the loaded package and its doc comments.
type loader struct {
	pkg  *packages.Package
	opts Options
	// docs are the doc comments of struct fields and type names, by the
	// position of their identifier.
	docs map[token.Pos]string
	// warnings are what the package declares that mcpgen would otherwise
	// drop in silence (a misspelt directive or tag), in the order found.
	warnings []warning
}

// warning is a warning at a position.
type warning struct {
	pos token.Position
	msg string
}

// warn records a warning at pos once.
func (l *loader) warn(pos token.Position, format string, a ...any) {
	w := warning{pos, fmt.Sprintf("%s: %s", pos, fmt.Sprintf(format, a...))}
	if !slices.Contains(l.warnings, w) {
		l.warnings = append(l.warnings, w)
	}
}

// warned are the warnings in source order.
func (l *loader) warned() []string {
	slices.SortStableFunc(l.warnings, func(a, b warning) int {
		if a.pos.Filename != b.pos.Filename {
			return strings.Compare(a.pos.Filename, b.pos.Filename)
		}
		return a.pos.Offset - b.pos.Offset
	})
	var out []string
	for _, w := range l.warnings {
		out = append(out, w.msg)
	}
	return out
}

// indexDocs records every field's and type's doc comment.
func (l *loader) indexDocs() {
	for _, f := range l.pkg.Syntax {
		if strings.HasSuffix(l.pkg.Fset.Position(f.Pos()).Filename, l.opts.File) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok == token.TYPE && len(n.Specs) == 1 && n.Doc != nil {
					ts := n.Specs[0].(*ast.TypeSpec)
					if ts.Doc == nil {
						l.docs[ts.Name.Pos()] = n.Doc.Text()
					}
				}
			case *ast.TypeSpec:
				if n.Doc != nil {
					l.docs[n.Name.Pos()] = n.Doc.Text()
				}
			case *ast.Field:
				doc := n.Doc
				if doc == nil {
					doc = n.Comment
				}
				if doc != nil {
					for _, name := range n.Names {
						l.docs[name.Pos()] = doc.Text()
					}
				}
			}
			return true
		})
	}
}

// decl is one declaration: a directive and its function.
type decl struct {
	kind string // tool, prompt, resource, template
	// arg is the directive's first positional argument (the name, or the
	// URI / URI template); attrs its key=value and flag attributes.
	arg   string
	attrs map[string]string
	fn    *types.Func
	doc   string
	pos   token.Position
}

// collect finds the directives, in source order.
func (l *loader) collect() ([]*decl, error) {
	var out []*decl
	for _, f := range l.pkg.Syntax {
		if strings.HasSuffix(l.pkg.Fset.Position(f.Pos()).Filename, l.opts.File) {
			continue // our own output
		}
		l.strayDirectives(f)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Doc == nil {
				continue
			}
			for _, c := range fd.Doc.List {
				text, ok := strings.CutPrefix(c.Text, "//mcp:")
				if !ok {
					continue
				}
				pos := l.pkg.Fset.Position(c.Pos())
				kind, rest, _ := strings.Cut(text, " ")
				switch kind {
				case "tool", "prompt", "resource", "template", "complete", "app":
				default:
					return nil, fmt.Errorf("%s: unknown directive //mcp:%s (want tool, prompt, resource, template, complete or app)", pos, kind)
				}
				if fd.Recv != nil {
					return nil, fmt.Errorf("%s: //mcp:%s on a method: declare a function", pos, kind)
				}
				arg, attrs, err := parseDirective(rest)
				if err == nil {
					err = checkAttributes(kind, attrs)
				}
				if err != nil {
					return nil, fmt.Errorf("%s: //mcp:%s: %w", pos, kind, err)
				}
				fn, _ := l.pkg.TypesInfo.Defs[fd.Name].(*types.Func)
				if fn == nil {
					return nil, fmt.Errorf("%s: %s: no type information (does the package compile?)", pos, fd.Name.Name)
				}
				out = append(out, &decl{kind: kind, arg: arg, attrs: attrs, fn: fn, doc: strings.TrimSpace(fd.Doc.Text()), pos: pos})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].pos, out[j].pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return out, nil
}

// directiveKinds are the directives mcpgen reads.
var directiveKinds = []string{"tool", "prompt", "resource", "template", "complete", "app"}

// strayDirectives warns of comments of f that look meant as directives but
// that mcpgen does not read: a directive that is not in a function's doc
// comment (on a type, a method's receiver-less sibling, a floating
// comment), and a prefix off by one edit from //mcp: ("//mpc:tool",
// "// mcp:tool", "//mcp tool").
func (l *loader) strayDirectives(f *ast.File) {
	docs := map[*ast.CommentGroup]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
			docs[fd.Doc] = true
		}
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			pos := l.pkg.Fset.Position(c.Pos())
			if text, ok := strings.CutPrefix(c.Text, "//mcp:"); ok {
				if !docs[g] {
					kind, _, _ := strings.Cut(text, " ")
					l.warn(pos, "//mcp:%s is not in a function's doc comment, so it declares nothing: put it in the doc comment of the function that serves it (no blank line between)", kind)
				}
				continue
			}
			if p, ok := misspeltDirective(c.Text); ok {
				l.warn(pos, "%q looks like a directive but is not read: write %s", strings.TrimSpace(c.Text), p)
			}
		}
	}
}

// misspeltDirective reports a comment one edit from a directive's prefix
// (//mcp:KIND), and the prefix it resembles.
func misspeltDirective(text string) (string, bool) {
	body, ok := strings.CutPrefix(text, "//")
	if !ok {
		return "", false
	}
	word, _, _ := strings.Cut(strings.TrimRight(body, " \t"), " ")
	if len(word) > 20 {
		return "", false
	}
	for _, kind := range directiveKinds {
		want := "mcp:" + kind
		if word == want || strings.HasPrefix(word, "mcp:") {
			continue
		}
		// The prefix and the kind, or the prefix and a space before it.
		if editDistance(word, want) == 1 || strings.TrimSpace(body) == want || strings.HasPrefix(strings.TrimSpace(body), want+" ") && body[0] == ' ' {
			return "//" + want, true
		}
		// "//mcp tool" (no space after //: prose reads "// mcp tool …").
		if w, rest, ok := strings.Cut(body, " "); ok && w == "mcp" && (rest == kind || strings.HasPrefix(rest, kind+" ")) {
			return "//" + want, true
		}
	}
	return "", false
}

// parseDirective splits a directive's text into its positional argument
// and its attributes: key=value (value optionally double-quoted) and bare
// flags (value "true").
func parseDirective(s string) (arg string, attrs map[string]string, err error) {
	attrs = map[string]string{}
	for {
		s = strings.TrimSpace(s)
		if s == "" {
			return arg, attrs, nil
		}
		var tok string
		end := 0
		inQuote := false
		for end < len(s) && (inQuote || s[end] != ' ') {
			if s[end] == '"' {
				inQuote = !inQuote
			} else if s[end] == '\\' && inQuote {
				end++
			}
			end++
		}
		if inQuote {
			return "", nil, fmt.Errorf("unterminated quote in %q", s)
		}
		tok, s = s[:end], s[end:]
		key, val, isAttr := strings.Cut(tok, "=")
		if flags[tok] {
			attrs[tok] = "true"
			continue
		}
		if !isAttr || strings.ContainsAny(key, "/:{") {
			if arg != "" {
				return "", nil, fmt.Errorf("two names: %q and %q", arg, tok)
			}
			arg = tok
			continue
		}
		if strings.HasPrefix(val, `"`) {
			var uq string
			if _, err := fmt.Sscanf(val, "%q", &uq); err != nil {
				return "", nil, fmt.Errorf("%s: bad quoted value %s", key, val)
			}
			val = uq
		}
		if key == "icon" && attrs[key] != "" {
			// Repeatable: one icon per attribute, in order.
			val = attrs[key] + "\n" + val
		}
		attrs[key] = val
	}
}

// checkAttributes refuses an attribute the kind of directive does not
// take, and an icon or _meta that is not well formed.
func checkAttributes(kind string, attrs map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		if !slices.Contains(attributes[kind], k) {
			return fmt.Errorf("unknown attribute %q (a %s takes %s)", k, kind, strings.Join(attributes[kind], ", "))
		}
	}
	if v, ok := attrs["icon"]; ok {
		for _, one := range strings.Split(v, "\n") {
			if _, err := parseIcon(one); err != nil {
				return err
			}
		}
	}
	if v, ok := attrs["meta"]; ok && !isIdent(v) && (!json.Valid([]byte(v)) || !strings.HasPrefix(strings.TrimSpace(v), "{")) {
		return fmt.Errorf("meta=%s: want a JSON object (meta=\"{…}\", quotes escaped) or the name of a package-level variable", v)
	}
	return nil
}

// icon is one icon attribute: "SRC [mimeType=…] [sizes=WxH,…] [theme=light|dark]"
// (a URI has no spaces, a data: URI may have semicolons).
type icon struct {
	src, mimeType, theme string
	sizes                []string
}

func parseIcon(s string) (icon, error) {
	parts := strings.Fields(s)
	if len(parts) == 0 {
		return icon{}, fmt.Errorf("icon=\"\": an icon needs its src")
	}
	ic := icon{src: parts[0]}
	u, err := url.Parse(ic.src)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "data") {
		return ic, fmt.Errorf("icon=%q: its src must be an https:, http: or data: URI", s)
	}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "mimeType":
			ic.mimeType = v
		case "sizes":
			ic.sizes = strings.Split(v, ",")
		case "theme":
			if v != "light" && v != "dark" {
				return ic, fmt.Errorf("icon=%q: theme is light or dark, not %q", s, v)
			}
			ic.theme = v
		default:
			return ic, fmt.Errorf("icon=%q: unknown part %q (want mimeType=, sizes=, theme=)", s, k)
		}
	}
	return ic, nil
}

// isIdent reports a Go identifier (a variable's name).
func isIdent(s string) bool { return token.IsIdentifier(s) }

// attributes are the attributes each kind of directive takes.
var attributes = map[string][]string{
	"tool":     {"title", "readOnly", "destructive", "idempotent", "openWorld", "annotationTitle", "task", "stateful", "stateless", "icon", "meta", "visible", "app", "appVisibility"},
	"app":      {"name", "title", "icon", "visible", "connectDomains", "resourceDomains", "frameDomains", "baseUriDomains", "permissions", "domain", "prefersBorder"},
	"prompt":   {"title", "stateful", "stateless", "icon", "meta", "visible"},
	"resource": {"name", "title", "mimeType", "icon", "meta", "visible"},
	"template": {"name", "title", "mimeType", "icon", "meta", "visible"},
	"complete": {"arg"},
}

// flags are the attributes that stand alone (meaning =true).
var flags = map[string]bool{"readOnly": true, "destructive": true, "idempotent": true, "openWorld": true, "stateful": true, "stateless": true, "prefersBorder": true}
