package jsonrpc_test

import (
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The message model every transport parses with (these cases and fuzz
// targets were the Streamable HTTP transport's, when it had a parser of
// its own).

func TestParseMessage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind jsonrpc.Kind
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, jsonrpc.KindRequest},
		{`{"jsonrpc":"2.0","id":"x","method":"m","params":[]}`, jsonrpc.KindRequest},
		{`{"jsonrpc":"2.0","method":"m"}`, jsonrpc.KindNotification},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, jsonrpc.KindResponse},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`, jsonrpc.KindResponse},
		{`{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`, jsonrpc.KindResponse},
		{`{"jsonrpc":"2.0","id":1,"method":"m","result":1}`, jsonrpc.KindInvalid},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":3}`, jsonrpc.KindInvalid},
		{`{"jsonrpc":"2.0","id":1}`, jsonrpc.KindInvalid},
		{`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`, jsonrpc.KindInvalid},
		{`{"jsonrpc":"2.0","result":1}`, jsonrpc.KindInvalid},
		{`{"id":1,"method":"m"}`, jsonrpc.KindInvalid},
		{`{"jsonrpc":"2.0","id":true,"method":"m"}`, jsonrpc.KindInvalid},
		{`{"jsonrpc":"2.0","id":1e2,"method":"m"}`, jsonrpc.KindInvalid},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, jsonrpc.KindInvalid},
	} {
		m, err := jsonrpc.Parse([]byte(tc.in))
		if err != nil || m.Kind != tc.kind {
			t.Errorf("%s: kind %d (%s), %v; want %d", tc.in, m.Kind, m.Problem, err, tc.kind)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1}x`, `{"a":"\xff"}`} {
		if _, err := jsonrpc.Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseBatch(t *testing.T) {
	for _, tc := range []struct {
		in    string
		max   int
		kinds []jsonrpc.Kind
		err   error // jsonrpc.ErrBatchTooLarge, or errParse (any)
	}{
		{in: `[]`},
		{in: ` [ {"jsonrpc":"2.0","id":1,"method":"m"} ] `, kinds: []jsonrpc.Kind{jsonrpc.KindRequest}},
		{
			in:    `[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"a","result":{}},1,[],null,"s",{"jsonrpc":"1.0","id":3,"method":"m"}]`,
			kinds: []jsonrpc.Kind{jsonrpc.KindRequest, jsonrpc.KindNotification, jsonrpc.KindResponse, jsonrpc.KindInvalid, jsonrpc.KindInvalid, jsonrpc.KindInvalid, jsonrpc.KindInvalid, jsonrpc.KindInvalid},
		},
		{in: `[[{"jsonrpc":"2.0","method":"n"}]]`, kinds: []jsonrpc.Kind{jsonrpc.KindInvalid}},
		{in: `[1,2]`, max: 2, kinds: []jsonrpc.Kind{jsonrpc.KindInvalid, jsonrpc.KindInvalid}},
		{in: `[1,2,3]`, max: 2, err: jsonrpc.ErrBatchTooLarge},
		{in: `[{},`, err: &jsonrpc.ParseError{}},
		{in: `[1]x`, err: &jsonrpc.ParseError{}},
		{in: `[{"a":"\xff"}]`, err: &jsonrpc.ParseError{}},
	} {
		msgs, err := jsonrpc.ParseBatch([]byte(tc.in), tc.max)
		switch {
		case tc.err == jsonrpc.ErrBatchTooLarge && !errors.Is(err, jsonrpc.ErrBatchTooLarge):
			t.Errorf("%s: %v, want too large", tc.in, err)
		case tc.err != nil && tc.err != jsonrpc.ErrBatchTooLarge && !errors.As(err, new(*jsonrpc.ParseError)):
			t.Errorf("%s: %v, want a parse error", tc.in, err)
		case tc.err == nil && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.err == nil:
			var kinds []jsonrpc.Kind
			for _, m := range msgs {
				kinds = append(kinds, m.Kind)
				if m.Kind == jsonrpc.KindInvalid && m.Problem == "" {
					t.Errorf("%s: an invalid element without a problem", tc.in)
				}
			}
			if !equalKinds(kinds, tc.kinds) {
				t.Errorf("%s: kinds %v, want %v", tc.in, kinds, tc.kinds)
			}
		}
	}
	// The invalid element with a usable id keeps it, for its error.
	msgs, _ := jsonrpc.ParseBatch([]byte(`[{"jsonrpc":"1.0","id":3,"method":"m"},17]`), 0)
	if !msgs[0].HasID || msgs[0].ID.String() != "3" || msgs[1].HasID || msgs[1].Problem != "a message must be an object" {
		t.Errorf("%+v %+v", msgs[0], msgs[1])
	}
	// ParseMessages: one message or a batch.
	for in, n := range map[string]int{`{"jsonrpc":"2.0","method":"n"}`: 1, `[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":1,"result":1}]`: 2, `[]`: 0} {
		if ms, err := jsonrpc.ParseMessages([]byte(in)); err != nil || len(ms) != n {
			t.Errorf("%s: %d messages, %v", in, len(ms), err)
		}
	}
	if _, err := jsonrpc.ParseMessages([]byte(`[`)); err == nil {
		t.Error("malformed batch parsed")
	}
}

