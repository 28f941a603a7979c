package workflow

import (
	"strings"
	"testing"
)

// An action that needs a cluster and names none is refused as in Oozie
// (E0701), and the message says where one may come from: the action,
// <global>, the server default (and gozie run's local one). Issue 26,
// point 5.
func TestMissingClusterHint(t *testing.T) {
	shell := func(inner, global string) string {
		return wfXML("0.5", global+`<start to="a"/><action name="a"><shell xmlns="uri:oozie:shell-action:0.3">`+inner+
			`<exec>e</exec></shell><ok to="end"/><error to="k"/></action>`+killNode+`<end name="end"/>`)
	}
	tests := []struct {
		name, inner, global  string
		nameNode, jobTracker string   // server defaults
		want                 []string // "" = valid
	}{
		{name: "no name-node", want: []string{
			"E0701: XML schema error, No name-node defined for action [a]: add <name-node> to the action or to <global>, or set oozie.actions.default.name-node",
			"gozie run uses file:/// unless told", "(line 2, column 33)"}},
		{name: "no job-tracker", inner: `<name-node>n</name-node>`, want: []string{
			"No job-tracker or resource-manager defined for action [a]: add <job-tracker> (or <resource-manager>, schema 1.0) to the action or to <global>, or set oozie.actions.default.job-tracker",
			"gozie run uses local unless told"}},
		{name: "from global", global: `<global><job-tracker>j</job-tracker><name-node>n</name-node></global>`},
		{name: "from the server defaults", nameNode: "file:///", jobTracker: "local"},
		{name: "name-node default only", jobTracker: "local", want: []string{"No name-node defined for action [a]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.DefaultNameNode, opts.DefaultJobTracker = tt.nameNode, tt.jobTracker
			_, err := Parse([]byte(shell(tt.inner, tt.global)), opts)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if ErrorCode(err) != CodeSchema {
				t.Fatalf("error %v, want E0701", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\ndoes not say %q", err, w)
				}
			}
		})
	}
}
