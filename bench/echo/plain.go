package echo

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// The plain loop: the physical limit the black-box comparison measures the
// MCP stacks against. It is what a minimal hand-written echo server with
// the standard library does — encoding/json in and out, one request at a
// time, one write per response — and nothing an MCP stack must do besides
// (no capability negotiation, no schema check beyond "text is a string",
// no concurrency, no cancellation).

// plainRequest is the part of a JSON-RPC request the plain loop reads.
type plainRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Name            string `json:"name"`
		Arguments       struct {
			Text *string `json:"text"`
		} `json:"arguments"`
	} `json:"params"`
}

// plainText is one text content block.
type plainText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// plainResponse is a JSON-RPC response of the plain loop.
type plainResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *plainError     `json:"error,omitempty"`
}

// plainError is a JSON-RPC error object.
type plainError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// answer returns the response to req, or nil for a notification.
func (req *plainRequest) answer() *plainResponse {
	if req.ID == nil {
		return nil
	}
	res := &plainResponse{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		v := req.Params.ProtocolVersion
		if v == "" {
			v = "2025-11-25"
		}
		res.Result = map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]string{"name": "plain-echo", "version": "bench"}}
	case "ping":
		res.Result = struct{}{}
	case "tools/list":
		res.Result = json.RawMessage(ToolList)
	case "tools/call":
		if req.Params.Name != "echo" || req.Params.Arguments.Text == nil {
			res.Error = &plainError{Code: -32602, Message: "want echo with a string text"}
			break
		}
		res.Result = struct {
			Content []plainText `json:"content"`
		}{[]plainText{{"text", *req.Params.Arguments.Text}}}
	default:
		res.Error = &plainError{Code: -32601, Message: "method not found: " + req.Method}
	}
	return res
}

// ServePlain runs the plain loop over newline-delimited JSON: it reads a
// request from r, writes its response to w, and so on until the end of r.
func ServePlain(r io.Reader, w io.Writer) error {
	in := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(out) // Encode ends each response with the newline the framing needs
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 1 {
			var req plainRequest
			res := &plainResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &plainError{Code: -32700, Message: "parse error"}}
			if json.Unmarshal(line, &req) == nil {
				res = req.answer()
			}
			if res != nil {
				if err := enc.Encode(res); err != nil {
					return fmt.Errorf("plain: write: %w", err)
				}
				if err := out.Flush(); err != nil {
					return fmt.Errorf("plain: write: %w", err)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("plain: read: %w", err)
		}
	}
}

// PlainHTTP is the plain loop over HTTP: every POST carries one request and
// gets its response as application/json (202 for a notification).
func PlainHTTP() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		var req plainRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "parse error", http.StatusBadRequest)
			return
		}
		res := req.answer()
		if res == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(res) // the client is gone if this fails; nothing to tell it
	})
}
