package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

var testMux = mux{
	"echo": echo,
	"ping": ping,
	"fail": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) {
		return nil, fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: 42, Message: "custom", Data: wire.Raw(`{"k":[1]}`)})
	},
	"leak": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) {
		return nil, errors.New("secret database password in error")
	},
	"invalid-params": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad %s", "thing")
	},
	"nan": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) {
		return nanResult{}, nil
	},
	"nil": func(context.Context, *jsonrpc.Request) (wire.Marshaler, error) {
		return nil, nil
	},
	"id": func(ctx context.Context, _ *jsonrpc.Request) (wire.Marshaler, error) {
		id, ok := jsonrpc.RequestIDFrom(ctx)
		if !ok || jsonrpc.ConnFrom(ctx) == nil {
			return nil, errors.New("no id or conn in context")
		}
		return id, nil
	},
}

type nanResult struct{}

func (nanResult) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.Field("x")
	e.Float64(nan())
	e.ObjectEnd()
}

func nan() float64 { var z float64; return z / z }

func invalid(id, msg string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":` + quote(msg) + `}}`
}

func quote(s string) string {
	var e wire.Encoder
	e.Str(s)
	return string(e.Bytes())
}

// parseErr is the response to malformed JSON. Its data, the decoder's
// description of the problem, is wire's wording: expectJSON checks only that
// it is a string starting with "syntax error".
const parseErr = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":"syntax error*"}}`

const (
	idMsg      = "id must be a string or an integer"
	versionMsg = `"jsonrpc" must be "2.0"`
	methodMsg  = `"method" must be a string`
	paramsMsg  = `"params" must be an object or an array`
)

