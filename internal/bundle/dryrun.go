package bundle

import "github.com/gozie/gozie/internal/conf"

// DryRun submits the bundle of props without a job, as Oozie's dry run
// does, and returns what that answers as the "id": the resolved job XML
// (comments removed) and a line separator. Failures are Submit's.
func DryRun(props *conf.Config, opts SubmitOptions) (string, error) {
	a, _, err := Submit(props, opts)
	if err != nil {
		return "", err
	}
	return a.JobXML + "\n", nil
}
