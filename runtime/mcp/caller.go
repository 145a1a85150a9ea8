package mcp

import "github.com/mcpgen/mcpgen/runtime/protocol"

// Caller sends requests and notifications to the other side of a session:
// a ClientSession is one (generated Client types call through it), and
// ClientOf gives a stateful session's handlers one to reach their client.
type Caller = protocol.Caller
