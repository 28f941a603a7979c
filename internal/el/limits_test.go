package el

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestStringLimits: EL cannot build strings past MaxStringLen, however few
// bytes of definition ask for it: replaceAll with an empty pattern,
// appendAll, concat of large values, and text with many segments of one
// large variable all fail with E1004, fast, naming the function. Results
// at the limit and ordinary uses still work.
func TestStringLimits(t *testing.T) {
	half := strings.Repeat("h", MaxStringLen/2)
	vars := MapVars{
		"half":  half,
		"big":   strings.Repeat("b", 2000),
		"src":   strings.Repeat("s", 1000),
		"huge":  strings.Repeat("u", MaxStringLen+1),
		"small": "a,b,c",
	}
	ev := &Evaluator{Funcs: Basic(), Vars: vars}
	tests := []struct {
		name, expr string
		wantLen    int    // length of the result when it must succeed
		tooLong    string // the function named when it must fail
	}{
		{"concat at the limit", "${concat(half, half)}", MaxStringLen, ""},
		{"concat over the limit", "${concat(half, concat(half, 'x'))}", 0, "concat"},
		{"replaceAll empty pattern", "${replaceAll(src, '', big)}", 0, "replaceAll"},
		{"replaceAll ordinary", "${replaceAll(small, ',', '--')}", 7, ""},
		{"replaceAll huge input", "${replaceAll(huge, 'x', 'y')}", 0, "replaceAll"},
		{"appendAll", "${appendAll(src, big, '')}", 0, "appendAll"},
		{"appendAll ordinary", "${appendAll(small, '/x', ',')}", 11, ""},
		{"many segments", strings.Repeat("${half}", 3), 0, "text"},
		{"two segments at the limit", "${half}${half}", MaxStringLen, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			got, err := ev.EvalString(tc.expr)
			if d := time.Since(start); d > 5*time.Second { // safety bound only
				t.Errorf("took %v", d)
			}
			if tc.tooLong == "" {
				if err != nil || len(got) != tc.wantLen {
					t.Fatalf("got %d bytes, %v; want %d bytes", len(got), err, tc.wantLen)
				}
				return
			}
			var tl *TooLongError
			var ee *Error
			if !errors.As(err, &tl) || tl.What != tc.tooLong || !errors.As(err, &ee) || ee.Code != CodeEval {
				t.Fatalf("err = %v, want E1004 too long from %s", err, tc.tooLong)
			}
		})
	}
}
