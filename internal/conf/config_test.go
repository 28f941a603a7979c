package conf

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestZeroValue(t *testing.T) {
	var c Config
	if c.Len() != 0 || c.Has("a") || len(c.Names()) != 0 {
		t.Fatal("zero Config not empty")
	}
	if _, ok := c.Get("a"); ok {
		t.Fatal("Get on empty Config found a value")
	}
	c.Delete("a")
	c.Set("a", "1")
	if v, ok := c.Get("a"); !ok || v != "1" {
		t.Fatalf("Get = %q, %v", v, ok)
	}
	if c.Clone().Len() != 1 || New().Clone().Len() != 0 {
		t.Fatal("Clone lost properties")
	}
}

func TestSetGetDelete(t *testing.T) {
	c := New()
	c.Set("z", "1")
	c.Set("a", "2")
	c.Set("m", "3")
	c.Set("z", "4") // keeps position
	if got := c.Names(); !slices.Equal(got, []string{"z", "a", "m"}) {
		t.Fatalf("Names = %q", got)
	}
	if got := c.SortedNames(); !slices.Equal(got, []string{"a", "m", "z"}) {
		t.Fatalf("SortedNames = %q", got)
	}
	c.Delete("a")
	c.Delete("nope")
	if got := c.Names(); !slices.Equal(got, []string{"z", "m"}) {
		t.Fatalf("after Delete, Names = %q", got)
	}
	if v, _ := c.Raw("m"); v != "3" || c.Len() != 2 || c.Has("a") {
		t.Fatalf("index broken after Delete: m=%q len=%d", v, c.Len())
	}
	c.Set("a", "5") // re-added at the end
	if got := c.Names(); !slices.Equal(got, []string{"z", "m", "a"}) {
		t.Fatalf("Names = %q", got)
	}
	if c.GetDefault("nope", "d") != "d" || c.GetDefault("a", "d") != "5" {
		t.Fatal("GetDefault")
	}
}

func TestSetKeepsFinalAndClearsSource(t *testing.T) {
	c := New()
	c.SetProperty(Property{Name: "a", Value: "1", Final: true, Description: "d", Source: "site.xml", Line: 4})
	c.Set("a", "2")
	p, _ := c.Lookup("a")
	want := Property{Name: "a", Value: "2", Final: true, Description: "d"}
	if p != want {
		t.Fatalf("got %+v, want %+v", p, want)
	}
}

func TestPropertiesIsACopy(t *testing.T) {
	c := New()
	c.Set("a", "1")
	ps := c.Properties()
	ps[0].Value = "changed"
	if v, _ := c.Raw("a"); v != "1" {
		t.Fatal("Properties shares storage")
	}
	d := c.Clone()
	d.Set("a", "2")
	d.Set("b", "3")
	if v, _ := c.Raw("a"); v != "1" || c.Has("b") {
		t.Fatal("Clone shares storage")
	}
}

func layer(source string, props ...Property) *Config {
	c := New()
	for _, p := range props {
		p.Source = source
		c.SetProperty(p)
	}
	return c
}

func TestMerge(t *testing.T) {
	site := layer("site.xml",
		Property{Name: "pinned", Value: "site", Final: true},
		Property{Name: "open", Value: "site"},
		Property{Name: "siteonly", Value: "s"})
	app := layer("config-default.xml",
		Property{Name: "pinned", Value: "app"},
		Property{Name: "open", Value: "app", Final: true},
		Property{Name: "apponly", Value: "a"})
	job := layer("job.properties",
		Property{Name: "open", Value: "job"},
		Property{Name: "pinned", Value: "job", Final: true},
		Property{Name: "jobonly", Value: "j"})

	tests := []struct {
		name    string
		layers  []*Config
		want    kv
		sources map[string]string
	}{
		{"later wins", []*Config{layer("1", Property{Name: "a", Value: "1"}), layer("2", Property{Name: "a", Value: "2"})},
			kv{"a", "2"}, map[string]string{"a": "2"}},
		{"final pins", []*Config{site, app, job},
			kv{"pinned", "site", "open", "app", "siteonly", "s", "apponly", "a", "jobonly", "j"},
			map[string]string{"pinned": "site.xml", "open": "config-default.xml", "jobonly": "job.properties"}},
		{"order of layers matters", []*Config{job, site},
			kv{"open", "site", "pinned", "job", "jobonly", "j", "siteonly", "s"},
			map[string]string{"open": "site.xml", "pinned": "job.properties"}},
		{"nil skipped", []*Config{nil, job, nil},
			kv{"open", "job", "pinned", "job", "jobonly", "j"}, nil},
		{"nothing", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			if got := c.Merge(tt.layers...); got != c {
				t.Fatal("Merge did not return its receiver")
			}
			if got, want := c.Names(), tt.want.names(); !slices.Equal(got, want) {
				t.Errorf("names = %q, want %q", got, want)
			}
			if got, want := c.ToMap(), tt.want.m(); !maps.Equal(got, want) {
				t.Errorf("map = %q, want %q", got, want)
			}
			for name, src := range tt.sources {
				if p, _ := c.Lookup(name); p.Source != src {
					t.Errorf("%s source = %q, want %q", name, p.Source, src)
				}
			}
		})
	}
	// The inputs are not modified.
	if v, _ := job.Raw("open"); v != "job" || job.Len() != 3 {
		t.Fatal("Merge modified an argument")
	}
}

