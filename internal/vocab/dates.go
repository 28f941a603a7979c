package vocab

import "time"

// DateLayout is the REST API's date format, EEE, dd MMM yyyy HH:mm:ss zzz
// in GMT.
const DateLayout = "Mon, 02 Jan 2006 15:04:05 GMT"

// FormatDate renders a time in the REST API's format; nil for the zero
// time, which the API shows as null.
func FormatDate(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(DateLayout)
	return &s
}

// ParseDate reads a time in the REST API's format.
func ParseDate(s string) (time.Time, error) { return time.Parse(DateLayout, s) }
