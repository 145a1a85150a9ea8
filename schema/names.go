package schema

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// initialisms are written in upper case in Go names, as Go style asks
// (ID, URI, MIMEType).
var initialisms = map[string]string{
	"id": "ID", "uri": "URI", "url": "URL", "json": "JSON", "jsonrpc": "JSONRPC",
	"http": "HTTP", "mime": "MIME", "ttl": "TTL", "api": "API", "ui": "UI",
	"ip": "IP", "io": "IO", "sse": "SSE", "html": "HTML", "utf8": "UTF8", "mcp": "MCP",
}

// GoName turns a JSON member name into an exported Go identifier.
//
//	_meta                                  -> Meta
//	$schema                                -> Schema
//	mimeType                               -> MIMEType
//	io.modelcontextprotocol/protocolVersion -> ProtocolVersion
//
// A reverse-DNS prefix ("io.modelcontextprotocol/") is dropped; uniqueGoNames
// puts it back when two members would collide.
func GoName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
	}
	return joinWords(words(name))
}

// fullGoName keeps the prefix, for disambiguation.
func fullGoName(name string) string {
	return joinWords(words(strings.NewReplacer("/", "_", ".", "_").Replace(name)))
}

// words splits a name at non-alphanumerics and lower-to-upper case changes.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || unicode.IsDigit(cur[len(cur)-1]) ||
			(i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func joinWords(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	s := b.String()
	if s == "" {
		return "X"
	}
	if unicode.IsDigit([]rune(s)[0]) {
		s = "X" + s
	}
	return s
}

// reservedFields are Go names the generator uses itself in every object.
var reservedFields = map[string]bool{"Extra": true}

// uniqueGoNames assigns GoName to every property of an object, keeping the
// names unique: on a collision the colliding members get their full names,
// and where even those collide, a number (with a warning).
func uniqueGoNames(spec *Spec, t *Type) error {
	seen := map[string][]*Prop{}
	for _, p := range t.Props {
		p.GoName = GoName(p.Name)
		seen[p.GoName] = append(seen[p.GoName], p)
	}
	for name, ps := range seen {
		if len(ps) < 2 && !reservedFields[name] {
			continue
		}
		for _, p := range ps {
			p.GoName = fullGoName(p.Name)
		}
	}
	final := map[string]string{}
	for _, p := range t.Props {
		if other, dup := final[p.GoName]; dup || reservedFields[p.GoName] {
			name := numbered(p.GoName, func(n string) bool { _, taken := final[n]; return taken || reservedFields[n] })
			what := fmt.Sprintf("members %q and %q both map to the Go name %s", other, p.Name, p.GoName)
			if !dup {
				what = fmt.Sprintf("member %q maps to the Go name %s, which the generator uses itself", p.Name, p.GoName)
			}
			if err := spec.warn(Warning{Class: NameCollision, Where: spec.at(t.Path), What: what, Fallback: fmt.Sprintf("%q is the field %s", p.Name, name)}); err != nil {
				return err
			}
			p.GoName = name
		}
		final[p.GoName] = p.Name
	}
	return nil
}

// numbered is name with the smallest number from 2 on that taken rejects.
func numbered(name string, taken func(string) bool) string {
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s%d", name, i); !taken(n) {
			return n
		}
	}
}

