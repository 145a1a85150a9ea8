// Package hello holds what examples/hello's server says, for the same
// server written on other stacks (cmd/hello-go-sdk, cmd/hello-mcp-go),
// whose binary sizes bench/size.sh compares.
package hello

// GreetIn says whom to greet.
type GreetIn struct {
	Name string `json:"name"`
}

// AddIn are two numbers.
type AddIn struct{ A, B float64 }

// Sum is the sum of two numbers, add's structured result.
type Sum struct{ Sum float64 }

// Greeting is greet's answer to name.
func Greeting(name string) string { return "Hello, " + name + "!" }

// Haiku is the haiku prompt's message about topic.
func Haiku(topic string) string { return "A haiku on " + topic }

// Readme is the text of the resource hello://readme.
const Readme = "hello: greet, add, haiku."
