package conf

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGetExpansion(t *testing.T) {
	chain := kv{}
	for i := range 25 {
		chain = append(chain, fmt.Sprintf("c%d", i), fmt.Sprintf("${c%d}", i+1))
	}
	chain = append(chain, "c25", "end")

	tests := []struct {
		name  string
		props kv
		get   string
		want  string
	}{
		{"plain", kv{"a", "1"}, "a", "1"},
		{"simple", kv{"a", "1", "b", "${a}"}, "b", "1"},
		{"dotted names", kv{"name.node", "hdfs://nn", "p", "${name.node}/user"}, "p", "hdfs://nn/user"},
		{"several", kv{"nn", "hdfs://nn", "dir", "out", "mixed", "${nn}/${dir}"}, "mixed", "hdfs://nn/out"},
		{"chain", kv{"a", "${b}x", "b", "${c}y", "c", "z"}, "a", "zyx"},
		{"defined later", kv{"a", "${b}", "b", "2"}, "a", "2"},
		{"empty value", kv{"a", "[${b}]", "b", ""}, "a", "[]"},
		{"unresolved stays", kv{"a", "${nope}/x"}, "a", "${nope}/x"},
		{"unresolved does not stop later refs", kv{"a", "${nope}/${b}", "b", "2"}, "a", "${nope}/2"},
		{"self reference", kv{"a", "x${a}y"}, "a", "x${a}y"},
		{"two-cycle", kv{"a", "${b}", "b", "${a}"}, "a", "${a}"},
		{"three-cycle", kv{"a", "1${b}", "b", "2${c}", "c", "3${a}"}, "a", "123${a}"},
		{"cycle not at top", kv{"a", "${b}", "b", "<${b}>"}, "a", "<${b}>"},
		{"same ref twice is not a cycle", kv{"a", "${b}${b}", "b", "${c}", "c", "z"}, "a", "zz"},
		{"depth limit", chain, "c0", "${c21}"},
		{"depth limit from inside", chain, "c10", "end"},
		{"EL function", kv{"a", "${wf:conf('b')}", "b", "1"}, "a", "${wf:conf('b')}"},
		{"EL function no args", kv{"a", "${wf:id()}", "wf:id()", "1"}, "a", "${wf:id()}"},
		{"EL operators with spaces", kv{"a", "${x == 1}", "x", "1"}, "a", "${x == 1}"},
		{"EL coord", kv{"a", "${coord:current(-1)}/${b}", "b", "2"}, "a", "${coord:current(-1)}/2"},
		{"plain var inside EL", kv{"a", "${wf:conf(${b})}", "b", "'k'"}, "a", "${wf:conf('k')}"},
		{"EL constant not defined", kv{"a", "${KB}"}, "a", "${KB}"},
		{"unterminated", kv{"a", "${b", "b", "1"}, "a", "${b"},
		{"empty ref", kv{"a", "${}"}, "a", "${}"},
		{"dollar alone", kv{"a", "$b ${b} $", "b", "1"}, "a", "$b 1 $"},
		{"dollar dollar", kv{"a", "$${b}", "b", "1"}, "a", "$1"},
		{"nested braces", kv{"a", "${${b}}", "b", "c", "c", "d"}, "a", "${c}"},
		{"missing name", kv{"a", "1"}, "nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			for i := 0; i < len(tt.props); i += 2 {
				c.Set(tt.props[i], tt.props[i+1])
			}
			got, _ := c.Get(tt.get)
			if got != tt.want {
				t.Errorf("Get(%q) = %q, want %q", tt.get, got, tt.want)
			}
			if raw, _ := c.Raw(tt.get); raw != tt.props.m()[tt.get] {
				t.Errorf("Raw(%q) = %q", tt.get, raw)
			}
		})
	}
}

