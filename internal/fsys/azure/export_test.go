package azure

import "github.com/gozie/gozie/internal/fsys"

// DisableBatch makes fs (an azure backend) delete blobs one by one, as it
// does once an account refuses Blob Batch.
func DisableBatch(fs fsys.FileSystem) { fs.(*azureFS).noBatch.Store(true) }

// BatchDisabled reports whether fs (an azure backend) deletes one by one.
func BatchDisabled(fs fsys.FileSystem) bool { return fs.(*azureFS).noBatch.Load() }
