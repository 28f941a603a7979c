package coord

import (
	"testing"
	"time"
)

func TestFormatJava(t *testing.T) {
	la, _ := time.LoadLocation("America/Los_Angeles")
	t0 := time.Date(2009, 9, 8, 23, 59, 7, 45e6, time.UTC)
	tests := []struct {
		tm      time.Time
		pattern string
		want    string
	}{
		{t0, "yyyy", "2009"},
		{t0, "yyyyMMdd_HHmmss", "20090908_235907"},
		{t0, "yy", "09"},
		{t0, "y", "2009"},
		{t0, "yyyyy", "02009"},
		{t0, "M MM MMM MMMM", "9 09 Sep September"},
		{t0, "d dd D DDDD F", "8 08 251 0251 2"},
		{t0, "E EEE EEEE u", "Tue Tue Tuesday 2"},
		{t0, "a h hh K k H", "PM 11 11 11 23 23"},
		{time.Date(2009, 9, 8, 0, 5, 0, 0, time.UTC), "a h K k H", "AM 12 0 24 0"},
		{t0, "m mm s ss S SSS", "59 59 7 07 45 045"},
		{t0, "w W", "37 2"},
		{time.Date(2008, 12, 30, 0, 0, 0, 0, time.UTC), "w Y yyyy", "1 2009 2008"},
		{t0, "z zzzz Z X XXX", "UTC Coordinated Universal Time +0000 Z Z"},
		{t0.In(la), "HH:mm z Z X XX XXX", "16:59 PDT -0700 -07 -0700 -07:00"},
		{t0, "'at' HH 'o''clock' ''", "at 23 o'clock '"},
		{t0, "yyyy-MM-dd'T'HH:mm'Z'", "2009-09-08T23:59Z"},
		{t0, "G", "AD"},
	}
	for _, tc := range tests {
		got, err := FormatJava(tc.tm, tc.pattern)
		if err != nil || got != tc.want {
			t.Errorf("FormatJava(%q) = %q, %v; want %q", tc.pattern, got, err, tc.want)
		}
	}
	for _, bad := range []string{"yyyy-bb", "'unterminated", "XXXX", "q"} {
		if got, err := FormatJava(t0, bad); err == nil {
			t.Errorf("FormatJava(%q) = %q, want an error", bad, got)
		}
	}
}
