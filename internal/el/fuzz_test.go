package el

import (
	"errors"
	"testing"
	"time"
)

var fuzzSeeds = []string{
	"", "plain", "${a}", "x${a}y", `\${x}`, `\\${x}`, "$ {x}", "${", "${'}'}",
	"${1 + 2 * 3 - 4 / 5 % 6}", "${a ? b : c}", "${a ? b:c(1) : d}",
	"${wf:id()}", "${concat('a', null)}", "${m.b['c'][0]}", "${empty m}",
	"${-'1.5' + '2e3'}", "${!true && false || not x}", "${'a\\'b' eq \"c\\\"d\"}",
	"${hadoop:counters('mr')[RECORDS][MAP_IN]}", "${9223372036854775807 + 1}",
	"${5 % 0}", "${1 / 0}", "${replaceAll('abc', '(b)', '$1$1')}", "${appendAll('a|b','X','|')}",
	"${((((1))))}", "${a instanceof b}", "${é}", "${1e400}", "${.5e-3}",
}

// FuzzParse checks that the parser never panics and that a successful parse
// prints back (String) to something that parses again.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tmpl, err := Parse(text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code == "" || e.Column < 0 || e.Column > len(text)+1 {
				t.Fatalf("bad error %#v for %q", err, text)
			}
			return
		}
		if tmpl.String() != text {
			t.Fatalf("String() = %q, want %q", tmpl.String(), text)
		}
		for _, n := range tmpl.Nodes {
			if s, ok := n.(*Segment); ok {
				if _, err := Parse(s.String()); err != nil {
					t.Fatalf("re-parse of %q (from %q) failed: %v", s.String(), text, err)
				}
			}
		}
	})
}

// FuzzEval evaluates arbitrary text against a populated evaluator: errors
// are fine, panics are not.
func FuzzEval(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	ev := testEvaluator()
	ev.Now = func() time.Time { return time.Unix(0, 0) }
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ev.Eval(text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		_ = ToString(v)
		_, _ = ev.EvalBool(text)
	})
}
