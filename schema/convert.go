package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// converter turns schema.json nodes into model types.
type converter struct {
	file    string
	defsKey string
	spec    *Spec
}

func (c *converter) errorf(path, format string, args ...any) error {
	return fmt.Errorf("%s#%s: %s", c.file, path, fmt.Sprintf(format, args...))
}

// annotation keywords carry no constraint; anything else unknown is an
// error, so that no constraint is ever silently dropped.
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

var handled = map[string]bool{
	"$ref": true, "anyOf": true, "allOf": true, "type": true, "properties": true,
	"required": true, "additionalProperties": true, "items": true, "maxItems": true,
	"const": true, "enum": true, "format": true, "minimum": true, "maximum": true,
}

// convert converts the schema node at path.
func (c *converter) convert(node map[string]any, path string) (*Type, error) {
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !handled[k] && !annotations[k] {
			return nil, c.errorf(path, "unsupported keyword %q", k)
		}
	}
	doc := description(node)

	if ref, ok := node["$ref"]; ok {
		for _, k := range keys {
			if k != "$ref" && !annotations[k] {
				return nil, c.errorf(path, "keyword %q beside $ref is not supported", k)
			}
		}
		s, _ := ref.(string)
		name, ok := c.refName(s)
		if !ok {
			return nil, c.errorf(path+"/$ref", "unsupported reference %q (only local references to definitions)", s)
		}
		return &Type{Kind: Ref, Ref: name, Path: path, Doc: doc}, nil
	}
	if list, ok := node["anyOf"]; ok {
		members, err := c.list(list, path+"/anyOf")
		if err != nil {
			return nil, err
		}
		if len(keys) > 1 {
			for _, k := range keys {
				if k != "anyOf" && !annotations[k] {
					return nil, c.errorf(path, "keyword %q beside anyOf is not supported", k)
				}
			}
		}
		return &Type{Kind: AnyOf, Path: path, Doc: doc, Union: &Union{Path: path, Members: members}}, nil
	}
	if list, ok := node["allOf"]; ok {
		parts, err := c.list(list, path+"/allOf")
		if err != nil {
			return nil, err
		}
		t := &Type{Kind: Object, Path: path, Doc: doc, allOf: parts}
		return t, nil
	}

	var kinds []string
	switch v := node["type"].(type) {
	case string:
		kinds = []string{v}
	case []any:
		for i, k := range v {
			s, ok := k.(string)
			if !ok {
				return nil, c.errorf(fmt.Sprintf("%s/type/%d", path, i), "type name is not a string")
			}
			kinds = append(kinds, s)
		}
	case nil:
		// Infer the type from the constraints present.
		switch {
		case node["properties"] != nil || node["additionalProperties"] != nil || node["required"] != nil:
			kinds = []string{"object"}
		case node["items"] != nil:
			kinds = []string{"array"}
		case node["const"] != nil:
			kinds = []string{jsonKindOf(node["const"])}
		case node["enum"] != nil:
			kinds = []string{"string"}
		default:
			return &Type{Kind: Any, Path: path, Doc: doc}, nil
		}
	default:
		return nil, c.errorf(path+"/type", "type is neither a string nor an array")
	}

	nullable := false
	if len(kinds) == 2 && (kinds[0] == "null" || kinds[1] == "null") {
		nullable = true
		if kinds[0] == "null" {
			kinds = kinds[1:]
		} else {
			kinds = kinds[:1]
		}
	}
	if len(kinds) > 1 {
		// A type array of several kinds is a union told apart by JSON type.
		u := &Union{Path: path}
		for i, k := range kinds {
			m, err := c.scalar(k, map[string]any{}, fmt.Sprintf("%s/type/%d", path, i))
			if err != nil {
				return nil, err
			}
			u.Members = append(u.Members, m)
		}
		return &Type{Kind: AnyOf, Path: path, Doc: doc, Union: u, typeArray: true}, nil
	}
	if len(kinds) == 0 {
		return nil, c.errorf(path+"/type", "empty type list")
	}
	t, err := c.scalar(kinds[0], node, path)
	if err != nil {
		return nil, err
	}
	t.Doc = doc
	t.Nullable = nullable
	return t, nil
}

