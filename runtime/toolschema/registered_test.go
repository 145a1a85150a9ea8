package toolschema

import (
	"errors"
	"testing"
)

// TestNotRegistered: a program that registers no full validator (this
// test binary imports no fullschema) checks flat schemas and says
// of any other that it is not checked, without linking jsonschema.
func TestNotRegistered(t *testing.T) {
	if Registered() {
		t.Skip("a full validator is registered in this binary")
	}
	for _, input := range []bool{true, false} {
		if s, err := Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`), input); err != nil || s == nil {
			t.Errorf("a flat schema (input %v): %v, %v", input, s, err)
		} else if got := s.Check([]byte(`{"n":0}`)); got != "/n: must be >= 1 but found 0" {
			t.Errorf("a flat schema (input %v) against {\"n\":0}: %q", input, got)
		}
	}
	for _, tc := range []struct {
		schema string
		input  bool
	}{
		{`{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"}]}}}`, true},
		{`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer"}}}}`, false},
	} {
		if _, err := Compile([]byte(tc.schema), tc.input); !errors.Is(err, ErrNotChecked) {
			t.Errorf("%s (input %v): %v, want ErrNotChecked", tc.schema, tc.input, err)
		}
	}
}

// TestRegisterTwicePanics: two full validators are a mistake to see at
// start-up.
func TestRegisterTwicePanics(t *testing.T) {
	if Registered() {
		t.Skip("a full validator is registered in this binary")
	}
	defer full.Store(nil)
	Register(nopFull{})
	defer func() {
		if recover() == nil {
			t.Error("a second Register did not panic")
		}
	}()
	Register(nopFull{})
}

type nopFull struct{}

func (nopFull) Compile(string, []byte) (FullSchema, error) { return nil, nil }