func equalKinds(a, b []jsonrpc.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`,
		`[{"jsonrpc":"2.0"}]`, `{"id":1.5}`, `{`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"n"}]`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := jsonrpc.Parse(b)
		if err == nil && m == nil {
			t.Fatal("no message and no error")
		}
	})
}

// FuzzParseBatch: batch bodies (2025-03-26). ParseBatch never returns more
// elements than its limit, nor a nil or unexplained invalid element; a
// message alone and the same message in a batch of one parse alike; and
// ParseMessages reads what ParseBatch and Parse read.
func FuzzParseBatch(f *testing.F) {
	for _, s := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`,
		`[{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}]`,
		`[]`, ` [ ] `, `[1,"x",null,[],{}]`, `[[{"jsonrpc":"2.0","method":"n"}]]`,
		`[{"jsonrpc":"2.0","id":0,"method":"initialize"}]`, `[{`, `[1,]`, `[1]x`,
		`{"jsonrpc":"2.0","method":"n"}`, `"s"`,
	} {
		f.Add([]byte(s))
	}
	const limit = 8
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, err := jsonrpc.ParseBatch(b, limit)
		if err == nil {
			if !jsonrpc.IsBatch(b) {
				t.Fatal("a batch that is not an array")
			}
			if len(msgs) > limit {
				t.Fatalf("%d elements over the limit %d", len(msgs), limit)
			}
			for i, m := range msgs {
				if m == nil || (m.Kind == jsonrpc.KindInvalid && m.Problem == "") {
					t.Fatalf("element %d: %+v", i, m)
				}
			}
		} else if !errors.Is(err, jsonrpc.ErrBatchTooLarge) && !errors.As(err, new(*jsonrpc.ParseError)) {
			t.Fatalf("unexpected error %v", err)
		}
		all, err := jsonrpc.ParseMessages(b)
		if jsonrpc.IsBatch(b) {
			if want, werr := jsonrpc.ParseBatch(b, 0); (err == nil) != (werr == nil) || len(all) != len(want) {
				t.Fatalf("ParseMessages: %d, %v; ParseBatch: %d, %v", len(all), err, len(want), werr)
			}
			return
		}
		one, oerr := jsonrpc.Parse(b)
		if (err == nil) != (oerr == nil) || (err == nil && (len(all) != 1 || all[0].Kind != one.Kind)) {
			t.Fatalf("ParseMessages differs from Parse: %v, %v", err, oerr)
		}
		if oerr != nil {
			return
		}
		in, err := jsonrpc.ParseBatch(append(append([]byte("["), b...), ']'), 0)
		if err != nil {
			return // one level deeper than allowed
		}
		if len(in) != 1 || in[0].Kind != one.Kind || in[0].HasID != one.HasID || (one.HasID && in[0].ID.String() != one.ID.String()) {
			t.Fatalf("in a batch of one: %+v, alone: %+v", in, one)
		}
	})
}
