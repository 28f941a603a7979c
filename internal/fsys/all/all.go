// Package all links every file-system backend into a program: importing
// it makes hdfs://, webhdfs://, s3a://, gs://, abfs:// and the other
// schemes of docs/storage.md reachable through fsys. Each backend is
// imported from a file of its own here.
package all
