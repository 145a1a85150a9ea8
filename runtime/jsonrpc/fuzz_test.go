package jsonrpc_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzEnvelope feeds arbitrary bytes to the dispatcher as one message: it
// must never panic or hang, and it answers with at most one well-formed
// response (an object, or an array of them for a batch).
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[1,"x",null]}}`,
		`{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"echo","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"x"},1]`,
		`[]`, `{}`, `null`, `{"id":1.5}`, `{"jsonrpc":"2.0","id":1,"method":"fail"}`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"leak","params":{}}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, msg []byte, batch bool) {
		s := newMemStream()
		c := jsonrpc.NewConn(s, testMux, jsonrpc.Options{MaxDepth: 32})
		c.SetBatch(batch)
		done := make(chan error, 1)
		go func() { done <- c.Serve(context.Background()) }()
		s.in <- msg
		s.in <- []byte(`{"jsonrpc":"2.0","id":"sentinel","method":"ping"}`)
		var got [][]byte
		deadline := time.After(10 * time.Second)
	wait:
		for {
			select {
			case m := <-s.out:
				if string(m) == `{"jsonrpc":"2.0","id":"sentinel","result":{}}` {
					break wait
				}
				got = append(got, m)
			case <-deadline:
				t.Fatal("hang: no answer to the sentinel")
			}
		}
		s.closeInput()
		select {
		case <-done:
		case <-deadline:
			t.Fatal("hang: Serve did not return")
		}
	drain:
		for {
			select {
			case m := <-s.out:
				got = append(got, m)
			default:
				break drain
			}
		}
		if len(got) > 1 {
			t.Fatalf("%d responses: %q", len(got), got)
		}
		for _, m := range got {
			checkResponse(t, m, batch)
		}
	})
}

// checkResponse checks that m is a well-formed response, or a non-empty
// array of them when batches are on.
func checkResponse(t *testing.T, m []byte, batch bool) {
	d := wire.NewDecoder(m)
	if batch && d.Peek() == wire.Array {
		n := 0
		err := d.Array(func() error {
			n++
			return checkResponseObject(d)
		})
		if err == nil {
			err = d.End()
		}
		if err != nil || n == 0 {
			t.Fatalf("bad batch response %s: %v", m, err)
		}
		return
	}
	err := checkResponseObject(d)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		t.Fatalf("bad response %s: %v", m, err)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func checkResponseObject(d *wire.Decoder) error {
	var version, id, result, errObj bool
	err := d.Object(func(k []byte) error {
		switch string(k) {
		case "jsonrpc":
			v, err := d.Str()
			if v != "2.0" {
				return errString("bad version")
			}
			version = true
			return err
		case "id":
			id = true
			if d.Peek() == wire.Null {
				return d.Null()
			}
			var v jsonrpc.ID
			return v.DecodeJSON(d)
		case "result":
			result = true
			return d.Skip()
		case "error":
			errObj = true
			var e jsonrpc.Error
			return e.DecodeJSON(d)
		}
		return errString("unexpected member " + string(k))
	})
	if err != nil {
		return err
	}
	if !version || !id || result == errObj {
		return errString("missing members")
	}
	return nil
}
