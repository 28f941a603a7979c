package coord

import (
	"strings"
	"testing"
)

// TestCoordinatorAppAttributes: the coordinator schemas declare exactly
// name, frequency, start, end and timezone on <coordinator-app>; any other
// attribute fails schema validation at submission and in validate, as in
// Oozie (issue 13, point 15).
func TestCoordinatorAppAttributes(t *testing.T) {
	base := `name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"`
	tests := []struct {
		name, attrs string
		want        string // "" = valid
	}{
		{"schema attributes only", base, ""},
		{"namespace declarations", base + ` xmlns:sla="uri:oozie:sla:0.2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"`, ""},
		{"xsi attribute", base + ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="uri:oozie:coordinator:0.4 c.xsd"`, ""},
		{"unknown attribute", base + ` owner="joe"`, "Attribute 'owner' is not allowed to appear in element 'coordinator-app'"},
		{"misspelt attribute", `name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC" timeZone="UTC"`, "Attribute 'timeZone' is not allowed"},
		{"attribute of another namespace", base + ` xmlns:x="uri:x" x:y="1"`, "Attribute 'y' is not allowed"},
	}
	for _, ns := range []string{"0.1", "0.4", "0.5"} {
		for _, tt := range tests {
			t.Run(ns+"/"+tt.name, func(t *testing.T) {
				x := app(ns, tt.attrs, "")
				for _, check := range []struct {
					what string
					err  error
				}{
					{"ParseApp", func() error { _, err := ParseApp([]byte(x)); return err }()},
					{"Submit", func() error { _, _, err := submit(t, x, nil, nil); return err }()},
				} {
					if tt.want == "" {
						if check.err != nil {
							t.Errorf("%s: unexpected error %v", check.what, check.err)
						}
						continue
					}
					if ErrorCode(check.err) != CodeSchema || !strings.Contains(check.err.Error(), tt.want) {
						t.Errorf("%s: error %v; want %s containing %q", check.what, check.err, CodeSchema, tt.want)
					}
				}
			})
		}
	}
}
