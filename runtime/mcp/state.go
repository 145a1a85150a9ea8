package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The requestState of an InputRequiredResult comes back from the client,
// which may tamper with it. SealState authenticates it (HMAC-SHA256 with
// the server's StateKey), binds it to the request it belongs to (method,
// protocol version and the params member Mcp-Name mirrors: the tool, prompt
// or resource) and gives it an expiry; OpenState checks all three.

const stateVersion = 1

// SealState returns the opaque requestState carrying data for a retry of
// the current request.
func (r *Request) SealState(data []byte) string {
	exp := r.server.opts.Now().Add(r.server.opts.StateTTL).Unix()
	buf := make([]byte, 0, 1+8+len(data)+sha256.Size)
	buf = append(buf, stateVersion)
	buf = binary.BigEndian.AppendUint64(buf, uint64(exp))
	buf = append(buf, data...)
	buf = append(buf, r.stateMAC(buf)...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// ErrBadState is the -32602 answer to a requestState that is malformed,
// tampered with, expired or meant for another request.
var ErrBadState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: /params/requestState: not a requestState this server issued for this request, or expired"}

// OpenState verifies a requestState from SealState and returns its data.
func (r *Request) OpenState(state string) ([]byte, error) {
	buf, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(buf) < 1+8+sha256.Size || buf[0] != stateVersion {
		return nil, ErrBadState
	}
	body, mac := buf[:len(buf)-sha256.Size], buf[len(buf)-sha256.Size:]
	if !hmac.Equal(mac, r.stateMAC(body)) {
		return nil, ErrBadState
	}
	exp := int64(binary.BigEndian.Uint64(body[1:9]))
	if r.server.opts.Now().Unix() > exp {
		return nil, ErrBadState
	}
	return body[9:], nil
}

// stateMAC authenticates body and binds it to the request.
func (r *Request) stateMAC(body []byte) []byte {
	h := hmac.New(sha256.New, r.server.key)
	bind := func(s string) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	bind(r.ProtocolVersion())
	bind(r.Method)
	bind(r.nameParam)
	h.Write(body)
	return h.Sum(nil)
}
