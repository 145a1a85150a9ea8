package gen

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// mode is how a member is held in its struct field.
//
// Decoding is lenient about required members: a decoded value remembers
// which ones were absent (in the struct's unexported absent bits, or as a
// nil pointer/slice/union), Validate reports them, and EncodeJSON leaves
// them out, so even an invalid message round-trips unchanged. A value built
// in Go has no absent bits: its required scalars are written as they are.
type mode int

const (
	// modeValue: a required scalar held as a plain value.
	modeValue mode = iota + 1
	// modeOpt: an optional scalar in wire.Opt[T]; presence survives a round
	// trip. Also a required nullable scalar (unset means null).
	modeOpt
	// modePtr: an object, *T; nil means absent (and is a violation when
	// the member is required).
	modePtr
	// modeNil: a slice, map, raw JSON or union; nil means absent. An unset
	// required slice or object is written empty unless it was decoded
	// absent.
	modeNil
	// modeConst: a required member whose value is fixed; no field. It is
	// written on encode and checked on decode.
	modeConst
)

// field is one member of a struct.
type field struct {
	prop     *schema.Prop
	name     string
	gt       *gotype // the value type (aliases kept, for naming)
	mode     mode
	nullable bool // a required member that may be null
	bit      int  // index among required members, -1 if optional
}

// fields lists the members of a struct type in model order.
func (g *generator) fields(n *named) ([]*field, error) {
	var out []*field
	req := 0
	for _, p := range n.t.Props {
		f := &field{prop: p, name: p.GoName, gt: g.goType(p.Type), bit: -1}
		u := f.gt.underlying()
		switch {
		case p.Required && p.Type.Const != nil:
			f.mode = modeConst
		case p.Type.Nullable && p.Required:
			f.mode, f.nullable = modeOpt, true
		case p.Type.Nullable:
			return nil, fmt.Errorf("%s: an optional nullable member is not supported", p.Type.Path)
		default:
			switch u.shape {
			case shapeStruct:
				f.mode = modePtr
			case shapeSlice, shapeMap, shapeRawObject, shapeAnyJSON, shapeUnion:
				f.mode = modeNil
			default:
				f.mode = modeOpt
				if p.Required {
					f.mode = modeValue
				}
			}
		}
		if p.Required {
			f.bit = req
			req++
		}
		out = append(out, f)
	}
	if req > 64 {
		return nil, fmt.Errorf("%s: more than 64 required members", n.t.Path)
	}
	if n.t.Additional == schema.Typed {
		return nil, fmt.Errorf("%s: an object with both named members and typed additional members is not supported", n.t.Path)
	}
	return out, nil
}

// tracksAbsence reports whether a required member needs the absent bits:
// its Go value cannot say "absent" by itself.
func (f *field) tracksAbsence() bool {
	if f.bit < 0 {
		return false
	}
	switch f.mode {
	case modePtr:
		return false
	case modeNil:
		return f.gt.underlying().shape != shapeUnion
	}
	return true
}

// hasAbsent reports whether a struct needs the absent bits.
func hasAbsent(fields []*field) bool {
	for _, f := range fields {
		if f.tracksAbsence() {
			return true
		}
	}
	return false
}

// bitOp is the Go expression of a required member's bit.
func bitOp(bit int) *jen.Statement { return jen.Parens(jen.Op(fmt.Sprintf("1 << %d", bit))) }

// absentExpr is `v.absent&(1 << bit) != 0`.
func absentExpr(bit int) *jen.Statement {
	return jen.Id("v").Dot("absent").Op("&").Add(bitOp(bit)).Op("!=").Lit(0)
}

// typeCode is the Go type expression of a value type.
func (g *generator) typeCode(gt *gotype) jen.Code {
	return typeCodeNamed(gt, func(name string) *jen.Statement { return jen.Id(name) })
}

// typeCodeNamed is typeCode with the names of named types written by
// name (qualified by their package, for code outside it).
func typeCodeNamed(gt *gotype, name func(string) *jen.Statement) jen.Code {
	if gt.named != nil {
		return name(gt.named.name)
	}
	switch gt.shape {
	case shapeString, shapeEnum:
		return jen.String()
	case shapeInt:
		return jen.Int64()
	case shapeFloat:
		return jen.Float64()
	case shapeBool:
		return jen.Bool()
	case shapeSlice:
		return jen.Index().Add(typeCodeNamed(gt.elem, name))
	case shapeStringOrInt:
		return jen.Qual(wirePkg, "StringOrInt")
	case shapeAnyJSON:
		return jen.Qual(wirePkg, "Raw")
	}
	panic(fmt.Sprintf("gen: no Go type for shape %d at %s", gt.shape, gt.t.Path))
}

// fieldType is the Go type of a struct field.
func (g *generator) fieldType(f *field) jen.Code {
	switch f.mode {
	case modeOpt:
		return jen.Qual(wirePkg, "Opt").Types(g.typeCode(f.gt))
	case modePtr:
		return jen.Op("*").Add(g.typeCode(f.gt))
	}
	return g.typeCode(f.gt)
}

// quotedColon is the pre-escaped `"name":` for Encoder.FieldRaw.
func quotedColon(name string) string {
	return string(appendJSONString(nil, name)) + ":"
}

// appendJSONString quotes s as a JSON string (ASCII-safe, as the encoder
// would write it).
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r < 0x20:
			dst = append(dst, fmt.Sprintf(`\u%04x`, r)...)
		default:
			dst = append(dst, string(r)...)
		}
	}
	return append(dst, '"')
}

// constValue is the Go literal of a const member.
func constValue(v *schema.Value) jen.Code {
	if v.IsInt {
		return jen.Lit(v.Int)
	}
	return jen.Lit(v.Str)
}

func constText(v *schema.Value) string {
	if v.IsInt {
		return strconv.FormatInt(v.Int, 10)
	}
	return strconv.Quote(v.Str)
}
