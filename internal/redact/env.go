package redact

import "strings"

// EnvSecretName reports whether an environment variable's value is never
// shown (admin/os-env): the names of SecretName, and every name containing
// KEY (any case), since keys of every kind travel in the environment
// (AWS_SECRET_ACCESS_KEY, STRIPE_API_KEY, SSH_PRIVATE_KEY, GPG_KEY). A
// configuration key is another matter: its name is ".key" for file paths
// too (gozie.tls.key), so SecretName alone applies there.
func EnvSecretName(name string) bool {
	return SecretName(name) || strings.Contains(strings.ToUpper(name), "KEY")
}
