package wire

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// callToolParams and progressMeta are written the way mcpgen generates code.
type callToolParams struct {
	Name      string
	Arguments Raw
	Tags      []string
	Meta      Opt[progressMeta]
	Extra     Members
}

type progressMeta struct {
	ProgressToken Opt[StringOrInt]
}

func (v *callToolParams) DecodeJSON(d *Decoder) error {
	seenName := false
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "name":
			s, err := d.Str()
			if err != nil {
				return WithField(err, "name")
			}
			v.Name, seenName = s, true
		case "arguments":
			r, err := d.Raw()
			if err != nil {
				return WithField(err, "arguments")
			}
			v.Arguments = r
		case "tags":
			i := 0
			err := d.Array(func() error {
				s, err := d.Str()
				if err != nil {
					return WithIndex(err, i)
				}
				v.Tags = append(v.Tags, s)
				i++
				return nil
			})
			if err != nil {
				return WithField(err, "tags")
			}
		case "_meta":
			v.Meta.Set = true
			if err := v.Meta.Value.DecodeJSON(d); err != nil {
				return WithField(err, "_meta")
			}
		default:
			r, err := d.Raw()
			if err != nil {
				return WithField(err, string(key))
			}
			v.Extra = append(v.Extra, Member{Name: string(key), Value: r})
		}
		return nil
	})
	if err == nil && !seenName {
		err = &ValueError{Offset: d.Offset(), Msg: `missing required member "name"`}
	}
	return err
}

