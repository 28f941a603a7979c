package vocab

import (
	"fmt"
	"strings"
)

// Location returns " (line L, column C)" for the refusal in err's chain
// (AsCoded) that knows its place in the document and whose message does
// not already say it, "" otherwise. Graph errors (E0708, E0707, ...) keep
// Oozie's exact wording in Msg and their place in the fields; every face
// that shows a refusal to a person (validate, run, the REST API) appends
// this, so that the same mistake is located the same way everywhere.
func Location(err error) string {
	e := AsCoded(err)
	if e == nil || e.Line <= 0 || strings.Contains(e.Msg, "(line ") {
		return ""
	}
	return fmt.Sprintf(" (line %d, column %d)", e.Line, e.Column)
}
