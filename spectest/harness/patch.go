package harness

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/schema"
)

// Differences are the places where generated validation deliberately
// differs from plain JSON Schema validation of schema.json. Each is applied
// to a copy of schema.json as a JSON Schema rewrite, so the reference
// validator can check the generated verdicts exactly, and each
// disagreement with the plain schema is attributed to one of them.
var Differences = []Difference{
	{"ts-types", "schema.ts decides number types and nullability where schema.json differs (TS number among JSON scalars is any number; JSONValue admits null)", patchOverrides},
	{"discriminated-unions", "a union member is chosen by its discriminator (const member, JSON type, member presence, resultType value), and the value must be valid for that member: anyOf would accept it through another member (the two spec examples that are wrong under strict validation are of this kind)", patchUnions},
	{"forbidden-members", "2026 input requests must not carry id or jsonrpc (a forbid fact, schema/facts.txt)", patchForbidden},
	{"go-ranges", "integers are int64 and numbers float64: JSON numbers beyond their range cannot be held (raw JSON values keep any number)", patchRanges},
	{"uri-template", "format uri-template also requires balanced, unnested braces (RFC 6570); jsonschema only checks that the URI parses", patchURITemplate},
}

// Difference is one documented way generated validation differs from
// jsonschema on schema.json.
type Difference struct {
	Name  string
	Why   string
	apply func(spec *schema.Spec, reg Registry, root map[string]any) error
}

// Patch returns schema.json rewritten with the first n Differences.
func Patch(spec *schema.Spec, reg Registry, src []byte, n int) ([]byte, error) {
	v, err := parse(src)
	if err != nil {
		return nil, err
	}
	root := v.(map[string]any)
	for _, d := range Differences[:n] {
		if err := d.apply(spec, reg, root); err != nil {
			return nil, fmt.Errorf("patch %s: %w", d.Name, err)
		}
	}
	return json.Marshal(root)
}

// node returns the object at JSON pointer path.
func node(root map[string]any, path string) (map[string]any, error) {
	var cur any = root
	for _, tok := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(c) {
				return nil, fmt.Errorf("bad index %q in %s", tok, path)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%s: not a container at %q", path, tok)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", path)
	}
	return m, nil
}

func patchOverrides(spec *schema.Spec, reg Registry, root map[string]any) error {
	for _, o := range spec.Overrides {
		switch {
		case o.JSON == "integer" && o.Model == "number":
			// Either a type array member (.../type/N) or a node's type.
			if i := strings.LastIndex(o.Path, "/type/"); i >= 0 {
				n, err := node(root, o.Path[:i])
				if err != nil {
					return err
				}
				idx, _ := strconv.Atoi(o.Path[i+len("/type/"):])
				list := n["type"].([]any)
				list[idx] = "number"
				continue
			}
			n, err := node(root, o.Path)
			if err != nil {
				return err
			}
			n["type"] = "number"
		case o.Model == "null accepted":
			n, err := node(root, o.Path)
			if err != nil {
				return err
			}
			n["anyOf"] = append(n["anyOf"].([]any), map[string]any{"type": "null"})
		default:
			return fmt.Errorf("override %+v has no patch", o)
		}
	}
	return nil
}

func patchForbidden(spec *schema.Spec, reg Registry, root map[string]any) error {
	for _, d := range spec.Defs {
		if len(d.Type.Forbidden) == 0 {
			continue
		}
		n, err := node(root, d.Type.Path)
		if err != nil {
			return err
		}
		var conds []any
		for _, m := range d.Type.Forbidden {
			conds = append(conds, map[string]any{"required": []any{m}})
		}
		n["not"] = map[string]any{"anyOf": conds}
	}
	return nil
}

const (
	minInt64 = "-9223372036854775808"
	maxInt64 = "9223372036854775807"
	maxFloat = "1.7976931348623157e308"
)

func patchRanges(spec *schema.Spec, reg Registry, root map[string]any) error {
	var walk func(v any)
	walk = func(v any) {
		switch c := v.(type) {
		case map[string]any:
			kinds := map[string]bool{}
			switch t := c["type"].(type) {
			case string:
				kinds[t] = true
			case []any:
				for _, k := range t {
					if s, ok := k.(string); ok {
						kinds[s] = true
					}
				}
			}
			lo, hi := "", ""
			switch {
			case kinds["integer"] && !kinds["number"]:
				lo, hi = minInt64, maxInt64
			case kinds["number"]:
				lo, hi = "-"+maxFloat, maxFloat
			}
			if lo != "" {
				if _, ok := c["minimum"]; !ok {
					c["minimum"] = json.Number(lo)
				}
				if _, ok := c["maximum"]; !ok {
					c["maximum"] = json.Number(hi)
				}
			}
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k == "properties" {
					for _, p := range c[k].(map[string]any) {
						walk(p)
					}
					continue
				}
				walk(c[k])
			}
		case []any:
			for _, e := range c {
				walk(e)
			}
		}
	}
	// Raw JSON is kept as text, never held in an int64 or float64.
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		defs, _ = root["definitions"].(map[string]any)
	}
	for name, d := range defs {
		if !reg.Raw[name] {
			walk(d)
		}
	}
	return nil
}

