#!/usr/bin/env bash
# Hardening probes: the regression tests of every point of the hardening
# issue (authentication, secrets, resource limits, store outages, atomic
# submission, full disk, run-as-user) and of the second security round
# (lines 23.N: issue 23's point N), run point by point with -count=1 so
# nothing is cached, then the REST and parser fuzz targets for a bounded
# time each. Everything stays on this machine: the servers the tests start
# listen on loopback, PostgreSQL is reached at 127.0.0.1 (skipped where
# absent), and full-disk and run-as-user probes need root (skipped
# otherwise, with the reason in the -v output).
#
# Usage: bench/hardening.sh [fuzztime]     (default 60s per fuzz target; 0 skips fuzzing)
# Prints one line per point (PASS/FAIL, tests run, tests skipped) and one
# line per fuzz target (execs, new crashers).
set -uo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-60s}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
fail=0

# point | packages | test name pattern
probes=(
  "1 auth methods, user.name beside credentials|./internal/server/|^(TestAuthenticationMatrix|TestAuthenticationTypeErrors|TestUserNameParamNeverAuthenticatesBesideTokens|TestBearerTokenEarnsNoCookie)$"
  "2 cookie users exact, names validated|./internal/server/|^(TestCookieUserNotDecoded|TestUserNameValidation|TestBasicCookieRecordsMethod)$"
  "3 secrets never leave the server|./internal/server/ ./internal/redact/ ./internal/store/postgres/ ./internal/cli/|^(TestAdminInfoNeedsAdmin|TestAdminMapsMaskSecrets|TestInternalErrorsHideDetails|TestSecrets|TestSecretName|TestOpenErrorsHideThePassword|TestServerCommandErrors)$"
  "4 expansion and EL strings bounded|./internal/conf/ ./internal/el/ ./internal/engine/|^(TestCheckExpansion|TestExpandBombDefaultLimits|TestStringLimits|TestSubmissionLimits|TestStoredExpansionBomb)$"
  "5 bounded reads of regular files only|./internal/fsys/ ./internal/engine/ ./internal/cli/|^(TestReadFileLimit|TestSubmissionLimits|TestSubmissionReadCanceled|TestDefinitionLimitRaised|TestLocalFilesNotRegular)$"
  "6 integer parameters range checked|./internal/server/|^(TestRequestLimits|TestParseActionRange)$"
  "7 connections, timeouts, XML depth|./internal/server/ ./internal/conf/|^(TestIdleConnectionFlood|TestLimitListenerWaitsWhenAllBusy|TestParseXMLDepth)$"
  "8 store outages retried, 503 meanwhile|./internal/engine/ ./internal/server/ ./internal/store/|^(TestStoreOutageRetriesEffects|TestLongOutageLogsSparingly|TestStoreOutageDuringSubWorkflowStart|TestEffectRetryBackoff|TestCoordStoreOutage|TestPostgresOutage|TestPostgresFlapping|TestUnavailable)$"
  "9 atomic submit+start, external id|./internal/engine/ ./internal/server/ ./internal/client/ ./internal/cli/|^(TestRunIsOneTransaction|TestExternalIDDeduplicates|TestExternalIDRace|TestStartIsAtomicOverREST|TestSubmitRetrying|TestJobRunResendsWithExternalID)$"
  "10 full disk never loses or repeats a step|./internal/action/... ./internal/launch/... ./internal/engine/ ./internal/server/ ./internal/cli/|^(TestShellStatusDiskFull|TestShellStartDiskFull|TestShellLauncherGoneDiskFull|TestShellRealDiskFull|TestEndRetryDiskFull|TestShellOnFullDisk|TestServerOnFullDisk|TestServerStartOnFullDisk)$"
  "11 steps as the job's user|./internal/action/... ./internal/launch/... ./internal/cli/|^(TestShellRunAsUser|TestShellRunAsUserRefused|TestCheckLaunchAsUser)$"
  "23.1+3 file work as the job's user|./internal/osuser/ ./internal/action/... ./internal/launch/... ./internal/engine/ ./internal/coordengine/|^(TestDoActsAsTheUser|TestRunAsFSAction|TestRunAsPrepare|TestRunAsNamedFiles|TestEmailRunAsUser|TestRunAsReadsTheJobsFilesAsItsUser|TestCoordRunAsChecksInputsAsItsUser)$"
  "23.2 steps get no server secrets|./internal/action/... ./internal/launch/...|^(TestStepEnvironment|TestStepEnvRules)$"
  "23.4 files a job names: regular, bounded|./internal/action/... ./internal/launch/...|^(TestNamedFilesBounded)$"
  "23.4q effects that kill the server quarantined|./internal/engine/ ./internal/coordengine/|^(TestCrashQuarantine|TestQuarantineStart|TestQuarantineSparesBystanders|TestQuarantineSlotWaitIsNoDeath|TestQuarantineSuspectWaitBounded|TestJournalDeaths|TestJournalRead|TestJournalCannotOpen|TestCoordQuarantineTick|TestCoordQuarantineLaunch)$"
  "23.5 an action after EL bounded|./internal/engine/ ./internal/coordengine/ ./internal/coord/|^(TestActionAmplification|TestResolveActionLimit|TestCoordActionAmplification|TestCoordStoredAmplification|TestActionBound|TestResolveEarlyBound)$"
  "23.6 admin key not reachable locally|./internal/cli/ ./internal/server/ ./internal/store/sqlite/ ./internal/store/postgres/ ./internal/fsys/|^(TestServerDSNSources|TestClusterCookieKey|TestServerDataDirPrivate|TestCookieSecretFile|TestCookiesAcrossServers|TestGeneratedSecretPrivate|TestLoadConfigAlternatives|TestMigrationDropsClusterSecrets|TestFilesPrivate|TestReadPrivateFile|TestBasicUsersFilePrivate)$"
  "23.7 links and FIFOs in work directories|./internal/action/... ./internal/launch/... ./internal/server/|^(TestLauncherFilesReplaced|TestOutputFilesReplacedByTheStep|TestReserveReplacesPlantedLinks)$"
  "23.8 job secrets masked for other readers|./internal/server/ ./internal/redact/|^(TestSecretsMaskedForReaders|TestCoordSecretsMaskedForReaders|TestSecretsMaskedWithoutAuthorization|TestMaskNamesKey|TestSecretNameExtended|TestMaskerExtraNames|TestMaskText|TestMaskXML|TestMaskProperties|TestMaskValues|TestMaskReader)$"
  "23.9 run-as: others rerun the job as it is|./internal/server/ ./internal/engine/ ./internal/coordengine/|^(TestRerunInRunAsMode|TestCoordChangesInRunAsMode|TestRerunOwnConf|TestConfChanges)$"
  "23.10 Host, headers, cookie, audit, codes|./internal/server/ ./internal/store/postgres/ ./internal/redact/ ./internal/cli/|^(TestRefusedForwardIsAudited|TestCluster|TestHostHeaderCheck|TestHostCheckPeersRefreshed|TestHostCheckLearnsCanonicalName|TestServeUntilCancelled|TestSecurityHeaders|TestDefinitionNeverRendered|TestAuthCookieAttributes|TestAuthCookieSelection|TestOSEnvMasksKeys|TestEnvSecretName|TestErrorBodiesCarryCode)$"
)

