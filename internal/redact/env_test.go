package redact

import "testing"

func TestEnvSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"STRIPE_API_KEY":        true,
		"AWS_ACCESS_KEY_ID":     true,
		"AWS_SECRET_ACCESS_KEY": true,
		"ssh_private_key":       true,
		"GnuPG_Keyring":         true,
		"PGPASSWORD":            true, // SecretName's names too
		"GITHUB_TOKEN":          true,
		"HOME":                  false,
		"PATH":                  false,
		"GOZIE_HTTP_PORT":       false,
	} {
		if got := EnvSecretName(name); got != want {
			t.Errorf("EnvSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
