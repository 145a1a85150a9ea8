package wire

import "sync"

// Marshaler is implemented by types that encode themselves as one JSON value.
type Marshaler interface {
	EncodeJSON(e *Encoder)
}

// Unmarshaler is implemented by types that decode themselves from one JSON
// value, consuming exactly that value.
type Unmarshaler interface {
	DecodeJSON(d *Decoder) error
}

// Marshal encodes v into a newly allocated slice. It returns the encoder's
// error (see Encoder.Err) if v could not be represented.
func Marshal(v Marshaler) ([]byte, error) {
	e := GetEncoder()
	v.EncodeJSON(e)
	if err := e.Err(); err != nil {
		PutEncoder(e)
		return nil, err
	}
	out := make([]byte, len(e.buf))
	copy(out, e.buf)
	PutEncoder(e)
	return out, nil
}

// Unmarshal decodes exactly one JSON value from b into v: anything but
// whitespace after the value is an error.
func Unmarshal(b []byte, v Unmarshaler) error {
	return unmarshal(b, v, false)
}

// UnmarshalShared is Unmarshal for input that is never modified and lives
// as long as v: v's strings and raw values are views of b rather than
// copies (see Decoder.SetShared).
func UnmarshalShared(b []byte, v Unmarshaler) error {
	return unmarshal(b, v, true)
}

func unmarshal(b []byte, v Unmarshaler, shared bool) error {
	d := decPool.Get().(*Decoder)
	d.Reset(b)
	d.shared = shared
	err := v.DecodeJSON(d)
	return putDecoder(d, err)
}

// UnmarshalWith is Unmarshal through a decoding function: a method value
// such as v.DecodeJSON of a concrete type, so that the program links that
// type's decoder alone (see Into).
func UnmarshalWith(b []byte, decode func(*Decoder) error) error {
	return unmarshalWith(b, decode, false)
}

// UnmarshalSharedWith is UnmarshalShared through a decoding function.
func UnmarshalSharedWith(b []byte, decode func(*Decoder) error) error {
	return unmarshalWith(b, decode, true)
}

func unmarshalWith(b []byte, decode func(*Decoder) error, shared bool) error {
	d := decPool.Get().(*Decoder)
	d.Reset(b)
	d.shared = shared
	return putDecoder(d, decode(d))
}

// putDecoder ends the value a pooled decoder read (unless err) and returns
// the decoder to its pool.
func putDecoder(d *Decoder, err error) error {
	if err == nil {
		err = d.End()
	}
	d.Reset(nil)
	d.shared = false
	if cap(d.scratch) <= maxPooled && cap(d.keys) <= maxPooled {
		decPool.Put(d)
	}
	return err
}

// maxPooled is the largest buffer a pool keeps; bigger ones, left by rare
// huge messages, are dropped so they do not pin memory.
const maxPooled = 1 << 20

var (
	encPool = sync.Pool{New: func() any { return &Encoder{buf: make([]byte, 0, 1024)} }}
	decPool = sync.Pool{New: func() any { return &Decoder{maxDepth: DefaultMaxDepth} }}
)

// GetEncoder returns an empty encoder from a pool. Return it with PutEncoder
// once its Bytes are no longer needed.
func GetEncoder() *Encoder {
	return encPool.Get().(*Encoder)
}

// PutEncoder resets e and returns it to the pool; an encoder whose buffer grew
// beyond 1 MiB is dropped instead. e must not be used afterwards.
func PutEncoder(e *Encoder) {
	if e == nil || cap(e.buf) > maxPooled {
		return
	}
	e.Reset()
	encPool.Put(e)
}