func jsonKindOf(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case nil:
		return "null"
	case []any:
		return "array"
	}
	return "object"
}

// scalar converts a node whose single JSON type is kind.
func (c *converter) scalar(kind string, node map[string]any, path string) (*Type, error) {
	t := &Type{Path: path}
	allowed := map[string]bool{}
	switch kind {
	case "object":
		t.Kind = Object
		allowed = map[string]bool{"properties": true, "required": true, "additionalProperties": true}
		if err := c.object(t, node, path); err != nil {
			return nil, err
		}
	case "array":
		t.Kind = Array
		allowed = map[string]bool{"items": true, "maxItems": true}
		items, ok := node["items"].(map[string]any)
		if !ok {
			if b, isBool := node["items"].(bool); isBool && b || node["items"] == nil {
				items = map[string]any{}
			} else {
				return nil, c.errorf(path+"/items", "items must be a schema object")
			}
		}
		it, err := c.convert(items, path+"/items")
		if err != nil {
			return nil, err
		}
		t.Items = it
		if v, ok := node["maxItems"]; ok {
			n, err := c.nonNegInt(v, path+"/maxItems")
			if err != nil {
				return nil, err
			}
			t.MaxItems = &n
		}
	case "string":
		t.Kind = String
		allowed = map[string]bool{"const": true, "enum": true, "format": true}
		if v, ok := node["const"]; ok {
			s, ok := v.(string)
			if !ok {
				return nil, c.errorf(path+"/const", "const of a string type is not a string")
			}
			t.Const = &Value{Str: s}
		}
		if v, ok := node["enum"]; ok {
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, c.errorf(path+"/enum", "enum must be a non-empty array")
			}
			for i, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil, c.errorf(fmt.Sprintf("%s/enum/%d", path, i), "enum value is not a string")
				}
				t.Enum = append(t.Enum, s)
			}
		}
		if v, ok := node["format"]; ok {
			s, _ := v.(string)
			switch s {
			case "uri", "uri-template", "byte":
				t.Format = s
			default:
				return nil, c.errorf(path+"/format", "unsupported format %q (supported: uri, uri-template, byte)", s)
			}
		}
	case "integer", "number":
		t.Kind = Integer
		if kind == "number" {
			t.Kind = Number
		}
		allowed = map[string]bool{"const": true, "minimum": true, "maximum": true}
		if v, ok := node["const"]; ok {
			n, ok := v.(json.Number)
			i, err := n.Int64()
			if !ok || err != nil {
				return nil, c.errorf(path+"/const", "const of a number type must be an integer")
			}
			t.Const = &Value{IsInt: true, Int: i}
		}
		for _, kw := range []string{"minimum", "maximum"} {
			v, ok := node[kw]
			if !ok {
				continue
			}
			n, ok := v.(json.Number)
			f, err := n.Float64()
			if !ok || err != nil || math.IsInf(f, 0) {
				return nil, c.errorf(path+"/"+kw, "%s must be a number", kw)
			}
			if kw == "minimum" {
				t.Minimum = &f
			} else {
				t.Maximum = &f
			}
		}
	case "boolean":
		t.Kind = Boolean
	case "null":
		t.Kind = Null
	default:
		return nil, c.errorf(path+"/type", "unknown type %q", kind)
	}
	for k := range node {
		if handled[k] && k != "type" && !allowed[k] {
			return nil, c.errorf(path+"/"+k, "keyword %q does not apply to type %s", k, kind)
		}
	}
	return t, nil
}