printf '%-45s %-6s %6s %8s\n' "point" "result" "passed" "skipped"
for p in "${probes[@]}"; do
  IFS='|' read -r name pkgs pattern <<<"$p"
  out="$log/$(echo "$name" | cut -d' ' -f1).txt"
  # shellcheck disable=SC2086
  if go test -count=1 -v -run "$pattern" $pkgs >"$out" 2>&1; then res=PASS; else res=FAIL; fail=1; fi
  passed=$(grep -c -- '^--- PASS' "$out" || true)
  skipped=$(grep -c -- '^--- SKIP' "$out" || true)
  printf '%-45s %-6s %6s %8s\n' "$name" "$res" "$passed" "$skipped"
  if [ "$res" = FAIL ] || [ "$passed" = 0 ]; then
    [ "$passed" = 0 ] && fail=1
    grep -E -- '^(--- FAIL|--- SKIP|FAIL|panic)|_test.go:[0-9]+:' "$out" | head -20
  fi
  grep -E -A1 -- '^--- SKIP' "$out" | grep -v -- '^--' | sed 's/^/    skipped: /' | head -5
done

if [ "$fuzztime" != 0 ]; then
  echo
  printf '%-40s %-10s %12s %s\n' "fuzz target" "time" "execs" "result"
  for t in "FuzzHandler ./internal/server/" "FuzzQueryParams ./internal/server/" \
           "FuzzParseXML ./internal/conf/" "FuzzEval ./internal/el/" "FuzzMask ./internal/redact/" \
           "FuzzResolveAction ./internal/engine/"; do
    set -- $t
    out="$log/$1.txt"
    if go test -run '^$' -fuzz "^$1\$" -fuzztime "$fuzztime" "$2" >"$out" 2>&1; then res=ok; else res="FAILED (see testdata/fuzz/$1)"; fail=1; fi
    execs=$(grep -oE 'execs: [0-9]+' "$out" | tail -1 | cut -d' ' -f2)
    printf '%-40s %-10s %12s %s\n' "$1 ($2)" "$fuzztime" "${execs:-?}" "$res"
    [ "$res" = ok ] || tail -20 "$out"
  done
fi
exit $fail
