// Package schedule is gozie's time model: Oozie datetimes, time zones (with
// the tzdata embedded, so a machine without /usr/share/zoneinfo behaves the
// same), frequencies with their day/month stepping across daylight-saving
// switches, the end-of-day/week/month shifts, nominal-time iteration and a
// Quartz-compatible cron evaluator.
//
// The package is pure: every function takes the times it works on as values
// and never reads the clock. Calendar arithmetic reproduces
// java.util.GregorianCalendar, which Oozie uses, including its resolution of
// local times that fall in a daylight-saving gap or overlap; the doc comment
// of each function says which Java rule it follows.
//
// Deliberate differences from Oozie/Java: datetimes are parsed strictly
// (Java's lenient parser rolls 2009-02-30 over to March 2nd; gozie reports
// the bad day), and zone display names are tzdata abbreviations rather than
// the JDK's CLDR names, with a GMT offset where tzdata has only a number.
package schedule

//go:generate go run gen_zones.go

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // identical zone rules on every machine
)

// javaAliases maps the legacy three-letter zone ids the JDK still accepts
// (and Oozie users still write, "PST" above all) to the IANA zone holding
// their rules. EST, MST and HST are real tzdata zones and need no alias.
var javaAliases = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney",
	"AGT": "America/Argentina/Buenos_Aires", "ART": "Africa/Cairo",
	"AST": "America/Anchorage", "BET": "America/Sao_Paulo",
	"BST": "Asia/Dhaka", "CAT": "Africa/Harare",
	"CNT": "America/St_Johns", "CST": "America/Chicago",
	"CTT": "Asia/Shanghai", "EAT": "Africa/Addis_Ababa",
	"ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo",
	"MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi",
	"PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
	"PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal",
	"VST": "Asia/Ho_Chi_Minh",
}

var (
	gmtColon   = regexp.MustCompile(`^GMT([+-])(\d{2}):(\d{2})$`)
	gmtCompact = regexp.MustCompile(`^GMT([+-])(\d{2})(\d{2})$`)
	zoneCache  sync.Map // normalized id -> *time.Location
)

