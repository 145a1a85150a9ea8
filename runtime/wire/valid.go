package wire

import "strconv"

// Valid reports whether b is one valid JSON value (surrounding whitespace
// allowed), validated as Decoder.Skip validates it, within DefaultMaxDepth.
func Valid(b []byte) bool { return validValue(b) == nil }

// CheckJSON is Valid's reason: nil when b is one valid JSON value, else
// what is wrong and where (a *SyntaxError).
func CheckJSON(b []byte) error { return validValue(b) }

// validValue returns why b is not one valid JSON value, or nil.
func validValue(b []byte) error {
	d := Decoder{buf: b, maxDepth: DefaultMaxDepth}
	if err := d.Skip(); err != nil {
		return err
	}
	return d.End()
}

// pointerAt returns the JSON Pointer of the value that would be written
// next after prefix, the output of an Encoder so far (comma: a separator
// is owed before it): the keys and indexes of the containers still open,
// and the member whose name was just written. It runs only when a value
// fails, so it may rescan.
func pointerAt(prefix []byte, comma bool) string {
	type frame struct {
		object bool
		key    string
		index  int
	}
	var stack []frame
	for i := 0; i < len(prefix); {
		switch c := prefix[i]; c {
		case '{', '[':
			stack = append(stack, frame{object: c == '{'})
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case ',':
			if n := len(stack); n > 0 && !stack[n-1].object {
				stack[n-1].index++
			}
			i++
		case '"':
			end, escaped, err := scanString(prefix, i+1)
			if err != nil {
				return pointerOf(nil)
			}
			// A string right after '{' or ',' in an object is a key.
			if n := len(stack); n > 0 && stack[n-1].object {
				j := i - 1
				for j >= 0 && isSpace(prefix[j]) {
					j--
				}
				if j >= 0 && (prefix[j] == '{' || prefix[j] == ',') {
					s := prefix[i+1 : end]
					if escaped {
						s = unescape(nil, s)
					}
					stack[n-1].key = string(s)
				}
			}
			i = end + 1
		default:
			i++
		}
	}
	if n := len(stack); comma && n > 0 && !stack[n-1].object {
		stack[n-1].index++
	}
	var toks []string
	for _, f := range stack {
		if f.object {
			toks = append(toks, f.key)
		} else {
			toks = append(toks, strconv.Itoa(f.index))
		}
	}
	return pointerOf(toks)
}

func pointerOf(toks []string) string {
	p := ""
	for _, t := range toks {
		p += "/" + escapeToken(t)
	}
	return p
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
