package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// window records the latencies of the calls sent and answered within the
// timed window [start, stop).
type window struct {
	start, stop time.Time
	latencies   []time.Duration
	errors      int
	firstError  string
}

// add records one answered call.
func (w *window) add(sent, now time.Time, err error) {
	if sent.Before(w.start) || !now.Before(w.stop) {
		return // warm-up, or past the window
	}
	if err != nil {
		if w.errors == 0 {
			w.firstError = err.Error()
		}
		w.errors++
		return
	}
	w.latencies = append(w.latencies, now.Sub(sent))
}

// merge adds the records of o (another client's) to w.
func (w *window) merge(o *window) {
	w.latencies = append(w.latencies, o.latencies...)
	if w.errors == 0 {
		w.firstError = o.firstError
	}
	w.errors += o.errors
}

// result fills the throughput and latency figures of r.
func (w *window) result(r *result) {
	slices.Sort(w.latencies)
	r.Calls = len(w.latencies)
	r.Errors = w.errors
	r.FirstError = w.firstError
	r.Seconds = w.stop.Sub(w.start).Seconds()
	if r.Seconds > 0 {
		r.CallsPerSec = float64(r.Calls) / r.Seconds
	}
	r.P50Micros = percentile(w.latencies, 0.50)
	r.P99Micros = percentile(w.latencies, 0.99)
}

// percentile returns the p-quantile of sorted latencies in microseconds.
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return float64(sorted[i].Nanoseconds()) / 1e3
}

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on Linux).
const clockTick = 10 * time.Millisecond

// cpuTime returns the user+system CPU time process pid has used, all its
// threads included.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields count after ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	// f[0] is field 3 (state): utime is field 14, stime field 15.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime/stime", pid)
	}
	return time.Duration(ut+st) * clockTick, nil
}

// peakRSS returns process pid's peak resident set size (VmHWM) in KiB.
func peakRSS(pid int) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}

// watchServer reads process pid's CPU time at the start and the stop of
// the window and its peak RSS at the stop, and returns a function that
// waits for those readings and fills them into r (nothing without a pid).
func watchServer(pid int, start, stop time.Time) func(r *result) {
	if pid == 0 {
		return func(*result) {}
	}
	type reading struct {
		cpu time.Duration
		rss int
	}
	done := make(chan reading, 1)
	go func() {
		time.Sleep(time.Until(start))
		cpu0, _ := cpuTime(pid)
		time.Sleep(time.Until(stop))
		cpu1, _ := cpuTime(pid)
		rss, _ := peakRSS(pid)
		done <- reading{cpu1 - cpu0, rss}
	}()
	return func(r *result) {
		got := <-done
		if r.Calls > 0 {
			r.ServerCPUMicros = float64(got.cpu.Nanoseconds()) / 1e3 / float64(r.Calls)
		}
		r.ServerPeakRSSKiB = got.rss
	}
}
