package wire_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Tool shows the shape of mcpgen-generated code.
type Tool struct {
	Name        string
	Description wire.Opt[string]
	InputSchema wire.Raw
	Extra       wire.Members // members the schema does not name
}

func (t *Tool) DecodeJSON(d *wire.Decoder) error {
	return d.Object(func(key []byte) error {
		switch string(key) { // no allocation: the compiler compares in place
		case "name":
			s, err := d.Str()
			if err != nil {
				return wire.WithField(err, "name")
			}
			t.Name = s
		case "description":
			s, err := d.Str()
			if err != nil {
				return wire.WithField(err, "description")
			}
			t.Description = wire.Some(s)
		case "inputSchema":
			r, err := d.Raw()
			if err != nil {
				return wire.WithField(err, "inputSchema")
			}
			t.InputSchema = r
		default: // kept verbatim, in room a reused decoder keeps
			return d.Extra(&t.Extra, key)
		}
		return nil
	})
}

func (t *Tool) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"name":`)
	e.Str(t.Name)
	if v, ok := t.Description.Get(); ok {
		e.FieldRaw(`"description":`)
		e.Str(v)
	}
	e.FieldRaw(`"inputSchema":`)
	e.Raw(t.InputSchema)
	e.Members(t.Extra)
	e.ObjectEnd()
}

func Example() {
	var t Tool
	err := wire.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object"},"x-vendor":[1,2]}`), &t)
	fmt.Println(err)
	out, _ := wire.Marshal(&t)
	fmt.Println(string(out))

	err = wire.Unmarshal([]byte(`{"name":"echo","description":42}`), &t)
	fmt.Println(err)
	fmt.Println(wire.Pointer(err))
	// Output:
	// <nil>
	// {"name":"echo","inputSchema":{"type":"object"},"x-vendor":[1,2]}
	// /description: expected string, found number
	// /description
}

func ExampleStringOrInt() {
	ids := map[string]string{}
	for _, id := range []wire.StringOrInt{wire.IntValue(7), wire.StringValue("7")} {
		ids[string(id.AppendKey(nil))] = id.String()
	}
	fmt.Println(len(ids), ids["i7"], ids["s7"])
	// Output: 2 7 "7"
}

// Decoding through a method value: the program links Tool's decoder
// because it calls it, not because Tool is stored in an interface
// somewhere while something calls DecodeJSON through one (wire.Unmarshal,
// wire.To). A call that decodes a result for its caller takes the same
// pair as an Into.
func ExampleUnmarshalWith() {
	var t Tool
	err := wire.UnmarshalWith([]byte(`{"name":"echo","description":"says it back"}`), t.DecodeJSON)
	fmt.Println(t.Name, t.Description.Value, err)

	into := wire.Into{Value: &t, Decode: t.DecodeJSON}
	err = wire.UnmarshalWith([]byte(`{"name":"add"}`), into.Decode)
	fmt.Println(into.Value.(*Tool).Name, err)
	// Output:
	// echo says it back <nil>
	// add <nil>
}
