package jsonrpc

import (
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Kind tells what a message is.
type Kind uint8

// The kinds of message.
const (
	// KindInvalid is a JSON value that is not a valid JSON-RPC 2.0 message;
	// Message.Problem says why.
	KindInvalid Kind = iota
	// KindRequest is a request: it has a method and an id.
	KindRequest
	// KindNotification is a request without an id.
	KindNotification
	// KindResponse is a response: a result or an error.
	KindResponse
)

// Message is one JSON-RPC 2.0 message, parsed strictly: "jsonrpc" must be
// exactly "2.0"; an id must be a string or an integer literal that fits
// int64 (1.0 and 1e2 are refused); "method" must be a string; params, when
// present, an object or an array; a message with both "result" and
// "error", with neither nor "method", or with "method" and
// "result"/"error" is invalid. Unknown members are ignored.
//
// Params and Result are views of the parsed bytes, valid as long as they
// are.
type Message struct {
	Kind Kind
	// ID is the id of a request or response. HasID reports an id usable to
	// answer the message with (also on an invalid message): a string or an
	// integer.
	ID    ID
	HasID bool
	// Method is the method of a request or notification. A Parser interns
	// the names it knows, so they cost no allocation.
	Method string
	// Params is the params of a request or notification, nil when absent.
	Params wire.Raw
	// Result is the result of a success response.
	Result wire.Raw
	// Error is the error of an error response; nil when the response is a
	// result or its error object is malformed (see Response).
	Error *Error
	// Problem says why an invalid message is invalid.
	Problem string

	// badError reports an error object that does not decode.
	badError error
}

// Request returns the request or notification m carries.
func (m *Message) Request() *Request {
	return &Request{ID: m.ID, IsNotification: m.Kind == KindNotification, Method: m.Method, Params: m.Params}
}

// Response returns the outcome a response reports: nil for a result, the
// *Error of an error response, or an error saying that its error object is
// malformed.
func (m *Message) Response() error {
	switch {
	case m.Error != nil:
		return m.Error
	case m.badError != nil:
		return fmt.Errorf("jsonrpc: malformed error response: %w", m.badError)
	}
	return nil
}

// ParseError reports input that is not one JSON value (or is nested too
// deeply): the peer is answered -32700.
type ParseError struct{ Err error }

// Error implements error.
func (e *ParseError) Error() string { return e.Err.Error() }

// Unwrap returns the syntax error.
func (e *ParseError) Unwrap() error { return e.Err }

// ErrBatchTooLarge reports a batch with more elements than allowed.
var ErrBatchTooLarge = errors.New("too many messages in the batch")

// Problems of invalid messages, as Message.Problem states them.
const (
	problemNotObject = "a message must be an object"
	problemBatch     = "batch requests are not supported"
	problemID        = "id must be a string or an integer"
)

// Parser parses messages, reusing its buffers between them. A Parser is
// not safe for concurrent use: a connection's read loop owns one, an HTTP
// request makes its own. The zero value is usable.
type Parser struct {
	d        wire.Decoder
	env      envelope
	maxDepth int
	methods  map[string]string
}

// NewParser returns a Parser that interns the method names listed (so a
// message naming one costs no allocation for it) and refuses JSON nested
// deeper than maxDepth (wire.DefaultMaxDepth when <= 0).
func NewParser(methods []string, maxDepth int) *Parser {
	p := &Parser{maxDepth: maxDepth}
	p.d.SetMaxDepth(maxDepth)
	if len(methods) > 0 {
		p.methods = make(map[string]string, len(methods))
		for _, m := range methods {
			p.methods[m] = m
		}
	}
	return p
}

// Parse parses b, one message, into m. Malformed JSON is a *ParseError; a
// JSON value that is not a message object (a batch included) has kind
// KindInvalid.
func Parse(b []byte) (*Message, error) {
	var p Parser
	m := new(Message)
	if err := p.Parse(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

// Parse is the package's Parse with p's buffers and interned names.
func (p *Parser) Parse(b []byte, m *Message) error {
	d := &p.d
	d.Reset(b)
	switch d.Peek() {
	case wire.Object:
		return p.object(d, b, m)
	case wire.Array:
		*m = Message{Problem: problemBatch}
	default:
		*m = Message{Problem: problemNotObject}
	}
	err := d.Skip()
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return &ParseError{err}
	}
	return nil
}

// IsBatch reports input whose top-level value is an array: a JSON-RPC
// batch (which may still be malformed).
func IsBatch(b []byte) bool {
	var d wire.Decoder
	d.Reset(b)
	return d.Peek() == wire.Array
}

// ParseBatch parses a batch: a JSON array of messages. Malformed JSON is a
// *ParseError; each element is parsed as Parse parses a message, except
// that an element that is not an object (an array included) is invalid
// with "a message must be an object". More than max elements (max > 0) is
// ErrBatchTooLarge, without parsing the elements.
func (p *Parser) ParseBatch(b []byte, max int) ([]*Message, error) {
	d := &p.d
	d.Reset(b)
	d.SetShared(true) // the elements are views
	var elems []wire.Raw
	err := d.Array(func() error {
		e, err := d.Raw()
		if err != nil {
			return err
		}
		elems = append(elems, e)
		return nil
	})
	if err == nil {
		err = d.End()
	}
	d.SetShared(false)
	if err != nil {
		return nil, &ParseError{err}
	}
	if max > 0 && len(elems) > max {
		return nil, ErrBatchTooLarge
	}
	msgs := make([]*Message, len(elems))
	for i, e := range elems {
		m := new(Message)
		msgs[i] = m
		if e.Kind() != wire.Object {
			m.Problem = problemNotObject
			continue
		}
		d.Reset(e)
		if err := p.object(d, e, m); err != nil {
			return nil, err // cannot happen: the element was validated
		}
	}
	return msgs, nil
}

// ParseBatch is ParseBatch with a Parser of its own.
func ParseBatch(b []byte, max int) ([]*Message, error) {
	var p Parser
	return p.ParseBatch(b, max)
}

// ParseMessages parses what a peer may send in one piece on transports
// that carry batches: one message, or a batch of them.
func ParseMessages(b []byte) ([]*Message, error) {
	var p Parser
	if IsBatch(b) {
		return p.ParseBatch(b, 0)
	}
	m := new(Message)
	if err := p.Parse(b, m); err != nil {
		return nil, err
	}
	return []*Message{m}, nil
}

// PeekID returns the id of a message best-effort, without validating it:
// for an error response about input refused before it is parsed.
func PeekID(b []byte) (ID, bool) {
	var d wire.Decoder
	d.Reset(b)
	if d.Peek() != wire.Object {
		return ID{}, false
	}
	var id ID
	found := false
	_ = d.Object(func(key []byte) error {
		if found || string(key) != "id" {
			return d.Skip()
		}
		var env envelope
		if err := parseID(&d, &env); err != nil {
			return err
		}
		id, found = env.id, env.idState == idValid
		return nil
	})
	return id, found
}

// object parses the message object b with d (Reset to it) into m.
func (p *Parser) object(d *wire.Decoder, b []byte, m *Message) error {
	env := &p.env
	if err := parseEnvelope(d, env); err != nil {
		return &ParseError{err}
	}
	*m = Message{ID: env.id, HasID: env.idState == idValid}
	m.Kind, m.Problem = validate(env)
	switch m.Kind {
	case KindRequest, KindNotification:
		m.Method = p.intern(env.method)
		if env.hasParams {
			m.Params = wire.Raw(b[env.paramsStart:env.paramsEnd:env.paramsEnd])
		}
	case KindResponse:
		if env.hasResult {
			m.Result = wire.Raw(b[env.resultStart:env.resultEnd:env.resultEnd])
			break
		}
		e := new(Error)
		var ed wire.Decoder
		ed.SetMaxDepth(p.maxDepth)
		ed.Reset(b[env.errorStart:env.errorEnd])
		if err := e.DecodeJSON(&ed); err != nil {
			m.badError = err
		} else {
			m.Error = e
		}
	}
	return nil
}

// intern returns a method name, without allocating for the known ones.
func (p *Parser) intern(b []byte) string {
	if s, ok := p.methods[string(b)]; ok {
		return s
	}
	return string(b)
}