// nameInline flattens allOf, gives every inline object, union and union
// member that needs a Go type a stable name derived from where it sits
// (ServerCapabilities.prompts -> ServerCapabilitiesPrompts), and assigns Go
// names to properties. Two places that would get the same name are an
// error naming both.
func nameInline(spec *Spec) error {
	owner := map[string]string{}
	for _, d := range spec.Defs {
		owner[d.Name] = "definition " + d.Name
	}
	claim := func(name string, t *Type) error {
		if prev, ok := owner[name]; ok && strings.HasPrefix(prev, "definition ") {
			// Request.params is an inline object while RequestParams is a
			// definition of its own: the inline one yields.
			name += "Object"
		}
		if prev, ok := owner[name]; ok {
			alt := numbered(name, func(n string) bool { _, taken := owner[n]; return taken })
			err := spec.warn(Warning{Class: NameCollision, Where: spec.at(t.Path),
				What:     fmt.Sprintf("the name %s synthesized for this inline type is taken by %s", name, prev),
				Fallback: "it is named " + alt})
			if err != nil {
				return err
			}
			name = alt
		}
		owner[name] = "#" + t.Path
		t.Name = name
		return nil
	}
	var walk func(t *Type, name string, top bool) error
	walk = func(t *Type, name string, top bool) error {
		switch t.Kind {
		case Object:
			if !top {
				if err := claim(name, t); err != nil {
					return err
				}
			}
			if err := uniqueGoNames(spec, t); err != nil {
				return err
			}
			for _, p := range t.Props {
				if err := walk(p.Type, name+p.GoName, false); err != nil {
					return err
				}
			}
			if t.AdditionalType != nil {
				if err := walk(t.AdditionalType, name+"Value", false); err != nil {
					return err
				}
			}
		case Array:
			return walk(t.Items, name+"Item", false)
		case String:
			// An inline closed or open enum becomes a named string type.
			if !top && len(t.Enum) > 0 {
				return claim(name, t)
			}
		case AnyOf:
			flattenTypeArrays(t.Union)
			if !top {
				if err := claim(name, t); err != nil {
					return err
				}
			}
			t.Union.Name = t.Name
			if top {
				t.Union.Name = name
			}
			suffixes := memberSuffixes(t.Union)
			for i, m := range t.Union.Members {
				if m.Kind == Ref {
					continue
				}
				if err := walk(m, t.Union.Name+suffixes[i], false); err != nil {
					return err
				}
				if m.Name == "" {
					if err := claim(t.Union.Name+suffixes[i], m); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	for _, d := range spec.Defs {
		if err := walk(d.Type, d.Name, true); err != nil {
			return err
		}
	}
	return nil
}

// memberSuffixes names inline union members by kind, numbering them where
// a kind repeats (JSONRPCMessageArray1, JSONRPCMessageArray2).
func memberSuffixes(u *Union) []string {
	out := make([]string, len(u.Members))
	count := map[string]int{}
	for i, m := range u.Members {
		if m.Kind != Ref {
			out[i] = memberSuffix(m)
			count[out[i]]++
		}
	}
	seen := map[string]int{}
	for i, sfx := range out {
		if sfx != "" && count[sfx] > 1 {
			seen[sfx]++
			out[i] = fmt.Sprintf("%s%d", sfx, seen[sfx])
		}
	}
	return out
}

// memberSuffix names an inline union member by its kind.
func memberSuffix(m *Type) string {
	switch m.Kind {
	case Object:
		return "Object"
	case Array:
		return "Array"
	default:
		return GoName(m.Kind.String())
	}
}

// flattenTypeArrays splices a type-array member (["string","integer"]) of
// an anyOf into the anyOf itself, so each JSON type is one member.
func flattenTypeArrays(u *Union) {
	var out []*Type
	for _, m := range u.Members {
		if m.Kind == AnyOf && m.typeArray {
			out = append(out, m.Union.Members...)
			continue
		}
		out = append(out, m)
	}
	u.Members = out
}

// resolveAllOf flattens every allOf into one object: the parts' properties
// in order (a later part refines an earlier one's property of the same
// name, as Error & {code: const} does), required if any part requires.
func resolveAllOf(spec *Spec) error {
	state := map[*Type]int{} // 1 resolving, 2 done
	var resolve func(t *Type) error
	var visit func(t *Type) error
	// raw gives up on combining t: it is any JSON value.
	raw := func(t *Type, at, what string) error {
		state[t] = 2
		*t = Type{Kind: Any, Path: t.Path, Doc: t.Doc}
		return spec.warn(Warning{Class: UnsupportedAllOf, Where: spec.at(at), What: what,
			Fallback: "any JSON value, kept raw: Validate checks nothing inside"})
	}
	resolve = func(t *Type) error {
		if t.allOf == nil || state[t] == 2 {
			return nil
		}
		if state[t] == 1 {
			return raw(t, t.Path, "allOf refers to itself")
		}
		state[t] = 1
		index := map[string]int{}
		for _, part := range t.allOf {
			obj := part
			for hops := 0; obj.Kind == Ref; hops++ {
				d := spec.Def(obj.Ref)
				if d == nil || hops > len(spec.Defs) {
					return raw(t, part.Path, fmt.Sprintf("allOf refers to unknown or circular definition %s", obj.Ref))
				}
				obj = d.Type
			}
			if err := resolve(obj); err != nil {
				return err
			}
			if state[t] == 2 {
				return nil // t itself was given up on, through a cycle
			}
			if obj.Kind != Object {
				return raw(t, part.Path, fmt.Sprintf("allOf combines %s with other parts; only objects can be combined", withArticle(obj.Kind)))
			}
			if obj.Additional != Open {
				err := spec.warn(Warning{Class: UnsupportedAllOf, Where: spec.at(part.Path),
					What:     "an allOf part restricts additional members",
					Fallback: "the combined object keeps members it does not name"})
				if err != nil {
					return err
				}
			}
			for _, p := range obj.Props {
				cp := *p
				if i, ok := index[p.Name]; ok {
					cp.Required = cp.Required || t.Props[i].Required
					t.Props[i] = &cp
					continue
				}
				index[p.Name] = len(t.Props)
				t.Props = append(t.Props, &cp)
			}
		}
		t.Additional = Open
		state[t] = 2
		return nil
	}
	visit = func(t *Type) error {
		if t == nil {
			return nil
		}
		if err := resolve(t); err != nil {
			return err
		}
		for _, p := range t.allOf {
			if err := visit(p); err != nil {
				return err
			}
		}
		for c := range t.Children() {
			if err := visit(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range spec.Defs {
		if err := visit(d.Type); err != nil {
			return err
		}
		if len(d.Extends) == 0 {
			for _, p := range d.Type.allOf {
				if p.Kind == Ref {
					d.Extends = append(d.Extends, Base{Name: p.Ref})
				}
			}
		}
	}
	return nil
}

// withArticle names a kind with its article: "an integer".
func withArticle(k Kind) string {
	switch k {
	case Any:
		return "any value"
	case Integer, Object, Array, AnyOf:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