func (c *converter) object(t *Type, node map[string]any, path string) error {
	props, _ := node["properties"].(map[string]any)
	if node["properties"] != nil && props == nil {
		return c.errorf(path+"/properties", "properties must be an object")
	}
	required := map[string]bool{}
	if v, ok := node["required"]; ok {
		list, ok := v.([]any)
		if !ok {
			return c.errorf(path+"/required", "required must be an array of names")
		}
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return c.errorf(fmt.Sprintf("%s/required/%d", path, i), "required name is not a string")
			}
			if _, declared := props[s]; !declared {
				return c.errorf(fmt.Sprintf("%s/required/%d", path, i), "required member %q has no property schema", s)
			}
			required[s] = true
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		pnode, ok := props[name].(map[string]any)
		ppath := path + "/properties/" + escapePtr(name)
		if !ok {
			if b, isBool := props[name].(bool); isBool && b {
				pnode = map[string]any{}
			} else {
				return c.errorf(ppath, "property schema must be an object")
			}
		}
		pt, err := c.convert(pnode, ppath)
		if err != nil {
			return err
		}
		t.Props = append(t.Props, &Prop{Name: name, Required: required[name], Type: pt, Doc: Doc{Text: description(pnode)}})
	}
	switch v := node["additionalProperties"].(type) {
	case nil:
		t.Additional = Open
	case bool:
		if v {
			t.Additional = Open
		} else {
			t.Additional = Closed
		}
	case map[string]any:
		at, err := c.convert(v, path+"/additionalProperties")
		if err != nil {
			return err
		}
		if at.Kind == Any {
			t.Additional = Open
		} else {
			t.Additional = Typed
			t.AdditionalType = at
		}
	default:
		return c.errorf(path+"/additionalProperties", "additionalProperties must be a boolean or a schema")
	}
	return nil
}

func (c *converter) list(v any, path string) ([]*Type, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, c.errorf(path, "must be a non-empty array of schemas")
	}
	var out []*Type
	for i, e := range list {
		node, ok := e.(map[string]any)
		if !ok {
			return nil, c.errorf(fmt.Sprintf("%s/%d", path, i), "member must be a schema object")
		}
		t, err := c.convert(node, fmt.Sprintf("%s/%d", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (c *converter) nonNegInt(v any, path string) (int, error) {
	n, ok := v.(json.Number)
	i, err := n.Int64()
	if !ok || err != nil || i < 0 || i > math.MaxInt32 {
		return 0, c.errorf(path, "must be a non-negative integer")
	}
	return int(i), nil
}

// refName returns the definition a local reference names.
func (c *converter) refName(ref string) (string, bool) {
	prefix := "#/" + c.defsKey + "/"
	if !strings.HasPrefix(ref, prefix) {
		return "", false
	}
	name := unescapePtr(ref[len(prefix):])
	if strings.Contains(name, "/") && !strings.Contains(ref[len(prefix):], "~1") {
		return "", false
	}
	return name, true
}

// checkRefs verifies that every $ref in the document resolves, naming the
// pointer of the first one that does not.
func checkRefs(file string, root map[string]any, defsKey string) error {
	defs, _ := root[defsKey].(map[string]any)
	var walk func(v any, path string) error
	walk = func(v any, path string) error {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k == "$ref" {
					ref, _ := v[k].(string)
					prefix := "#/" + defsKey + "/"
					if !strings.HasPrefix(ref, prefix) {
						return fmt.Errorf("%s#%s/$ref: unsupported reference %q (only local references to #/%s/...)", file, path, ref, defsKey)
					}
					if _, ok := defs[unescapePtr(ref[len(prefix):])]; !ok {
						return fmt.Errorf("%s#%s/$ref: reference %q does not resolve", file, path, ref)
					}
					continue
				}
				if err := walk(v[k], path+"/"+escapePtr(k)); err != nil {
					return err
				}
			}
		case []any:
			for i, e := range v {
				if err := walk(e, path+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(root, "")
}
