package bundle

import "testing"

// TestSchema checks every element and attribute rule of the two bundle
// schemas (oozie-bundle-0.1.xsd, oozie-bundle-0.2.xsd), valid and invalid.
func TestSchema(t *testing.T) {
	ok := coordEl(`name="c"`, `<app-path>/a</app-path>`)
	conf1 := `<configuration><property><name>a</name><value>1</value></property></configuration>`
	tests := []struct {
		name, xml, part string
		valid           bool
	}{
		{"0.1 minimal", doc("0.1", "", ok), "", true},
		{"0.2 minimal", doc("0.2", "", ok), "", true},
		{"bundle-app name required", doc("0.2", `x:y="1" xmlns:x="u:x"`, ok), "cvc-complex-type.4: Attribute 'name' must appear on element 'bundle-app'", false},
		{"bundle-app name any string 0.1", doc("0.1", `name="my bundle ${x}"`, ok), "", true},
		{"bundle-app unknown attribute", doc("0.2", `name="b" frequency="1"`, ok), "cvc-complex-type.3.2.2: Attribute 'frequency' is not allowed to appear in element 'bundle-app'", false},
		{"no coordinator", doc("0.2", "", ""), "cvc-complex-type.2.4.b: The content of element 'bundle-app' is not complete", false},
		{"only controls", doc("0.2", "", "<controls/>"), "cvc-complex-type.2.4.b", false},
		{"two coordinators", doc("0.2", "", ok+coordEl(`name="d"`, `<app-path>/b</app-path>`)), "", true},
		{"controls after coordinator", doc("0.2", "", ok+"<controls/>"), "cvc-complex-type.2.4.a: Invalid content was found starting with element 'controls'", false},
		{"two controls", doc("0.2", "", "<controls/><controls/>"+ok), "Invalid content was found starting with element 'controls'", false},
		{"empty controls", doc("0.1", "", "<controls/>"+ok), "", true},
		{"kick-off-time", doc("0.1", "", "<controls><kick-off-time>2009-01-01T00:00Z</kick-off-time></controls>"+ok), "", true},
		{"two kick-off-times", doc("0.1", "", "<controls><kick-off-time>a</kick-off-time><kick-off-time>b</kick-off-time></controls>"+ok), "Invalid content was found starting with element 'kick-off-time'", false},
		{"unknown control", doc("0.2", "", "<controls><timeout>1</timeout></controls>"+ok), "Invalid content was found starting with element 'timeout'", false},
		{"kick-off-time with a child", doc("0.2", "", "<controls><kick-off-time><x/></kick-off-time></controls>"+ok), "cvc-type.3.1.2", false},
		{"coordinator name required", doc("0.2", "", coordEl(`critical="true"`, `<app-path>/a</app-path>`)), "Attribute 'name' must appear on element 'coordinator'", false},
		{"app-path required", doc("0.2", "", coordEl(`name="c"`, conf1)), "Invalid content was found starting with element 'configuration'", false},
		{"empty coordinator", doc("0.2", "", coordEl(`name="c"`, "")), "The content of element 'coordinator' is not complete", false},
		{"two app-paths", doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path><app-path>/b</app-path>`)), "starting with element 'app-path'", false},
		{"configuration", doc("0.1", "", coordEl(`name="c"`, `<app-path>/a</app-path>`+conf1)), "", true},
		{"configuration before app-path", doc("0.1", "", coordEl(`name="c"`, conf1+`<app-path>/a</app-path>`)), "starting with element 'configuration'", false},
		{"empty configuration", doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path><configuration/>`)), "The content of element 'configuration' is not complete", false},
		{"configuration value required", doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path><configuration><property><name>a</name></property></configuration>`)), "The content of element 'property' is not complete", false},
		{"configuration description", doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path><configuration><property><name>a</name><value>1</value><description>d</description></property></configuration>`)), "", true},
		{"configuration value before name", doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path><configuration><property><value>1</value><name>a</name></property></configuration>`)), "starting with element 'value'", false},
		{"unknown coordinator child", doc("0.2", "", coordEl(`name="c"`, `<app-path>/a</app-path><sla/>`)), "starting with element 'sla'", false},
		{"critical 0.1", doc("0.1", "", coordEl(`name="c" critical="true"`, `<app-path>/a</app-path>`)), "", true},
		{"enabled 0.1", doc("0.1", "", coordEl(`name="c" enabled="false"`, `<app-path>/a</app-path>`)), "Attribute 'enabled' is not allowed to appear in element 'coordinator'", false},
		{"enabled 0.2", doc("0.2", "", coordEl(`name="c" enabled="false" critical="x"`, `<app-path>/a</app-path>`)), "", true},
		{"unknown coordinator attribute", doc("0.2", "", coordEl(`name="c" timeout="1"`, `<app-path>/a</app-path>`)), "Attribute 'timeout' is not allowed", false},
		{"0.1 identifier", doc("0.1", "", coordEl(`name="a-b_9"`, `<app-path>/a</app-path>`)), "", true},
		{"0.1 identifier with EL", doc("0.1", "", coordEl(`name="${c}"`, `<app-path>/a</app-path>`)), "cvc-pattern-valid: Value '${c}' is not facet-valid with respect to pattern '([a-zA-Z]([\\-_a-zA-Z0-9])*){1,39}' for type 'IDENTIFIER'", false},
		{"0.1 identifier starting with _", doc("0.1", "", coordEl(`name="_a"`, `<app-path>/a</app-path>`)), "cvc-pattern-valid: Value '_a'", false},
		{"0.1 identifier starting with a digit", doc("0.1", "", coordEl(`name="1a"`, `<app-path>/a</app-path>`)), "cvc-pattern-valid", false},
		{"0.1 empty identifier", doc("0.1", "", coordEl(`name=""`, `<app-path>/a</app-path>`)), "cvc-pattern-valid", false},
		{"0.1 identifier longer than 39", doc("0.1", "", coordEl(`name="a123456789012345678901234567890123456789012345"`, `<app-path>/a</app-path>`)), "", true},
		{"0.2 name any string", doc("0.2", "", coordEl(`name="${bundle:conf('c')} x"`, `<app-path>/a</app-path>`)), "", true},
		{"0.1 parameters", doc("0.1", "", "<parameters><property><name>p</name></property></parameters>"+ok), "starting with element 'parameters'", false},
		{"0.2 parameters", doc("0.2", "", "<parameters><property><name>p</name></property><property><name>q</name><value>1</value><description>d</description></property></parameters>"+ok), "", true},
		{"0.2 parameters after controls", doc("0.2", "", "<controls/><parameters><property><name>p</name></property></parameters>"+ok), "starting with element 'parameters'", false},
		{"0.2 empty parameters", doc("0.2", "", "<parameters/>"+ok), "The content of element 'parameters' is not complete", false},
		{"0.2 parameter without name", doc("0.2", "", "<parameters><property><value>1</value></property></parameters>"+ok), "starting with element 'value'", false},
		{"text in bundle-app", doc("0.2", "", "hello"+ok), "cvc-complex-type.2.3", false},
		{"unknown namespace", `<bundle-app xmlns="uri:oozie:bundle:0.3" name="b">` + ok + `</bundle-app>`, "cvc-elt.1.a: Cannot find the declaration of element 'bundle-app' (unknown namespace", false},
		{"no namespace", `<bundle-app name="b">` + ok + `</bundle-app>`, "cvc-elt.1.a", false},
		{"coordinator-app root", `<coordinator-app xmlns="uri:oozie:bundle:0.2" name="b"/>`, "Cannot find the declaration of element 'coordinator-app'", false},
		{"not well formed", doc("0.2", "", "<controls>"), "XML schema error", false},
		{"other-namespace child", doc("0.2", "", `<x:y xmlns:x="u:x"/>`+ok), "starting with element 'y'", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseValid([]byte(tt.xml))
			if tt.valid {
				wantErr(t, err, "", "")
				return
			}
			wantErr(t, err, CodeSchema, tt.part)
		})
	}
}

// TestSchemaErrorLine: a schema refusal gives the line of the element.
func TestSchemaErrorLine(t *testing.T) {
	xml := "<bundle-app xmlns='uri:oozie:bundle:0.2' name='b'>\n<coordinator name='c'>\n<app-path>/a</app-path>\n<bad/>\n</coordinator>\n</bundle-app>"
	_, err := parseValid([]byte(xml))
	wantErr(t, err, CodeSchema, "(line 4, column 1)")
}
