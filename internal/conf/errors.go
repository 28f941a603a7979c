package conf

import "strconv"

// ParseError reports a problem in a configuration file at a line, in the
// "file:line: message" form editors and users can jump to.
type ParseError struct {
	Source string // file name or other origin, as given to the parser
	Line   int    // 1-based; 0 when the problem has no single line
	Msg    string
	Err    error // underlying error (I/O, XML syntax), if any
}

// Error formats e as "source:line: msg", leaving out the parts that are
// unknown.
func (e *ParseError) Error() string {
	s := e.Source
	if s == "" {
		s = "<input>"
	}
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	return s + ": " + e.Msg
}

// Unwrap returns the underlying error so errors.Is and errors.As see it.
func (e *ParseError) Unwrap() error { return e.Err }
