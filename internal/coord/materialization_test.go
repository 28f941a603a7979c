package coord

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

func TestMaterializationConformance(t *testing.T) {
	for _, v := range loadVectors(t, "materialization.json") {
		id := str(v, "id")
		t.Run(id, func(t *testing.T) {
			if why, ok := divergences[id]; ok {
				t.Skip(why)
			}
			switch kind := str(v, "kind"); {
			case kind == "materialize":
				runMaterialize(t, v)
			case kind == "materialize_failure":
				runMaterializeFailure(t, v)
			case kind == "submit":
				runSubmit(t, v)
			case kind == "input_check":
				runInputCheck(t, v)
			case kind == "next_nominal_time":
				runNextNominal(t, v)
			case kind == "dst_offset":
				runDSTOffset(t, v)
			case kind == "data_event_resolution":
				runDataEvent(t, v)
			default:
				t.Fatalf("unknown kind %q", kind)
			}
		})
	}
}

func runNextNominal(t *testing.T, v map[string]any) {
	job := v["job"].(map[string]any)
	act := v["action"].(map[string]any)
	s := schedule.Schedule{
		Start: mustTime(t, str(job, "start")),
		End:   mustTime(t, str(job, "end")),
		Loc:   zone(t, str(job, "timezone")),
	}
	if str(job, "time_unit") == "CRON" {
		c, err := schedule.ParseCron(str(job, "frequency"))
		if err != nil {
			t.Fatal(err)
		}
		s.Freq = schedule.Frequency{Unit: schedule.CronUnit, Cron: c}
	} else {
		u, err := schedule.ParseUnit(str(job, "time_unit"))
		if err != nil {
			t.Fatal(err)
		}
		e, err := schedule.ParseEndOfDuration(str(job, "end_of_duration"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := schedule.ParseFrequency(str(job, "frequency"))
		if err != nil {
			t.Fatal(err)
		}
		s.Freq = schedule.Frequency{N: f.N, Unit: u, End: e}
	}
	next, ok := s.NextNominalTime(int(act["action_number"].(float64)), mustTime(t, str(act, "nominal_time")))
	want, _ := v["expected_next_nominal_time"].(string)
	got := ""
	if ok {
		got = schedule.FormatTime(next)
	}
	if got != want {
		t.Fatalf("next nominal time = %q, want %q", got, want)
	}
}

func runDSTOffset(t *testing.T, v map[string]any) {
	loc := zone(t, str(v, "timezone"))
	begin, end := mustTime(t, str(v, "begin")), mustTime(t, str(v, "end"))
	switch str(v, "operation") {
	case "calculate":
		got := schedule.FormatTime(mustTime(t, str(v, "target")).Add(schedule.DSTOffset(begin, end, loc)))
		if want := str(v, "expected"); got != want {
			t.Fatalf("calculate = %s, want %s", got, want)
		}
	case "get_dst_offset_ms":
		got := schedule.DSTOffset(begin, end, loc).Milliseconds()
		if want := int64(v["expected"].(float64)); got != want {
			t.Fatalf("offset = %d ms, want %d", got, want)
		}
	default:
		t.Fatalf("unknown operation %q", str(v, "operation"))
	}
}

func runDataEvent(t *testing.T, v map[string]any) {
	ds := datasetOf(t, v["dataset"].(map[string]any))
	ca := v["coordinator_action"].(map[string]any)
	ctx := &ELContext{
		Dataset: ds,
		Action: &Action{
			NominalTime: mustTime(t, str(v, "nominal_time")),
			ActualTime:  mustTime(t, str(v, "actual_time")),
			Location:    zone(t, str(ca, "timezone")),
		},
		Vars: el.MapVars{},
	}
	if vars, ok := v["variables"].(map[string]any); ok {
		mv := el.MapVars{}
		for k, x := range vars {
			mv[k] = x
		}
		ctx.Vars = mv
	}
	var res Resolved
	var err error
	if inst, ok := v["instance"].(string); ok {
		// A single <instance> (data-in or data-out).
		res, err = ResolveInstance(ctx, inst)
	} else {
		res, err = ResolveRange(ctx, str(v, "start_instance"), str(v, "end_instance"))
	}
	if v["expected_error"] == true {
		if err == nil {
			t.Fatalf("resolved %v, want an error", res)
		}
		checkMessage(t, err, v["error_message_contains"])
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	gotURIs, gotInst := res.Unresolved, res.Unresolved
	if res.Unresolved == "" {
		gotURIs = strings.Join(res.URIs, "#")
		parts := make([]string, len(res.Instances))
		for i, x := range res.Instances {
			parts[i] = schedule.FormatTime(x)
		}
		gotInst = strings.Join(parts, "#")
	}
	if want := strings.ReplaceAll(str(v, "expected_uris"), "{TESTDIR_URI}", testDirURI); gotURIs != want {
		t.Errorf("uris:\n got  %s\n want %s", gotURIs, want)
	}
	if want, ok := v["expected_instances"].(string); ok && gotInst != want {
		t.Errorf("instances:\n got  %s\n want %s", gotInst, want)
	}
}
