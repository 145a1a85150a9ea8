package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
)

// InvalidParams returns a -32602 with message "invalid params: <msg>",
// naming the member at pointer ("/params/arguments/city") in its data: the
// error a handler answers params it cannot use with.
func InvalidParams(pointer, msg string) *jsonrpc.Error { return protocol.InvalidParams(pointer, msg) }
