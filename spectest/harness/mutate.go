package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Mutations derives invalid (and some still valid) documents from a valid
// one, blindly and exhaustively: each member dropped, each value given the
// wrong JSON type, each string changed (breaking consts, enums and
// formats), each number pushed out of range or made fractional, arrays
// emptied or grown, objects given an unknown member. The reference
// validator decides which are valid; the point is coverage of every rule.
func Mutations(data []byte) ([]Case, error) {
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	var out []Case
	add := func(name string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		out = append(out, Case{Name: name, Data: b})
	}
	for _, p := range paths(root, nil) {
		val := get(root, p)
		label := pointer(p)
		if len(p) > 0 {
			if _, isObj := get(root, p[:len(p)-1]).(map[string]any); isObj {
				add("drop "+label, without(root, p))
			}
		}
		add("type "+label, with(root, p, otherKind(val)))
		switch v := val.(type) {
		case string:
			add("const/enum "+label, with(root, p, v+"-mutated"))
			add("format "+label, with(root, p, "%zz not a uri {nor base64!"))
			add("brace "+label, with(root, p, v+"{"))
		case json.Number:
			for _, n := range []string{"-1", "1.5", "1e30", "1e400", "9223372036854775808"} {
				add("number "+n+" "+label, with(root, p, json.Number(n)))
			}
		case []any:
			add("empty "+label, with(root, p, []any{}))
			if len(v) > 0 {
				grown := append(append([]any{}, v...), v[0])
				add("grow "+label, with(root, p, grown))
			}
		case map[string]any:
			grown := map[string]any{"x-mutant": json.Number("1")}
			for k, x := range v {
				grown[k] = x
			}
			add("extra "+label, with(root, p, grown))
			// Members that look like ids and JSON-RPC envelopes.
			if _, ok := v["id"]; !ok {
				withID := map[string]any{"id": "x"}
				for k, x := range v {
					withID[k] = x
				}
				add("id "+label, with(root, p, withID))
			}
		}
	}
	return out, nil
}

func parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// step is one step of a path: a member name, or an index when name is "".
type step struct {
	name  string
	index int
}

func pointer(p []step) string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.name != "" {
			b.WriteString(s.name)
		} else {
			b.WriteString(strconv.Itoa(s.index))
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// paths lists every value's path, the root first, members in name order.
func paths(v any, prefix []step) [][]step {
	out := [][]step{append([]step(nil), prefix...)}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, paths(v[k], append(prefix, step{name: k}))...)
		}
	case []any:
		for i, e := range v {
			out = append(out, paths(e, append(prefix, step{index: i}))...)
		}
	}
	return out
}

func get(v any, p []step) any {
	for _, s := range p {
		switch c := v.(type) {
		case map[string]any:
			v = c[s.name]
		case []any:
			v = c[s.index]
		}
	}
	return v
}

// with returns a deep copy of root with the value at p replaced.
func with(root any, p []step, val any) any {
	if len(p) == 0 {
		return val
	}
	switch c := root.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = x
		}
		out[p[0].name] = with(c[p[0].name], p[1:], val)
		return out
	case []any:
		out := append([]any{}, c...)
		out[p[0].index] = with(c[p[0].index], p[1:], val)
		return out
	}
	panic(fmt.Sprintf("bad path %v", p))
}

// without returns a deep copy of root with the member at p removed.
func without(root any, p []step) any {
	if len(p) == 1 {
		c := root.(map[string]any)
		out := make(map[string]any, len(c))
		for k, x := range c {
			if k != p[0].name {
				out[k] = x
			}
		}
		return out
	}
	switch c := root.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = x
		}
		out[p[0].name] = without(c[p[0].name], p[1:])
		return out
	case []any:
		out := append([]any{}, c...)
		out[p[0].index] = without(c[p[0].index], p[1:])
		return out
	}
	panic(fmt.Sprintf("bad path %v", p))
}

// otherKind is a value of a different JSON type than v.
func otherKind(v any) any {
	switch v.(type) {
	case string:
		return json.Number("0")
	case json.Number:
		return "0"
	case bool:
		return "true"
	case nil:
		return json.Number("0")
	case []any:
		return map[string]any{}
	case map[string]any:
		return []any{}
	}
	return nil
}
