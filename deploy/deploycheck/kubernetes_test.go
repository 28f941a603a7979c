package deploycheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/server"
)

// The subset of the Kubernetes API the manifests use. Decoding is strict
// (KnownFields): a field these types lack fails the test, so a misspelt
// field (readinesProbe) cannot pass as an ignored one. A field the
// manifests start using is added here; TestKubectlRoundTrip checks the
// same against kubectl's own types where kubectl is installed.
type (
	meta struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	header struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   meta   `yaml:"metadata"`
	}
	configMap struct {
		header `yaml:",inline"`
		Data   map[string]string `yaml:"data"`
	}
	service struct {
		header `yaml:",inline"`
		Spec   struct {
			Selector                 map[string]string `yaml:"selector"`
			ClusterIP                string            `yaml:"clusterIP"`
			PublishNotReadyAddresses bool              `yaml:"publishNotReadyAddresses"`
			Ports                    []struct {
				Name       string `yaml:"name"`
				Port       int    `yaml:"port"`
				TargetPort string `yaml:"targetPort"`
			} `yaml:"ports"`
		} `yaml:"spec"`
	}
	labelSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	pdb struct {
		header `yaml:",inline"`
		Spec   struct {
			MaxUnavailable *int          `yaml:"maxUnavailable"`
			MinAvailable   *int          `yaml:"minAvailable"`
			Selector       labelSelector `yaml:"selector"`
		} `yaml:"spec"`
	}
	resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	}
	probe struct {
		HTTPGet *struct {
			Path   string `yaml:"path"`
			Port   string `yaml:"port"`
			Scheme string `yaml:"scheme"`
		} `yaml:"httpGet"`
		InitialDelaySeconds int `yaml:"initialDelaySeconds"`
		PeriodSeconds       int `yaml:"periodSeconds"`
		TimeoutSeconds      int `yaml:"timeoutSeconds"`
		FailureThreshold    int `yaml:"failureThreshold"`
	}
	envVar struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	}
	container struct {
		Name            string   `yaml:"name"`
		Image           string   `yaml:"image"`
		ImagePullPolicy string   `yaml:"imagePullPolicy"`
		Args            []string `yaml:"args"`
		Env             []envVar `yaml:"env"`
		Ports           []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
			Protocol      string `yaml:"protocol"`
		} `yaml:"ports"`
		StartupProbe    *probe    `yaml:"startupProbe"`
		LivenessProbe   *probe    `yaml:"livenessProbe"`
		ReadinessProbe  *probe    `yaml:"readinessProbe"`
		Resources       resources `yaml:"resources"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	}
	statefulSet struct {
		header `yaml:",inline"`
		Spec   struct {
			Replicas            int           `yaml:"replicas"`
			ServiceName         string        `yaml:"serviceName"`
			PodManagementPolicy string        `yaml:"podManagementPolicy"`
			Selector            labelSelector `yaml:"selector"`
			UpdateStrategy      struct {
				Type string `yaml:"type"`
			} `yaml:"updateStrategy"`
			Template struct {
				Metadata meta `yaml:"metadata"`
				Spec     struct {
					TerminationGracePeriodSeconds int   `yaml:"terminationGracePeriodSeconds"`
					AutomountServiceAccountToken  *bool `yaml:"automountServiceAccountToken"`
					SecurityContext               struct {
						RunAsNonRoot        *bool  `yaml:"runAsNonRoot"`
						RunAsUser           *int   `yaml:"runAsUser"`
						RunAsGroup          *int   `yaml:"runAsGroup"`
						FSGroup             *int   `yaml:"fsGroup"`
						FSGroupChangePolicy string `yaml:"fsGroupChangePolicy"`
						SeccompProfile      struct {
							Type string `yaml:"type"`
						} `yaml:"seccompProfile"`
					} `yaml:"securityContext"`
					Containers []container `yaml:"containers"`
					Volumes    []struct {
						Name      string `yaml:"name"`
						ConfigMap *struct {
							Name string `yaml:"name"`
						} `yaml:"configMap"`
						EmptyDir *struct{} `yaml:"emptyDir"`
					} `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
			VolumeClaimTemplates []struct {
				Metadata meta `yaml:"metadata"`
				Spec     struct {
					AccessModes []string  `yaml:"accessModes"`
					Resources   resources `yaml:"resources"`
				} `yaml:"spec"`
			} `yaml:"volumeClaimTemplates"`
		} `yaml:"spec"`
	}
	kustomization struct {
		APIVersion string   `yaml:"apiVersion"`
		Kind       string   `yaml:"kind"`
		Resources  []string `yaml:"resources"`
	}
)

