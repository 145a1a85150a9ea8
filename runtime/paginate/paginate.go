// Package paginate is the list methods' pagination (cursor and
// nextCursor): Page cuts a server's list into pages with opaque cursors;
// Pages walks a server's pages from a client.
package paginate

import (
	"context"
	"encoding/base64"
	"iter"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// cursorPrefix versions the cursors Page makes.
const cursorPrefix = "p1:"

// Page returns the page of items that cursor points to, size items long
// (size <= 0: everything), and the cursor of the next page, "" on the last.
// Cursors are opaque to clients; one Page did not make is a -32602 naming
// /params/cursor, as the spec asks. A list that changes between pages
// shifts them: servers whose lists change often may prefer cursors of
// their own.
func Page[T any](items []T, cursor string, size int) ([]T, string, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		s, ok := strings.CutPrefix(string(b), cursorPrefix)
		n, nerr := strconv.Atoi(s)
		if err != nil || !ok || nerr != nil || n < 0 || n > len(items) {
			return nil, "", mcp.InvalidParams("/params/cursor", "not a cursor of this list")
		}
		start = n
	}
	if size <= 0 || start+size >= len(items) {
		return items[start:], "", nil
	}
	end := start + size
	return items[start:end], base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(end))), nil
}

// Pages walks every page of a list: fetch gets the page at cursor ("" for
// the first) and returns its items and the next cursor. The walk stops at
// the first error (yielded last), when a page has no next cursor, or when
// a server repeats a cursor (which would loop forever).
func Pages[T any](ctx context.Context, fetch func(ctx context.Context, cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		cursor := ""
		for {
			items, next, err := fetch(ctx, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if seen[next] {
				yield(zero, mcp.InvalidParams("/result/nextCursor", "the server repeated cursor "+strconv.Quote(next)))
				return
			}
			seen[next] = true
			cursor = next
		}
	}
}
