package wire

// Into is where a decoded value goes: the value, and the function that
// decodes JSON into it. Calls that decode a result for their caller take
// an Into rather than an Unmarshaler because a call of DecodeJSON through
// an interface makes the linker keep the DecodeJSON method of every type
// the program ever stores in an interface — every decoder of every
// generated revision — while a method value (v.DecodeJSON of a concrete
// type) keeps that type's alone. Generated code builds its Intos with
// method values; hand-written code can too, or use To.
//
// The zero Into discards the value (the JSON is still checked to be one
// value).
type Into struct {
	// Value is what Decode fills, as those who look at the result after
	// the call see it (outgoing middleware, given it as a Marshaler when
	// it is one).
	Value any
	// Decode decodes one JSON value into Value.
	Decode func(*Decoder) error
}

// To is the Into of v: v.DecodeJSON through the Unmarshaler interface.
// It is the short way for hand-written code; a program that calls it
// links the decoder of every type it stores in an interface, so code
// meant to stay small writes Into{Value: &r, Decode: r.DecodeJSON}.
func To(v Unmarshaler) Into {
	if v == nil {
		return Into{}
	}
	return Into{Value: v, Decode: v.DecodeJSON}
}

// Discards reports whether the Into is the zero one, which keeps nothing.
func (i Into) Discards() bool { return i.Decode == nil }

// Into is where a decoded value goes when it is kept as raw JSON: r.
func (r *Raw) Into() Into { return Into{Value: r, Decode: r.DecodeJSON} }
