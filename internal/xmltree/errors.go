package xmltree

import (
	"errors"
	"fmt"

	"github.com/gozie/gozie/internal/vocab"
)

// Kind classifies a DocError, so that each reader can word the failures its
// users and tests know while deciding them in one place.
type Kind int

// The kinds of DocError.
const (
	Syntax      Kind = iota + 1 // not well-formed XML (the decoder's message)
	Encoding                    // an encoding the policy does not read
	DTD                         // a DTD or other markup declaration
	TooDeep                     // nesting beyond the depth bound
	TooLarge                    // a document beyond the size bound
	Empty                       // no root element
	ExtraRoot                   // an element after the root element
	TextOutside                 // character data outside the root element
	Invalid                     // the content model or attributes do not match
)

// DocError is a failure to read or validate a document, located at the element
// or the point of input where it was found.
type DocError struct {
	Kind Kind
	// Msg is the message, Xerces-worded for Invalid, without the position.
	Msg string
	// Line and Col are 1-based; 0 when unknown.
	Line, Col int
	// Name is the local name of the element concerned (ExtraRoot).
	Name string
	// Limit is the bound exceeded (TooDeep, TooLarge).
	Limit int
	// Err is the decoder's error, when there is one.
	Err error
}

// Error renders the message with its position.
func (e *DocError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s (line %d, column %d)", e.Msg, e.Line, e.Col)
	}
	return e.Msg
}

// Unwrap returns the decoder's error, if any.
func (e *DocError) Unwrap() error { return e.Err }

// invalid builds an Invalid error at element e.
func invalid(line, col int, format string, args ...any) *DocError {
	return &DocError{Kind: Invalid, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// ParseSchema reads data like Parse and reports a refusal as the E0701
// error the workflow and coordinator readers give (vocab.SchemaError at
// the refusal's position): Oozie's SAX parser raises that error before
// anything else looks at the document.
func ParseSchema(data []byte) (*Element, error) {
	root, err := Parse(data)
	if err != nil {
		return nil, SchemaError(err)
	}
	return root, nil
}

// SchemaError converts a DocError in err's chain (of reading or of
// validation) into the E0701 error at the same position; other errors
// are returned as they are.
func SchemaError(err error) error {
	var de *DocError
	if errors.As(err, &de) {
		return vocab.SchemaError(de.Line, de.Col, "%s", de.Msg)
	}
	return err
}
