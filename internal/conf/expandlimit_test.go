package conf

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCheckExpansion reproduces the configuration that killed the server: a
// value of ${big} repeated, big itself large, which expanded to gigabytes.
// It must be refused quickly, naming the property and the limit, while
// ordinary and merely large configurations pass.
func TestCheckExpansion(t *testing.T) {
	big := strings.Repeat("x", 1000)
	bomb := strings.Repeat("${big}", 1000) // 1000 substitutions of 1 KB: 1 MB
	tests := []struct {
		name   string
		props  map[string]string
		limits ExpandLimits
		want   string // property named by the error; "" for none
		total  bool
	}{
		{"ordinary", map[string]string{"nameNode": "hdfs://nn:8020", "out": "${nameNode}/out"}, ExpandLimits{}, "", false},
		{"large without references", map[string]string{"script": strings.Repeat("y", 2<<20)}, ExpandLimits{}, "", false},
		{"bomb under a low limit", map[string]string{"big": big, "bomb": bomb}, ExpandLimits{Value: 64 << 10}, "bomb", false},
		{"at the limit", map[string]string{"big": big, "v": "${big}"}, ExpandLimits{Value: 1000}, "", false},
		{"one byte over", map[string]string{"big": big, "v": "${big}."}, ExpandLimits{Value: 1000}, "v", false},
		{"nested doubling", map[string]string{
			"a0": big, "a1": "${a0}${a0}", "a2": "${a1}${a1}", "a3": "${a2}${a2}", "a4": "${a3}${a3}",
		}, ExpandLimits{Value: 10000}, "a4", false},
		{"total", map[string]string{"big": big, "v1": "${big}", "v2": "${big}", "v3": "${big}"}, ExpandLimits{Value: 1000, Total: 3500}, "v3", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			for _, k := range sortedKeys(tc.props) {
				c.Set(k, tc.props[k])
			}
			err := c.CheckExpansion(tc.limits)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckExpansion: %v", err)
				}
				return
			}
			var ee *ExpandError
			if !errors.As(err, &ee) || ee.Name != tc.want || ee.Total != tc.total {
				t.Fatalf("err = %v, want ExpandError for %s (total %v)", err, tc.want, tc.total)
			}
			if !strings.HasPrefix(err.Error(), "E1004: ") || !strings.Contains(err.Error(), "["+tc.want+"]") {
				t.Errorf("message %q lacks the code or the property", err)
			}
		})
	}
}

// TestExpandBombDefaultLimits is the original defect at full size: a 1 MB
// configuration with ${big} repeated, big being 1 MB. Under the default
// limits Get gives the value back unexpanded, CheckExpansion refuses it, and
// neither builds more than the limit.
func TestExpandBombDefaultLimits(t *testing.T) {
	c := New()
	c.Set("big", strings.Repeat("x", 1<<20))
	bomb := strings.Repeat("${big}", (1<<20)/6)
	c.Set("bomb", bomb)
	start := time.Now()
	if v, _ := c.Get("bomb"); v != bomb {
		t.Errorf("Get returned %d bytes, want the raw value back", len(v))
	}
	err := c.CheckExpansion(ExpandLimits{})
	var ee *ExpandError
	if !errors.As(err, &ee) || ee.Name != "bomb" || ee.Limit != DefaultExpandLimits.Value {
		t.Fatalf("CheckExpansion = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second { // safety bound only
		t.Errorf("took %v", d)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}