// manifests holds every object of deploy/kubernetes, decoded strictly.
type manifests struct {
	configMaps   map[string]*configMap
	services     map[string]*service
	pdbs         []*pdb
	statefulSets []*statefulSet
}

// decodeStrict decodes one YAML document into v, refusing unknown fields.
func decodeStrict(doc []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// splitDocs splits a YAML stream into its documents (as bytes, so that
// each can be decoded twice: its kind, then strictly).
func splitDocs(data []byte) ([][]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs [][]byte
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		out, err := yaml.Marshal(&n)
		if err != nil {
			return nil, err
		}
		docs = append(docs, out)
	}
}

// loadManifests reads the files kustomization.yaml lists, and checks that
// it lists every manifest of the directory.
func loadManifests(t *testing.T) *manifests {
	t.Helper()
	dir := filepath.Join(root, "deploy/kubernetes")
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k kustomization
	if err := decodeStrict(data, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			onDisk = append(onDisk, b)
		}
	}
	listed := slices.Clone(k.Resources)
	sort.Strings(listed)
	if !slices.Equal(listed, onDisk) {
		t.Errorf("kustomization.yaml lists %q, the directory holds %q", listed, onDisk)
	}
	m := &manifests{configMaps: map[string]*configMap{}, services: map[string]*service{}}
	for _, name := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		docs, err := splitDocs(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, doc := range docs {
			if err := m.add(doc); err != nil {
				t.Errorf("%s, document %d: %v", name, i+1, err)
			}
		}
	}
	return m
}

func (m *manifests) add(doc []byte) error {
	var h header
	if err := yaml.Unmarshal(doc, &h); err != nil {
		return err
	}
	if h.Metadata.Name == "" {
		return fmt.Errorf("%s has no metadata.name", h.Kind)
	}
	var v any
	switch h.APIVersion + " " + h.Kind {
	case "v1 ConfigMap":
		c := &configMap{}
		m.configMaps[h.Metadata.Name], v = c, c
	case "v1 Service":
		s := &service{}
		m.services[h.Metadata.Name], v = s, s
	case "policy/v1 PodDisruptionBudget":
		p := &pdb{}
		m.pdbs, v = append(m.pdbs, p), p
	case "apps/v1 StatefulSet":
		s := &statefulSet{}
		m.statefulSets, v = append(m.statefulSets, s), s
	default:
		return fmt.Errorf("unexpected object %s %s: add its type to this test", h.APIVersion, h.Kind)
	}
	return decodeStrict(doc, v)
}

func isTrue(b *bool) bool { return b != nil && *b }

