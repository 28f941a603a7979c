package workflow

import (
	"strings"
	"testing"
)

// Each extension action is checked against its own version's schema, as
// Oozie's (client/src/main/resources/<type>-action-<version>.xsd): an
// element a later version added, one out of order, a missing required one
// and a namespace version that does not exist are E0701; what the
// version declares passes. Issue 26, point 4.
func TestExtensionSchemasStrict(t *testing.T) {
	const (
		jtnn = `<job-tracker>j</job-tracker><name-node>n</name-node>`
		rmnn = `<resource-manager>r</resource-manager><name-node>n</name-node>`
		l    = `<launcher><queue>q</queue><memory.mb>512</memory.mb></launcher>`
		conf = `<configuration><property><name>a</name><value>b</value></property></configuration>`
		prep = `<prepare><delete path="/t"/><mkdir path="/t"/></prepare>`
	)
	tests := []struct {
		typ, version, inner string
		want                string // "" = valid, else a part of the E0701 message
	}{
		// shell 0.1 and 0.2 require the cluster elements; 0.1 takes one job-xml.
		{"shell", "0.1", jtnn + prep + `<job-xml>x</job-xml>` + conf + `<exec>e</exec><argument>a</argument><env-var>X=1</env-var><file>f</file><archive>a</archive><capture-output/>`, ""},
		{"shell", "0.1", `<name-node>n</name-node><exec>e</exec>`, `starting with element 'name-node'. One of '{"uri:oozie:shell-action:0.1":job-tracker}'`},
		{"shell", "0.1", jtnn + `<job-xml>x</job-xml><job-xml>y</job-xml><exec>e</exec>`, "starting with element 'job-xml'"},
		{"shell", "0.2", jtnn + `<job-xml>x</job-xml><job-xml>y</job-xml><exec>e</exec>`, ""},
		{"shell", "0.2", `<exec>e</exec>`, "starting with element 'exec'"},
		{"shell", "0.3", `<exec>e</exec>`, ""},
		{"shell", "0.3", l + `<exec>e</exec>`, "starting with element 'launcher'"},
		{"shell", "0.3", rmnn + `<exec>e</exec>`, "starting with element 'resource-manager'"},
		{"shell", "1.0", rmnn + prep + l + conf + `<exec>e</exec><capture-output/>`, ""},
		{"shell", "1.0", `<exec>e</exec><job-xml>x</job-xml>`, "starting with element 'job-xml'"},
		{"shell", "1.0", `<argument>a</argument>`, "starting with element 'argument'"},
		{"shell", "0.3", `<exec>e</exec><bogus/>`, "starting with element 'bogus'"},
		{"shell", "0.3", `<exec>e</exec><capture-output>x</capture-output>`, "'capture-output' must have no character or element"},
		// email: bcc, content_type and attachment came with 0.2.
		{"email", "0.1", `<to>a</to><cc>b</cc><subject>s</subject><body>b</body>`, ""},
		{"email", "0.1", `<to>a</to><bcc>c</bcc><subject>s</subject><body>b</body>`, "starting with element 'bcc'"},
		{"email", "0.1", `<to>a</to><subject>s</subject><body>b</body><content_type>text/html</content_type>`, "starting with element 'content_type'"},
		{"email", "0.1", `<to>a</to><subject>s</subject><body>b</body><attachment>/f</attachment>`, "starting with element 'attachment'"},
		{"email", "0.2", `<to>a</to><cc>b</cc><bcc>c</bcc><subject>s</subject><body>b</body><content_type>text/html</content_type><attachment>/f</attachment>`, ""},
		{"email", "0.2", `<to>a</to><body>b</body>`, "starting with element 'body'"},
		{"email", "0.2", `<subject>s</subject><body>b</body>`, "starting with element 'subject'"},
		{"email", "0.2", `<to>a</to><subject>s</subject>`, "'email' is not complete"},
		// hive: cluster required up to 0.3, <argument> from 0.5, <query> from 0.6, <launcher> in 1.0.
		{"hive", "0.2", jtnn + `<job-xml>x</job-xml><script>s.q</script><param>A=1</param>`, ""},
		{"hive", "0.2", `<name-node>n</name-node><script>s.q</script>`, "starting with element 'name-node'"},
		{"hive", "0.2", jtnn + `<job-xml>x</job-xml><job-xml>y</job-xml><script>s.q</script>`, "starting with element 'job-xml'"},
		{"hive", "0.3", jtnn + `<job-xml>x</job-xml><job-xml>y</job-xml><script>s.q</script>`, ""},
		{"hive", "0.4", `<script>s.q</script>`, ""},
		{"hive", "0.4", `<script>s.q</script><argument>-v</argument>`, "starting with element 'argument'"},
		{"hive", "0.5", `<script>s.q</script><param>A=1</param><argument>-v</argument><file>f</file>`, ""},
		{"hive", "0.5", `<query>select 1</query>`, "starting with element 'query'"},
		{"hive", "0.6", `<query>select 1</query><argument>-v</argument>`, ""},
		{"hive", "0.6", `<script>s.q</script><query>select 1</query>`, "starting with element 'query'"},
		{"hive", "0.6", l + `<script>s.q</script>`, "starting with element 'launcher'"},
		{"hive", "1.0", rmnn + l + `<query>select 1</query>`, ""},
		{"hive", "1.0", `<param>A=1</param>`, "starting with element 'param'"},
		// hive2: jdbc-url required; query from 0.2.
		{"hive2", "0.1", `<jdbc-url>jdbc:hive2://h</jdbc-url><password>p</password><script>s.q</script><argument>a</argument>`, ""},
		{"hive2", "0.1", `<jdbc-url>jdbc:hive2://h</jdbc-url><query>select 1</query>`, "starting with element 'query'"},
		{"hive2", "0.2", `<jdbc-url>jdbc:hive2://h</jdbc-url><query>select 1</query>`, ""},
		{"hive2", "0.2", `<script>s.q</script>`, "starting with element 'script'"},
		{"hive2", "0.2", rmnn + `<jdbc-url>u</jdbc-url><script>s.q</script>`, "starting with element 'resource-manager'"},
		{"hive2", "1.0", rmnn + l + `<jdbc-url>u</jdbc-url><script>s.q</script>`, ""},
		// sqoop: cluster required up to 0.3, one job-xml in 0.2, command or args.
		{"sqoop", "0.2", jtnn + `<job-xml>x</job-xml><command>import</command><file>f</file>`, ""},
		{"sqoop", "0.2", jtnn + `<job-xml>x</job-xml><job-xml>y</job-xml><command>import</command>`, "starting with element 'job-xml'"},
		{"sqoop", "0.3", `<command>import</command>`, "starting with element 'command'"},
		{"sqoop", "0.4", `<arg>import</arg><arg>--table</arg>`, ""},
		{"sqoop", "0.4", `<command>import</command><command>export</command>`, "starting with element 'command'"},
		{"sqoop", "0.4", l + `<command>import</command>`, "starting with element 'launcher'"},
		{"sqoop", "1.0", rmnn + l + `<command>import</command>`, ""},
		// spark: cluster required in 0.1, <file>/<archive> from 0.2.
		{"spark", "0.1", jtnn + `<master>local</master><mode>client</mode><name>p</name><class>C</class><jar>p.jar</jar><spark-opts>-v</spark-opts><arg>1</arg>`, ""},
		{"spark", "0.1", jtnn + `<master>local</master><name>p</name><jar>p.jar</jar><file>f</file>`, "starting with element 'file'"},
		{"spark", "0.1", `<master>local</master><name>p</name><jar>p.jar</jar>`, "starting with element 'master'"},
		{"spark", "0.2", `<master>local</master><name>p</name><jar>p.jar</jar><file>f</file><archive>a</archive>`, ""},
		{"spark", "0.2", `<master>local</master><jar>p.jar</jar>`, "starting with element 'jar'"},
		{"spark", "1.0", rmnn + l + `<master>local</master><name>p</name><jar>p.jar</jar>`, ""},
		// distcp: no <job-xml> in any version; cluster required in 0.1.
		{"distcp", "0.1", jtnn + prep + conf + `<java-opts>-Xmx1g</java-opts><arg>a</arg><arg>b</arg>`, ""},
		{"distcp", "0.1", `<arg>a</arg>`, "starting with element 'arg'"},
		{"distcp", "0.2", `<arg>a</arg><arg>b</arg>`, ""},
		{"distcp", "0.2", `<job-xml>x</job-xml><arg>a</arg>`, "starting with element 'job-xml'"},
		{"distcp", "1.0", rmnn + l + `<arg>a</arg>`, ""},
		// ssh: <arg> came with 0.2, as an alternative to <args>.
		{"ssh", "0.1", `<host>u@h</host><command>ls</command><args>-l</args><capture-output/>`, ""},
		{"ssh", "0.1", `<host>u@h</host><command>ls</command><arg>-l</arg>`, "starting with element 'arg'"},
		{"ssh", "0.2", `<host>u@h</host><command>ls</command><arg>-l</arg><arg>/</arg>`, ""},
		{"ssh", "0.2", `<host>u@h</host><command>ls</command><args>-l</args><arg>/</arg>`, "starting with element 'arg'"},
		{"ssh", "0.2", `<command>ls</command>`, "starting with element 'command'"},
		// git 1.0: name-node required, no job-tracker.
		{"git", "1.0", `<resource-manager>r</resource-manager><name-node>n</name-node>` + prep + `<git-uri>u</git-uri><branch>b</branch><key-path>k</key-path><destination-uri>d</destination-uri>` + conf, ""},
		{"git", "1.0", jtnn + `<git-uri>u</git-uri><destination-uri>d</destination-uri>`, "starting with element 'job-tracker'"},
		// Versions no schema declares.
		{"hive", "0.7", `<script>s.q</script>`, "no declaration can be found for element 'hive'. The hive action is <hive> in uri:oozie:hive-action:{0.2, 0.3, 0.4, 0.5, 0.6, 1.0}"},
		{"shell", "0.4", `<exec>e</exec>`, "no declaration can be found for element 'shell'"},
		{"email", "1.0", `<to>a</to><subject>s</subject><body>b</body>`, "no declaration can be found for element 'email'"},
		{"git", "0.1", `<name-node>n</name-node><git-uri>u</git-uri><destination-uri>d</destination-uri>`, "no declaration can be found for element 'git'"},
	}
	opts := DefaultOptions()
	opts.DefaultNameNode, opts.DefaultJobTracker = "n", "j"
	for _, tt := range tests {
		t.Run(tt.typ+"-"+tt.version+"/"+tt.inner, func(t *testing.T) {
			_, err := Parse([]byte(extWorkflow(tt.typ, tt.typ, tt.version, tt.inner)), opts)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if ErrorCode(err) != CodeSchema || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v; want E0701 containing %q", err, tt.want)
			}
		})
	}
}

