package coordengine

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
)

func TestConfChanges(t *testing.T) {
	cfg := func(kv ...string) *conf.Config {
		c := conf.New()
		for i := 0; i+1 < len(kv); i += 2 {
			c.Set(kv[i], kv[i+1])
		}
		return c
	}
	job := cfg("a", "1", "b", "${x}", "user.name", "joe")
	cases := []struct {
		name string
		to   *conf.Config
		want string
	}{
		{"same, other order", cfg("user.name", "joe", "b", "${x}", "a", "1"), ""},
		{"changed", cfg("a", "2", "b", "${x}", "user.name", "joe"), "a"},
		{"raw text compared", cfg("a", "1", "b", "2", "user.name", "joe"), "b"},
		{"added and removed", cfg("a", "1", "c", "3", "user.name", "joe"), "b,c"},
		{"empty", cfg(), "a,b,user.name"},
	}
	for _, c := range cases {
		if got := strings.Join(confChanges(job, c.to), ","); got != c.want {
			t.Errorf("%s: confChanges = %q, want %q", c.name, got, c.want)
		}
	}
}
