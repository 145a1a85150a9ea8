package wire

import (
	"errors"
	"testing"
)

// TestRawValue: RawValue writes valid raw JSON as it is and refuses
// invalid raw JSON, naming where it was to go.
func TestRawValue(t *testing.T) {
	for _, tc := range []struct {
		name    string
		write   func(e *Encoder)
		want    string // output when valid
		pointer string // when invalid
	}{
		{"valid, spaces kept", func(e *Encoder) { e.ObjectStart(); e.Field("a"); e.RawValue(Raw(` [1, {"b":2}] `)); e.ObjectEnd() }, `{"a": [1, {"b":2}] }`, ""},
		{"empty is null", func(e *Encoder) { e.RawValue(nil) }, `null`, ""},
		{"top level", func(e *Encoder) { e.RawValue(Raw(`{`)) }, "", ""},
		{"member", func(e *Encoder) {
			e.ObjectStart()
			e.Field("a")
			e.Int64(1)
			e.Field("args")
			e.RawValue(Raw(`{bad`))
			e.ObjectEnd()
		}, "", "/args"},
		{"escaped key", func(e *Encoder) { e.ObjectStart(); e.Field("a/b~\"c"); e.RawValue(Raw(`tru`)); e.ObjectEnd() }, "", "/a~1b~0\"c"},
		{"array element after an object", func(e *Encoder) {
			e.ObjectStart()
			e.Field("content")
			e.ArrayStart()
			e.ObjectStart()
			e.Field("type")
			e.Str("x,]}\"")
			e.ObjectEnd()
			e.RawValue(Raw(`{"a":1`))
			e.ArrayEnd()
			e.ObjectEnd()
		}, "", "/content/1"},
		{"after raw with whitespace", func(e *Encoder) {
			e.ObjectStart()
			e.Field("x")
			e.RawValue(Raw(" {\"k\" : [ 1 , 2 ] } "))
			e.Field("y")
			e.ArrayStart()
			e.Int64(1)
			e.RawValue(Raw(`1.`))
			e.ArrayEnd()
			e.ObjectEnd()
		}, "", "/y/1"},
		{"extra members", func(e *Encoder) {
			e.ObjectStart()
			e.Members(Members{{"ok", Raw(`1`)}, {"bad", Raw(`01`)}})
			e.ObjectEnd()
		}, "", "/bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Encoder
			tc.write(&e)
			err := e.Err()
			if tc.want != "" {
				if err != nil || string(e.Bytes()) != tc.want {
					t.Fatalf("got %s, %v; want %s", e.Bytes(), err, tc.want)
				}
				return
			}
			var pe *PathError
			if !errors.As(err, &pe) || pe.Pointer != tc.pointer {
				t.Fatalf("err = %v; want a *PathError at %q", err, tc.pointer)
			}
			if !Valid(e.Bytes()) {
				t.Errorf("output %s is not valid JSON: the bad value must be written as null", e.Bytes())
			}
		})
	}
}

// TestUnchecked: an Unchecked encoder writes raw values as they are, and
// Reset (as PutEncoder does) makes it check again, so a pooled encoder
// never writes unchecked output for a peer.
func TestUnchecked(t *testing.T) {
	e := GetEncoder()
	e.Unchecked()
	e.ObjectStart()
	e.Field("a")
	e.RawValue(Raw(`{bad`))
	e.ObjectEnd()
	if got := string(e.Bytes()); got != `{"a":{bad}` || e.Err() != nil {
		t.Errorf("unchecked: %s, %v; want the bytes as they are", got, e.Err())
	}
	e.Reset()
	e.RawValue(Raw(`{bad`))
	if e.Err() == nil {
		t.Errorf("after Reset: %s written without an error", e.Bytes())
	}
	PutEncoder(e)
}
