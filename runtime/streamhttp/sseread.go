package streamhttp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// sseEvent is one dispatched SSE event.
type sseEvent struct {
	event    string // its type ("" for the default, message)
	id       string
	hasID    bool
	data     []byte
	retry    time.Duration
	hasRetry bool
}

// sseReader parses an event stream (WHATWG HTML, "Server-sent events").
type sseReader struct {
	r   *bufio.Reader
	max int // longest line accepted
	buf []byte
}

var errLineTooLong = errors.New("streamhttp: SSE line too long")

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10), max: max}
}

// line returns the next line without its terminator (LF or CRLF).
func (s *sseReader) line() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		s.buf = append(s.buf, chunk...)
		if len(s.buf) > s.max {
			return nil, errLineTooLong
		}
		if err == nil {
			break
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(s.buf) > 0 {
			// A last line without terminator ends no event: dropped.
			return nil, io.EOF
		}
		return nil, err
	}
	b := s.buf[:len(s.buf)-1]
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

// next returns the next event that has an id, a retry or data (a priming
// event has no data).
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []byte
	seenData, seen := false, false
	for {
		line, err := s.line()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !seen {
				continue
			}
			if seenData {
				ev.data = data
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte{' '})
		}
		switch string(name) {
		case "data":
			if seenData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			seenData, seen = true, true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.id, ev.hasID, seen = string(value), true, true
			}
		case "retry":
			if n, err := strconv.ParseUint(string(value), 10, 32); err == nil {
				ev.retry, ev.hasRetry, seen = time.Duration(n)*time.Millisecond, true, true
			}
		case "event":
			ev.event, seen = string(value), true
		}
	}
}
