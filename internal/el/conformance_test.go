package el

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// vector is the part of a basic_el.json entry this package runs.
type vector struct {
	ID                   string          `json:"id"`
	Kind                 string          `json:"kind"`
	Function             string          `json:"function"`
	Args                 []any           `json:"args"`
	Variables            map[string]any  `json:"variables"`
	Expression           string          `json:"expression"`
	Expected             json.RawMessage `json:"expected"`
	ExpectedError        bool            `json:"expected_error"`
	ErrorMessageContains any             `json:"error_message_contains"`
	ErrorDetail          string          `json:"error_detail"`
}

// otherPackages names where the vector kinds this runner does not own are
// covered.
var otherPackages = map[string]string{
	"wf_el":             "covered by internal/workflow TestConformanceWorkflowEL (wf:* functions need a workflow context)",
	"kill_message":      "covered by internal/workflow TestConformanceWorkflowEL (kill node message evaluation)",
	"wf_submit_el":      "covered by internal/workflow (submission-time EL)",
	"config_resolution": "covered by internal/conf (Hadoop-style ${var} substitution)",
}

// divergences lists vectors that contradict the specification text, with
// the reason the specification wins. Empty: every vector agrees.
var divergences = map[string]string{}

func conformanceFile(t *testing.T) string {
	dir := os.Getenv("GOZIE_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "conformance")
	}
	return filepath.Join(dir, "basic_el.json")
}

func TestConformanceBasicEL(t *testing.T) {
	data, err := os.ReadFile(conformanceFile(t))
	if err != nil {
		t.Fatalf("conformance vectors not available (set GOZIE_CONFORMANCE_DIR): %v", err)
	}
	var vectors []vector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	fixed := time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC)
	for _, v := range vectors {
		t.Run(v.ID, func(t *testing.T) {
			if why, ok := divergences[v.ID]; ok {
				t.Skip(why)
			}
			switch v.Kind {
			case "function_call":
				got, err := Basic().CallDirect("", v.Function, jsonToEL(v.Args).([]any)...)
				checkResult(t, v, got, err)
			case "el_eval":
				ev := &Evaluator{Funcs: Basic(), Vars: MapVars(jsonToEL(v.Variables).(map[string]any)), Now: func() time.Time { return fixed }}
				got, err := ev.EvalString(v.Expression)
				var res any = got
				if err != nil {
					res = nil
				}
				checkResult(t, v, res, err)
			default:
				if why, ok := otherPackages[v.Kind]; ok {
					t.Skip(why)
				}
				t.Skipf("unknown vector kind %q", v.Kind)
			}
		})
	}
}

// jsonToEL turns decoded JSON into EL values: integral numbers become int64
// (JSON has one number type, EL has two).
func jsonToEL(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonToEL(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonToEL(e)
		}
		return out
	case nil:
		return nil
	}
	return v
}

func checkResult(t *testing.T, v vector, got any, err error) {
	t.Helper()
	if v.ExpectedError {
		if err == nil {
			t.Fatalf("%s: got %#v, want an error", v.Expression, got)
		}
		var wants []string
		switch c := v.ErrorMessageContains.(type) {
		case string:
			wants = append(wants, c)
		case []any:
			for _, s := range c {
				wants = append(wants, s.(string))
			}
		}
		if v.ErrorDetail != "" {
			// error_detail is "JavaException: message"; the message is what we match.
			_, msg, _ := strings.Cut(v.ErrorDetail, ": ")
			wants = append(wants, msg)
		}
		for _, w := range wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not contain %q", err, w)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("%s%s: unexpected error: %v", v.Expression, v.Function, err)
	}
	var want any
	if err := json.Unmarshal(v.Expected, &want); err != nil {
		t.Fatal(err)
	}
	switch w := want.(type) {
	case nil:
		if got != nil {
			t.Errorf("got %#v, want null", got)
		}
	case string:
		if s, ok := got.(string); !ok || s != w {
			t.Errorf("got %#v, want %q", got, w)
		}
	case map[string]any:
		checkObjectExpectation(t, w, ToString(got))
	default:
		t.Fatalf("unsupported expectation %#v", want)
	}
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\dZ$`)

func checkObjectExpectation(t *testing.T, want map[string]any, got string) {
	t.Helper()
	for k, w := range want {
		switch k {
		case "matches_format":
			if !strings.HasPrefix(w.(string), "yyyy-MM-dd'T'HH:mm'Z'") {
				t.Fatalf("unsupported format %q", w)
			}
			if !timestampRE.MatchString(got) {
				t.Errorf("%q does not match %s", got, w)
			}
		case "contains":
			for _, s := range w.([]any) {
				if !strings.Contains(got, s.(string)) {
					t.Errorf("%q does not contain %q", got, s)
				}
			}
		case "xml_unescaped_then_parsed_as_properties_equals":
			props := parsePropertiesForTest(t, unescapeXMLForTest(got))
			wm := w.(map[string]any)
			if len(props) != len(wm) {
				t.Errorf("got properties %v, want %v", props, wm)
			}
			for pk, pv := range wm {
				if props[pk] != pv {
					t.Errorf("property %q = %q, want %q (text %q)", pk, props[pk], pv, got)
				}
			}
		default:
			t.Fatalf("unsupported expectation %q", k)
		}
	}
}

func unescapeXMLForTest(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#039;", "'", "&amp;", "&").Replace(s)
}

// parsePropertiesForTest reads the simple key=value subset that the
// properties vectors use (comments skipped, \-escapes resolved).
func parsePropertiesForTest(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		var key strings.Builder
		i := 0
		for ; i < len(line); i++ {
			if line[i] == '\\' && i+1 < len(line) {
				i++
				key.WriteByte(line[i])
				continue
			}
			if line[i] == '=' || line[i] == ':' {
				break
			}
			key.WriteByte(line[i])
		}
		val := ""
		if i < len(line) {
			val = strings.NewReplacer(`\\`, `\`, `\=`, "=", `\:`, ":", `\ `, " ", `\#`, "#", `\!`, "!").Replace(line[i+1:])
		}
		out[key.String()] = val
	}
	return out
}
