package el

import (
	"strings"
	"testing"
)

// lexAll scans src as the inside of a segment and renders each token as
// kind or kind:value, with its offset.
func lexAll(src string) ([]string, []int, error) {
	l := &lexer{src: src}
	var out []string
	var offs []int
	for {
		tok, err := l.next()
		if err != nil {
			return out, offs, err
		}
		if tok.kind == tEOF {
			return out, offs, nil
		}
		s := tok.kind.String()
		switch tok.kind {
		case tIdent, tString, tInt, tFloat:
			s += ":" + tok.text
		}
		out = append(out, s)
		offs = append(offs, tok.off)
	}
}

func TestLexer(t *testing.T) {
	tests := []struct {
		src  string
		want string // tokens joined by spaces
		offs []int  // offsets, when checked
	}{
		{"a", "identifier:a", []int{0}},
		{"  wf:id()", "identifier:wf : identifier:id ( )", []int{2, 4, 5, 7, 8}},
		{"1 1.5 .5 1e3 1.5E-2 2.", "integer:1 number:1.5 number:.5 number:1e3 number:1.5E-2 number:2.", nil},
		{`'a' "b" 'it\'s' "q\"" 'b\\s' '}'`, `string:a string:b string:it's string:q" string:b\s string:}`, nil},
		{"== != <= >= && || < > ! + - * / %", "== != <= >= && || < > ! + - * / %", nil},
		{"eq ne lt gt le ge and or not div mod empty", "== != < > <= >= && || ! / % empty", nil},
		{"true false null instanceof", "true false null instanceof", nil},
		{"m.b[0] ? x : y, z}", "identifier:m . identifier:b [ integer:0 ] ? identifier:x : identifier:y , identifier:z }", nil},
		{"$a _b c9 é", "identifier:$a identifier:_b identifier:c9 identifier:é", nil},
		{"1e", "integer:1 identifier:e", nil}, // an exponent needs digits
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			toks, offs, err := lexAll(tt.src)
			if err != nil && !strings.HasSuffix(tt.src, "1e") {
				t.Fatalf("error: %v", err)
			}
			if tt.src == "1e" {
				if err == nil {
					t.Fatalf("want malformed number error, got %v", toks)
				}
				return
			}
			if got := strings.Join(toks, " "); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if tt.offs != nil {
				for i, o := range tt.offs {
					if i < len(offs) && offs[i] != o {
						t.Errorf("token %d at %d, want %d", i, offs[i], o)
					}
				}
			}
		})
	}
}

func TestLexerErrors(t *testing.T) {
	tests := []struct {
		src    string
		off    int
		substr string
	}{
		{"'abc", 0, "unterminated string"},
		{`x 'a\nb'`, 4, "invalid escape"},
		{"a # b", 2, "unexpected character"},
		{"a = b", 2, "unexpected character"},
		{"a & b", 2, "unexpected character"},
		{"99999999999999999999", 0, "out of range"},
		{"12ab", 0, "malformed number"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, _, err := lexAll(tt.src)
			se, ok := err.(*syntaxError)
			if !ok {
				t.Fatalf("got %v, want a syntax error", err)
			}
			if se.off != tt.off || !strings.Contains(se.msg, tt.substr) {
				t.Errorf("got %q at %d, want %q at %d", se.msg, se.off, tt.substr, tt.off)
			}
		})
	}
}
