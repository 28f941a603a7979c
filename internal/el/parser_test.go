package el

import (
	"errors"
	"strings"
	"testing"
)

// render prints a template's nodes: literal text quoted, segments as their
// fully parenthesized expression.
func render(t *Template) string {
	var parts []string
	for _, n := range t.Nodes {
		switch n := n.(type) {
		case *Text:
			parts = append(parts, `"`+n.Text+`"`)
		case *Segment:
			parts = append(parts, n.X.String())
		}
	}
	return strings.Join(parts, " ")
}

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		text    string
		want    string
		literal bool
	}{
		{"", "", true},
		{"plain", `"plain"`, true},
		{"${a}", "a", false},
		{"x${a}y${b}z", `"x" a "y" b "z"`, false},
		{`\${x}`, `"${x}"`, true},
		{`a\${x}${y}`, `"a${x}" y`, false},
		{`\\${x}`, `"\\" x`, false},
		{`\\\${x}`, `"\\${x}"`, true},
		{`\x\`, `"\x\"`, true},
		{"$ {x}", `"$ {x}"`, true},
		{"$x $", `"$x $"`, true},
		{"a}b{", `"a}b{"`, true},
		{"${'}'}", `'}'`, false},
		{`${"a}b"}!`, `'a}b' "!"`, false},
		{"${a}${b}", "a b", false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			tmpl, err := Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(tmpl); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if tmpl.IsLiteral() != tt.literal {
				t.Errorf("IsLiteral = %v", tmpl.IsLiteral())
			}
			if tmpl.String() != tt.text {
				t.Errorf("String() = %q", tmpl.String())
			}
		})
	}
}

func TestParsePrecedence(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"1 + 2 * 3", "(1 + (2 * 3))"},
		{"1 - 2 - 3", "((1 - 2) - 3)"},
		{"a / b div c mod d % e", "((((a / b) / c) % d) % e)"},
		{"a + b < c == d", "(((a + b) < c) == d)"},
		{"a || b && c", "(a || (b && c))"},
		{"a or b and not c", "(a || (b && (!c)))"},
		{"a == b != c", "((a == b) != c)"},
		{"a lt b gt c le d ge e", "((((a < b) > c) <= d) >= e)"},
		{"-a * b", "((-a) * b)"},
		{"- -a", "(-(-a))"},
		{"!empty a", "(!(empty a))"},
		{"empty a.b", "(empty a['b'])"},
		{"a ? b : c ? d : e", "(a ? b : (c ? d : e))"},
		{"a ? b ? c : d : e", "(a ? (b ? c : d) : e)"},
		{"a || b ? c : d", "((a || b) ? c : d)"},
		{"(1 + 2) * 3", "((1 + 2) * 3)"},
		{"m.b", "m['b']"},
		{"m['b'].c[0]", "m['b']['c'][0]"},
		{"hadoop:counters('mr')['RECORDS']['MAP_IN']", "hadoop:counters('mr')['RECORDS']['MAP_IN']"},
		{"hadoop:counters('mr')[RECORDS][MAP_IN]", "hadoop:counters('mr')[RECORDS][MAP_IN]"},
		{"wf:id()", "wf:id()"},
		{"wf : conf ( 'a' , 1 )", "wf:conf('a', 1)"},
		{"concat(a, f(b))", "concat(a, f(b))"},
		{"x ? wf:id() : 2", "(x ? wf:id() : 2)"},
		{"a ? b : c", "(a ? b : c)"},
		{"a ? b:c(1) : d", "(a ? b:c(1) : d)"},
		{"1.5e3 + .5", "(1500.0 + 0.5)"},
		{"'it\\'s'", `'it\'s'`},
		{"null == true", "(null == true)"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			tmpl, err := Parse("${" + tt.expr + "}")
			if err != nil {
				t.Fatal(err)
			}
			if got := render(tmpl); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		text   string
		column int
		substr string
	}{
		{"${", 1, "missing \"}\""},
		{"${a", 1, "missing \"}\""},
		{"ab${a + }", 9, `unexpected "}"`},
		{"${}", 3, `unexpected "}"`},
		{"${{wf:user()}", 3, `unexpected character '{'`},
		{"${a b}", 5, `unexpected "b"`},
		{"${f(1,}", 7, `unexpected "}"`},
		{"${f(1 2)}", 7, `expected "," or ")"`},
		{"${(1}", 5, `expected ")", found "}"`},
		{"${a ? b}", 8, `expected ":"`},
		{"x${(1", 2, `missing "}"`},
		{"${m.}", 5, `expected "identifier"`},
		{"${m[1}", 6, `expected "]"`},
		{"${'x}", 3, "unterminated string"},
		{"${a instanceof b}", 5, `unexpected "instanceof"`},
		{"${x = 1}", 5, "unexpected character"},
		{"${1" + strings.Repeat("+1", maxLinks+1) + "}", 0, "expression too long"},
		{"${" + strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500) + "}", 0, "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, err := Parse(tt.text)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if e.Code != CodeEval || !e.Syntax || e.Expr != tt.text {
				t.Errorf("got %+v", e)
			}
			if tt.column != 0 && e.Column != tt.column {
				t.Errorf("column %d, want %d (%s)", e.Column, tt.column, e.Msg)
			}
			if !strings.Contains(e.Msg, tt.substr) {
				t.Errorf("message %q does not contain %q", e.Msg, tt.substr)
			}
			if !strings.HasPrefix(err.Error(), "E1004: Expression language evaluation error, ") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestInspect(t *testing.T) {
	tmpl, err := Parse("${wf:conf(a) + concat(b, x.y)} and ${KB}")
	if err != nil {
		t.Fatal(err)
	}
	var calls, idents []string
	for _, n := range tmpl.Nodes {
		Inspect(n, func(n Node) bool {
			switch n := n.(type) {
			case *CallExpr:
				calls = append(calls, n.Prefix+":"+n.Name)
			case *Ident:
				idents = append(idents, n.Name)
			}
			return true
		})
	}
	if got := strings.Join(calls, ","); got != "wf:conf,:concat" {
		t.Errorf("calls %s", got)
	}
	if got := strings.Join(idents, ","); got != "a,b,x,KB" {
		t.Errorf("idents %s", got)
	}
}

func TestRegistryCheck(t *testing.T) {
	tests := []struct {
		text   string
		column int // 0: valid
		substr string
	}{
		{"${concat(a, trim(b))} ${KB}", 0, ""},
		{"plain", 0, ""},
		{"${false ? wf:nope() : 1}", 11, "function [wf:nope] not found"},
		{"x ${trim(1, 2)}", 5, "function [trim] takes 1 arguments, 2 given"},
	}
	for _, tt := range tests {
		tmpl, err := Parse(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		err = Basic().Check(tmpl)
		if tt.column == 0 {
			if err != nil {
				t.Errorf("Check(%q) = %v", tt.text, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Column != tt.column || !strings.Contains(e.Msg, tt.substr) {
			t.Errorf("Check(%q) = %v, want %q at column %d", tt.text, err, tt.substr, tt.column)
		}
	}
}
