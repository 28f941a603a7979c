package coord

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/el"
)

// hcatDatasets are the datasets of spec 6.8's pig examples; outRegion
// adds ";region=USA" to the output template as example two has it.
func hcatDatasets(outRegion bool) string {
	out := "hcat://foo:11002/myOutputDatabase/myOutputTable/datestamp=${YEAR}${MONTH}${DAY}"
	if outRegion {
		out += ";region=USA"
	}
	return `<datasets>
 <dataset name="Click-data" frequency="${coord:hours(1)}" initial-instance="2009-01-01T01:00Z" timezone="UTC">
  <uri-template>
   hcat://foo:11002/myInputDatabase/myInputTable/datestamp=${YEAR}${MONTH}${DAY}${HOUR};region=USA
  </uri-template>
 </dataset>
 <dataset name="Stats" frequency="${coord:days(1)}" initial-instance="2009-01-01T01:00Z" timezone="UTC">
  <uri-template>` + out + `</uri-template>
 </dataset>
</datasets>
<input-events>
 <data-in name="raw-logs" dataset="Click-data">
  <start-instance>${coord:current(-23)}</start-instance>
  <end-instance>${coord:current(0)}</end-instance>
 </data-in>
</input-events>
<output-events>
 <data-out name="processed-logs" dataset="Stats"><instance>${coord:current(0)}</instance></data-out>
</output-events>`
}

func hcatApp(ns, datasets string, props map[string]string) string {
	var b strings.Builder
	b.WriteString(`<coordinator-app name="app-coord" frequency="${coord:days(1)}" start="2009-01-01T24:00Z" end="2009-12-31T24:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:` + ns + `">`)
	b.WriteString(datasets)
	b.WriteString(`<action><workflow><app-path>hdfs://bar:8020/usr/joe/logsprocessor-wf</app-path><configuration>`)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		b.WriteString(`<property><name>` + k + `</name><value>` + props[k] + `</value></property>`)
	}
	b.WriteString(`</configuration></workflow></action></coordinator-app>`)
	return b.String()
}

// hourlyFilter is the pig filter of the 24 hourly instances ending at
// 2009-01-02T00:00Z, newest first: the order of a range's instances in
// coord:dataIn, which Oozie's filter keeps (the spec's prose lists them
// oldest first).
func hourlyFilter() string {
	var parts []string
	for h := 24; h >= 1; h-- {
		ds := "20090101" + twoDigits(h)
		if h == 24 {
			ds = "2009010200"
		}
		parts = append(parts, "(datestamp=='"+ds+"' AND region=='USA')")
	}
	return strings.Join(parts, " OR ")
}

