package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// summarize reads the JSON lines of runs (files, or standard input) and
// prints, for every configuration (label, transport, era, concurrency,
// text size), the median of each figure over its repetitions and how many
// repetitions there were.
func summarize(files []string, out io.Writer) error {
	var runs []result
	read := func(r io.Reader) error {
		s := bufio.NewScanner(r)
		s.Buffer(make([]byte, 1<<20), 1<<20)
		for s.Scan() {
			line := strings.TrimSpace(s.Text())
			if !strings.HasPrefix(line, "{") {
				continue
			}
			var res result
			if err := json.Unmarshal([]byte(line), &res); err != nil {
				return err
			}
			runs = append(runs, res)
		}
		return s.Err()
	}
	if len(files) == 0 {
		if err := read(os.Stdin); err != nil {
			return err
		}
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		err = read(fh)
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	type key struct {
		label, transport, era string
		conc, text            int
	}
	groups := map[key][]result{}
	var order []key
	for _, r := range runs {
		k := key{r.Label, r.Transport, r.Era, r.Concurrency, r.TextBytes}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	fmt.Fprintf(out, "%-28s %-5s %-10s %4s %6s %4s %11s %9s %9s %11s %9s\n",
		"label", "tx", "era", "conc", "text", "reps", "calls/s", "p50 µs", "p99 µs", "cpu µs/call", "rss KiB")
	for _, k := range order {
		g := groups[k]
		med := func(f func(result) float64) float64 {
			v := make([]float64, len(g))
			for i, r := range g {
				v[i] = f(r)
			}
			slices.Sort(v)
			return v[len(v)/2]
		}
		fmt.Fprintf(out, "%-28s %-5s %-10s %4d %6d %4d %11.0f %9.1f %9.1f %11.2f %9.0f\n",
			k.label, k.transport, k.era, k.conc, k.text, len(g),
			med(func(r result) float64 { return r.CallsPerSec }),
			med(func(r result) float64 { return r.P50Micros }),
			med(func(r result) float64 { return r.P99Micros }),
			med(func(r result) float64 { return r.ServerCPUMicros }),
			med(func(r result) float64 { return float64(r.ServerPeakRSSKiB) }))
	}
	goals(runs, out)
	againstBase(runs, out)
	return nil
}

// configs lists the configurations (transport, era, concurrency, text) of
// runs in their first order.
func configs(runs []result) []sel {
	var cfgs []sel
	for _, r := range runs {
		c := sel{transport: r.Transport, era: r.Era, conc: r.Concurrency, text: r.TextBytes}
		if !slices.Contains(cfgs, c) {
			cfgs = append(cfgs, c)
		}
	}
	return cfgs
}

// againstBase prints, when runs hold the base build's (mcpgen@base), the
// ratio after/before of each configuration's calls/s and server CPU per
// call: the median of the per-repetition ratios, which ran back to back.
func againstBase(runs []result, out io.Writer) {
	if !slices.ContainsFunc(runs, func(r result) bool { return r.Label == baseLabel }) {
		return
	}
	fmt.Fprintf(out, "\n%-36s %-16s %-16s\n", "mcpgen / mcpgen@base", "calls/s", "cpu µs/call")
	for _, c := range configs(runs) {
		med := func(figure func(result) float64) string {
			a, b := c, c
			a.label, b.label = "mcpgen", baseLabel
			per := ratio{a: a, b: b, figure: figure}.ratios(runs)
			if len(per) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f", per[len(per)/2])
		}
		name := fmt.Sprintf("%s %s %d×%dB", c.transport, c.era, c.conc, c.text)
		fmt.Fprintf(out, "%-36s %-16s %-16s\n", name, med(func(r result) float64 { return r.CallsPerSec }), med(func(r result) float64 { return r.ServerCPUMicros }))
	}
}

// ratio is one row of the goal table: figure(a)/figure(b) per repetition.
type ratio struct {
	name   string
	a, b   sel
	figure func(result) float64
	goal   string
}

// sel selects the runs of one configuration: text is the text size, or
// 0 for the small texts of the goal rows (up to 64 bytes).
type sel struct {
	label, transport, era string
	conc, text            int
}

func (s sel) match(r result) bool {
	text := r.TextBytes == s.text || s.text == 0 && r.TextBytes <= 64
	return r.Label == s.label && r.Transport == s.transport && r.Era == s.era && r.Concurrency == s.conc && text
}

// goals prints the rows of the performance issue's table that runs hold:
// per-repetition ratios (runs of one rep ran back to back) and their median.
func goals(runs []result, out io.Writer) {
	const e25, e26 = "2025-11-25", "2026-07-28"
	tput := func(r result) float64 { return r.CallsPerSec }
	cpu := func(r result) float64 { return r.ServerCPUMicros }
	rss := func(r result) float64 { return float64(r.ServerPeakRSSKiB) }
	rows := []ratio{
		{"stdio 1 in flight, calls/s vs plain (2025)", sel{"mcpgen", "stdio", e25, 1, 0}, sel{"plain", "stdio", e25, 1, 0}, tput, ">= 0.9"},
		{"stdio 1 in flight, calls/s vs plain (2026)", sel{"mcpgen", "stdio", e26, 1, 0}, sel{"plain", "stdio", e26, 1, 0}, tput, ">= 0.9"},
		{"stdio 16 in flight, server CPU/call vs plain (2025)", sel{"mcpgen", "stdio", e25, 16, 0}, sel{"plain", "stdio", e25, 16, 0}, cpu, "<= 1.1"},
		{"stdio 16 in flight, server CPU/call vs plain (2026)", sel{"mcpgen", "stdio", e26, 16, 0}, sel{"plain", "stdio", e26, 16, 0}, cpu, "<= 1.1"},
		{"stdio 16 in flight, 2026 vs 2025 calls/s", sel{"mcpgen", "stdio", e26, 16, 0}, sel{"mcpgen", "stdio", e25, 16, 0}, tput, ">= 0.97"},
		{"HTTP 16 clients, calls/s vs plain (2025 stateful)", sel{"mcpgen", "http", e25, 16, 0}, sel{"plain", "http", e25, 16, 0}, tput, ">= 0.95"},
		{"HTTP 16 clients, calls/s vs plain (2026)", sel{"mcpgen", "http", e26, 16, 0}, sel{"plain", "http", e26, 16, 0}, tput, ">= 0.95"},
		{"stdio 16 in flight, peak RSS vs go-sdk", sel{"mcpgen", "stdio", e25, 16, 0}, sel{"go-sdk", "stdio", e25, 16, 0}, rss, "<= 1.0"},
		{"stdio 16 in flight, peak RSS vs mcp-go", sel{"mcpgen", "stdio", e25, 16, 0}, sel{"mcp-go", "stdio", e25, 16, 0}, rss, "<= 1.0"},
		{"stdio 16 in flight, calls/s vs mcp-go", sel{"mcpgen", "stdio", e25, 16, 0}, sel{"mcp-go", "stdio", e25, 16, 0}, tput, ""},
		{"stdio 16 in flight, calls/s vs go-sdk", sel{"mcpgen", "stdio", e25, 16, 0}, sel{"go-sdk", "stdio", e25, 16, 0}, tput, ""},
		{"HTTP 16 clients, calls/s vs mcp-go (2025)", sel{"mcpgen", "http", e25, 16, 0}, sel{"mcp-go", "http", e25, 16, 0}, tput, ""},
	}
	// With runs of the base build (blackbox.sh BASE=rev: label
	// mcpgen@base, run side by side with mcpgen), each row has its before
	// column too.
	base := slices.ContainsFunc(runs, func(r result) bool { return r.Label == baseLabel })
	if base {
		fmt.Fprintf(out, "\n%-52s %-8s %-8s %-7s %s\n", "goal row", "before", "after", "goal", "per rep (after)")
	} else {
		fmt.Fprintf(out, "\n%-52s %-8s %-7s %s\n", "goal row", "median", "goal", "per rep")
	}
	for _, row := range rows {
		per := row.ratios(runs)
		if len(per) == 0 {
			continue
		}
		reps := make([]string, len(per))
		for i, v := range per {
			reps[i] = fmt.Sprintf("%.2f", v)
		}
		if !base {
			fmt.Fprintf(out, "%-52s %-8.2f %-7s %s\n", row.name, per[len(per)/2], row.goal, strings.Join(reps, " "))
			continue
		}
		before := "-"
		if bp := row.onBase().ratios(runs); len(bp) > 0 {
			before = fmt.Sprintf("%.2f", bp[len(bp)/2])
		}
		fmt.Fprintf(out, "%-52s %-8s %-8.2f %-7s %s\n", row.name, before, per[len(per)/2], row.goal, strings.Join(reps, " "))
	}
}

// baseLabel is the label of the base build's runs (blackbox.sh BASE=rev).
const baseLabel = "mcpgen@base"

// onBase is the row with the base build in mcpgen's place.
func (row ratio) onBase() ratio {
	if row.a.label == "mcpgen" {
		row.a.label = baseLabel
	}
	if row.b.label == "mcpgen" {
		row.b.label = baseLabel
	}
	return row
}

// ratios are the row's figure(a)/figure(b) of each repetition that has
// both, sorted.
func (row ratio) ratios(runs []result) []float64 {
	a, b := map[int]float64{}, map[int]float64{}
	for _, r := range runs {
		if row.a.match(r) {
			a[r.Rep] = row.figure(r)
		}
		if row.b.match(r) {
			b[r.Rep] = row.figure(r)
		}
	}
	var per []float64
	for rep, x := range a {
		if y, ok := b[rep]; ok && y > 0 {
			per = append(per, x/y)
		}
	}
	slices.Sort(per)
	return per
}
