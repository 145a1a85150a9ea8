package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

var smallObject = []byte(`{"name":"echo","arguments":{"text":"hello"}}`)

type smallParams struct {
	Name      string
	Arguments Raw
}

func (p *smallParams) DecodeJSON(d *Decoder) error {
	return d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "name":
			p.Name, err = d.Str()
		case "arguments":
			p.Arguments, err = d.Raw()
		default:
			err = d.Skip()
		}
		return err
	})
}

func BenchmarkDecodeSmallObject(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(smallObject)))
	d := NewDecoder(nil)
	var p smallParams
	for b.Loop() {
		d.Reset(smallObject)
		if err := p.DecodeJSON(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeSmallObjectStd is encoding/json on the same input, for scale.
func BenchmarkDecodeSmallObjectStd(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(smallObject)))
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	for b.Loop() {
		p.Arguments = nil
		if err := json.Unmarshal(smallObject, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// doc10K is a tools/list result of about 10 KB.
var doc10K = func() []byte {
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":42,"result":{"tools":[`)
	for i := 0; sb.Len() < 10_000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"name":"tool_%d","title":"Tool number %d","description":"Does thing %d to the input. Handles \"quoted\" text, unicode (h\u00e9llo, 世界) and\nnew lines.","inputSchema":{"type":"object","properties":{"text":{"type":"string","maxLength":%d},"count":{"type":"integer","minimum":-1.5e3},"flag":{"type":"boolean","default":false}},"required":["text"]},"annotations":{"readOnlyHint":true,"idempotentHint":null}}`, i, i, i, i*100)
	}
	sb.WriteString(`],"nextCursor":null}}`)
	return []byte(sb.String())
}()

func BenchmarkSkip10K(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(doc10K)))
	d := NewDecoder(nil)
	for b.Loop() {
		d.Reset(doc10K)
		if err := d.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkip10KStdValid is json.Valid on the same input, for scale.
func BenchmarkSkip10KStdValid(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(doc10K)))
	for b.Loop() {
		if !json.Valid(doc10K) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkPeek(b *testing.B) {
	b.ReportAllocs()
	d := NewDecoder([]byte("  \n {}"))
	for b.Loop() {
		d.pos = 0
		if d.Peek() != Object {
			b.Fatal("kind")
		}
	}
}

func BenchmarkDecodeInt64(b *testing.B) {
	in := []byte("1234567890")
	b.ReportAllocs()
	d := NewDecoder(nil)
	for b.Loop() {
		d.Reset(in)
		if _, err := d.Int64(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeFloat64(b *testing.B) {
	in := []byte("-12345.6789e-3")
	b.ReportAllocs()
	d := NewDecoder(nil)
	for b.Loop() {
		d.Reset(in)
		if _, err := d.Float64(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeBool(b *testing.B) {
	in := []byte("false")
	b.ReportAllocs()
	d := NewDecoder(nil)
	for b.Loop() {
		d.Reset(in)
		if _, err := d.Bool(); err != nil {
			b.Fatal(err)
		}
	}
}

var longText = strings.Repeat("The quick brown fox jumps over the lazy dog. ", 23) // ~1 KB

func BenchmarkDecodeStrBytesLong(b *testing.B) {
	var e Encoder
	e.Str(longText)
	in := e.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	d := NewDecoder(nil)
	for b.Loop() {
		d.Reset(in)
		if _, err := d.StrBytes(); err != nil {
			b.Fatal(err)
		}
	}
}

type encParams struct {
	Method, Name, Text, Cursor string
	ID                         int64
}

func (p *encParams) EncodeJSON(e *Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"jsonrpc":`)
	e.Str("2.0")
	e.FieldRaw(`"id":`)
	e.Int64(p.ID)
	e.FieldRaw(`"method":`)
	e.Str(p.Method)
	e.FieldRaw(`"params":`)
	e.ObjectStart()
	e.FieldRaw(`"name":`)
	e.Str(p.Name)
	e.FieldRaw(`"arguments":`)
	e.ObjectStart()
	e.FieldRaw(`"text":`)
	e.Str(p.Text)
	e.ObjectEnd()
	e.FieldRaw(`"cursor":`)
	e.Str(p.Cursor)
	e.ObjectEnd()
	e.ObjectEnd()
}

var encInput = encParams{Method: "tools/call", Name: "echo", Text: "hello, world\n", Cursor: "c-123", ID: 7}

func BenchmarkEncodeObject(b *testing.B) {
	b.ReportAllocs()
	var e Encoder
	for b.Loop() {
		e.Reset()
		encInput.EncodeJSON(&e)
	}
	b.SetBytes(int64(e.Len()))
}

// BenchmarkEncodeObjectStd is encoding/json on an equivalent struct, for scale.
func BenchmarkEncodeObjectStd(b *testing.B) {
	type args struct {
		Text string `json:"text"`
	}
	type params struct {
		Name      string `json:"name"`
		Arguments args   `json:"arguments"`
		Cursor    string `json:"cursor"`
	}
	type req struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  params `json:"params"`
	}
	v := req{"2.0", 7, "tools/call", params{"echo", args{"hello, world\n"}, "c-123"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(&v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(&encInput); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeStrLong(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(longText)))
	var e Encoder
	for b.Loop() {
		e.Reset()
		e.Str(longText)
	}
}

func BenchmarkEncodeFloat64(b *testing.B) {
	b.ReportAllocs()
	var e Encoder
	for b.Loop() {
		e.Reset()
		e.Float64(-12.3456789)
	}
}

func BenchmarkEncodeFloat64Integral(b *testing.B) {
	b.ReportAllocs()
	var e Encoder
	for b.Loop() {
		e.Reset()
		e.Float64(1234)
	}
}

func BenchmarkEncodeInt64(b *testing.B) {
	b.ReportAllocs()
	var e Encoder
	for b.Loop() {
		e.Reset()
		e.Int64(1234567890)
	}
}

func BenchmarkUnmarshalCallTool(b *testing.B) {
	in := []byte(`{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":17}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		var p callToolParams
		if err := Unmarshal(in, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawValue: what checking a raw value costs when it is written
// (RawValue, which generated encoders use for values a program set)
// against writing it unchecked (Raw), for a tool call's arguments.
func BenchmarkRawValue(b *testing.B) {
	args := Raw(`{"query":"weather in Paris","units":"metric","days":[1,2,3],"detail":{"hourly":true,"alerts":false}}`)
	for _, tc := range []struct {
		name  string
		write func(e *Encoder, r Raw)
	}{
		{"Raw", (*Encoder).Raw},
		{"RawValue", (*Encoder).RawValue},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var e Encoder
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				e.Reset()
				tc.write(&e, args)
			}
		})
	}
}
