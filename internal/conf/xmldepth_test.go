package conf

import (
	"strings"
	"testing"
	"time"
)

// TestParseXMLDepth reproduces the request body a million elements deep that
// took seconds to parse: every way of nesting (configuration in
// configuration, inside a property, inside a value, inside an ignored
// element) fails at MaxXMLDepth, at once, while real nesting parses.
func TestParseXMLDepth(t *testing.T) {
	nest := func(open, close string, n int, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"ordinary", "<configuration><property><name>a</name><value>b</value></property></configuration>", true},
		{"nested configurations at the bound", nest("<configuration>", "</configuration>", MaxXMLDepth, ""), true},
		{"nested configurations past the bound", nest("<configuration>", "</configuration>", MaxXMLDepth+1, ""), false},
		{"a million configurations", nest("<configuration>", "</configuration>", 1_000_000, ""), false},
		{"deep value", "<configuration><property><name>a</name><value>" + nest("<b>", "</b>", 1_000_000, "x") + "</value></property></configuration>", false},
		{"deep ignored element", "<configuration>" + nest("<x>", "</x>", 1_000_000, "") + "</configuration>", false},
		{"deep property child", "<configuration><property><name>a</name>" + nest("<x>", "</x>", 100, "") + "</property></configuration>", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := ParseXML(strings.NewReader(tc.doc), "body")
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if !tc.ok && !strings.Contains(err.Error(), "body:1: elements nested more than 64 deep") {
				t.Errorf("err = %q", err)
			}
			if d := time.Since(start); d > 2*time.Second { // safety bound; the bound makes it microseconds
				t.Errorf("took %v", d)
			}
		})
	}
}
