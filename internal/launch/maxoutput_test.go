package launch

import (
	"strconv"
	"testing"

	"github.com/gozie/gozie/internal/conf"
)

// oozie.action.max.output.data: the action's configuration first, then
// the executor's option, then the server's setting, then Oozie's 2048;
// values that are not positive integers are passed over, large ones
// lowered to the cap.
func TestMaxOutputOf(t *testing.T) {
	tests := []struct {
		name   string
		action string // "" for none
		option int
		site   string
		want   int
	}{
		{"nothing set", "", 0, "", DefaultMaxOutput},
		{"server", "", 0, "4096", 4096},
		{"action over server", "100", 0, "4096", 100},
		{"option over server", "", 300, "4096", 300},
		{"action over option", "10000", 300, "", 10000},
		{"action not a number", "lots", 0, "4096", 4096},
		{"action zero", "0", 0, "4096", 4096},
		{"server negative", "", 0, "-5", DefaultMaxOutput},
		{"white space", " 5000 ", 0, "", 5000},
		{"capped", strconv.Itoa(MaxOutputCap + 1), 0, "", MaxOutputCap},
		{"server capped", "", 0, "999999999", MaxOutputCap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{MaxOutput: tt.option, Site: map[string]string{MaxOutputKey: tt.site}}
			var c *conf.Config
			if tt.action != "" {
				c = conf.FromMap(map[string]string{MaxOutputKey: tt.action})
			}
			if got := o.MaxOutputOf(c); got != tt.want {
				t.Errorf("MaxOutputOf = %d, want %d", got, tt.want)
			}
		})
	}
}