// TestResponses sends one message and checks the exact response.
func TestResponses(t *testing.T) {
	tests := []struct {
		name, in, want string
		batch          bool
	}{
		// Requests that work.
		{"echo object", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[1,2,{"b":null}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2,{"b":null}]}}`, false},
		{"echo array params", `{"jsonrpc":"2.0","id":2,"method":"echo","params":[1,"x"]}`,
			`{"jsonrpc":"2.0","id":2,"result":[1,"x"]}`, false},
		{"no params", `{"jsonrpc":"2.0","id":3,"method":"echo"}`, `{"jsonrpc":"2.0","id":3,"result":null}`, false},
		{"nil result", `{"jsonrpc":"2.0","id":3,"method":"nil"}`, `{"jsonrpc":"2.0","id":3,"result":null}`, false},
		{"string id", `{"jsonrpc":"2.0","id":"abc","method":"ping"}`, `{"jsonrpc":"2.0","id":"abc","result":{}}`, false},
		{"escaped string id", `{"jsonrpc":"2.0","id":"a\"b\u00e9\n","method":"ping"}`, `{"jsonrpc":"2.0","id":"a\"bé\n","result":{}}`, false},
		{"empty string id", `{"jsonrpc":"2.0","id":"","method":"ping"}`, `{"jsonrpc":"2.0","id":"","result":{}}`, false},
		{"negative id", `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, `{"jsonrpc":"2.0","id":-7,"result":{}}`, false},
		{"zero id", `{"jsonrpc":"2.0","id":0,"method":"ping"}`, `{"jsonrpc":"2.0","id":0,"result":{}}`, false},
		{"max int64 id", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, `{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}`, false},
		{"min int64 id", `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`, `{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}`, false},
		{"id in context", `{"jsonrpc":"2.0","id":"ctx","method":"id"}`, `{"jsonrpc":"2.0","id":"ctx","result":"ctx"}`, false},
		{"member order and whitespace", " {\t\"method\" : \"ping\" ,\r\n \"id\" : 5 , \"jsonrpc\" : \"2.0\" } ", `{"jsonrpc":"2.0","id":5,"result":{}}`, false},
		{"escaped member names", `{"json\u0072pc":"2.0","\u0069d":6,"meth\u006fd":"p\u0069ng"}`, `{"jsonrpc":"2.0","id":6,"result":{}}`, false},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":7,"method":"ping","extra":{"x":[1]},"params2":1}`, `{"jsonrpc":"2.0","id":7,"result":{}}`, false},
		{"duplicate member: last wins", `{"jsonrpc":"2.0","id":1,"id":8,"method":"nope","method":"ping"}`, `{"jsonrpc":"2.0","id":8,"result":{}}`, false},

		// Handler errors.
		{"method not found", `{"jsonrpc":"2.0","id":1,"method":"nope"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: nope"}}`, false},
		{"wrapped *Error", `{"jsonrpc":"2.0","id":1,"method":"fail"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":42,"message":"custom","data":{"k":[1]}}}`, false},
		{"NewError", `{"jsonrpc":"2.0","id":1,"method":"invalid-params"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad thing"}}`, false},
		{"plain error hidden", `{"jsonrpc":"2.0","id":1,"method":"leak"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`, false},
		{"unencodable result", `{"jsonrpc":"2.0","id":1,"method":"nan"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`, false},

		// Parse errors.
		{"truncated", `{"jsonrpc":"2.0","id":1`, parseErr, false},
		{"not JSON", `hello`, parseErr, false},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, parseErr, false},
		{"two messages", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, parseErr, false},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", parseErr, false},
		{"invalid UTF-8 in params", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"a\":\"\xc3\"}}", parseErr, false},
		{"control character", "{\"jsonrpc\":\"2.0\",\"id\":\"a\tb\",\"method\":\"ping\"}", parseErr, false},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,"method":"ping",}`, parseErr, false},
		{"empty", ``, parseErr, false},
		{"whitespace", "  ", parseErr, false},
		{"bad array", `[1,`, parseErr, false},
		{"bad array, batch on", `[{"jsonrpc":"2.0","id":1,"method":"ping"},`, parseErr, true},

		// Not a request object.
		{"string message", `"hello"`, invalid("null", "a message must be an object"), false},
		{"number message", `42`, invalid("null", "a message must be an object"), false},
		{"null message", `null`, invalid("null", "a message must be an object"), false},
		{"batch disabled", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, invalid("null", "batch requests are not supported"), false},
		{"empty batch", `[]`, invalid("null", "empty batch"), true},
		{"empty batch, disabled", `[]`, invalid("null", "batch requests are not supported"), false},

		// jsonrpc member.
		{"no jsonrpc", `{"id":1,"method":"ping"}`, invalid("1", versionMsg), false},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, invalid("1", versionMsg), false},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":"x","method":"ping"}`, invalid(`"x"`, versionMsg), false},
		{"jsonrpc 2.0 with space", `{"jsonrpc":"2.0 ","id":1,"method":"ping"}`, invalid("1", versionMsg), false},
		{"jsonrpc null", `{"jsonrpc":null,"id":1,"method":"ping"}`, invalid("1", versionMsg), false},
		{"no jsonrpc, no id", `{"method":"ping"}`, invalid("null", versionMsg), false},

		// id member.
		{"float id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, invalid("null", idMsg), false},
		{"integral float id", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, invalid("null", idMsg), false},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, invalid("null", idMsg), false},
		{"huge id", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, invalid("null", idMsg), false},
		{"huge negative id", `{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}`, invalid("null", idMsg), false},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, invalid("null", idMsg), false},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, invalid("null", idMsg), false},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, invalid("null", idMsg), false},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, invalid("null", idMsg), false},
		{"bad id beats bad version", `{"jsonrpc":"1.0","id":false,"method":"ping"}`, invalid("null", idMsg), false},

		// method member.
		{"number method", `{"jsonrpc":"2.0","id":1,"method":5}`, invalid("1", methodMsg), false},
		{"null method", `{"jsonrpc":"2.0","id":1,"method":null}`, invalid("1", methodMsg), false},
		{"number method, notification", `{"jsonrpc":"2.0","method":[]}`, invalid("null", methodMsg), false},
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, invalid("1", `a request must not have "result" or "error"`), false},

		// params member.
		{"string params", `{"jsonrpc":"2.0","id":1,"method":"echo","params":"x"}`, invalid("1", paramsMsg), false},
		{"number params", `{"jsonrpc":"2.0","id":1,"method":"echo","params":3}`, invalid("1", paramsMsg), false},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"echo","params":null}`, invalid("1", paramsMsg), false},
		{"bool params", `{"jsonrpc":"2.0","id":1,"method":"echo","params":true}`, invalid("1", paramsMsg), false},
		{"bad params, notification", `{"jsonrpc":"2.0","method":"echo","params":1}`, invalid("null", paramsMsg), false},

		// Neither or both.
		{"no method, result or error", `{"jsonrpc":"2.0","id":1}`, invalid("1", `a message needs "method", "result" or "error"`), false},
		{"empty object", `{}`, invalid("null", versionMsg), false},
		{"only jsonrpc", `{"jsonrpc":"2.0"}`, invalid("null", `a message needs "method", "result" or "error"`), false},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, invalid("1", `a response must not have both "result" and "error"`), false},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`, invalid("null", idMsg), false},

		// Batches.
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"nope"},5,{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`,
			`[{"jsonrpc":"2.0","id":1,"result":[1]},` +
				`{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"method not found: nope"}},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message must be an object"}},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must be a string or an integer"}}]`, true},
		{"batch of one", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `[{"jsonrpc":"2.0","id":1,"result":{}}]`, true},
		{"nested batch", `[[]]`, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message must be an object"}}]`, true},
		{"object with batch on", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := start(t, testMux, jsonrpc.Options{})
			h.conn.SetBatch(tt.batch)
			h.send(tt.in)
			got := h.recv()
			if strings.Contains(got, "\n") {
				t.Errorf("response has a newline: %q", got)
			}
			if strings.HasPrefix(got, "[") {
				// Batch responses come in completion order: compare as sets.
				expectSameElements(t, got, tt.want)
			} else {
				expectJSON(t, got, tt.want)
			}
			h.expectNothing()
		})
	}
}

