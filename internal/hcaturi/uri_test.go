package hcaturi

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in                string
		server, db, table string
		parts             []Partition
		servers           []string
	}{
		// spec: coord 5.2
		{"hcat://bar:8020/logsDB/logsTable/dt=20090415;region=US", "bar:8020", "logsDB", "logsTable",
			[]Partition{{"dt", "20090415"}, {"region", "US"}}, []string{"bar:8020"}},
		{"hcat://myhcatmetastore:9080/database1/table1/myfirstpartitionkey=myfirstvalue;mysecondpartitionkey=mysecondvalue",
			"myhcatmetastore:9080", "database1", "table1",
			[]Partition{{"myfirstpartitionkey", "myfirstvalue"}, {"mysecondpartitionkey", "mysecondvalue"}}, []string{"myhcatmetastore:9080"}},
		// Key order is the order written, not sorted.
		{"hcat://h:1/d/t/region=us;datestamp=12", "h:1", "d", "t",
			[]Partition{{"region", "us"}, {"datestamp", "12"}}, []string{"h:1"}},
		// Several metastores, with and without thrift:// and ports.
		{"hcat://h1:9083,h2:9084/db/tbl/a=1", "h1:9083,h2:9084", "db", "tbl",
			[]Partition{{"a", "1"}}, []string{"h1:9083", "h2:9084"}},
		{"hcat://h1,h2:9000/db/tbl/a=1", "h1,h2:9000", "db", "tbl",
			[]Partition{{"a", "1"}}, []string{"h1:9083", "h2:9000"}},
		// A trailing slash and empty pairs are ignored, as Java's split does.
		{"hcat://h:1/d/t/a=1;;b=2;/", "h:1", "d", "t", []Partition{{"a", "1"}, {"b", "2"}}, []string{"h:1"}},
		// A key written twice keeps its place and takes the last value.
		{"hcat://h:1/d/t/a=1;b=2;a=3", "h:1", "d", "t", []Partition{{"a", "3"}, {"b", "2"}}, []string{"h:1"}},
		// Escapes in the path are decoded.
		{"hcat://h:1/d/t/a=x%20y", "h:1", "d", "t", []Partition{{"a", "x y"}}, []string{"h:1"}},
	}
	for _, tc := range tests {
		u, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if u.Server != tc.server || u.DB != tc.db || u.Table != tc.table || !reflect.DeepEqual(u.Partitions, tc.parts) {
			t.Errorf("Parse(%q) = %+v", tc.in, u)
		}
		if got := u.Servers(); !reflect.DeepEqual(got, tc.servers) {
			t.Errorf("Parse(%q).Servers() = %v, want %v", tc.in, got, tc.servers)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"hcat:///db/t/a=1", "Server host and port are missing"},
		{"hcat:/db/t/a=1", "Server host and port are missing"},
		{"hcat://h:1", "URI path is not in expected format"},
		{"hcat://h:1/db/t", "URI path is not in expected format"},
		{"hcat://h:1/db/t/", "URI path is not in expected format"},
		{"hcat://h:1/db/t/a=1/b=2", "URI path is not in expected format"},
		{"hcat://h:1//t/a=1", "DB name is missing"},
		{"hcat://h:1/db//a=1", "Table name is missing"},
		{"hcat://h:1/db/t/;;", "Partition details are missing"},
		{"hcat://h:1/db/t/a", "Partition key value pair is not specified properly in (a)"},
		{"hcat://h:1/db/t/a=", "Partition key value pair is not specified properly in (a=)"},
		{"hcat://h:1/db/t/=1", "Partition key value pair is not specified properly in (=1)"},
		{"hcat://h:1/db/t/a=1=2", "Partition key value pair is not specified properly in (a=1=2)"},
		{"hcat://h:1/db/t/a=x y", "illegal character ' '"},
		{"hcat://h:1/db/t/a=1?x", "illegal character '?'"},
		{"hcat://h:1/db/t/a=%zz", "bad escape"},
		{"hcat", "no scheme"},
		{"", "no scheme"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("Parse(%q) = %v, want an *Error with %q", tc.in, err, tc.reason)
		}
	}
}

func TestFormats(t *testing.T) {
	u, err := Parse("hcat://h:1/db/clicks/datestamp=12;region=us")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ name, got, want string }{
		{"pig filter", u.Filter("pig"), "(datestamp=='12' AND region=='us')"},
		{"PIG filter", u.Filter("PIG"), "(datestamp=='12' AND region=='us')"},
		{"hive filter", u.Filter("hive"), "(datestamp='12' AND region='us')"},
		{"java filter", u.Filter("java"), "(datestamp='12' AND region='us')"},
		{"storer", u.StorerString(), "'datestamp=12,region=us'"},
		{"string", u.String(), "hcat://h:1/db/clicks/datestamp=12;region=us"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if s, err := u.ValueString("hive-export"); err != nil || s != "datestamp='12',region='us'" {
		t.Errorf("ValueString(hive-export) = %q, %v", s, err)
	}
	if _, err := u.ValueString("pig"); err == nil {
		t.Error("ValueString(pig) gave no error")
	}
	if f, err := u.MetastoreFilter(); err != nil || f != `datestamp = "12" and region = "us"` {
		t.Errorf("MetastoreFilter = %q, %v", f, err)
	}
	q, _ := Parse(`hcat://h:1/db/t/a=x%22y`)
	if f, err := q.MetastoreFilter(); err != nil || f != `a = 'x"y'` {
		t.Errorf("MetastoreFilter with a double quote = %q, %v", f, err)
	}
	q, _ = Parse(`hcat://h:1/db/t/a=x%22y'`)
	if _, err := q.MetastoreFilter(); err == nil {
		t.Error("MetastoreFilter with both quotes gave no error")
	}
	if v, ok := u.Value("region"); !ok || v != "us" {
		t.Errorf("Value(region) = %q, %v", v, ok)
	}
	if _, ok := u.Value("nope"); ok {
		t.Error("Value(nope) found")
	}
}

func TestIsHCat(t *testing.T) {
	for s, want := range map[string]bool{"hcat://h/d/t/a=1": true, "HCAT://x": true, "hdfs://x": false, "hcat:": false} {
		if IsHCat(s) != want {
			t.Errorf("IsHCat(%q) = %v", s, !want)
		}
	}
}

// FuzzParse: no input panics, and what parses writes back to a URI that
// parses to the same partitions.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"hcat://h:1/d/t/a=1;b=2", "hcat://h1,h2/d/t/a=%41", "hcat:///d/t/a=1", "x", "hcat://h/d/t/a=1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		v, err := Parse(u.String())
		if err != nil {
			// Decoded escapes may not be valid unescaped; that is all.
			return
		}
		if v.DB != u.DB || v.Table != u.Table || !reflect.DeepEqual(v.Partitions, u.Partitions) {
			t.Errorf("%q -> %q: %+v != %+v", s, u.String(), u, v)
		}
	})
}