func (v *callToolParams) EncodeJSON(e *Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"name":`)
	e.Str(v.Name)
	if v.Arguments != nil {
		e.FieldRaw(`"arguments":`)
		e.Raw(v.Arguments)
	}
	if v.Tags != nil {
		e.FieldRaw(`"tags":`)
		e.ArrayStart()
		for _, s := range v.Tags {
			e.Str(s)
		}
		e.ArrayEnd()
	}
	if v.Meta.Set {
		e.FieldRaw(`"_meta":`)
		v.Meta.Value.EncodeJSON(e)
	}
	e.Members(v.Extra)
	e.ObjectEnd()
}

func (v *progressMeta) DecodeJSON(d *Decoder) error {
	return d.Object(func(key []byte) error {
		if string(key) == "progressToken" {
			v.ProgressToken.Set = true
			return WithField(v.ProgressToken.Value.DecodeJSON(d), "progressToken")
		}
		return d.Skip()
	})
}

func (v *progressMeta) EncodeJSON(e *Encoder) {
	e.ObjectStart()
	if t, ok := v.ProgressToken.Get(); ok {
		e.FieldRaw(`"progressToken":`)
		t.EncodeJSON(e)
	}
	e.ObjectEnd()
}

func TestMarshalUnmarshalRoundTrip(t *testing.T) {
	in := `{"name":"echo","arguments":{"text":"hello","n":[1,2.5e3]},"tags":["a","b\n"],"_meta":{"progressToken":"tok"},"x-extra":{"k":null},"z":1}`
	var p callToolParams
	if err := Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "echo" || string(p.Arguments) != `{"text":"hello","n":[1,2.5e3]}` || len(p.Tags) != 2 ||
		p.Meta.Value.ProgressToken.Value != StringValue("tok") || len(p.Extra) != 2 {
		t.Fatalf("decoded %+v", p)
	}
	out, err := Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("round trip:\n got %s\nwant %s", out, in)
	}
	if eq, err := Equal(out, []byte(in)); !eq || err != nil {
		t.Errorf("Equal = %v, %v", eq, err)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	for _, tt := range []struct{ in, kind, pointer, msg string }{
		{`{"name":"x"} x`, "syntax", "", "unexpected data after top-level value"},
		{`{"name":"x","_meta":{"progressToken":1.5}}`, "value", "/_meta/progressToken",
			"/_meta/progressToken: number 1.5 is not an integer"},
		{`{"name":"x","_meta":{"progressToken":null}}`, "type", "/_meta/progressToken",
			"/_meta/progressToken: expected string or integer, found null"},
		{`{"name":"x","tags":["a",2]}`, "type", "/tags/1", "/tags/1: expected string, found number"},
		{`{"name":"x","a/b~c":[1,]}`, "syntax", "/a~1b~0c", "/a~1b~0c: syntax error at offset 23: invalid character ']'"},
		{`{"name":7}`, "type", "/name", "/name: expected string, found number"},
		{`{}`, "value", "", `missing required member "name"`},
		{`[]`, "type", "", "expected object, found array"},
		{"{\"name\":\"\xff\"}", "syntax", "/name", "invalid UTF-8 in string"},
	} {
		var p callToolParams
		err := Unmarshal([]byte(tt.in), &p)
		if !checkErr(t, tt.in, err, tt.kind, tt.msg) {
			continue
		}
		if got := Pointer(err); got != tt.pointer {
			t.Errorf("%s: Pointer = %q, want %q", tt.in, got, tt.pointer)
		}
	}
}

func TestPathErrors(t *testing.T) {
	if WithField(nil, "a") != nil || WithIndex(nil, 1) != nil {
		t.Fatal("nil error wrapped")
	}
	base := errors.New("boom")
	err := WithField(WithIndex(WithField(base, "x/y"), 3), "~a")
	if got := err.Error(); got != "/~0a/3/x~1y: boom" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(err, base) {
		t.Error("errors.Is lost the cause")
	}
	if Pointer(err) != "/~0a/3/x~1y" || Pointer(base) != "" || Pointer(nil) != "" {
		t.Errorf("Pointer = %q", Pointer(err))
	}
	var pe *PathError
	if !errors.As(err, &pe) || pe.Err != base {
		t.Error("one PathError expected, wrapping the cause directly")
	}
	// Wrapped by something else: Pointer still finds it via errors.As.
	outer := WithField(errors.Join(WithField(base, "in")), "out")
	if Pointer(outer) != "/out" {
		t.Errorf("Pointer(outer) = %q", Pointer(outer))
	}
	if WithField(base, "").Error() != "/: boom" {
		t.Error("empty name")
	}
	// The happy path does not allocate.
	if n := testing.AllocsPerRun(100, func() {
		_ = WithField(nil, "params")
		_ = WithIndex(nil, 12)
	}); n != 0 {
		t.Errorf("%v allocs on the happy path", n)
	}
}

func TestRaw(t *testing.T) {
	for in, k := range map[string]Kind{"": Invalid, "  ": Invalid, " {}": Object, "[1]": Array,
		`"s"`: String, "-1": Number, "true": Bool, "null": Null, "x": Invalid} {
		if got := Raw(in).Kind(); got != k {
			t.Errorf("Raw(%q).Kind() = %v, want %v", in, got, k)
		}
	}
	type wrap struct {
		A Raw  `json:"a"`
		B Raw  `json:"b"`
		C *Raw `json:"c"`
	}
	out, err := json.Marshal(wrap{A: Raw(`{"x":1}`)})
	if err != nil || string(out) != `{"a":{"x":1},"b":null,"c":null}` {
		t.Errorf("json.Marshal = %s, %v", out, err)
	}
	src := []byte(`{"a":[1, 2],"b":"s"}`)
	var w wrap
	if err := json.Unmarshal(src, &w); err != nil || string(w.A) != "[1, 2]" || string(w.B) != `"s"` {
		t.Fatalf("json.Unmarshal = %+v, %v", w, err)
	}
	src[6] = 'X'
	if string(w.A) != "[1, 2]" {
		t.Error("UnmarshalJSON kept a reference to its input")
	}
}

func TestMembers(t *testing.T) {
	var m Members
	if _, ok := m.Get("a"); ok {
		t.Error("Get on empty")
	}
	m.Set("a", Raw("1"))
	m.Set("b", Raw("2"))
	m.Set("a", Raw("3")) // replaces in place
	m = append(m, Member{"c", Raw("4")}, Member{"b", Raw("5")})
	if v, ok := m.Get("a"); !ok || string(v) != "3" || len(m) != 4 || m[0].Name != "a" {
		t.Errorf("after Set: %v", m)
	}
	if v, _ := m.Get("b"); string(v) != "2" {
		t.Errorf("Get returns the first duplicate, got %s", v)
	}
	m.Delete("b") // removes all duplicates, keeps order
	m.Delete("nope")
	var names []string
	for _, mem := range m {
		names = append(names, mem.Name)
	}
	if strings.Join(names, ",") != "a,c" {
		t.Errorf("after Delete: %v", names)
	}
}

func TestOpt(t *testing.T) {
	var o Opt[int]
	if v, ok := o.Get(); ok || v != 0 || o.Or(5) != 5 {
		t.Error("zero Opt")
	}
	o = Some(0)
	if v, ok := o.Get(); !ok || v != 0 || o.Or(5) != 0 {
		t.Error("Some(0)")
	}
	o.Clear()
	if o.Set || o != (Opt[int]{}) {
		t.Error("Clear")
	}
	s := Some([]int{1})
	s.Clear()
	if s.Value != nil {
		t.Error("Clear kept the value")
	}
}

func TestStringOrInt(t *testing.T) {
	var zero StringOrInt
	if !zero.IsZero() || !StringValue("").IsZero() || IntValue(0).IsZero() || StringValue("a").IsZero() {
		t.Error("IsZero")
	}
	s, n := StringValue("7"), IntValue(7)
	if s.IsInt() || !n.IsInt() || s.Str() != "7" || n.Int() != 7 || s.Int() != 0 || n.Str() != "" {
		t.Error("accessors")
	}
	if s.Equal(n) || !n.Equal(IntValue(7)) || !s.Equal(StringValue("7")) || n.Equal(IntValue(8)) || zero.Equal(IntValue(0)) {
		t.Error("Equal")
	}
	if n.String() != "7" || s.String() != `"7"` || StringValue("a\"\n").String() != `"a\"\n"` {
		t.Errorf("String: %s %s", n.String(), s.String())
	}
	keys := map[string]StringOrInt{}
	for _, v := range []StringOrInt{s, n, IntValue(-7), StringValue("i7"), StringValue(""), IntValue(0), StringValue("s"), StringValue("0")} {
		k := string(v.AppendKey(nil))
		if prev, dup := keys[k]; dup {
			t.Errorf("AppendKey collision between %v and %v: %q", prev, v, k)
		}
		keys[k] = v
	}
	if string(n.AppendKey([]byte("x"))) != "xi7" || string(s.AppendKey(nil)) != "s7" {
		t.Error("AppendKey format")
	}

	for _, tt := range []struct {
		in        string
		want      StringOrInt
		kind, msg string
	}{
		{in: `"abc"`, want: StringValue("abc")},
		{in: `""`, want: StringValue("")},
		{in: ` 42 `, want: IntValue(42)},
		{in: `-1`, want: IntValue(-1)},
		{in: `1.0`, want: IntValue(1)},
		{in: `1.5`, kind: "value", msg: "number 1.5 is not an integer"},
		{in: `1e100`, kind: "value", msg: "out of range"},
		{in: `null`, kind: "type", msg: "expected string or integer, found null"},
		{in: `{}`, kind: "type", msg: "expected string or integer, found object"},
		{in: `true`, kind: "type", msg: "expected string or integer, found boolean"},
		{in: ``, kind: "syntax", msg: "unexpected end of input, expected string or integer"},
		{in: `"a" 1`, kind: "syntax", msg: "unexpected data after top-level value"},
	} {
		var v StringOrInt
		err := v.UnmarshalJSON([]byte(tt.in))
		if checkErr(t, tt.in, err, tt.kind, tt.msg) && err == nil && !v.Equal(tt.want) {
			t.Errorf("decode %s = %v, want %v", tt.in, v, tt.want)
		}
		var v2 StringOrInt
		err2 := Unmarshal([]byte(tt.in), &v2)
		if errKind(err2) != errKind(err) || v2 != v {
			t.Errorf("Unmarshal(%s) = %v, %v; UnmarshalJSON gave %v, %v", tt.in, v2, err2, v, err)
		}
	}
	// Std compatibility in both directions.
	type msg struct {
		ID  StringOrInt   `json:"id"`
		IDs []StringOrInt `json:"ids"`
	}
	out, err := json.Marshal(msg{ID: IntValue(math.MinInt64), IDs: []StringOrInt{StringValue("x<"), IntValue(3)}})
	if err != nil || string(out) != `{"id":-9223372036854775808,"ids":["x\u003c",3]}` {
		t.Errorf("json.Marshal = %s, %v", out, err) // encoding/json re-escapes HTML
	}
	var m msg
	if err := json.Unmarshal([]byte(`{"id":"req-1","ids":[1,"2"]}`), &m); err != nil ||
		m.ID != StringValue("req-1") || m.IDs[0] != IntValue(1) || m.IDs[1] != StringValue("2") {
		t.Errorf("json.Unmarshal = %+v, %v", m, err)
	}
	if b, _ := Marshal(StringValue("a")); string(b) != `"a"` {
		t.Errorf("Marshal = %s", b)
	}
}

func TestEqual(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
		err  bool
	}{
		{a: `{"a":1,"b":[1,2]}`, b: ` { "b" : [1, 2], "a" : 1.0 } `, want: true},
		{a: `1`, b: `1.0`, want: true},
		{a: `100`, b: `1e2`, want: true},
		{a: `0.5`, b: `5e-1`, want: true},
		{a: `-0`, b: `0`, want: true},
		{a: `0e10`, b: `-0.000`, want: true},
		{a: `1`, b: `-1`, want: false},
		{a: `12345678901234567890123`, b: `1.2345678901234567890123e22`, want: true},
		{a: `12345678901234567890123`, b: `12345678901234567890124`, want: false},
		{a: `1`, b: `"1"`, want: false},
		{a: `"\u0061"`, b: `"a"`, want: true},
		{a: `[1,2]`, b: `[2,1]`, want: false},
		{a: `[1]`, b: `[1,1]`, want: false},
		{a: `{"a":1}`, b: `{"a":1,"b":2}`, want: false},
		{a: `{"a":1}`, b: `{"b":1}`, want: false},
		{a: `{"a":1,"a":2}`, b: `{"a":1,"a":2}`, want: true},
		{a: `{"a":1,"a":2}`, b: `{"a":2,"a":1}`, want: false},
		{a: `null`, b: `false`, want: false},
		{a: `true`, b: `true`, want: true},
		{a: `true`, b: `false`, want: false},
		{a: `{}`, b: `[]`, want: false},
		{a: `{"a":{"b":[{"c":null}]}}`, b: `{"a":{"b":[{"c":null}]}}`, want: true},
		{a: `{"a":{"b":[{"c":null}]}}`, b: `{"a":{"b":[{"c":0}]}}`, want: false},
		{a: `[1,]`, b: `[1]`, err: true},
		{a: `1`, b: `1 2`, err: true},
		{a: ``, b: `1`, err: true},
	} {
		got, err := Equal([]byte(tt.a), []byte(tt.b))
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, %v", tt.a, tt.b, got, err)
		}
		if !tt.err {
			if got2, _ := Equal([]byte(tt.b), []byte(tt.a)); got2 != got {
				t.Errorf("Equal(%s, %s) is not symmetric", tt.a, tt.b)
			}
		}
	}
}

func TestCopyMembers(t *testing.T) {
	for _, tc := range []struct {
		name, in, skip, out, skipped string
		bad                          bool
	}{
		{name: "skip one", in: `{"a":1,"_meta":{"k":true},"b":[2]}`, skip: "_meta", out: `{"a":1,"b":[2]}`, skipped: `{"k":true}`},
		{name: "absent", in: `{"a":1}`, skip: "_meta", out: `{"a":1}`},
		{name: "empty", in: `{}`, skip: "x", out: `{}`},
		{name: "escaped names", in: `{"\u0061":"v","x":0}`, skip: "x", out: `{"a":"v"}`, skipped: `0`},
		{name: "repeated: the last is returned", in: `{"x":1,"x":2}`, skip: "x", out: `{}`, skipped: `2`},
		{name: "not an object", in: `[1]`, skip: "x", bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Encoder
			e.ObjectStart()
			got, err := CopyMembers(&e, Raw(tc.in), tc.skip)
			if tc.bad {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			e.ObjectEnd()
			if err != nil || string(e.Bytes()) != tc.out || string(got) != tc.skipped {
				t.Fatalf("got %s, %q, %v; want %s, %q", e.Bytes(), got, err, tc.out, tc.skipped)
			}
		})
	}
}

func TestMemberOf(t *testing.T) {
	for _, tc := range []struct {
		in, name, want string
		found          bool
	}{
		{`{"a":1,"b":{"c":[2]}}`, "b", `{"c":[2]}`, true},
		{`{"a":1}`, "b", "", false},
		{`{"\u0062":"x"}`, "b", `"x"`, true},
		{`{"b":1,"b":2}`, "b", `1`, true}, // the first
		{`{"b":null}`, "b", `null`, true},
		{`[1]`, "b", "", false},
		{``, "b", "", false},
		{`{"b":`, "b", "", false},
	} {
		got, found := MemberOf(Raw(tc.in), tc.name)
		if string(got) != tc.want || found != tc.found {
			t.Errorf("MemberOf(%s, %q) = %s, %v; want %s, %v", tc.in, tc.name, got, found, tc.want, tc.found)
		}
	}
}
