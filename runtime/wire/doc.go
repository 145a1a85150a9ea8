// Package wire is the JSON runtime that mcpgen-generated code calls to
// encode and decode MCP messages.
//
// It works without reflection: generated types implement [Marshaler] and
// [Unmarshaler] and drive an [Encoder] or [Decoder] directly. Both are
// built for the hot path of a server: the decoder reads a complete,
// already-framed message in place and allocates only for the values it
// hands out as Go strings or owned [Raw] copies; the encoder appends to a
// reusable buffer.
//
// The decoder is strict (RFC 8259): it rejects invalid UTF-8 in strings,
// unescaped control characters, leading zeros, trailing commas, comments,
// NaN/Infinity and any data after the top-level value. Malformed input is
// reported as a [*SyntaxError]; well-formed input of the wrong kind or with an
// unusable value as a [*TypeError] or [*ValueError]. Generated decoders
// annotate errors while unwinding with [WithField] and [WithIndex], so the
// final error carries the RFC 6901 JSON Pointer of the offending value
// (see [PathError] and [Pointer]); that work happens only on the error path.
package wire
