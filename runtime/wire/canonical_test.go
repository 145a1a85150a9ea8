package wire

import "testing"

// TestCanonical: encodings of one value share a canonical form; omitted
// members are left out of the outer object only.
func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{}`},
		{`{}`, `{}`},
		{` { "b" : [ 1 , {"d":null,"c":true} ], "a":"x\u0041\/" } `, `{"a":"xA/","b":[1,{"c":true,"d":null}]}`},
		{`{"a":1,"requestState":"s","_meta":{},"x":{"requestState":2}}`, `{"a":1,"x":{"requestState":2}}`},
		{`{"n":2.0e0}`, `{"n":2.0e0}`},
	} {
		got, err := Canonical(Raw(tc.in), "requestState", "_meta")
		if err != nil || string(got) != tc.want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{`, `{"a":1} x`, `{"a":tru}`} {
		if _, err := Canonical(Raw(bad)); err == nil {
			t.Errorf("Canonical(%s): no error", bad)
		}
	}
}
