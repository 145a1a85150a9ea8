// Package protocol is the contract between the packages mcpgen generates
// and the runtime that serves them. Generated code imports it; code that
// serves or calls MCP imports package mcp and never needs this one.
//
// A generated package describes its revision with a Protocol — the method
// table (a Method per request and notification, like a gRPC service
// descriptor), the Role of every method the runtime looks at, the Feature
// of the methods the runtime answers itself, the Era the revision belongs
// to, and whatever else differs between revisions (how errors without an
// id are written, the code of a missing client capability, the task
// types, the tool error) — so that the runtime never asks which revision
// it serves to pick a behaviour. The rest of the package is what the
// generated code calls: DecodeParamsWith and friends for params, the errors of
// typed calls, AwaitTask for calls answered with a task, and the support
// of the bridges mcpgen convert generates (Bridge, AskClient).
//
// The runtime package github.com/mcpgen/mcpgen/runtime declares which
// versions of this contract it builds (SupportsGeneratedVersionN).
package protocol