// TestKubernetesManifests: several servers on PostgreSQL, probed on the
// health endpoints, not root, on a read-only root file system, the DSN
// from a Secret, every object referring to ones that exist.
func TestKubernetesManifests(t *testing.T) {
	m := loadManifests(t)
	if len(m.statefulSets) != 1 {
		t.Fatalf("%d StatefulSets, want 1", len(m.statefulSets))
	}
	ss := m.statefulSets[0]
	spec := &ss.Spec
	pod := &spec.Template.Spec
	if spec.Replicas < 2 {
		t.Errorf("replicas %d: several servers need at least 2", spec.Replicas)
	}
	if !mapsSubset(spec.Selector.MatchLabels, spec.Template.Metadata.Labels) {
		t.Errorf("StatefulSet selector %v does not select its pods %v", spec.Selector.MatchLabels, spec.Template.Metadata.Labels)
	}
	headless, ok := m.services[spec.ServiceName]
	if !ok || headless.Spec.ClusterIP != "None" {
		t.Errorf("serviceName %q is not a headless Service of the manifests", spec.ServiceName)
	}
	if spec.UpdateStrategy.Type != "RollingUpdate" {
		t.Errorf("updateStrategy %q, want RollingUpdate (one server at a time)", spec.UpdateStrategy.Type)
	}
	if pod.TerminationGracePeriodSeconds <= 30 {
		t.Errorf("terminationGracePeriodSeconds %d, want more than gozie.shutdown.timeout.s (30)", pod.TerminationGracePeriodSeconds)
	}
	psc := pod.SecurityContext
	if !isTrue(psc.RunAsNonRoot) || psc.RunAsUser == nil || strconv.Itoa(*psc.RunAsUser) != dockerUID || psc.FSGroup == nil {
		t.Errorf("pod securityContext %+v: want runAsNonRoot, runAsUser %s (the image's user), fsGroup", psc, dockerUID)
	}
	if psc.SeccompProfile.Type != "RuntimeDefault" {
		t.Errorf("seccompProfile %q, want RuntimeDefault", psc.SeccompProfile.Type)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	checkContainer(t, m, ss, &pod.Containers[0])
	for name, s := range m.services {
		if !mapsSubset(s.Spec.Selector, spec.Template.Metadata.Labels) {
			t.Errorf("Service %s selects %v, not the servers %v", name, s.Spec.Selector, spec.Template.Metadata.Labels)
		}
		for _, p := range s.Spec.Ports {
			if p.Port != 11000 || p.TargetPort != "http" {
				t.Errorf("Service %s port %+v, want 11000 to the container port named http", name, p)
			}
		}
	}
	if len(m.pdbs) != 1 {
		t.Fatalf("%d PodDisruptionBudgets, want 1", len(m.pdbs))
	}
	if p := m.pdbs[0]; p.Spec.MaxUnavailable == nil || *p.Spec.MaxUnavailable != 1 || !mapsSubset(p.Spec.Selector.MatchLabels, spec.Template.Metadata.Labels) {
		t.Errorf("PodDisruptionBudget %+v: want maxUnavailable 1 over the servers", p.Spec)
	}
}

func mapsSubset(sub, of map[string]string) bool {
	if len(sub) == 0 {
		return false
	}
	for k, v := range sub {
		if of[k] != v {
			return false
		}
	}
	return true
}

// checkContainer checks the server container: port, probes, security
// context, environment, mounts.
func checkContainer(t *testing.T, m *manifests, ss *statefulSet, c *container) {
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 11000 || c.Ports[0].Name != "http" {
		t.Errorf("container ports %+v, want 11000 named http", c.Ports)
	}
	for _, p := range []struct {
		name  string
		probe *probe
		path  string
	}{{"startupProbe", c.StartupProbe, "/health/live"}, {"livenessProbe", c.LivenessProbe, "/health/live"}, {"readinessProbe", c.ReadinessProbe, "/health/ready"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port != "http" {
			t.Errorf("%s %+v, want GET %s on port http", p.name, p.probe, p.path)
		}
	}
	sc := c.SecurityContext
	if !isTrue(sc.ReadOnlyRootFilesystem) || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !isTrue(sc.RunAsNonRoot) || !slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Errorf("container securityContext %+v: want readOnlyRootFilesystem, no privilege escalation, non-root, drop ALL", sc)
	}
	if strings.HasSuffix(c.Image, ":latest") || !strings.Contains(c.Image, ":") {
		t.Errorf("image %q is not pinned to a version", c.Image)
	}
	env := map[string]envVar{}
	for _, e := range c.Env {
		env[e.Name] = e
		if strings.Contains(e.Value, "postgres://") || strings.Contains(e.Value, "password") {
			t.Errorf("env %s holds a store DSN or password in the manifest; take it from a Secret", e.Name)
		}
		if strings.HasPrefix(e.Name, "GOZIE_") && !knownEnv()[e.Name] {
			t.Errorf("env %s is no configuration key's variable", e.Name)
		}
	}
	if db := env["GOZIE_DB"]; db.ValueFrom == nil || db.ValueFrom.SecretKeyRef == nil {
		t.Errorf("GOZIE_DB %+v, want a secretKeyRef", db)
	}
	if id := env["GOZIE_SERVER_ID"]; id.Value != "$(POD_NAME)" || env["POD_NAME"].ValueFrom == nil {
		t.Errorf("GOZIE_SERVER_ID %+v, want $(POD_NAME): a restarted pod takes its jobs back under its name", id)
	}
	if base := env["GOZIE_BASE_URL"].Value; !strings.Contains(base, "$(POD_NAME)."+ss.Spec.ServiceName+".") {
		t.Errorf("GOZIE_BASE_URL %q, want the pod's name under the headless Service %s", base, ss.Spec.ServiceName)
	}
	checkMounts(t, m, ss, c)
}

// checkMounts: the data directory on the claim template, a writable /tmp
// (the root file system is read-only), the site file from the ConfigMap
// named by -config, whose keys the server reads.
func checkMounts(t *testing.T, m *manifests, ss *statefulSet, c *container) {
	volumes := map[string]int{}
	for i, v := range ss.Spec.Template.Spec.Volumes {
		volumes[v.Name] = i
	}
	claims := map[string]bool{}
	for _, v := range ss.Spec.VolumeClaimTemplates {
		claims[v.Metadata.Name] = true
	}
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.MountPath] = vm.Name
		if _, ok := volumes[vm.Name]; !ok && !claims[vm.Name] {
			t.Errorf("mount %s: no volume or claim template %q", vm.MountPath, vm.Name)
		}
	}
	if !claims[mounts["/var/lib/gozie"]] {
		t.Errorf("/var/lib/gozie is mounted from %q, want a volume claim template", mounts["/var/lib/gozie"])
	}
	if i, ok := volumes[mounts["/tmp"]]; !ok || ss.Spec.Template.Spec.Volumes[i].EmptyDir == nil {
		t.Errorf("/tmp is not an emptyDir (the root file system is read-only)")
	}
	i := slices.Index(c.Args, "-config")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("args %q: no -config", c.Args)
	}
	dir, file := filepath.Split(c.Args[i+1])
	vi, ok := volumes[mounts[filepath.Clean(dir)]]
	if !ok || ss.Spec.Template.Spec.Volumes[vi].ConfigMap == nil {
		t.Fatalf("-config %s: %s is not mounted from a ConfigMap", c.Args[i+1], dir)
	}
	cm, ok := m.configMaps[ss.Spec.Template.Spec.Volumes[vi].ConfigMap.Name]
	if !ok || cm.Data[file] == "" {
		t.Fatalf("-config %s: the ConfigMap has no key %s", c.Args[i+1], file)
	}
	checkSiteXML(t, "ConfigMap "+cm.Metadata.Name, []byte(cm.Data[file]))
}