func TestMergeSelf(t *testing.T) {
	c := layer("x", Property{Name: "a", Value: "1"}, Property{Name: "b", Value: "2"})
	c.Merge(c, c)
	if !maps.Equal(c.ToMap(), map[string]string{"a": "1", "b": "2"}) || c.Len() != 2 {
		t.Fatalf("got %q", c.ToMap())
	}
}

func TestMergeDefaults(t *testing.T) {
	job := layer("job.properties", Property{Name: "a", Value: "job"}, Property{Name: "b", Value: "job"})
	defaults := layer("config-default.xml",
		Property{Name: "b", Value: "default", Final: true},
		Property{Name: "c", Value: "default"})
	job.MergeDefaults(defaults, nil)
	want := kv{"a", "job", "b", "job", "c", "default"}
	if !slices.Equal(job.Names(), want.names()) || !maps.Equal(job.ToMap(), want.m()) {
		t.Fatalf("got %q", job.ToMap())
	}
	if p, _ := job.Lookup("c"); p.Source != "config-default.xml" {
		t.Fatalf("c source %q", p.Source)
	}
}

func TestFromMapAndExpandedMap(t *testing.T) {
	c := FromMap(map[string]string{"b": "${a}/x", "a": "1"})
	if !slices.Equal(c.Names(), []string{"a", "b"}) {
		t.Fatalf("names %q", c.Names())
	}
	if got := c.ExpandedMap(); !maps.Equal(got, map[string]string{"a": "1", "b": "1/x"}) {
		t.Fatalf("ExpandedMap = %q", got)
	}
	if got := c.ToMap(); got["b"] != "${a}/x" {
		t.Fatalf("ToMap expanded: %q", got)
	}
}

func TestParseDefine(t *testing.T) {
	tests := []struct {
		in          string
		name, value string
		wantErr     bool
	}{
		{"a=b", "a", "b", false},
		{"a=", "a", "", false},
		{"a=b=c", "a", "b=c", false},
		{" a.b = c ", "a.b", " c ", false},
		{"oozie.wf.application.path=hdfs://nn:8020/app?x=1", "oozie.wf.application.path", "hdfs://nn:8020/app?x=1", false},
		{"a", "", "", true},
		{"=b", "", "", true},
		{" =b", "", "", true},
		{"", "", "", true},
	}
	for _, tt := range tests {
		name, value, err := ParseDefine(tt.in)
		if (err != nil) != tt.wantErr || name != tt.name || value != tt.value {
			t.Errorf("ParseDefine(%q) = %q, %q, %v", tt.in, name, value, err)
		}
	}
	c, err := ParseDefines([]string{"a=1", "b=2", "a=3"})
	if err != nil || !maps.Equal(c.ToMap(), map[string]string{"a": "3", "b": "2"}) {
		t.Fatalf("ParseDefines = %v, %v", c, err)
	}
	if p, _ := c.Lookup("a"); p.Source != "-D" {
		t.Fatalf("source %q", p.Source)
	}
	if _, err := ParseDefines([]string{"a=1", "bad"}); err == nil {
		t.Fatal("ParseDefines accepted a bad definition")
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"job.properties":     "a=1\nb:${a}\n",
		"config-default.XML": "<configuration><property><name>a</name><value>x</value></property></configuration>",
		"bad.xml":            "<configuration>\n<property/>\n</configuration>",
		"noext":              "k v",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		file    string
		want    kv
		wantErr string
	}{
		{"job.properties", kv{"a", "1", "b", "${a}"}, ""},
		{"config-default.XML", kv{"a", "x"}, ""},
		{"noext", kv{"k", "v"}, ""},
		{"bad.xml", nil, "bad.xml:2: property without <name>"},
		{"missing.properties", nil, "missing.properties"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			c, err := LoadFile(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(c.ToMap(), tt.want.m()) {
				t.Fatalf("got %q", c.ToMap())
			}
			if p := c.Properties()[0]; p.Source != path {
				t.Fatalf("source %q, want %q", p.Source, path)
			}
		})
	}
}

func TestParseErrorFormat(t *testing.T) {
	tests := []struct {
		err  ParseError
		want string
	}{
		{ParseError{Source: "a.xml", Line: 3, Msg: "m"}, "a.xml:3: m"},
		{ParseError{Source: "a.xml", Msg: "m"}, "a.xml: m"},
		{ParseError{Line: 2, Msg: "m"}, "<input>:2: m"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestPropertyWhere(t *testing.T) {
	tests := []struct {
		p    Property
		want string
	}{
		{Property{Source: "job.properties", Line: 7}, "job.properties:7"},
		{Property{Source: "-D"}, "-D"},
		{Property{Line: 3}, ""},
		{Property{}, ""},
	}
	for _, tt := range tests {
		if got := tt.p.Where(); got != tt.want {
			t.Errorf("%+v.Where() = %q, want %q", tt.p, got, tt.want)
		}
	}
}
