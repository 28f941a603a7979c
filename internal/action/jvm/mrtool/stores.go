package mrtool

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/streaming"
)

// stageStores lets the local runner work on stores: inputs that are URIs
// (s3a://, hdfs://, ...) are fetched into the job directory's staging
// area first, and an output URI is written there and copied to its store
// when the job succeeds (finish). The namespace is the one the action's
// configuration (action.xml beside the job file) describes.
func stageStores(ctx context.Context, dir string, job *streaming.Job) (finish func() error, err error) {
	remote := fsys.Scheme(job.Output) != ""
	for _, in := range job.Inputs {
		remote = remote || fsys.Scheme(in) != ""
	}
	if !remote {
		return nil, nil
	}
	if err := launch.UseActionStores(filepath.Join(dir, launch.ConfFile)); err != nil {
		return nil, err
	}
	ns := fsys.Default()
	staged := filepath.Join(dir, launch.StagedDir)
	var inputs []string
	for i, in := range job.Inputs {
		if fsys.Scheme(in) == "" {
			inputs = append(inputs, in)
			continue
		}
		m, err := ns.Glob(ctx, in)
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%w: Input path does not exist: %s", streaming.ErrInput, in)
		}
		for j, p := range m {
			local := filepath.Join(staged, "in", strconv.Itoa(i), strconv.Itoa(j), baseName(p))
			if err := ns.CopyToLocal(ctx, p, local); err != nil {
				return nil, fmt.Errorf("fetching input [%s]: %w", p, err)
			}
			inputs = append(inputs, local)
		}
	}
	job.Inputs = inputs
	if fsys.Scheme(job.Output) == "" {
		return nil, nil
	}
	out := job.Output
	if ok, err := ns.Exists(ctx, out); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("%w: Output directory %s already exists", streaming.ErrOutputExists, out)
	}
	job.Output = filepath.Join(staged, "out", baseName(out))
	return func() error {
		if err := ns.Copy(ctx, job.Output, out); err != nil {
			return fmt.Errorf("writing the output to [%s]: %w", out, err)
		}
		job.Output = out
		return nil
	}, nil
}

func baseName(p string) string {
	p = strings.TrimSuffix(p, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}
