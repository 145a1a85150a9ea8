package wire

import "testing"

// TestInto: To of nil is the zero Into, which discards; To and Raw.Into
// decode into their value; UnmarshalWith ends the value as Unmarshal does.
func TestInto(t *testing.T) {
	if !To(nil).Discards() || !(Into{}).Discards() {
		t.Error("To(nil) or the zero Into keeps something")
	}
	var r Raw
	into := r.Into()
	if into.Discards() || into.Value != &r {
		t.Fatalf("Raw.Into: %+v", into)
	}
	if err := UnmarshalWith([]byte(` {"a":1} `), into.Decode); err != nil || string(r) != `{"a":1}` {
		t.Errorf("UnmarshalWith into a Raw: %v %s", err, r)
	}
	var via Raw
	if err := UnmarshalSharedWith([]byte(`[1]`), To(&via).Decode); err != nil || string(via) != `[1]` {
		t.Errorf("UnmarshalSharedWith through To: %v %s", err, via)
	}
	for _, in := range []string{`{"a":1} x`, `{"a":`, ``} {
		if err := UnmarshalWith([]byte(in), r.DecodeJSON); err == nil {
			t.Errorf("UnmarshalWith(%q): no error", in)
		}
	}
}
