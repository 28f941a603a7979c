package schedule

import "testing"

// Issue 13 point 8: Oozie's datetime parser (SimpleDateFormat, non-lenient)
// takes one-digit months, days, hours and minutes.
func TestParseSingleDigitFields(t *testing.T) {
	gmt, err := ParseProcessingZone("GMT+0530")
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		zone ProcessingZone
		in   string
		want string // UTC, "" for an error
	}{
		{UTC, "2009-01-01T7:00Z", "2009-01-01T07:00Z"},
		{UTC, "2009-1-2T7:5Z", "2009-01-02T07:05Z"},
		{UTC, "2009-01-01T07:00Z", "2009-01-01T07:00Z"},
		{gmt, "2009-01-01T7:00+0530", "2009-01-01T01:30Z"},
		{UTC, "2009-01-01T:00Z", ""},
		{UTC, "2009-01-01T7Z", ""},
		{UTC, "09-01-01T07:00Z", ""},
		{UTC, "2009-01-01T7:00", ""},
		{UTC, "2009-13-01T7:00Z", ""},
	}
	for _, r := range rows {
		got, err := r.zone.Parse(r.in)
		switch {
		case r.want == "" && err == nil:
			t.Errorf("Parse(%q) = %s, want an error", r.in, FormatTime(got))
		case r.want != "" && err != nil:
			t.Errorf("Parse(%q): %v", r.in, err)
		case r.want != "" && FormatTime(got) != r.want:
			t.Errorf("Parse(%q) = %s, want %s", r.in, FormatTime(got), r.want)
		}
	}
}