func knownEnv() map[string]bool {
	env := map[string]bool{"GOZIE_DATA": true}
	for _, k := range server.ConfigKeys {
		env[server.EnvName(k.Name)] = true
	}
	return env
}

// checkSiteXML: a gozie-site.xml that parses and sets only keys the
// server reads.
func checkSiteXML(t *testing.T, what string, data []byte) {
	t.Helper()
	c, err := conf.ParseXML(bytes.NewReader(data), what)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	known := map[string]bool{}
	for _, k := range server.ConfigKeys {
		known[k.Name] = true
	}
	if len(c.Properties()) == 0 {
		t.Errorf("%s: no properties", what)
	}
	for _, p := range c.Properties() {
		if !known[p.Name] {
			t.Errorf("%s: %s is not a key the server reads (docs/server.md)", what, p.Name)
		}
	}
}

// checkSiteFile is checkSiteXML of a file.
func checkSiteFile(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	checkSiteXML(t, file, data)
}

// TestKubectlRoundTrip decodes the StatefulSet with kubectl's own types
// (`kubectl set env --local`, which needs no cluster) and checks that
// every field of the manifest survives: a field Kubernetes does not know
// is dropped by that decoding, so this is the API's strictness, not this
// package's. Skipped without kubectl (.ci/run installs it where it can).
func TestKubectlRoundTrip(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH (Debian: package kubernetes-client); the strict decoding of TestKubernetesManifests still ran")
	}
	file := filepath.Join(root, "deploy/kubernetes/statefulset.yaml")
	out, err := exec.Command(kubectl, "set", "env", "--local", "-o", "json", "-f", file, "GOZIE_ROUNDTRIP=1").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("kubectl set env --local: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("kubectl output: %v", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := yaml.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, p := range missingPaths(want, got, "") {
		t.Errorf("statefulset.yaml: %s is not a field Kubernetes knows (kubectl dropped it)", p)
	}

	// `kubectl apply -k` builds the kustomization first: it must build,
	// into every object of the directory.
	out, err = exec.Command(kubectl, "kustomize", filepath.Join(root, "deploy/kubernetes")).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("kubectl kustomize: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	docs, err := splitDocs(out)
	if err != nil {
		t.Fatalf("kubectl kustomize output: %v", err)
	}
	m := loadManifests(t)
	if n := len(m.configMaps) + len(m.services) + len(m.pdbs) + len(m.statefulSets); len(docs) != n {
		t.Errorf("kubectl kustomize built %d objects, the manifests hold %d", len(docs), n)
	}
}

// missingPaths lists the map keys of want (recursively, lists by index)
// that got lacks.
func missingPaths(want, got any, at string) []string {
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		for k, v := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, at+"."+k)
				continue
			}
			out = append(out, missingPaths(v, gv, at+"."+k)...)
		}
	case []any:
		g, _ := got.([]any)
		for i, v := range w {
			if i >= len(g) {
				out = append(out, fmt.Sprintf("%s[%d]", at, i))
				continue
			}
			out = append(out, missingPaths(v, g[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
	}
	sort.Strings(out)
	return out
}
