// Package gosdktools declares the comparison's three tools for the
// official go-sdk: mcp.AddTool with typed handlers; the SDK infers the
// schemas from the types by reflection when the tool is added, and the
// constraints its struct tags cannot say are set on the inferred schema.
package gosdktools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/bench/typed"
)

// GreetIn says whom to greet.
type GreetIn struct {
	Name string `json:"name" jsonschema:"Who to greet."`
}

// AddIn are two numbers.
type AddIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// AddOut is their sum.
type AddOut struct {
	Sum float64 `json:"sum"`
}

// SearchIn is a query.
type SearchIn struct {
	Query string   `json:"query" jsonschema:"What to look for."`
	Limit int      `json:"limit,omitempty" jsonschema:"How many hits at most."`
	Tags  []string `json:"tags,omitempty" jsonschema:"Only hits with these tags."`
	Mode  string   `json:"mode,omitempty" jsonschema:"How hard to search."`
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

// Add adds the three tools to srv.
func Add(srv *gosdk.Server) error {
	greetIn, err := jsonschema.For[GreetIn](nil)
	if err != nil {
		return err
	}
	greetIn.Properties["name"].MinLength, greetIn.Properties["name"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(64)
	gosdk.AddTool(srv, &gosdk.Tool{Name: "greet", Description: "Greets someone by name.", InputSchema: greetIn},
		func(_ context.Context, _ *gosdk.CallToolRequest, in GreetIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: typed.Greeting(in.Name)}}}, nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in AddIn) (*gosdk.CallToolResult, AddOut, error) {
			return nil, AddOut{Sum: in.A + in.B}, nil
		})
	searchIn, err := jsonschema.For[SearchIn](nil)
	if err != nil {
		return err
	}
	p := searchIn.Properties
	p["query"].MinLength = jsonschema.Ptr(1)
	p["limit"].Minimum, p["limit"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(50.0)
	p["tags"].MaxItems = jsonschema.Ptr(5)
	p["mode"].Enum = []any{"fast", "thorough"}
	gosdk.AddTool(srv, &gosdk.Tool{Name: "search", Description: "Searches the catalogue.", InputSchema: searchIn},
		func(_ context.Context, _ *gosdk.CallToolRequest, in SearchIn) (*gosdk.CallToolResult, SearchOut, error) {
			out := SearchOut{Query: in.Query}
			titles, scores := typed.Hits(in.Query, in.Limit)
			for i := range titles {
				out.Hits = append(out.Hits, Hit{Title: titles[i], Score: scores[i]})
			}
			return nil, out, nil
		})
	return nil
}
