package coord

import (
	"strings"
	"testing"
)

// TestStartAfterEndShowsTimes is issue 26 point 13: E1003 for a start
// not before the end keeps Oozie's text and shows both times, resolved,
// so that a mistake made through ${...} parameters is visible.
func TestStartAfterEndShowsTimes(t *testing.T) {
	tests := []struct {
		name, attrs string
		props       map[string]string
		want        string
	}{
		{"literal", `name="c" frequency="60" start="2009-01-03T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"`, nil,
			"start [2009-01-03T00:00Z], end [2009-01-02T00:00Z]"},
		{"equal", `name="c" frequency="60" start="2009-01-02T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"`, nil,
			"start [2009-01-02T00:00Z], end [2009-01-02T00:00Z]"},
		{"parameters", `name="c" frequency="60" start="${start}" end="${end}" timezone="UTC"`,
			map[string]string{"start": "2026-03-01T10:00Z", "end": "2026-02-01T10:00Z"},
			"start [2026-03-01T10:00Z], end [2026-02-01T10:00Z]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := submit(t, app("0.2", tt.attrs, ""), tt.props, nil)
			if ErrorCode(err) != CodeInvalidAttrs {
				t.Fatalf("got %v, want E1003", err)
			}
			msg := err.Error()
			for _, want := range []string{"Coordinator Start Time must be earlier than End Time.", tt.want} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}
