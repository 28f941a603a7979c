#!/bin/sh
# make-repo.sh DIR: creates DIR/origin.git, a bare Git repository with a
# main branch and a release branch (holding VERSION), so that the example
# clones something without a network.
set -eu
dir=$1
mkdir -p "$dir"
git init -q --bare -b main "$dir/origin.git"
git init -q -b main "$dir/src"
cd "$dir/src"
export GIT_AUTHOR_NAME=gozie GIT_AUTHOR_EMAIL=gozie@example.com
export GIT_COMMITTER_NAME=gozie GIT_COMMITTER_EMAIL=gozie@example.com
echo "an example repository" > README
git add README
git commit -q -m "first commit"
git checkout -q -b release
echo "1.0.0" > VERSION
git add VERSION
git commit -q -m "release 1.0.0"
git remote add origin "$dir/origin.git"
git push -q origin main release
echo "repo=file://$dir/origin.git"
