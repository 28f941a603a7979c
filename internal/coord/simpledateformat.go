package coord

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatJava formats t (in t's location) with a java.text.SimpleDateFormat
// pattern in the en_US locale, the formatter behind coord:formatTime.
//
// Supported letters: G y Y M L d D F E u a H k K h m s S w W z Z X. A run of
// n letters pads numbers to n digits; "yy" (and "YY") print the last two
// digits of the year; M/L print names from three letters on (MMM = "Sep",
// MMMM = "September"), E likewise (EEE = "Tue", EEEE = "Tuesday"). Text in
// single quotes is literal and two single quotes print one. Other ASCII
// letters are reserved and rejected, as Java rejects them ("Illegal pattern
// character").
// Week fields use the en_US rules: weeks start on Sunday and week 1 is the
// week holding January 1.
func FormatJava(t time.Time, pattern string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			// Quoted text; '' inside or outside quotes is one quote.
			if i+1 < len(pattern) && pattern[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			j := i + 1
			for {
				if j >= len(pattern) {
					return "", fmt.Errorf("Unterminated quote in pattern %q", pattern)
				}
				if pattern[j] == '\'' {
					if j+1 < len(pattern) && pattern[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(pattern[j])
				j++
			}
			i = j + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			n := 1
			for i+n < len(pattern) && pattern[i+n] == c {
				n++
			}
			if err := formatField(&b, t, c, n); err != nil {
				return "", err
			}
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

func pad(b *strings.Builder, v, n int) {
	s := strconv.Itoa(v)
	for k := len(s); k < n; k++ {
		b.WriteByte('0')
	}
	b.WriteString(s)
}

func formatField(b *strings.Builder, t time.Time, c byte, n int) error {
	switch c {
	case 'G':
		if t.Year() > 0 {
			b.WriteString("AD")
		} else {
			b.WriteString("BC")
		}
	case 'y', 'Y':
		y := t.Year()
		if c == 'Y' {
			y = weekYear(t)
		}
		if n == 2 {
			pad(b, y%100, 2)
		} else {
			pad(b, y, n)
		}
	case 'M', 'L':
		switch {
		case n >= 4:
			b.WriteString(t.Month().String())
		case n == 3:
			b.WriteString(t.Month().String()[:3])
		default:
			pad(b, int(t.Month()), n)
		}
	case 'd':
		pad(b, t.Day(), n)
	case 'D':
		pad(b, t.YearDay(), n)
	case 'F':
		pad(b, (t.Day()-1)/7+1, n)
	case 'E':
		if n >= 4 {
			b.WriteString(t.Weekday().String())
		} else {
			b.WriteString(t.Weekday().String()[:3])
		}
	case 'u':
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		pad(b, wd, n)
	case 'a':
		if t.Hour() < 12 {
			b.WriteString("AM")
		} else {
			b.WriteString("PM")
		}
	case 'H':
		pad(b, t.Hour(), n)
	case 'k':
		h := t.Hour()
		if h == 0 {
			h = 24
		}
		pad(b, h, n)
	case 'K':
		pad(b, t.Hour()%12, n)
	case 'h':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		pad(b, h, n)
	case 'm':
		pad(b, t.Minute(), n)
	case 's':
		pad(b, t.Second(), n)
	case 'S':
		pad(b, t.Nanosecond()/1e6, n)
	case 'w':
		pad(b, weekOfYear(t), n)
	case 'W':
		pad(b, weekOfMonth(t), n)
	case 'z':
		name, off := t.Zone()
		if n >= 4 {
			b.WriteString(longZoneName(name, off))
		} else {
			b.WriteString(shortZoneName(name, off))
		}
	case 'Z':
		_, off := t.Zone()
		b.WriteString(offsetText(off, false))
	case 'X':
		_, off := t.Zone()
		if n > 3 {
			return fmt.Errorf("invalid ISO 8601 format: length=%d", n)
		}
		switch {
		case off == 0:
			b.WriteString("Z")
		case n == 1:
			b.WriteString(offsetText(off, false)[:3])
		case n == 2:
			b.WriteString(offsetText(off, false))
		default:
			b.WriteString(offsetText(off, true))
		}
	default:
		return fmt.Errorf("Illegal pattern character '%c'", c)
	}
	return nil
}

// offsetText prints seconds east of UTC as +hhmm or +hh:mm.
func offsetText(off int, colon bool) string {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	sep := ""
	if colon {
		sep = ":"
	}
	return fmt.Sprintf("%c%02d%s%02d", sign, off/3600, sep, off/60%60)
}

// shortZoneName is what Java prints for "z": UTC stays UTC, tzdata
// abbreviations are used when alphabetic, else a GMT offset.
func shortZoneName(name string, off int) string {
	if name != "" && (name[0] < '0' || name[0] > '9') && name[0] != '+' && name[0] != '-' && !strings.HasPrefix(name, "GMT") {
		return name
	}
	if off == 0 && (name == "UTC" || name == "GMT") {
		return name
	}
	return "GMT" + offsetText(off, true)
}

// longZoneName is "zzzz"; gozie carries no CLDR names beyond UTC/GMT, so
// other zones print their GMT offset.
func longZoneName(name string, off int) string {
	switch name {
	case "UTC":
		return "Coordinated Universal Time"
	case "GMT":
		return "Greenwich Mean Time"
	}
	return "GMT" + offsetText(off, true)
}

// weekOfYear is Calendar.WEEK_OF_YEAR for en_US (Sunday start, week 1
// holds January 1); late-December days in the week of next January 1 are in
// week 1.
func weekOfYear(t time.Time) int {
	y, m, d := t.Date()
	sunday := time.Date(y, m, d-int(t.Weekday()), 0, 0, 0, 0, time.UTC)
	if next := time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC); !next.After(sunday.AddDate(0, 0, 6)) {
		return 1
	}
	jan1 := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	firstSunday := jan1.AddDate(0, 0, -int(jan1.Weekday()))
	return int(sunday.Sub(firstSunday).Hours()/24)/7 + 1
}

// weekYear is the year week-of-year counts in (Java's "Y").
func weekYear(t time.Time) int {
	if t.Month() == time.December && weekOfYear(t) == 1 {
		return t.Year() + 1
	}
	return t.Year()
}

// weekOfMonth is Calendar.WEEK_OF_MONTH for en_US.
func weekOfMonth(t time.Time) int {
	first := int(time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Weekday())
	return (t.Day()+first-1)/7 + 1
}
