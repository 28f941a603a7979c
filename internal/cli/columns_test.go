package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/rest"
)

// TestColumnsNeverRunTogether is issue 26 point 14: Oozie's widths, but a
// value as wide as its column or wider is followed by a space.
func TestColumnsNeverRunTogether(t *testing.T) {
	tests := []struct {
		name string
		cols columns
		vals []string
		want string
	}{
		{"short values padded", columns{5, 4}, []string{"ab", "c"}, "ab   c   \n"},
		{"exact width gets a space", columns{3, 4}, []string{"abc", "d"}, "abc d   \n"},
		{"wider value gets a space", columns{3, 4}, []string{"abcdef", "d"}, "abcdef d   \n"},
		{"last column is only padded", columns{3, 2}, []string{"a", "longest"}, "a  longest\n"},
		{"runes, not bytes", columns{4, 1}, []string{"ünï", "x"}, "ünï x\n"},
		{"more values than widths", columns{2}, []string{"a", "b", "c"}, "a b c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tt.cols.row(&b, tt.vals...)
			if b.String() != tt.want {
				t.Errorf("row = %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// TestJobsListLongValues: every column of `gozie jobs` stays apart with
// values longer than Oozie's widths (long ids, names, users).
func TestJobsListLongValues(t *testing.T) {
	when := rest.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	long := strings.Repeat("x", 50)
	wf := &client.WorkflowJob{ID: "0000001-260101000000000-oozie-a-very-long-system-id-W", AppName: rest.Str(long),
		Status: "SUCCEEDED", User: rest.Str(long), Group: rest.Str(long), StartTime: when, EndTime: when}
	var b bytes.Buffer
	printWorkflowJobs(&b, []*client.WorkflowJob{wf}, dates{loc: time.UTC})
	line := strings.Split(b.String(), "\n")[2]
	fields := strings.Fields(line)
	want := []string{string(wf.ID), long, "SUCCEEDED", long, long, "2026-01-01", "00:00", "UTC", "2026-01-01", "00:00", "UTC"}
	if strings.Join(fields, "|") != strings.Join(want, "|") {
		t.Errorf("row %q splits into %q, want %q", line, fields, want)
	}
}
