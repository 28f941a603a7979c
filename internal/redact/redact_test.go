package redact

import "testing"

func TestSecrets(t *testing.T) {
	cases := []struct{ in, want string }{
		{"postgres://gozie:s3cret@db:5432/gozie?sslmode=disable", "postgres://gozie:*****@db:5432/gozie?sslmode=disable"},
		{"postgresql://gozie:p@ss@db/gozie", "postgresql://gozie:*****@db/gozie"},
		{"postgres://gozie@db:5432/gozie", "postgres://gozie@db:5432/gozie"},
		{"postgres://db:5432/gozie?user=a@b", "postgres://db:5432/gozie?user=a@b"},
		{"postgres://gozie@db/gozie?password=s3cret&sslmode=disable", "postgres://gozie@db/gozie?password=*****&sslmode=disable"},
		{"host=db user=gozie password=s3cret dbname=gozie", "host=db user=gozie password=***** dbname=gozie"},
		{"host=db password = 's3 cret' dbname=gozie", "host=db password = ***** dbname=gozie"},
		{"PGPASSWORD=s3cret", "PGPASSWORD=*****"},
		{`postgres: connect: dial postgres://u:pw@h/d: refused`, `postgres: connect: dial postgres://u:*****@h/d: refused`},
		{"nothing to see", "nothing to see"},
		{"mail joe@example.com", "mail joe@example.com"},
	}
	for _, c := range cases {
		if got := Secrets(c.in); got != c.want {
			t.Errorf("Secrets(%q) = %q, want %q", c.in, got, c.want)
		}
		if got, want := HasPassword(c.in), c.in != c.want; got != want {
			t.Errorf("HasPassword(%q) = %v, want %v", c.in, got, want)
		}
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"PGPASSWORD": true, "GOZIE_AUTHENTICATION_SECRET": true, "gozie.authentication.tokens": true,
		"DATABASE_DSN": true, "AWS_SECRET_ACCESS_KEY": true, "GITHUB_TOKEN": true,
		"HOME": false, "gozie.http.port": false, "GOZIE_DB": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
