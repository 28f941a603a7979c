package schedule

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestCronJSONConformance(t *testing.T) {
	var vs []map[string]any
	if err := json.Unmarshal(readVector(t, "cron.json"), &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		id, _ := v["id"].(string)
		t.Run(id, func(t *testing.T) {
			expr, _ := v["expression"].(string)
			switch kind, _ := v["kind"].(string); kind {
			case "next_fire_times":
				c, err := ParseCron(expr)
				if err != nil {
					t.Fatal(err)
				}
				tz, _ := v["timezone"].(string)
				loc, err := LoadZone(tz)
				if err != nil {
					t.Fatal(err)
				}
				after, _ := v["after"].(string)
				cur, err := ParseTime(after)
				if err != nil {
					t.Fatal(err)
				}
				for i, w := range v["expected_next"].([]any) {
					next, ok := c.Next(cur, loc)
					if !ok || FormatTime(next) != w {
						t.Fatalf("fire %d after %s = %s (%v), want %s", i, FormatTime(cur), FormatTime(next), ok, w)
					}
					cur = next
				}
			case "validate_frequency":
				_, err := ValidateFrequency(expr)
				if want := v["expected_valid"] == true; (err == nil) != want {
					t.Fatalf("ValidateFrequency(%q) error = %v, want valid=%v", expr, err, want)
				}
			case "submit_cron_check":
				start, _ := ParseTime(v["start"].(string))
				end, _ := ParseTime(v["end"].(string))
				exp := v["expected"].(map[string]any)
				c, err := ParseCron(expr)
				if err != nil {
					t.Fatal(err)
				}
				first, _ := c.Next(start.Add(-time.Minute), time.UTC)
				if ff, _ := exp["first_fire"].(string); ff != "" && FormatTime(first) != ff {
					t.Errorf("first fire = %s, want %s", FormatTime(first), ff)
				}
				err = CheckCronWindow(c, start, end, UTC)
				if accepted := exp["accepted"] == true; (err == nil) != accepted {
					t.Fatalf("CheckCronWindow = %v, want accepted=%v", err, accepted)
				}
				if msg, _ := exp["message_contains"].(string); err != nil && !strings.Contains(err.Error(), msg) {
					t.Errorf("error %q does not contain %q", err, msg)
				}
				if code, _ := exp["error_code"].(string); err != nil && !strings.Contains(err.Error(), code) {
					t.Errorf("error %q does not carry %s", err, code)
				}
			default:
				t.Fatalf("unknown kind %q", kind)
			}
		})
	}
}