// extWorkflow is a workflow whose one action is element elem in the
// namespace of extension typ, version.
func extWorkflow(elem, typ, version, inner string) string {
	return wfXML("0.5", `<start to="a"/><action name="a"><`+elem+` xmlns="uri:oozie:`+typ+`-action:`+version+`">`+inner+
		`</`+elem+`><ok to="end"/><error to="k"/></action>`+killNode+`<end name="end"/>`)
}

// A known extension namespace holds only its own action's element; a
// namespace of a type gozie does not know (a custom action type's) is not
// modelled and its body accepted.
func TestExtensionNamespaceOfOtherTypes(t *testing.T) {
	opts := DefaultOptions()
	opts.ExtensionActions["hello"] = true
	_, err := Parse([]byte(extWorkflow("shell", "hive", "0.5", `<exec>e</exec>`)), opts)
	if ErrorCode(err) != CodeSchema || !strings.Contains(err.Error(), "no declaration can be found for element 'shell'") {
		t.Errorf("shell in the hive namespace: %v", err)
	}
	for _, ns := range []string{"uri:oozie:hello-action:0.1", "uri:example:hello:7", "urn:x"} {
		x := wfXML("0.5", `<start to="a"/><action name="a"><hello xmlns="`+ns+`"><anything><at all="1"/></anything></hello>`+
			`<ok to="end"/><error to="k"/></action>`+killNode+`<end name="end"/>`)
		if _, err := Parse([]byte(x), opts); err != nil {
			t.Errorf("custom action in %s: %v", ns, err)
		}
	}
}