func patchURITemplate(spec *schema.Spec, reg Registry, root map[string]any) error {
	var walk func(v any)
	walk = func(v any) {
		switch c := v.(type) {
		case map[string]any:
			if c["format"] == "uri-template" {
				c["pattern"] = `^[^{}]*(\{[^{}]*\}[^{}]*)*$`
			}
			for k, x := range c {
				if k == "properties" {
					for _, p := range x.(map[string]any) {
						walk(p)
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, e := range c {
				walk(e)
			}
		}
	}
	walk(root)
	return nil
}

// patchUnions replaces every discriminated anyOf by the if/then/else chain
// of its decision tree, so that jsonschema picks the member the generated
// decoder picks and validates the value against it alone.
func patchUnions(spec *schema.Spec, reg Registry, root map[string]any) error {
	unions := append([]*schema.Union(nil), spec.Unions...)
	// Innermost first, so copies of inline members carry their own
	// rewritten unions.
	sort.SliceStable(unions, func(i, j int) bool { return len(unions[i].Path) > len(unions[j].Path) })
	draft07 := spec.Dialect == schema.Draft07
	for _, u := range unions {
		if u.Root == nil || u.Rule == schema.Single {
			continue
		}
		n, err := node(root, u.Path)
		if err != nil {
			return err
		}
		if _, ok := n["anyOf"]; !ok {
			continue // a type array: JSON type already decides, as anyOf does
		}
		members := make([]any, len(u.Members))
		for i, m := range u.Members {
			switch {
			case strings.HasPrefix(m.Path, u.Path+"/anyOf/") && !strings.Contains(m.Path[len(u.Path+"/anyOf/"):], "/"):
				mn, err := node(root, m.Path)
				if err != nil {
					return err
				}
				members[i] = deepCopy(mn)
			default:
				// A type-array member spliced into the union, or the null
				// schema.ts adds.
				members[i] = map[string]any{"type": kindName(m.Kind)}
			}
		}
		tr := &translator{members: members, draft07: draft07}
		rewritten := tr.decision(u.Root, func(c any) any { return c })
		delete(n, "anyOf")
		if m, ok := rewritten.(map[string]any); ok {
			for k, v := range m {
				n[k] = v
			}
		} else {
			n["not"] = map[string]any{} // false
		}
	}
	return nil
}

func kindName(k schema.Kind) string {
	switch k {
	case schema.Integer:
		return "integer"
	case schema.Number:
		return "number"
	case schema.String:
		return "string"
	case schema.Boolean:
		return "boolean"
	case schema.Null:
		return "null"
	case schema.Array:
		return "array"
	}
	return "object"
}

func deepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(c))
		for i, x := range c {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

type translator struct {
	members []any
	draft07 bool
}

// decision translates a decision tree; lens wraps each condition (for tests
// on an array's first element).
func (t *translator) decision(d *schema.Decision, lens func(any) any) any {
	if d == nil {
		return false
	}
	ifThen := func(cond, then, els any) any {
		return map[string]any{"if": lens(cond), "then": then, "else": els}
	}
	switch d.Test {
	case schema.Leaf:
		return deepCopy(t.members[d.Member])
	case schema.TestKind:
		out := t.decision(d.Else, lens)
		for i := len(d.Cases) - 1; i >= 0; i-- {
			c := d.Cases[i]
			var kinds []any
			for _, k := range c.Kinds {
				kinds = append(kinds, kindName(k))
			}
			out = ifThen(map[string]any{"type": kinds}, t.decision(c.Then, lens), out)
		}
		return out
	case schema.TestValue:
		out := t.decision(d.Else, lens)
		for i := len(d.Cases) - 1; i >= 0; i-- {
			c := d.Cases[i]
			var vals []any
			for _, v := range c.Values {
				vals = append(vals, v)
			}
			out = ifThen(at(d.Property, map[string]any{"enum": vals}), t.decision(c.Then, lens), out)
		}
		if d.Absent != nil {
			out = ifThen(map[string]any{"not": at(d.Property, true)}, t.decision(d.Absent, lens), out)
		}
		return out
	case schema.TestPresent:
		return ifThen(at(d.Property, true), t.decision(d.Cases[0].Then, lens), t.decision(d.Else, lens))
	case schema.TestFirstItem:
		first := func(c any) any {
			if t.draft07 {
				return map[string]any{"type": "array", "minItems": 1, "items": []any{c}}
			}
			return map[string]any{"type": "array", "minItems": 1, "prefixItems": []any{c}}
		}
		return ifThen(map[string]any{"type": "array", "minItems": 1}, t.decision(d.Cases[0].Then, first), t.decision(d.Else, lens))
	}
	return false
}

// at is the condition "the object member at path exists and satisfies
// leaf" (leaf true: just exists).
func at(path []string, leaf any) any {
	var inner any = leaf
	for i := len(path) - 1; i >= 0; i-- {
		m := map[string]any{"type": "object", "required": []any{path[i]}}
		if inner != true {
			m["properties"] = map[string]any{path[i]: inner}
		}
		inner = m
	}
	return inner
}