// expectSameElements compares two JSON arrays ignoring element order.
func expectSameElements(t *testing.T, got, want string) {
	t.Helper()
	g, w := splitArray(t, got), splitArray(t, want)
	if len(g) != len(w) {
		t.Fatalf("got %d elements, want %d:\ngot  %s\nwant %s", len(g), len(w), got, want)
	}
	used := make([]bool, len(g))
next:
	for _, we := range w {
		for i, ge := range g {
			if eq, _ := wire.Equal(ge, we); eq && !used[i] {
				used[i] = true
				continue next
			}
		}
		t.Fatalf("missing element %s\ngot  %s\nwant %s", we, got, want)
	}
}

func splitArray(t *testing.T, s string) [][]byte {
	t.Helper()
	d := wire.NewDecoder([]byte(s))
	var out [][]byte
	err := d.Array(func() error {
		r, err := d.Raw()
		out = append(out, r)
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return out
}

// TestNoResponse checks the messages that get no answer.
func TestNoResponse(t *testing.T) {
	var unknown []jsonrpc.ID
	notified := make(chan string, 10)
	m := mux{
		"ping": ping,
		"note": func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			notified <- string(r.Params)
			return nil, errors.New("ignored")
		},
	}
	h := start(t, m, jsonrpc.Options{OnUnknownResponse: func(id jsonrpc.ID) { unknown = append(unknown, id) }})
	for _, in := range []string{
		`{"jsonrpc":"2.0","method":"note","params":{"n":1}}`,
		`{"jsonrpc":"2.0","method":"unknown-notification"}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":"99","error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`,
	} {
		h.send(in)
	}
	h.expectNothing()
	if got := <-notified; got != `{"n":1}` {
		t.Errorf("notification params %s", got)
	}
	want := []jsonrpc.ID{wire.IntValue(99), wire.StringValue("99"), {}, {}}
	if len(unknown) != len(want) {
		t.Fatalf("unknown responses %v, want %v", unknown, want)
	}
	for i := range want {
		if !unknown[i].Equal(want[i]) {
			t.Errorf("unknown response %d: %v, want %v", i, unknown[i], want[i])
		}
	}
}

func TestMaxDepth(t *testing.T) {
	h := start(t, testMux, jsonrpc.Options{MaxDepth: 3})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":{"b":1}}}`)
	expectJSON(t, h.recv(), `{"jsonrpc":"2.0","id":1,"result":{"a":{"b":1}}}`)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":{"b":[1]}}}`)
	expectJSON(t, h.recv(), parseErr)
}

func TestMethodInterned(t *testing.T) {
	var got []string
	h := start(t, jsonrpc.HandlerFunc(func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
		got = append(got, r.Method)
		return nil, nil
	}), jsonrpc.Options{})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"a\/b"}`)
	h.recv()
	h.send(`{"jsonrpc":"2.0","id":2,"method":"\u00e9"}`)
	h.recv()
	if len(got) != 2 || got[0] != "a/b" || got[1] != "é" {
		t.Errorf("methods %q", got)
	}
}