// NormalizeZoneID checks a time zone identifier the way Oozie does
// (DateUtils.getTimeZone) and returns its canonical spelling: IANA ids and
// the JDK's legacy three-letter ids as given, "GMT-0700" rewritten to
// "GMT-07:00". Ids the JDK would silently replace by GMT, or respell
// ("GMT+5:30"), are errors, as they are in Oozie.
func NormalizeZoneID(id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("invalid time zone: %q", id)
	}
	if m := gmtCompact.FindStringSubmatch(id); m != nil {
		id = "GMT" + m[1] + m[2] + ":" + m[3]
	}
	if m := gmtColon.FindStringSubmatch(id); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi, _ := strconv.Atoi(m[3])
		if h > 23 || mi > 59 {
			return "", fmt.Errorf("invalid time zone: %q (GMT offsets go up to GMT+23:59)", id)
		}
		return id, nil
	}
	if id == "UTC" || id == "GMT" || javaAliases[id] != "" {
		return id, nil
	}
	if strings.HasPrefix(id, "/") || strings.Contains(id, "..") || strings.Contains(id, `\`) {
		return "", fmt.Errorf("invalid time zone: %q", id)
	}
	i := sort.SearchStrings(ianaZones, id)
	if i < len(ianaZones) && ianaZones[i] == id {
		return id, nil
	}
	return "", fmt.Errorf("invalid time zone: %q (use an IANA id such as America/Los_Angeles, UTC, or GMT+05:30; 'gozie info -timezones' lists them)", id)
}

// LoadZone returns the rules of a time zone identifier accepted by
// NormalizeZoneID. The location's name is the normalized id.
func LoadZone(id string) (*time.Location, error) {
	norm, err := NormalizeZoneID(id)
	if err != nil {
		return nil, err
	}
	if loc, ok := zoneCache.Load(norm); ok {
		return loc.(*time.Location), nil
	}
	var loc *time.Location
	switch m := gmtColon.FindStringSubmatch(norm); {
	case norm == "UTC":
		loc = time.UTC
	case m != nil:
		h, _ := strconv.Atoi(m[2])
		mi, _ := strconv.Atoi(m[3])
		secs := h*3600 + mi*60
		if m[1] == "-" {
			secs = -secs
		}
		loc = time.FixedZone(norm, secs)
	default:
		name := norm
		if alias := javaAliases[norm]; alias != "" {
			name = alias
		}
		loc, err = time.LoadLocation(name)
		if err != nil {
			return nil, fmt.Errorf("invalid time zone: %q: %v", id, err)
		}
	}
	zoneCache.Store(norm, loc)
	return loc, nil
}

// mustZone is LoadZone for ids known to be valid (package constants, tests).
func mustZone(id string) *time.Location {
	loc, err := LoadZone(id)
	if err != nil {
		panic(err)
	}
	return loc
}

// IsThreeLetterZoneID reports whether id is one of the ambiguous
// three-letter abbreviations ("PST", "IST") that Oozie warns about; UTC and
// GMT are unambiguous and do not count.
func IsThreeLetterZoneID(id string) bool {
	if len(id) != 3 || id == "UTC" || id == "GMT" {
		return false
	}
	for i := 0; i < 3; i++ {
		if id[i] < 'A' || id[i] > 'Z' {
			return false
		}
	}
	return true
}

// ZoneInfo describes one supported time zone identifier.
type ZoneInfo struct {
	ID string
	// DisplayName is "SHORT (ID)", the form of Oozie's zone listings, where
	// SHORT is the zone's standard-time abbreviation in the year of the
	// reference time ("PST (America/Los_Angeles)"). tzdata has numeric
	// abbreviations for many zones; those print as a GMT offset, where the
	// JDK would print a CLDR abbreviation gozie does not carry.
	DisplayName string
}

// AvailableZones lists every supported identifier, as Oozie's
// available-timezones does: the IANA ids except the Etc/GMT* ones (whose
// signs are inverted and confuse users), then GMT-12:00 to GMT+12:00 without
// GMT+00:00. at selects the year whose standard abbreviation is shown.
func AvailableZones(at time.Time) []ZoneInfo {
	out := make([]ZoneInfo, 0, len(ianaZones)+len(javaAliases)+24)
	ids := make([]string, 0, len(ianaZones)+len(javaAliases))
	for _, id := range ianaZones {
		if !strings.HasPrefix(id, "Etc/GMT") {
			ids = append(ids, id)
		}
	}
	for id := range javaAliases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		loc, err := LoadZone(id)
		if err != nil {
			continue
		}
		out = append(out, ZoneInfo{ID: id, DisplayName: shortName(loc, at) + " (" + id + ")"})
	}
	for h := -12; h <= 12; h++ {
		if h == 0 {
			continue
		}
		id := fmt.Sprintf("GMT%+03d:00", h)
		out = append(out, ZoneInfo{ID: id, DisplayName: id + " (" + id + ")"})
	}
	return out
}

// shortName returns the standard-time abbreviation of loc in at's year.
func shortName(loc *time.Location, at time.Time) string {
	y := at.Year()
	t := time.Date(y, time.January, 1, 12, 0, 0, 0, loc)
	if t.IsDST() {
		t = time.Date(y, time.July, 1, 12, 0, 0, 0, loc)
	}
	name, off := t.Zone()
	if name == "" || name[0] == '+' || name[0] == '-' || (name[0] >= '0' && name[0] <= '9') {
		return gmtName(off)
	}
	return name
}

// gmtName prints an offset in seconds as GMT+hh:mm.
func gmtName(off int) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("GMT%c%02d:%02d", sign, off/3600, off/60%60)
}
