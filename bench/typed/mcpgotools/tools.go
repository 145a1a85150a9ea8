// Package mcpgotools declares the comparison's three tools for mcp-go:
// schemas built with its option builders (or inferred from the result
// type by reflection, WithOutputSchema), handlers bound to typed
// arguments with NewTypedToolHandler and NewStructuredToolHandler.
package mcpgotools

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgen/mcpgen/bench/typed"
)

// GreetIn says whom to greet.
type GreetIn struct {
	Name string `json:"name"`
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
	Query string   `json:"query"`
	Limit int      `json:"limit,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Mode  string   `json:"mode,omitempty"`
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
func Add(srv *mcpgoserver.MCPServer) {
	srv.AddTool(mcpgo.NewTool("greet", mcpgo.WithDescription("Greets someone by name."),
		mcpgo.WithString("name", mcpgo.Required(), mcpgo.Description("Who to greet."), mcpgo.MinLength(1), mcpgo.MaxLength(64))),
		mcpgo.NewTypedToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in GreetIn) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(typed.Greeting(in.Name)), nil
		}))
	srv.AddTool(mcpgo.NewTool("add", mcpgo.WithDescription("Adds two numbers."),
		mcpgo.WithNumber("a", mcpgo.Required()), mcpgo.WithNumber("b", mcpgo.Required()), mcpgo.WithOutputSchema[AddOut]()),
		mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in AddIn) (AddOut, error) {
			return AddOut{Sum: in.A + in.B}, nil
		}))
	srv.AddTool(mcpgo.NewTool("search", mcpgo.WithDescription("Searches the catalogue."),
		mcpgo.WithString("query", mcpgo.Required(), mcpgo.Description("What to look for."), mcpgo.MinLength(1)),
		mcpgo.WithInteger("limit", mcpgo.Description("How many hits at most."), mcpgo.Min(1), mcpgo.Max(50)),
		mcpgo.WithArray("tags", mcpgo.Description("Only hits with these tags."), mcpgo.WithStringItems(), mcpgo.MaxItems(5)),
		mcpgo.WithString("mode", mcpgo.Description("How hard to search."), mcpgo.Enum("fast", "thorough")),
		mcpgo.WithOutputSchema[SearchOut]()),
		mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in SearchIn) (SearchOut, error) {
			out := SearchOut{Query: in.Query}
			titles, scores := typed.Hits(in.Query, in.Limit)
			for i := range titles {
				out.Hits = append(out.Hits, Hit{Title: titles[i], Score: scores[i]})
			}
			return out, nil
		}))
}
