package coord

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

// conformanceDir is where the public behaviour vectors live; the
// GOZIE_CONFORMANCE_DIR environment variable overrides it.
func conformanceDir() string {
	if d := os.Getenv("GOZIE_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "testdata", "conformance")
}

func loadVectors(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(conformanceDir(), name))
	if err != nil {
		t.Fatalf("conformance vectors: %v", err)
	}
	var vs []map[string]any
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return vs
}

// testDirURI stands for {TESTDIR_URI}, the scratch directory of existing_paths.
const testDirURI = "file:///gozie-testdir"

// divergences are vectors gozie deliberately does not reproduce, with why.
var divergences = map[string]string{
	"materialization/testBasicSubmitWithWrongNamespace/01": "E1319 is the bundle engine's refusal of a coordinator:0.1 app inside a bundle; a direct coordinator submission of schema 0.1 is valid (spec Appendix A) and gozie has no bundles yet",
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := schedule.ParseTime(s)
	if err != nil {
		t.Fatalf("vector time %q: %v", s, err)
	}
	return v
}

func zone(t *testing.T, id string) *time.Location {
	t.Helper()
	loc, err := schedule.LoadZone(id)
	if err != nil {
		t.Fatalf("vector zone: %v", err)
	}
	return loc
}

// datasetOf builds a Dataset from a vector's description.
func datasetOf(t *testing.T, m map[string]any) *Dataset {
	t.Helper()
	if m == nil || m["time_unit"] == nil {
		return nil
	}
	u, err := schedule.ParseUnit(str(m, "time_unit"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := schedule.ParseEndOfDuration(str(m, "end_of_duration"))
	if err != nil {
		t.Fatal(err)
	}
	ds := &Dataset{
		Name:            str(m, "name"),
		Frequency:       int(m["frequency"].(float64)),
		Unit:            u,
		End:             e,
		InitialInstance: mustTime(t, str(m, "initial_instance")),
		Location:        zone(t, str(m, "timezone")),
		URITemplate:     strings.ReplaceAll(str(m, "uri_template"), "{TESTDIR_URI}", testDirURI),
	}
	if f, ok := m["done_flag"].(string); ok {
		ds.DoneFlag = &f
	}
	return ds
}

func actionOf(t *testing.T, m map[string]any) *Action {
	t.Helper()
	if m == nil || m["nominal_time"] == nil {
		return nil
	}
	return &Action{
		NominalTime: mustTime(t, str(m, "nominal_time")),
		ActualTime:  mustTime(t, str(m, "actual_time")),
		Location:    zone(t, str(m, "timezone")),
		ID:          str(m, "action_id"),
		Name:        str(m, "name"),
	}
}

// existsIn answers existence from a vector's existing_paths: each listed
// path and every prefix of it exist under {TESTDIR_URI}.
func existsIn(paths []any) func(string) bool {
	set := map[string]bool{}
	for _, p := range paths {
		parts := strings.Split(p.(string), "/")
		for i := range parts {
			set[testDirURI+"/"+strings.Join(parts[:i+1], "/")] = true
		}
	}
	// Like a Hadoop Path, the check collapses repeated slashes in the path
	// ("{TESTDIR_URI}//2009" names the same directory as "/2009").
	return func(uri string) bool {
		scheme, path, _ := strings.Cut(uri, "://")
		for strings.Contains(path, "//") {
			path = strings.ReplaceAll(path, "//", "/")
		}
		return set[strings.TrimSuffix(scheme+"://"+path, "/")]
	}
}

func TestCoordELConformance(t *testing.T) {
	for _, v := range loadVectors(t, "coord_el.json") {
		id := str(v, "id")
		t.Run(id, func(t *testing.T) {
			if why, ok := divergences[id]; ok {
				t.Skip(why)
			}
			switch str(v, "kind") {
			case "el", "uri_template":
				runELVector(t, v)
			case "date_utils":
				runDateUtilsVector(t, v)
			default:
				t.Fatalf("unknown kind %q", str(v, "kind"))
			}
		})
	}
}

func runELVector(t *testing.T, v map[string]any) {
	phase, ok := PhaseByName(str(v, "el_phase"))
	if !ok {
		t.Fatalf("unknown phase %q", str(v, "el_phase"))
	}
	ds, _ := v["dataset"].(map[string]any)
	act, _ := v["action"].(map[string]any)
	vars := el.MapVars{}
	if m, ok := v["variables"].(map[string]any); ok {
		for k, x := range m {
			vars[k] = x
		}
	}
	ctx := &ELContext{Dataset: datasetOf(t, ds), Action: actionOf(t, act), Vars: vars}
	if p, ok := v["existing_paths"].([]any); ok {
		ctx.Exists = existsIn(p)
	}
	var got string
	var err error
	if str(v, "evaluation_mode") == "evaluate" {
		got, err = Eval(phase, ctx, str(v, "expression"))
	} else {
		got, err = EvalAndWrap(phase, ctx, str(v, "expression"))
	}
	if v["expected_error"] == true {
		if err == nil {
			t.Fatalf("%s: got %q, want an error", str(v, "expression"), got)
		}
		checkMessage(t, err, v["error_message_contains"])
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", str(v, "expression"), err)
	}
	if want := str(v, "expected"); got != want {
		t.Fatalf("%s: got %q, want %q", str(v, "expression"), got, want)
	}
	if after, ok := v["expected_evaluator_variables_after"].(map[string]any); ok {
		if u, ok := after["timeunit"].(string); ok && ctx.TimeUnit.String() != u {
			t.Errorf("timeunit = %s, want %s", ctx.TimeUnit, u)
		}
		if e, ok := after["endOfDuration"].(string); ok && ctx.EndOfDuration.String() != e {
			t.Errorf("endOfDuration = %s, want %s", ctx.EndOfDuration, e)
		}
	}
}

func checkMessage(t *testing.T, err error, want any) {
	t.Helper()
	var subs []string
	switch w := want.(type) {
	case string:
		subs = []string{w}
	case []any:
		for _, s := range w {
			subs = append(subs, s.(string))
		}
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

func runDateUtilsVector(t *testing.T, v map[string]any) {
	pz, err := schedule.ParseProcessingZone(str(v, "oozie_processing_timezone"))
	if err != nil {
		t.Fatal(err)
	}
	input, _ := v["input"].(string)
	wantErr := v["expected_error"] != nil
	var got any
	switch op := str(v, "operation"); op {
	case "parse":
		var tm time.Time
		tm, err = pz.Parse(input)
		got = pz.Format(tm)
	case "parse_then_format":
		var tm time.Time
		if tm, err = pz.Parse(input); err == nil {
			got = pz.Format(tm)
		}
	case "set_processing_timezone":
		_, err = schedule.ParseProcessingZone(input)
		got = "valid"
	case "get_timezone":
		if v["input"] == nil {
			err = fmt.Errorf("null time zone id")
		} else {
			got, err = schedule.NormalizeZoneID(input)
		}
	case "is_three_letter_tz_name":
		got = schedule.IsThreeLetterZoneID(input)
	case "check_date_oozie_tz":
		_, err = pz.Parse(input)
		got = "valid"
	case "check_timezone":
		_, err = schedule.LoadZone(input)
		got = "valid"
	default:
		t.Fatalf("unknown operation %q", op)
	}
	if wantErr {
		if err == nil {
			t.Fatalf("%s(%q) = %v, want an error", str(v, "operation"), input, got)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s(%q): %v", str(v, "operation"), input, err)
	}
	if fmt.Sprint(got) != fmt.Sprint(v["expected"]) {
		t.Fatalf("%s(%q) = %v, want %v", str(v, "operation"), input, got, v["expected"])
	}
}
