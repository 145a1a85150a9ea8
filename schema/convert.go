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
	defsKey string
	spec    *Spec
}

func (c *converter) errorf(path, format string, args ...any) error {
	return c.spec.invalid(path, format, args...)
}

// ignore records that the keyword at path is ignored, so the generated
// Validate accepts more than the schema: never silently.
func (c *converter) ignore(path, format string, args ...any) error {
	return c.spec.warn(Warning{
		Class:    UnsupportedKeyword,
		Where:    c.spec.at(path),
		What:     fmt.Sprintf(format, args...),
		Fallback: "ignored: the generated Validate does not check it (accepts more, never less)",
	})
}

// annotation keywords carry no constraint, nor do vendor extensions
// ("x-..."); any other unknown keyword is ignored with a warning, so that
// no constraint is ever silently dropped.
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

func isAnnotation(k string) bool { return annotations[k] || strings.HasPrefix(k, "x-") }

// formats are the string formats generated validators check.
var formats = map[string]bool{"uri": true, "uri-template": true, "byte": true}

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
		if !handled[k] && !isAnnotation(k) {
			if err := c.ignore(path+"/"+escapePtr(k), "keyword %q is not supported", k); err != nil {
				return nil, err
			}
		}
	}
	doc := description(node)

	if ref, ok := node["$ref"]; ok {
		for _, k := range keys {
			if k != "$ref" && handled[k] {
				if err := c.ignore(path+"/"+escapePtr(k), "keyword %q beside $ref is not supported", k); err != nil {
					return nil, err
				}
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
		for _, k := range keys {
			if k != "anyOf" && handled[k] {
				if err := c.ignore(path+"/"+escapePtr(k), "keyword %q beside anyOf is not supported", k); err != nil {
					return nil, err
				}
			}
		}
		if len(members) == 0 { // every member was the schema false
			return &Type{Kind: Any, Path: path, Doc: doc}, nil
		}
		return &Type{Kind: AnyOf, Path: path, Doc: doc, Union: &Union{Path: path, Members: members}}, nil
	}
	if list, ok := node["allOf"]; ok {
		parts, err := c.list(list, path+"/allOf")
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if k != "allOf" && handled[k] {
				if err := c.ignore(path+"/"+escapePtr(k), "keyword %q beside allOf is not supported", k); err != nil {
					return nil, err
				}
			}
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
			k := enumKind(node["enum"])
			if k == "" {
				if err := c.ignore(path+"/enum", "enum of values of several JSON types"); err != nil {
					return nil, err
				}
				return &Type{Kind: Any, Path: path, Doc: doc}, nil
			}
			kinds = []string{k}
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

// enumKind is the JSON type an enum without a type keyword constrains: the
// type its values share ("string" when they are strings), else "".
func enumKind(v any) string {
	list, _ := v.([]any)
	kind := ""
	for _, e := range list {
		k := jsonKindOf(e)
		if k == "integer" {
			k = "number"
		}
		if kind != "" && k != kind {
			return ""
		}
		kind = k
	}
	return kind
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
			items = map[string]any{}
			if b, isBool := node["items"].(bool); !(isBool && b || node["items"] == nil) {
				// A tuple (draft-07 items array) or items: false.
				if err := c.ignore(path+"/items", "items that is not a single schema"); err != nil {
					return nil, err
				}
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
			if s, ok := v.(string); ok {
				t.Const = &Value{Str: s}
			} else if err := c.ignore(path+"/const", "const of a string type is not a string"); err != nil {
				return nil, err
			}
		}
		if v, ok := node["enum"]; ok {
			list, _ := v.([]any)
			var values []string
			for _, e := range list {
				if s, ok := e.(string); ok {
					values = append(values, s)
				}
			}
			if len(values) == len(list) && len(list) > 0 {
				t.Enum = values
			} else if err := c.ignore(path+"/enum", "enum of a string type with values that are not strings"); err != nil {
				return nil, err
			}
		}
		if v, ok := node["format"]; ok {
			s, _ := v.(string)
			if formats[s] {
				t.Format = s
			} else {
				err := c.spec.warn(Warning{
					Class:    UnsupportedFormat,
					Where:    c.spec.at(path + "/format"),
					What:     fmt.Sprintf("format %q is not one the generated validators check (uri, uri-template, byte)", s),
					Fallback: "no format check: any string is accepted",
				})
				if err != nil {
					return nil, err
				}
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
			if i, err := n.Int64(); ok && err == nil {
				t.Const = &Value{IsInt: true, Int: i}
			} else if err := c.ignore(path+"/const", "const of a number type that is not an integer"); err != nil {
				return nil, err
			}
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
	for _, k := range sortedKeys(node) {
		if handled[k] && k != "type" && !allowed[k] {
			if err := c.ignore(path+"/"+k, "keyword %q on type %s is not supported", k, kind); err != nil {
				return nil, err
			}
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
				if err := c.ignore(fmt.Sprintf("%s/required/%d", path, i), "required member %q has no property schema", s); err != nil {
					return err
				}
				continue
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
				if err := c.ignore(ppath, "property schema false (the member is forbidden)"); err != nil {
					return err
				}
				continue
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
			t.Additional, t.OpenByDesign = Open, true
		} else {
			t.Additional = Closed
		}
	case map[string]any:
		at, err := c.convert(v, path+"/additionalProperties")
		if err != nil {
			return err
		}
		if at.Kind == Any {
			t.Additional, t.OpenByDesign = Open, true
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
			b, isBool := e.(bool)
			if !isBool {
				return nil, c.errorf(fmt.Sprintf("%s/%d", path, i), "member must be a schema")
			}
			if !b {
				if err := c.ignore(fmt.Sprintf("%s/%d", path, i), "the schema false"); err != nil {
					return nil, err
				}
				continue
			}
			node = map[string]any{}
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
// pointer of the first one that does not. A reference into the other
// dialect's definitions member (#/definitions/X in a file whose definitions
// are in #/$defs) is resolved by name, rewritten in root, and reported in
// one warning; rewritten reports whether root changed.
func checkRefs(spec *Spec, root map[string]any, defsKey string) (rewritten bool, err error) {
	defs, _ := root[defsKey].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	// Definitions the facts state (define): referred to, never defined.
	for _, f := range spec.facts.all(FactDefine, "") {
		if _, ok := defs[f.Args[0]]; !ok {
			d := map[string]any{"type": f.Args[1]}
			if f.Args[1] == "object" {
				d["additionalProperties"] = map[string]any{}
			}
			defs[f.Args[0]] = d
			root[defsKey] = defs
			rewritten = true
		}
	}
	own := "#/" + defsKey + "/"
	other := "#/definitions/"
	if defsKey == "definitions" {
		other = "#/$defs/"
	}
	_, otherExists := root[strings.TrimSuffix(strings.TrimPrefix(other, "#/"), "/")]
	var foreign []string
	var walk func(v any, path string) error
	walk = func(v any, path string) error {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(v) {
				if k == "$ref" {
					ref, _ := v[k].(string)
					if strings.HasPrefix(ref, other) && !otherExists {
						if _, ok := defs[unescapePtr(ref[len(other):])]; ok {
							foreign = append(foreign, path+"/$ref")
							ref = own + ref[len(other):]
							v[k] = ref
						}
					}
					if !strings.HasPrefix(ref, own) {
						return spec.invalid(path+"/$ref", "unsupported reference %q; expected a local reference to #/%s/...", ref, defsKey)
					}
					if name := unescapePtr(ref[len(own):]); defs[name] == nil {
						// An upstream slip: the member is any JSON value,
						// kept raw, until a define fact states its shape.
						if werr := spec.warn(Warning{
							Class:    DanglingRef,
							Where:    spec.at(path + "/$ref"),
							What:     fmt.Sprintf("reference %q names no definition in #/%s", ref, defsKey),
							Fallback: "any JSON value, kept raw",
							Fact:     fmt.Sprintf("define %s object | %s refers to it; the schema does not define it", name, path),
						}); werr != nil {
							return werr
						}
						delete(v, k)
						rewritten = true
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
	if err := walk(root, ""); err != nil {
		return false, err
	}
	if len(foreign) == 0 {
		return rewritten, nil
	}
	return true, spec.warn(Warning{
		Class: ForeignRef,
		Where: spec.at(foreign[0]),
		What: fmt.Sprintf("%d reference(s) use %s although the definitions are in #/%s (first here, last at #%s)",
			len(foreign), other+"...", defsKey, foreign[len(foreign)-1]),
		Fallback: "each resolves to the definition of that name in #/" + defsKey,
	})
}
