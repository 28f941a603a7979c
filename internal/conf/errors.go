package conf

import "github.com/gozie/gozie/internal/vocab"

// ParseError reports a problem in a configuration file at a line, in the
// "file:line: message" form editors and users can jump to. It is gozie's
// one positioned error type, vocab.Error, without a code: Source is the
// file name or other origin as given to the parser ("<input>" when empty),
// Line is 1-based (0 when the problem has no single line), Err the
// underlying error (I/O, XML syntax), if any, which errors.Is/As see.
type ParseError = vocab.Error
