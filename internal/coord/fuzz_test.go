package coord

import (
	"testing"
	"time"
)

// FuzzFormatJava: any SimpleDateFormat pattern formats or fails cleanly.
func FuzzFormatJava(f *testing.F) {
	for _, p := range []string{"yyyyMMdd_HHmmss", "'quoted''s' EEEE MMMM", "x", "'", "yy-Y-w-W-D-F-u-a-k-K-h-S-z-zzzz-Z-X-XX-XXX-XXXX"} {
		f.Add(p)
	}
	t0 := time.Date(2009, 9, 8, 23, 59, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, p string) {
		_, _ = FormatJava(t0, p)
	})
}
