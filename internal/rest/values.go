// Package rest holds the JSON beans of the Oozie REST API (rest-api.md):
// the workflow job and action, the coordinator job and action, the bundle
// job, the jobs lists and the small objects of the show= answers, each
// written once with its exact keys. The server encodes them, the client
// decodes them and the console renders them.
//
// A bean's unset values are JSON null, as Oozie's are: a string field of
// type Str is null when empty and a Time is null when zero, so the beans
// hold plain values and the wire form is decided here alone. The package
// imports nothing of gozie, so the client links no engine or store.
package rest

import (
	"bytes"
	"encoding/json"
	"time"
)

// DateLayout is the REST API's date format, EEE, dd MMM yyyy HH:mm:ss zzz
// in GMT (the only zone the Java client reads).
const DateLayout = "Mon, 02 Jan 2006 15:04:05 GMT"

// localLayout is DateLayout with the zone's short name, the form of the
// dates of an answer asked for in another time zone (rest-api.md 0.6).
const localLayout = "Mon, 02 Jan 2006 15:04:05 MST"

// Time is a date of a bean. The zero value is JSON null; a time in UTC is
// written in DateLayout, a time in another location (Time.In) with that
// zone's short name. Decoding, as the Java client does, understands only
// "… GMT" strings: any other text reads as null rather than failing the
// whole answer.
type Time struct{ time.Time }

// Date is the bean date of t: the zero Time for the zero time, else t in
// UTC.
func Date(t time.Time) Time {
	if t.IsZero() {
		return Time{}
	}
	return Time{t.UTC()}
}

// In returns t shown in loc; nil keeps it as it is.
func (t Time) In(loc *time.Location) Time {
	if loc == nil || t.IsZero() {
		return t
	}
	return Time{t.Time.In(loc)}
}

// String is the date as the bean writes it, "" for the zero time.
func (t Time) String() string {
	if t.IsZero() {
		return ""
	}
	if t.Location() == time.UTC {
		return t.Format(DateLayout)
	}
	return t.Format(localLayout)
}

// MarshalJSON writes null or the date string.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return appendString(nil, t.String()), nil
}

// UnmarshalJSON accepts null or a DateLayout string; anything else reads
// as the zero time.
func (t *Time) UnmarshalJSON(b []byte) error {
	t.Time = time.Time{}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return nil // a number or object where a date belongs reads as null
	}
	if p, err := time.Parse(DateLayout, s); err == nil {
		t.Time = p.UTC()
	}
	return nil
}

// Str is a string of a bean that is JSON null when empty (Oozie's beans
// write null for an unset value, never "").
type Str string

// String is the string itself ("" when unset).
func (s Str) String() string { return string(s) }

// MarshalJSON writes null for "" and the string otherwise.
func (s Str) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return appendString(nil, string(s)), nil
}

// UnmarshalJSON reads null as "".
func (s *Str) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*s = ""
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Str(v)
	return nil
}

// Text is a Str that some servers send as a number (the coordinator
// frequency): it decodes a string, a number or null, and anything else as
// "".
type Text string

// String is the string itself ("" when unset).
func (s Text) String() string { return string(s) }

// MarshalJSON writes null for "" and the string otherwise.
func (s Text) MarshalJSON() ([]byte, error) { return Str(s).MarshalJSON() }

// UnmarshalJSON accepts a string, a number, or null.
func (s *Text) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*s = Text(str)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*s = Text(n.String())
		return nil
	}
	*s = ""
	return nil
}

// appendString appends s as a JSON string as encoding/json writes it, but
// without escaping <, > and &: the encoder that calls a MarshalJSON escapes
// those itself when it is asked to (json.Marshal is; an Encoder with
// SetEscapeHTML(false), as gozie run uses, is not), so the beans come out
// byte for byte as plain string fields would.
func appendString(dst []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a Go string always encodes
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
}
