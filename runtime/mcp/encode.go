package mcp

import (
	"errors"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Small encoders and decoders the server and the client share.

// encoderFunc adapts a function to wire.Marshaler.
type encoderFunc func(*wire.Encoder)

// EncodeJSON implements wire.Marshaler.
func (f encoderFunc) EncodeJSON(e *wire.Encoder) { f(e) }

// CancelledParams are the params of notifications/cancelled for the
// request id.
func CancelledParams(id jsonrpc.ID, reason string) wire.Marshaler {
	return cancelParams{id, reason}
}

// cancelParams are the params of notifications/cancelled.
type cancelParams struct {
	id     jsonrpc.ID
	reason string
}

// EncodeJSON implements wire.Marshaler.
func (c cancelParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"requestId":`)
	c.id.EncodeJSON(e)
	if c.reason != "" {
		e.FieldRaw(`"reason":`)
		e.Str(c.reason)
	}
	e.ObjectEnd()
}

// wireString decodes a JSON string.
type wireString string

// DecodeJSON implements wire.Unmarshaler.
func (s *wireString) DecodeJSON(d *wire.Decoder) error {
	v, err := d.Str()
	*s = wireString(v)
	return err
}

// SplitRequest reads the method and params of an input request,
// {"method": ..., "params": {...}}.
func SplitRequest(request wire.Raw) (string, wire.Raw, error) {
	var method string
	params := wire.Raw(`{}`) // the caller may keep it
	d := wire.NewDecoder(request)
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "method":
			s, err := d.Str()
			method = s
			return err
		case "params":
			r, err := d.Raw()
			params = r
			return err
		}
		return d.Skip()
	})
	if err == nil && method == "" {
		err = errors.New("no method")
	}
	if err != nil {
		return "", nil, errors.New("mcp: an input request must be {\"method\": ..., \"params\": {...}}: " + err.Error())
	}
	return method, params, nil
}

// emptyObject is {}: the result of ping and friends, empty params and
// capabilities. Nothing writes to it.
var emptyObject = wire.Raw(`{}`)

func cancelledID(params wire.Raw) (jsonrpc.ID, bool) {
	var id jsonrpc.ID
	found := false
	if len(params) == 0 {
		return id, false
	}
	d := wire.NewDecoder(params)
	err := d.Object(func(key []byte) error {
		if string(key) == "requestId" {
			found = true
			return id.DecodeJSON(d)
		}
		return d.Skip()
	})
	return id, found && err == nil
}

// encodeImplementation encodes an Implementation object (serverInfo,
// clientInfo); an empty title is left out.
func encodeImplementation(e *wire.Encoder, name, title, version string) {
	e.ObjectStart()
	e.FieldRaw(`"name":`)
	e.Str(name)
	if title != "" {
		e.FieldRaw(`"title":`)
		e.Str(title)
	}
	e.FieldRaw(`"version":`)
	e.Str(version)
	e.ObjectEnd()
}