func twoDigits(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// spec: coord 6.8.1-6.8.4, example one (HCatPigExampleOne): the run of
// 2009-01-02T00:00Z. The spec's prose shows the filter without quotes and
// an output partition "datestamp=20090102,region=EUR" its own datasets
// cannot give; the values here are what Oozie's functions compute from
// the example's datasets (the daily output instance at or before the
// nominal time is 2009-01-01T01:00Z).
func TestHCatSpecExampleOne(t *testing.T) {
	xml := hcatApp("0.3", hcatDatasets(false), map[string]string{
		"IN_DB":          "${coord:databaseIn('raw-logs')}",
		"IN_TABLE":       "${coord:tableIn('raw-logs')}",
		"FILTER":         "${coord:dataInPartitionFilter('raw-logs', 'pig')}",
		"HIVE_FILTER":    "${coord:dataInPartitionFilter('raw-logs', 'hive')}",
		"OUT_DB":         "${coord:databaseOut('processed-logs')}",
		"OUT_TABLE":      "${coord:tableOut('processed-logs')}",
		"OUT_PARTITIONS": "${coord:dataOutPartitions('processed-logs')}",
	})
	res, err := dryRunXML(t, xml, nil, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	da := res.Actions[0]
	if got := da.Plan.NominalTime.UTC().Format("2006-01-02T15:04Z"); got != "2009-01-02T00:00Z" {
		t.Fatalf("nominal time %s", got)
	}
	rc := runConfOf(t, da)
	want := map[string]string{
		"IN_DB":          "myInputDatabase",
		"IN_TABLE":       "myInputTable",
		"FILTER":         hourlyFilter(),
		"HIVE_FILTER":    strings.ReplaceAll(hourlyFilter(), "==", "="),
		"OUT_DB":         "myOutputDatabase",
		"OUT_TABLE":      "myOutputTable",
		"OUT_PARTITIONS": "'datestamp=20090101'",
	}
	for k, v := range want {
		if got := get(rc, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	// No done-flag on a partition: the dependencies are the URIs.
	if len(da.Plan.Dependencies) != 24 {
		t.Fatalf("%d dependencies, want 24", len(da.Plan.Dependencies))
	}
	for _, d := range da.Plan.Dependencies {
		if strings.Contains(d, "_SUCCESS") || !strings.HasPrefix(d, "hcat://foo:11002/myInputDatabase/myInputTable/datestamp=20090") {
			t.Errorf("dependency %q", d)
		}
	}
	if d := da.Plan.Dependencies[0]; d != "hcat://foo:11002/myInputDatabase/myInputTable/datestamp=2009010200;region=USA" {
		t.Errorf("first dependency %q", d)
	}
}

// spec: coord 6.8.5-6.8.7, example two (HCatPigExampleTwo).
func TestHCatSpecExampleTwo(t *testing.T) {
	xml := hcatApp("0.1", hcatDatasets(true), map[string]string{
		"IN_DB":                    "${coord:databaseIn('raw-logs')}",
		"DATE_MIN":                 "${coord:dataInPartitionMin('raw-logs','datestamp')}",
		"DATE_MAX":                 "${coord:dataInPartitionMax('raw-logs','datestamp')}",
		"OUT_TABLE":                "${coord:tableOut('processed-logs')}",
		"OUT_PARTITION_VAL_REGION": "${coord:dataOutPartitionValue('processed-logs','region')}",
		"OUT_PARTITION_VAL_DATE":   "${coord:dataOutPartitionValue('processed-logs','datestamp')}",
		"OUT_PARTITION_VAL_NONE":   "${coord:dataOutPartitionValue('processed-logs','nope')}",
		"OUT_PARTITIONS":           "${coord:dataOutPartitions('processed-logs')}",
	})
	res, err := dryRunXML(t, xml, nil, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	rc := runConfOf(t, res.Actions[0])
	for k, v := range map[string]string{
		"IN_DB":                    "myInputDatabase",
		"DATE_MIN":                 "2009010101",
		"DATE_MAX":                 "2009010200",
		"OUT_TABLE":                "myOutputTable",
		"OUT_PARTITION_VAL_REGION": "USA",
		"OUT_PARTITION_VAL_DATE":   "20090101",
		"OUT_PARTITION_VAL_NONE":   "",
		"OUT_PARTITIONS":           "'datestamp=20090101,region=USA'",
	} {
		if got := get(rc, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// spec: coord 6.8.8, the hive export example (HCatHiveExampleOne).
func TestHCatSpecHiveExport(t *testing.T) {
	xml := `<coordinator-app xmlns="uri:oozie:coordinator:0.3" name="app-coord" frequency="${coord:hours(1)}" start="2014-03-28T08:00Z" end="2030-01-01T00:00Z" timezone="UTC">
 <datasets>
  <dataset name="Stats-1" frequency="${coord:hours(1)}" initial-instance="2014-03-28T08:00Z" timezone="UTC">
   <uri-template>hcat://foo:11002/myInputDatabase1/myInputTable1/year=${YEAR};month=${MONTH};day=${DAY};hour=${HOUR}
   </uri-template>
  </dataset>
  <dataset name="Stats-2" frequency="${coord:hours(1)}" initial-instance="2014-03-28T08:00Z" timezone="UTC">
   <uri-template>hcat://foo:11002/myInputDatabase2/myInputTable2/year=${YEAR};month=${MONTH};day=${DAY};hour=${HOUR}
   </uri-template>
  </dataset>
 </datasets>
 <input-events><data-in name="processed-logs-1" dataset="Stats-1"><instance>${coord:current(0)}</instance></data-in></input-events>
 <output-events><data-out name="processed-logs-2" dataset="Stats-2"><instance>${coord:current(0)}</instance></data-out></output-events>
 <action><workflow><app-path>hdfs://bar:8020/usr/joe/logsreplicator-wf</app-path><configuration>
  <property><name>EXPORT_DB</name><value>${coord:databaseIn('processed-logs-1')}</value></property>
  <property><name>EXPORT_TABLE</name><value>${coord:tableIn('processed-logs-1')}</value></property>
  <property><name>IMPORT_DB</name><value>${coord:databaseOut('processed-logs-2')}</value></property>
  <property><name>IMPORT_TABLE</name><value>${coord:tableOut('processed-logs-2')}</value></property>
  <property><name>EXPORT_PARTITION</name><value>${coord:dataInPartitions('processed-logs-1', 'hive-export')}</value></property>
  <property><name>EXPORT_PATH</name><value>hdfs://bar:8020/staging/${coord:formatTime(coord:nominalTime(), 'yyyy-MM-dd-HH')}/data</value></property>
 </configuration></workflow></action>
</coordinator-app>`
	res, err := dryRunXML(t, xml, nil, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	rc := runConfOf(t, res.Actions[0])
	for k, v := range map[string]string{
		"EXPORT_DB":        "myInputDatabase1",
		"EXPORT_TABLE":     "myInputTable1",
		"IMPORT_DB":        "myInputDatabase2",
		"IMPORT_TABLE":     "myInputTable2",
		"EXPORT_PARTITION": "year='2014',month='03',day='28',hour='08'",
		"EXPORT_PATH":      "hdfs://bar:8020/staging/2014-03-28-08/data",
	} {
		if got := get(rc, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// A function naming something that is not a data-in or data-out is
// refused at submission (Oozie's isValidDataEvent), as is a wrong
// argument count.
func TestHCatSubmitChecksNames(t *testing.T) {
	for _, expr := range []string{
		"${coord:databaseIn('Click-data')}",       // a dataset, not a data-in
		"${coord:tableOut('nope')}",               // nothing
		"${coord:dataInPartitionMin('raw-logs')}", // one argument of two
		"${coord:dataOutPartitionValue('processed-logs')}",
	} {
		xml := hcatApp("0.3", hcatDatasets(false), map[string]string{"X": expr})
		_, err := dryRunXML(t, xml, nil, nil, nil, 1)
		if ErrorCode(err) != CodeEL {
			t.Errorf("%s: %v, want E1004", expr, err)
		}
	}
}

// vars is a plain resolver for the function tables.
type mapVars map[string]string

func (m mapVars) Lookup(n string) (any, bool) { v, ok := m[n]; return v, ok }

func TestHCatEchoPhase(t *testing.T) {
	vars := mapVars{"oozie.dataname.ABC": "data-in", "oozie.dataname.OUT": "data-out"}
	tests := []struct{ expr, want string }{
		{"${coord:databaseIn('ABC')}", "${coord:databaseIn('ABC')}"},
		{"${coord:databaseOut('OUT')}", "${coord:databaseOut('OUT')}"},
		{"${coord:tableIn('ABC')}", "${coord:tableIn('ABC')}"},
		{"${coord:tableOut('OUT')}", "${coord:tableOut('OUT')}"},
		{"${coord:dataInPartitionFilter('ABC', 'pig')}", "${coord:dataInPartitionFilter('ABC', 'pig')}"},
		{"${coord:dataInPartitionMin('ABC', 'mypartition')}", "${coord:dataInPartitionMin('ABC', 'mypartition')}"},
		{"${coord:dataInPartitionMax('ABC', 'mypartition')}", "${coord:dataInPartitionMax('ABC', 'mypartition')}"},
		{"${coord:dataInPartitions('ABC', 'hive-export')}", "${coord:dataInPartitions('ABC', 'hive-export')}"},
		{"${coord:dataOutPartitions('OUT')}", "${coord:dataOutPartitions('OUT')}"},
		{"${coord:dataOutPartitionValue('OUT', 'mypartition')}", "${coord:dataOutPartitionValue('OUT', 'mypartition')}"},
	}
	for _, tc := range tests {
		got, err := EvalAndWrap(PhaseSubmitData, &ELContext{Vars: vars}, tc.expr)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.expr, got, err, tc.want)
		}
	}
	if _, err := EvalAndWrap(PhaseSubmitData, &ELContext{Vars: vars}, "${coord:tableIn('ABCD')}"); err == nil || !strings.Contains(err.Error(), "ABCD is not valid") {
		t.Errorf("unknown name: %v", err)
	}
}

func TestHCatStartPhase(t *testing.T) {
	const (
		u12 = "hcat://hcat.server.com:5080/mydb/clicks/datastamp=12;region=us"
		u13 = "hcat://hcat.server.com:5080/mydb/clicks/datastamp=13;region=us"
		u10 = "hcat://hcat.server.com:5080/mydb/clicks/datastamp=10;region=us"
		u20 = "hcat://hcat.server.com:5080/mydb/clicks/datastamp=20;region=us"
		ha  = "hcat://h1:9083,h2:9083/db2/t2/dt=1"
		hb  = "hcat://h1:9083,h2:9083/db2/t2/dt=2"
	)
	tests := []struct {
		name       string
		vars       mapVars
		expr, want string
		err        string
	}{
		// Oozie's TestHCatELFunctions, with ';' separators.
		{"database in", mapVars{".datain.ABC": u12}, "${coord:databaseIn('ABC')}", "mydb", ""},
		{"database out", mapVars{".dataout.ABC": u12}, "${coord:databaseOut('ABC')}", "mydb", ""},
		{"table in", mapVars{".datain.ABC": u12}, "${coord:tableIn('ABC')}", "clicks", ""},
		{"table out", mapVars{".dataout.ABC": u12}, "${coord:tableOut('ABC')}", "clicks", ""},
		{"filter one", mapVars{".datain.ABC": u12}, "${coord:dataInPartitionFilter('ABC', 'pig')}", "(datastamp=='12' AND region=='us')", ""},
		{"filter two", mapVars{".datain.ABC": u12 + "," + u13}, "${coord:dataInPartitionFilter('ABC', 'pig')}",
			"(datastamp=='12' AND region=='us') OR (datastamp=='13' AND region=='us')", ""},
		{"filter hive", mapVars{".datain.ABC": u12}, "${coord:dataInPartitionFilter('ABC', 'hive')}", "(datastamp='12' AND region='us')", ""},
		{"filter java", mapVars{".datain.ABC": u12}, "${coord:dataInPartitionFilter('ABC', 'java')}", "(datastamp='12' AND region='us')", ""},
		{"out partitions", mapVars{".dataout.ABC": "hcat://hcat.server.com:5080/mydb/clicks/datastamp=20120230;region=us"},
			"${coord:dataOutPartitions('ABC')}", "'datastamp=20120230,region=us'", ""},
		{"out value", mapVars{".dataout.ABC": "hcat://hcat.server.com:5080/mydb/clicks/datastamp=20120230;region=US"},
			"${coord:dataOutPartitionValue('ABC','region')}", "US", ""},
		{"min", mapVars{".datain.ABC": u12 + "," + u13 + "," + u10}, "${coord:dataInPartitionMin('ABC','datastamp')}", "10", ""},
		{"max", mapVars{".datain.ABC": u20 + "," + u12 + "," + u13 + "," + u10}, "${coord:dataInPartitionMax('ABC','datastamp')}", "20", ""},
		// Strings compare as strings: "9" > "10".
		{"max as strings", mapVars{".datain.ABC": u10 + ",hcat://h:1/d/t/datastamp=9"}, "${coord:dataInPartitionMax('ABC','datastamp')}", "9", ""},
		{"hive-export", mapVars{".datain.ABC": u12}, "${coord:dataInPartitions('ABC', 'hive-export')}", "datastamp='12',region='us'", ""},
		// Several metastores: the commas of the authority do not split URIs.
		{"metastores", mapVars{".datain.M": ha + "," + hb}, "${coord:dataInPartitionFilter('M', 'pig')} ${coord:databaseIn('M')}",
			"(dt=='1') OR (dt=='2') db2", ""},
		// Unresolved latest/future: the call waits, as text.
		{"unresolved", mapVars{".datain.ABC": "", ".datain.ABC.unresolved": "true"}, "${coord:dataInPartitionMax('ABC', 'datastamp')}",
			"${coord:dataInPartitionMax('ABC', 'datastamp')}", ""},
		{"unresolved db", mapVars{".datain.ABC": "", ".datain.ABC.unresolved": "true"}, "${coord:databaseIn('ABC')}",
			"${coord:databaseIn('ABC')}", ""},
		// Errors.
		{"hdfs dataset", mapVars{".datain.ABC": "hdfs://nn:8020/data/2009"}, "${coord:databaseIn('ABC')}", "", "HCat URI can't be parsed"},
		{"no instance", mapVars{".datain.ABC": ""}, "${coord:tableIn('ABC')}", "", "has no dataset instance"},
		{"min missing key", mapVars{".datain.ABC": u12}, "${coord:dataInPartitionMin('ABC','nope')}", "", "No value in data-in uri for partition key: nope"},
		{"max missing later", mapVars{".datain.ABC": u12 + ",hcat://h:1/d/t/other=1"}, "${coord:dataInPartitionMax('ABC','datastamp')}", "", "No value"},
		{"export type", mapVars{".datain.ABC": u12}, "${coord:dataInPartitions('ABC', 'pig')}", "", "Unsupported type: pig"},
		{"export many", mapVars{".datain.ABC": u12 + "," + u13}, "${coord:dataInPartitions('ABC', 'hive-export')}", "", "Multiple partitions not supported"},
		{"out many", mapVars{".dataout.ABC": u12 + "," + u13}, "${coord:dataOutPartitions('ABC')}", "", "one expected"},
	}
	for _, tc := range tests {
		got, err := Eval(PhaseActionStart, &ELContext{Vars: tc.vars}, tc.expr)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %q, %v; want error %q", tc.name, got, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestHCatDoneFlag(t *testing.T) {
	flag := "_DONE"
	empty := ""
	u := "hcat://h:1/db/t/dt=1"
	for _, f := range []*string{nil, &flag, &empty} {
		if got := DoneFlagURI(u, f); got != u {
			t.Errorf("DoneFlagURI(%q, %v) = %q", u, f, got)
		}
		if got := appendDoneFlags(nil, []string{u, u + "2"}, f); len(got) != 2 || got[0] != u || got[1] != u+"2" {
			t.Errorf("appendDoneFlags = %q", got)
		}
	}
	if got := DoneFlagURI("hdfs://nn/x", nil); got != "hdfs://nn/x/_SUCCESS" {
		t.Errorf("hdfs: %q", got)
	}
}

// Materialization keeps the functions as written in the stored action
// XML: they need the started action's URIs.
func TestHCatDeferred(t *testing.T) {
	tpl, err := el.Parse("${coord:dataInPartitionFilter('a', 'pig')}")
	if err != nil {
		t.Fatal(err)
	}
	if !deferred(tpl.Nodes[0].(*el.Segment)) {
		t.Error("dataInPartitionFilter is not start-only")
	}
}
