// Package echo defines the echo tool every stack the benchmarks compare
// serves — mcpgen (package mcpgenecho), the official go-sdk (gosdkecho),
// mcp-go (mcpgoecho) and a plain standard-library JSON-RPC loop (here) — so
// that the in-process benchmarks and the black-box
// servers of cmd/echo-* serve the very same thing: a tool "echo" whose
// arguments {"text": string} are checked against InputSchema and whose
// result is one text content block with that text.
package echo

// InputSchema is the echo tool's inputSchema (what go-sdk infers from its
// argument struct).
const InputSchema = `{"type":"object","properties":{"text":{"type":"string","description":"The text to echo"}},"required":["text"]}`

// Description is the echo tool's description.
const Description = "Echoes its text argument back as one text block."

// ToolList is the tools/list result of the echo servers: the mcpgen server
// learns the tool's inputSchema from it and checks every call against it.
const ToolList = `{"tools":[{"name":"echo","description":"` + Description + `","inputSchema":` + InputSchema + `}]}`
