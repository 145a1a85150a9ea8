package wire

import "fmt"

// ValueOf encodes a string, an integer, a number, a boolean or a Marshaler
// as JSON: what generated conversions keep in Extra for a member the
// target revision does not name.
func ValueOf(v any) (Raw, error) {
	e := GetEncoder()
	defer PutEncoder(e)
	switch x := v.(type) {
	case string:
		e.Str(x)
	case int64:
		e.Int64(x)
	case float64:
		e.Float64(x)
	case bool:
		e.Bool(x)
	case []string:
		e.ArrayStart()
		for _, s := range x {
			e.Str(s)
		}
		e.ArrayEnd()
	case Marshaler:
		x.EncodeJSON(e)
	default:
		return nil, fmt.Errorf("wire: no JSON encoding for %T", v)
	}
	if err := e.Err(); err != nil {
		return nil, err
	}
	return append(Raw(nil), e.Bytes()...), nil
}

// ValueFrom decodes JSON into v: a *string, *int64, *float64, *bool,
// *[]string or Unmarshaler (ValueOf's counterpart, for a member a
// conversion finds in Extra). Like UnmarshalShared, the strings and raw
// values it decodes are views of b, which must not change while v is in
// use.
func ValueFrom(b Raw, v any) error {
	d := NewDecoder(b)
	d.SetShared(true)
	var err error
	switch x := v.(type) {
	case *string:
		*x, err = d.Str()
	case *int64:
		*x, err = d.Int64()
	case *float64:
		*x, err = d.Float64()
	case *bool:
		*x, err = d.Bool()
	case *[]string:
		*x = []string{} // [] decodes to an empty list, not nil
		err = d.Array(func() error {
			s, err := d.Str()
			*x = append(*x, s)
			return err
		})
	case Unmarshaler:
		return UnmarshalShared(b, x)
	default:
		return fmt.Errorf("wire: no JSON decoding into %T", v)
	}
	if err != nil {
		return err
	}
	return d.End()
}
