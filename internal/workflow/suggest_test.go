package workflow

import (
	"strings"
	"testing"
)

// TestInvalidTransitionSuggests is issue 26 point 13: E0708 names the
// closest node when the transition looks like a slip, keeps Oozie's text
// first, and suggests nothing for names that are far from every node.
func TestInvalidTransitionSuggests(t *testing.T) {
	body := func(to string) string {
		return wfXML("0.5", `<start to="copy-input"/>`+fsAction("copy-input", to, "fail")+
			`<kill name="fail"><message>x</message></kill><end name="end"/>`)
	}
	tests := []struct {
		to, want string // want "" means no suggestion
	}{
		{"fial", "fail"},    // two letters swapped
		{"ned", "end"},      // swapped, short name
		{"End", "end"},      // case
		{"en", ""},          // two letters: too short to guess
		{"b", ""},           // one letter: every short name is one edit away
		{"FAIL", "fail"},    // case only, whatever the length
		{"copy-inpt", ""},   // near only the node itself, which may not be its own target
		{"failed", "fail"},  // two letters more
		{"cleanup", ""},     // nothing near
		{"${next}", ""},     // EL is never "corrected"
		{"fail-node-x", ""}, // too far from "fail"
		{"copy-inptu", ""},  // near only the node itself, which may not be its own target
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			opts := DefaultOptions()
			opts.SchemaValidation = !strings.Contains(tt.to, "${") // the schema refuses EL in a transition first
			_, err := Parse([]byte(body(tt.to)), opts)
			if ErrorCode(err) != CodeInvalidTransition {
				t.Fatalf("got %v, want E0708", err)
			}
			msg := err.Error()
			prefix := "E0708: Invalid transition, node [copy-input] transition [" + tt.to + "]"
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q lacks Oozie's text %q", msg, prefix)
			}
			if tt.want == "" {
				if strings.Contains(msg, "did you mean") {
					t.Errorf("message %q suggests a name, want none", msg)
				}
				return
			}
			if want := "did you mean [" + tt.want + "]?"; !strings.HasSuffix(msg, want) {
				t.Errorf("message %q, want it to end with %q", msg, want)
			}
		})
	}
}

// TestEditDistance pins the distance the suggestion relies on.
func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"fail", "fail", 0},
		{"fial", "fail", 1}, {"end", "ned", 1}, {"kitten", "sitting", 3},
		{"copy-input", "copy-inptu", 1}, {"naïve", "naive", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestUnsupportedActionListsTypes is issue 26 point 13: E0723 keeps
// Oozie's text, then lists the types that run here and the custom-type
// key to set.
func TestUnsupportedActionListsTypes(t *testing.T) {
	x := wfXML("0.5", `<start to="a"/><action name="a"><teleport xmlns="uri:x"/><ok to="end"/><error to="k"/></action>`+killNode+`<end name="end"/>`)
	opts := DefaultOptions()
	opts.ExtensionActions = map[string]bool{"shell": true, "email": true}
	_, err := Parse([]byte(x), opts)
	if ErrorCode(err) != CodeUnsupportedAction {
		t.Fatalf("got %v, want E0723", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"E0723: Unsupported action type, node [a] type [teleport]",
		"[email, fs, java, map-reduce, pig, shell, sub-workflow]",
		"gozie.action.executable.teleport",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
