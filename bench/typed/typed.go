// Package typed is what the three typed-tool servers of the comparison
// share: the behaviour of their tools, so each stack's package holds only
// what a user of that stack writes to declare them (see bench/README.md,
// "Tools from Go types").
package typed

import "strconv"

// Greeting is greet's answer.
func Greeting(name string) string { return "Hello, " + name + "!" }

// Hits are search's results for query: up to limit (3 at most, 3 when 0)
// titles and scores.
func Hits(query string, limit int) (titles []string, scores []float64) {
	if limit <= 0 || limit > 3 {
		limit = 3
	}
	for i := range limit {
		titles = append(titles, query+" "+strconv.Itoa(i+1))
		scores = append(scores, 1/float64(i+1))
	}
	return titles, scores
}
