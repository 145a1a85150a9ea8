// Package mcpgentools declares the comparison's three tools for mcpgen:
// plain functions with //mcp:tool directives; mcpgen tools generates their
// schemas, decoders, validators and encoders (features.gen.go).
package mcpgentools

//go:generate go tool mcpgen tools

import (
	"context"

	"github.com/mcpgen/mcpgen/bench/typed"
)

// GreetIn says whom to greet.
type GreetIn struct {
	Name string `json:"name" mcp:"minLength=1,maxLength=64"` // Who to greet.
}

// Greets someone by name.
//
//mcp:tool greet
func greet(_ context.Context, in GreetIn) (string, error) { return typed.Greeting(in.Name), nil }

// AddIn are two numbers.
type AddIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// AddOut is their sum.
type AddOut struct {
	Sum float64 `json:"sum"`
}

// Adds two numbers.
//
//mcp:tool add
func add(_ context.Context, in AddIn) (AddOut, error) { return AddOut{Sum: in.A + in.B}, nil }

// Mode is how hard to search.
type Mode string

// The modes.
const (
	Fast     Mode = "fast"
	Thorough Mode = "thorough"
)

// SearchIn is a query.
type SearchIn struct {
	Query string   `json:"query" mcp:"minLength=1"`                    // What to look for.
	Limit int      `json:"limit,omitempty" mcp:"minimum=1,maximum=50"` // How many hits at most.
	Tags  []string `json:"tags,omitempty" mcp:"maxItems=5"`            // Only hits with these tags.
	Mode  Mode     `json:"mode,omitempty"`                             // How hard to search.
}

// Hit is one result.
type Hit struct {
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

// SearchOut are the hits of a query.
type SearchOut struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
}

// Searches the catalogue.
//
//mcp:tool search
func search(_ context.Context, in SearchIn) (SearchOut, error) {
	out := SearchOut{Query: in.Query}
	titles, scores := typed.Hits(in.Query, in.Limit)
	for i := range titles {
		out.Hits = append(out.Hits, Hit{Title: titles[i], Score: scores[i]})
	}
	return out, nil
}
