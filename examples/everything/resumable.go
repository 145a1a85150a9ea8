package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// count_to, the resumable tool (experimental; the packages are generated
// with --extension resumable): the numbers 1..n in pages of ten, one text
// block per page with the numbers separated by spaces, every page but the
// last with nextResumeToken. The token carries where the next page starts.

const countToPage = 10

const countToDef = `{"name":"count_to","description":"Counts from 1 to n, ten numbers a call: a page that is not the last carries nextResumeToken; repeat the call with it as resumeToken (resumable calls, experimental).",` +
	`"inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":1000000}},"required":["n"]},` +
	`"_meta":{"io.github.mcpgen/resumeTTLMs":600000}}`

// countTo answers one call of count_to: the page's text and the next
// token ("" on the last page). params are the request's params, for the
// token's binding.
func countTo(ctx context.Context, tokens *resume.Tokens, params wire.Marshaler, token string, args wire.Raw) (string, string, error) {
	var a struct{ N *int64 }
	if json.Unmarshal(args, &a) != nil || a.N == nil || *a.N < 1 {
		return "", "", rt.InvalidParams("/params/arguments/n", "want an integer of at least 1")
	}
	c := resume.Call{Method: "tools/call", Tool: "count_to", Params: params, Token: token}
	op, err := tokens.Begin(ctx, c)
	if err != nil {
		return "", "", err
	}
	from := int64(1)
	if st := op.State(); st != nil {
		if from, err = strconv.ParseInt(string(st), 10, 64); err != nil {
			return "", "", rt.InvalidParams("/params/resumeToken", "invalid resumeToken")
		}
	}
	to := min(from+countToPage-1, *a.N)
	nums := make([]string, 0, countToPage)
	for i := from; i <= to; i++ {
		nums = append(nums, strconv.FormatInt(i, 10))
	}
	next, err := tokens.Step(ctx, c, op, []byte(strconv.FormatInt(to+1, 10)), to < *a.N)
	if err != nil {
		return "", "", err
	}
	return strings.Join(nums, " "), next, nil
}

// optional is a present-when-set string member.
func optional(s string) wire.Opt[string] {
	if s == "" {
		return wire.Opt[string]{}
	}
	return wire.Some(s)
}
