package vocab

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const (
	wfID     = "0000001-250127091857123-oozie-oozi-W"
	coordID  = "0000010-250127091857123-oozie-oozi-C"
	bundleID = "0000011-250127091857123-oozie-oozi-B"
)

func TestFormatJobID(t *testing.T) {
	start := time.Date(2026, 1, 22, 3, 4, 5, 123e6, time.UTC)
	if got := FormatJobID(1, start, "oozie-joe", TypeWorkflow); got != "0000001-260122030405123-oozie-joe-W" {
		t.Errorf("FormatJobID = %q", got)
	}
	if got := FormatJobID(12345678, start, "gz", TypeCoordinator); got != "12345678-260122030405123-gz-C" {
		t.Errorf("FormatJobID wide counter = %q", got)
	}
	if got := ActionID(wfID, ":start:"); got != wfID+"@:start:" {
		t.Errorf("ActionID = %q", got)
	}
	if got := CoordActionID(coordID, 12); got != coordID+"@12" {
		t.Errorf("CoordActionID = %q", got)
	}
}

// TestKindOf is the server's dispatch (rest-api.md 6), including what
// the older copies disagreed on.
func TestKindOf(t *testing.T) {
	tests := []struct {
		id   string
		want IDKind
	}{
		{wfID, IDWorkflow},
		{wfID + "@mr-node", IDWorkflowAction},
		{wfID + "@:start:", IDWorkflowAction},
		{coordID, IDCoord},
		{coordID + "@1", IDCoordAction},
		{bundleID, IDBundle},
		{"something-else", IDCoord}, // Oozie's default branch
		{"", IDCoord},
		// A node name ending like a job suffix is still a node.
		{wfID + "@load-B", IDWorkflowAction},
		{wfID + "@load-W", IDWorkflowAction},
		// "C@" without the dash is not a coordinator action (Oozie tests "-C@").
		{"0000010-250127091857123-oozie-ooziC@1", IDCoord},
		// An action of a bundle is no kind of action Oozie serves.
		{bundleID + "@x", IDCoord},
	}
	for _, tt := range tests {
		if got := KindOf(tt.id); got != tt.want {
			t.Errorf("KindOf(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestSplitID(t *testing.T) {
	tests := []struct {
		id, job, action string
		isAction        bool
	}{
		{wfID, wfID, "", false},
		{wfID + "@a", wfID, "a", true},
		{wfID + "@a@b", wfID, "a@b", true},
		{coordID + "@3", coordID, "3", true},
		{"@", "", "", true},
		{"", "", "", false},
	}
	for _, tt := range tests {
		job, action, ok := SplitID(tt.id)
		if job != tt.job || action != tt.action || ok != tt.isAction {
			t.Errorf("SplitID(%q) = %q, %q, %v", tt.id, job, action, ok)
		}
		if JobOf(tt.id) != tt.job {
			t.Errorf("JobOf(%q) = %q", tt.id, JobOf(tt.id))
		}
	}
}

func TestParseID(t *testing.T) {
	valid := []struct {
		id   string
		want ID
	}{
		{wfID, ID{Kind: IDWorkflow, Counter: 1, Start: "250127091857123", System: "oozie-oozi"}},
		{coordID, ID{Kind: IDCoord, Counter: 10, Start: "250127091857123", System: "oozie-oozi"}},
		{bundleID, ID{Kind: IDBundle, Counter: 11, Start: "250127091857123", System: "oozie-oozi"}},
		{wfID + "@mr-node", ID{Kind: IDWorkflowAction, Counter: 1, Start: "250127091857123", System: "oozie-oozi", Action: "mr-node"}},
		{wfID + "@:start:", ID{Kind: IDWorkflowAction, Counter: 1, Start: "250127091857123", System: "oozie-oozi", Action: ":start:"}},
		{coordID + "@1", ID{Kind: IDCoordAction, Counter: 10, Start: "250127091857123", System: "oozie-oozi", Action: "1"}},
		{"12345678-250127091857123-gz-W", ID{Kind: IDWorkflow, Counter: 12345678, Start: "250127091857123", System: "gz"}},
	}
	for _, tt := range valid {
		got, err := ParseID(tt.id)
		if err != nil || got != tt.want {
			t.Errorf("ParseID(%q) = %+v, %v; want %+v", tt.id, got, err, tt.want)
			continue
		}
		if got.String() != tt.id {
			t.Errorf("String() = %q, want %q", got.String(), tt.id)
		}
		if JobOf(tt.id) != got.Job() {
			t.Errorf("Job() = %q, want %q", got.Job(), JobOf(tt.id))
		}
	}
	invalid := []string{
		"",
		"W",
		"-W",
		"garbage",
		"0000001-250127091857123-oozie-oozi-X",
		"0000001-250127091857123-oozie-oozi-w",
		"000001-250127091857123-oozie-oozi-W",   // counter too short
		"0000001-25012709185712-oozie-oozi-W",   // start too short
		"00000a1-250127091857123-oozie-oozi-W",  // counter not digits
		"0000001-2501270918571x3-oozie-oozi-W",  // start not digits
		"0000001-250127091857123--W",            // no system id
		"0000001-250127091857123-W",             // no system part at all
		"0000001-250127091857123-oozie-oozi-W@", // empty node name
		coordID + "@0",                          // actions count from 1
		coordID + "@01",                         // no padding
		coordID + "@x",                          // not a number
		coordID + "@",                           // empty number
		bundleID + "@1",                         // bundles have no actions here
		"99999999999999999999-250127091857123-a-W", // counter overflows
		"0000001-250127091857123-a/b-W",            // slash in the system id
	}
	for _, id := range invalid {
		if got, err := ParseID(id); err == nil || !errors.Is(err, ErrBadID) {
			t.Errorf("ParseID(%q) = %+v, %v; want ErrBadID", id, got, err)
		}
	}
}

func TestIDKindString(t *testing.T) {
	names := map[IDKind]string{IDWorkflow: "wf", IDWorkflowAction: "wf-action", IDCoord: "coord",
		IDCoordAction: "coord-action", IDBundle: "bundle", IDUnknown: "unknown"}
	for k, want := range names {
		if k.String() != want {
			t.Errorf("%d.String() = %q, want %q", k, k.String(), want)
		}
	}
}

// FuzzParseID: ParseID never panics; what it accepts formats back to an id
// it parses to the same value, whose kind KindOf agrees with.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{wfID, coordID, bundleID, wfID + "@a", coordID + "@7", "x", "", "@", "-C@", "0000001--a-W"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = KindOf(s)
		_, _, _ = SplitID(s)
		id, err := ParseID(s)
		if err != nil {
			return
		}
		again, err := ParseID(id.String())
		if err != nil || again != id {
			t.Fatalf("ParseID(%q) = %+v, but its String %q parses to %+v, %v", s, id, id.String(), again, err)
		}
		if KindOf(s) != id.Kind {
			t.Fatalf("KindOf(%q) = %v, ParseID kind %v", s, KindOf(s), id.Kind)
		}
		if !strings.HasPrefix(s, JobOf(s)) {
			t.Fatalf("JobOf(%q) = %q", s, JobOf(s))
		}
	})
}