func TestExpandBoundsWork(t *testing.T) {
	// Each level doubles the text: without a budget, 2^18 substitutions,
	// all within the depth limit.
	c := New()
	for i := range 18 {
		c.Set(fmt.Sprintf("l%d", i), fmt.Sprintf("${l%d}${l%d}", i+1, i+1))
	}
	c.Set("l18", "x")
	got, _ := c.Get("l0")
	if n := strings.Count(got, "x"); n == 0 || n > maxSubstitutions {
		t.Fatalf("expanded %d x's", n)
	}
	if !strings.Contains(got, "${l") {
		t.Fatal("budget did not leave references literal")
	}
}

func TestResolver(t *testing.T) {
	c := New()
	c.Set("home", "/user/${user.name}")
	c.Set("user.name", "fromconf")
	c.Set("dir", "${home}/${env.X}/${nope}")
	c.SetResolver(MapResolver(map[string]string{
		"user.name": "fromresolver",
		"env.X":     "${user.name}!",
	}))
	tests := []struct{ name, want string }{
		{"home", "/user/fromconf"}, // the Config itself comes first
		{"dir", "/user/fromconf/fromconf!/${nope}"},
	}
	for _, tt := range tests {
		if got, _ := c.Get(tt.name); got != tt.want {
			t.Errorf("Get(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := c.Expand("${env.X} ${wf:user()}"); got != "fromconf! ${wf:user()}" {
		t.Errorf("Expand = %q", got)
	}
	if got, _ := c.Clone().Get("dir"); got != "/user/fromconf/fromconf!/${nope}" {
		t.Errorf("Clone lost resolver: %q", got)
	}
	c.SetResolver(nil)
	if got, _ := c.Get("dir"); got != "/user/fromconf/${env.X}/${nope}" {
		t.Errorf("without resolver: %q", got)
	}
}

func TestResolverCycle(t *testing.T) {
	c := New()
	c.Set("a", "${b}")
	c.SetResolver(MapResolver(map[string]string{"b": "${a}${b}"}))
	if got, _ := c.Get("a"); got != "${a}${b}" {
		t.Fatalf("got %q", got)
	}
}

// TestConformanceConfigDefault replays the config_resolution vectors of
// basic_el.json (testWFConfigDefaultVarResolve): the action configuration is
// the action's own properties plus config-default.xml, with references
// resolved against the job configuration.
func TestConformanceConfigDefault(t *testing.T) {
	dir := os.Getenv("GOZIE_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "conformance")
	}
	data, err := os.ReadFile(filepath.Join(dir, "basic_el.json"))
	if err != nil {
		t.Fatalf("conformance vectors not available (set GOZIE_CONFORMANCE_DIR): %v", err)
	}
	var vectors []struct {
		ID       string            `json:"id"`
		Kind     string            `json:"kind"`
		Defaults map[string]string `json:"config_default_xml"`
		Job      map[string]string `json:"job_configuration"`
		Action   map[string]string `json:"action_configuration_in_workflow"`
		Expected map[string]string `json:"expected_action_configuration"`
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, v := range vectors {
		if v.Kind != "config_resolution" {
			continue
		}
		ran++
		t.Run(v.ID, func(t *testing.T) {
			action := New().Merge(FromMap(v.Action), FromMap(v.Defaults))
			action.SetResolver(FromMap(v.Job).AsResolver())
			if got := action.ExpandedMap(); !maps.Equal(got, v.Expected) {
				t.Errorf("got  %q\nwant %q", got, v.Expected)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no config_resolution vectors found")
	}
}

func BenchmarkGet(b *testing.B) {
	c := New()
	c.Set("nameNode", "hdfs://namenode:8020")
	c.Set("user", "alice")
	c.Set("base", "${nameNode}/user/${user}")
	c.Set("app", "${base}/apps/wf")
	c.Set("out", "${app}/output/${wf:id()}")
	c.Set("plain", "no references here")
	for i := range 100 {
		c.Set(fmt.Sprintf("filler.%d", i), "x")
	}
	b.Run("expanded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v, _ := c.Get("out"); len(v) == 0 {
				b.Fatal("empty")
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v, _ := c.Get("plain"); len(v) == 0 {
				b.Fatal("empty")
			}
		}
	})
}
