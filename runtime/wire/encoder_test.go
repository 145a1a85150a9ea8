package wire

import (
	"math"
	"strings"
	"testing"
)

func TestEncoderStructure(t *testing.T) {
	var e Encoder
	e.ObjectStart()
	e.Field("jsonrpc")
	e.Str("2.0")
	e.FieldRaw(`"id":`)
	e.Int64(-7)
	e.Field("params")
	e.ObjectStart()
	e.Field("list")
	e.ArrayStart()
	e.Int64(1)
	e.ArrayStart()
	e.ArrayEnd()
	e.ObjectStart()
	e.ObjectEnd()
	e.Str("s")
	e.StrBytes([]byte("b"))
	e.Float64(1.5)
	e.Bool(true)
	e.Bool(false)
	e.Null()
	e.Raw(Raw(`{"x":[1]}`))
	e.Raw(nil)
	e.ArrayEnd()
	e.Field("empty")
	e.ObjectStart()
	e.ObjectEnd()
	e.Members(Members{{"a b", Raw("1")}, {"q\"", Raw(`"v"`)}})
	e.ObjectEnd()
	e.ObjectEnd()
	want := `{"jsonrpc":"2.0","id":-7,"params":{"list":[1,[],{},"s","b",1.5,true,false,null,{"x":[1]},null],"empty":{},"a b":1,"q\"":"v"}}`
	if got := string(e.Bytes()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if e.Len() != len(want) || e.Err() != nil {
		t.Errorf("Len %d Err %v", e.Len(), e.Err())
	}
	e.Reset()
	if e.Len() != 0 {
		t.Error("Reset left data")
	}
	e.Int64(1) // no stray comma after Reset
	e.Reset()
	e.ArrayStart()
	e.ArrayEnd()
	if string(e.Bytes()) != "[]" {
		t.Errorf("after Reset: %s", e.Bytes())
	}
	// Members into an empty object.
	e.Reset()
	e.ObjectStart()
	e.Members(Members{{"k", Raw("true")}})
	e.Field("z")
	e.Null()
	e.ObjectEnd()
	if string(e.Bytes()) != `{"k":true,"z":null}` {
		t.Errorf("members: %s", e.Bytes())
	}
}

func TestEncoderTopLevelScalars(t *testing.T) {
	for _, tt := range []struct {
		fn   func(e *Encoder)
		want string
	}{
		{func(e *Encoder) { e.Int64(math.MinInt64) }, "-9223372036854775808"},
		{func(e *Encoder) { e.Int64(math.MaxInt64) }, "9223372036854775807"},
		{func(e *Encoder) { e.Str("") }, `""`},
		{func(e *Encoder) { e.Null() }, "null"},
		{func(e *Encoder) { e.Raw(Raw(`"r"`)) }, `"r"`},
		{func(e *Encoder) { e.Float64(-0.0) }, "0"},
		{func(e *Encoder) { e.Float64(math.Copysign(0, -1)) }, "-0"},
	} {
		var e Encoder
		tt.fn(&e)
		if string(e.Bytes()) != tt.want {
			t.Errorf("got %s want %s", e.Bytes(), tt.want)
		}
	}
}

func TestEncoderStringEscaping(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{"plain text", `"plain text"`},
		{`<a href="x">&amp;</a>`, `"<a href=\"x\">&amp;</a>"`},
		{`back\slash`, `"back\\slash"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"/", `"/"`},
		{"héllo 世界 😀", `"héllo 世界 😀"`},
		{"a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"bad\xffutf8\xc3", `"bad\ufffdutf8\ufffd"`},
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},
		{strings.Repeat("0123456789", 5) + "\n", `"` + strings.Repeat("0123456789", 5) + `\n"`},
		{"12345678\"", `"12345678\""`},
	} {
		var e Encoder
		e.Str(tt.in)
		if got := string(e.Bytes()); got != tt.want {
			t.Errorf("Str(%q) = %s, want %s", tt.in, got, tt.want)
		}
		e.Reset()
		e.StrBytes([]byte(tt.in))
		if got := string(e.Bytes()); got != tt.want {
			t.Errorf("StrBytes(%q) = %s, want %s", tt.in, got, tt.want)
		}
		e.Reset()
		e.ObjectStart()
		e.Field(tt.in)
		e.Null()
		e.ObjectEnd()
		if got, want := string(e.Bytes()), "{"+tt.want+":null}"; got != want {
			t.Errorf("Field(%q) = %s, want %s", tt.in, got, want)
		}
	}
}

func TestEncoderFloat64(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{1, "1"},
		{-1, "-1"},
		{1.5, "1.5"},
		{0.1, "0.1"},
		{1e-6, "0.000001"},
		{1e-7, "1e-7"},
		{1.5e-9, "1.5e-9"},
		{1e-100, "1e-100"},
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"},
		{123456789e15, "1.23456789e+23"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.SmallestNonzeroFloat64, "5e-324"},
		{1 << 53, "9007199254740992"},
		{1<<53 + 2, "9007199254740994"},
		{-123456.789, "-123456.789"},
	} {
		var e Encoder
		e.Float64(tt.in)
		if got := string(e.Bytes()); got != tt.want {
			t.Errorf("Float64(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestEncoderFloat64Unsupported(t *testing.T) {
	for f, name := range map[float64]string{math.NaN(): "NaN", math.Inf(1): "+Inf", math.Inf(-1): "-Inf"} {
		var e Encoder
		e.ArrayStart()
		e.Float64(f)
		e.Float64(math.NaN()) // first error wins
		e.ArrayEnd()
		if string(e.Bytes()) != "[null,null]" {
			t.Errorf("Float64(%v) wrote %s", f, e.Bytes())
		}
		want := "wire: unsupported float64 value " + name
		if e.Err() == nil || e.Err().Error() != want {
			t.Errorf("Float64(%v): Err = %v, want %q", f, e.Err(), want)
		}
		e.Reset()
		if e.Err() != nil {
			t.Error("Reset kept the error")
		}
	}
}

func TestEncoderAllocs(t *testing.T) {
	e := &Encoder{buf: make([]byte, 0, 4096)}
	members := Members{{"extra", Raw(`{"a":1}`)}}
	bs := []byte("bytes é \xff \u2029 \n")
	allocs := testing.AllocsPerRun(100, func() {
		e.Reset()
		e.ObjectStart()
		e.FieldRaw(`"jsonrpc":`)
		e.Str("2.0")
		e.Field("id")
		e.Int64(12345)
		e.Field("text")
		e.Str("héllo\n \u2028 \xff <tag>")
		e.StrBytes(bs)
		e.Float64(3.14159)
		e.Float64(1e300)
		e.Float64(42)
		e.Bool(true)
		e.Null()
		e.Raw(Raw(`[1]`))
		e.Members(members)
		e.ObjectEnd()
	})
	if allocs != 0 {
		t.Errorf("%v allocs per run, want 0", allocs)
	}
}

func TestPool(t *testing.T) {
	e := GetEncoder()
	if e.Len() != 0 || e.Err() != nil {
		t.Fatal("pooled encoder not empty")
	}
	e.Float64(math.NaN())
	PutEncoder(e)
	e = GetEncoder()
	if e.Len() != 0 || e.Err() != nil {
		t.Fatal("pooled encoder not reset")
	}
	PutEncoder(e)
	big := &Encoder{buf: make([]byte, 0, 2<<20)}
	PutEncoder(big) // dropped, must not panic
	PutEncoder(nil)
}

func TestEncoderReopenObject(t *testing.T) {
	tests := []struct {
		name  string
		write func(e *Encoder)
		ok    bool
		want  string
	}{
		{"empty object", func(e *Encoder) { e.ObjectStart(); e.ObjectEnd() }, true, `{"k":1}`},
		{"object with members", func(e *Encoder) { e.ObjectStart(); e.Field("a"); e.Raw(Raw(`{}`)); e.ObjectEnd() }, true, `{"a":{},"k":1}`},
		{"raw object", func(e *Encoder) { e.Raw(Raw(`{"x":[1]}`)) }, true, `{"x":[1],"k":1}`},
		{"array", func(e *Encoder) { e.ArrayStart(); e.ArrayEnd() }, false, `[]`},
		{"nothing", func(*Encoder) {}, false, ``},
	}
	for _, tt := range tests {
		var e Encoder
		tt.write(&e)
		if got := e.ReopenObject(); got != tt.ok {
			t.Errorf("%s: ReopenObject = %v", tt.name, got)
			continue
		}
		if tt.ok {
			e.Field("k")
			e.Int64(1)
			e.ObjectEnd()
		}
		if string(e.Bytes()) != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, e.Bytes(), tt.want)
		}
	}
}
