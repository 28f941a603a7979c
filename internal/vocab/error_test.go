package vocab

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func TestErrorRendering(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"coded", &Error{Code: "E0604", Msg: "Job does not exist [x]"}, "E0604: Job does not exist [x]"},
		{"coded with position", (&Error{Code: "E0701", Msg: "m"}).At(3, 4), "E0701: m"},
		{"file and line", &Error{Source: "a.xml", Line: 3, Msg: "m"}, "a.xml:3: m"},
		{"file only", &Error{Source: "a.xml", Msg: "m"}, "a.xml: m"},
		{"line only", &Error{Line: 2, Msg: "m"}, "<input>:2: m"},
		{"el with column", &Error{Code: "E1004", Form: FormEL, Expr: "${a}", Column: 3, Msg: "variable [a] cannot be resolved"},
			"E1004: Expression language evaluation error, variable [a] cannot be resolved at column 3 in [${a}]"},
		{"el without column", &Error{Code: "E1004", Form: FormEL, Expr: "${a}", Msg: "m"},
			"E1004: Expression language evaluation error, m in [${a}]"},
		{"errorf", Errorf("E0727", "Workflow Job can not be suspended as its not in running state, %s, Status: %s", "j", "PREP"),
			"E0727: Workflow Job can not be suspended as its not in running state, j, Status: PREP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

type oozieCoded struct{}

func (oozieCoded) Error() string     { return "E1004: too big" }
func (oozieCoded) OozieCode() string { return "E1004" }

type multi []error

func (m multi) Error() string   { return "multi" }
func (m multi) Unwrap() []error { return m }

func TestCodeOf(t *testing.T) {
	cause := errors.New("disk on fire")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", errors.New("x"), ""},
		{"coded", Errorf("E0604", "x"), "E0604"},
		{"wrapped once", fmt.Errorf("ctx: %w", Errorf("E0701", "x")), "E0701"},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", Errorf("E0723", "x"))), "E0723"},
		{"uncoded around coded", &Error{Msg: "file", Err: Errorf("E0710", "x")}, "E0710"},
		{"coded around cause", &Error{Code: "JA009", Err: cause}, "JA009"},
		{"OozieCode method", fmt.Errorf("w: %w", oozieCoded{}), "E1004"},
		{"joined", errors.Join(errors.New("a"), Errorf("E0605", "x")), "E0605"},
		{"multi unwrap", multi{errors.New("a"), Errorf("E1003", "x")}, "E1003"},
		{"uncoded only", &Error{Source: "a.xml", Msg: "m"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CodeOf(tt.err); got != tt.want {
				t.Errorf("CodeOf = %q, want %q", got, tt.want)
			}
		})
	}
	if !errors.Is(&Error{Code: "JA009", Err: cause}, cause) {
		t.Error("errors.Is does not see the cause through Unwrap")
	}
}

// TestClassified: a coded error that is not an executor's verdict (zero
// Kind) is not taken for one, even though it is the same Go type; a
// verdict wrapped inside another coded error is found.
func TestClassified(t *testing.T) {
	verdict := &Error{Kind: KindNonTransient, Code: "JA002", Msg: "x"}
	tests := []struct {
		name string
		err  error
		want *Error
	}{
		{"workflow error", Errorf("E0701", "x"), nil},
		{"el error", &Error{Code: "E1004", Form: FormEL}, nil},
		{"plain", errors.New("x"), nil},
		{"verdict", verdict, verdict},
		{"verdict wrapped", fmt.Errorf("w: %w", verdict), verdict},
		{"verdict under an unclassified coded error", &Error{Code: "E0710", Err: verdict}, verdict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classified(tt.err); got != tt.want {
				t.Errorf("Classified = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestKindJSON: the wire numbers of the retry kinds are those they had
// before KindUnclassified existed.
func TestKindJSON(t *testing.T) {
	tests := []struct {
		k    Kind
		wire string
	}{
		{KindUnclassified, "-1"}, {KindTransient, "0"}, {KindNonTransient, "1"}, {KindError, "2"}, {KindFailed, "3"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.k)
		if err != nil || string(b) != tt.wire {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.k, b, err, tt.wire)
		}
		var k Kind
		if err := json.Unmarshal([]byte(tt.wire), &k); err != nil || k != tt.k {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", tt.wire, k, err, tt.k)
		}
	}
	var k Kind
	for _, bad := range []string{"4", "-2", `"x"`} {
		if err := json.Unmarshal([]byte(bad), &k); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
	if KindUnclassified.String() != "unclassified" || KindError.String() != "error" {
		t.Error("Kind names")
	}
}

func TestCatalogue(t *testing.T) {
	tests := []struct {
		code     string
		status   int
		class    Kind
		template string
	}{
		{"E0002", http.StatusServiceUnavailable, KindUnclassified, "System is in safe mode"},
		{"E0503", http.StatusUnauthorized, KindUnclassified, "User [{0}] does not have admin privileges"},
		{"E0508", http.StatusUnauthorized, KindUnclassified, "User [{0}] not authorized for WF job [{1}]"},
		{"E0509", http.StatusUnauthorized, KindUnclassified, "User [{0}] not authorized for Coord job [{1}]"},
		{"E1400", http.StatusUnauthorized, KindUnclassified, "doAs (proxyuser) failure"},
		{"E0604", http.StatusBadRequest, KindUnclassified, "Job does not exist [{0}]"},
		{"E1004", http.StatusBadRequest, KindUnclassified, "Expression language evaluation error, {0}"},
		{"JA009", http.StatusBadRequest, KindTransient, ""},
		{"JA002", http.StatusBadRequest, KindNonTransient, ""},
		{"FS009", http.StatusBadRequest, KindError, ""},
		{"E0902", http.StatusBadRequest, KindFailed, "Exception occured: [{0}]"},
	}
	for _, tt := range tests {
		e, ok := Lookup(tt.code)
		if !ok {
			t.Errorf("Lookup(%s) not found", tt.code)
			continue
		}
		if e.Code != tt.code || e.HTTP != tt.status || e.Class != tt.class || e.Template != tt.template {
			t.Errorf("Lookup(%s) = %+v", tt.code, e)
		}
		if HTTPStatus(tt.code) != tt.status {
			t.Errorf("HTTPStatus(%s) = %d, want %d", tt.code, HTTPStatus(tt.code), tt.status)
		}
	}
	if _, ok := Lookup("E9999"); ok {
		t.Error("Lookup of an unknown code succeeded")
	}
	if HTTPStatus("E9999") != http.StatusBadRequest || HTTPStatus("") != http.StatusBadRequest {
		t.Error("unknown codes are not 400")
	}
	for _, c := range Codes() {
		e, _ := Lookup(c)
		if e.Template == "" && e.About == "" {
			t.Errorf("%s has neither a template nor a description", c)
		}
	}
}

func TestAsCoded(t *testing.T) {
	plain := Errorf("E0710", "x")
	tests := []struct {
		name string
		err  error
		want *Error
	}{
		{"plain", plain, plain},
		{"wrapped", fmt.Errorf("w: %w", plain), plain},
		{"el", &Error{Code: "E1004", Form: FormEL}, nil},
		{"uncoded", &Error{Source: "a.xml", Msg: "m"}, nil},
		{"plain under uncoded", &Error{Source: "a.xml", Msg: "m", Err: plain}, plain},
		{"not ours", errors.New("x"), nil},
	}
	for _, tt := range tests {
		if got := AsCoded(tt.err); got != tt.want {
			t.Errorf("%s: AsCoded = %v, want %v", tt.name, got, tt.want)
		}
	}
}
