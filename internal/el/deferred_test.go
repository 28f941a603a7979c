package el

import (
	"errors"
	"strings"
	"testing"
)

// TestDeferredSyntax: #{...} is evaluated like ${...}, as the Jasper EL
// behind Oozie's evaluator does; "\#{" is a literal "#{", and one text
// cannot mix the two kinds (issue 13, point 16).
func TestDeferredSyntax(t *testing.T) {
	ev := testEvaluator()
	tests := []struct {
		text string
		want string // result, or the error's substring when err is set
		err  bool
	}{
		{"#{str}", "abc", false},
		{"#{n + 1}", "4", false},
		{"x-#{str}-#{wf:id()}-y", "x-abc-wf-1-y", false},
		{"#{concat(str, '}')}", "abc}", false},
		{`\#{str}`, "#{str}", false},
		{`a\#{str}#{n}`, "a#{str}3", false},
		{"# {str}", "# {str}", false},
		{"#str #", "#str #", false},
		{"${str}#{n}", "cannot mix ${...} and #{...}", true},
		{"#{n}${str}", "cannot mix", true},
		{"#{", `missing "}"`, true},
		{"#{missing}", "variable [missing] cannot be resolved", true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := ev.EvalString(tt.text)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("EvalString(%q) = %q, %v; want an error containing %q", tt.text, got, err, tt.want)
				}
				var e *Error
				if !errors.As(err, &e) || e.Code != "E1004" {
					t.Errorf("error %#v, want an *Error with code E1004", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("EvalString(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
			}
		})
	}
	// A parsed template prints back to text that parses to the same nodes.
	for _, text := range []string{"a#{n}b", `\#{x}#{n}`, "#{'#{'}"} {
		tpl, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, n := range tpl.Nodes {
			b.WriteString(n.String())
		}
		again, err := Parse(b.String())
		if err != nil || render(again) != render(tpl) {
			t.Errorf("%q printed as %q: %v", text, b.String(), err)
		}
	}
}
