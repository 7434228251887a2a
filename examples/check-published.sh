#!/usr/bin/env bash
# The proof that what the build publishes is enough for a user: run by bin/bayeux test after the build deployed
# every published module to a file repository ($1). Checks the repository (each library has its sources and Javadoc
# jars; the BOM lists exactly the published libraries), then builds and tests examples/embedded-jetty, a project
# outside the reactor that knows the server only by its coordinates, with a Maven that sees nothing but that
# repository and the third-party artifacts already in the local repository (no network, no reactor, no snapshot
# of ours that an earlier `mvn install` may have left). Its test serves the CometD JavaScript client to Chromium.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$1" && pwd)"
# The local repository the build just filled with third-party artifacts: BAYEUX_M2_REPOSITORY, else
# -Dmaven.repo.local in MAVEN_OPTS or MAVEN_ARGS, else <localRepository> of ~/.m2/settings.xml, else Maven's default.
local_repo="${BAYEUX_M2_REPOSITORY:-}"
if [ -z "$local_repo" ]; then
  local_repo="$(printf '%s\n' "${MAVEN_OPTS:-} ${MAVEN_ARGS:-}" | grep -o -- '-Dmaven\.repo\.local=[^ ]*' | tail -1 | cut -d= -f2-)" || true
fi
if [ -z "$local_repo" ] && [ -f "$HOME/.m2/settings.xml" ]; then
  local_repo="$(sed -e 's/<!--.*-->//g' -e '/<!--/,/-->/d' "$HOME/.m2/settings.xml" |
    sed -n 's|.*<localRepository>\(.*\)</localRepository>.*|\1|p' | head -1)"
fi
local_repo="${local_repo:-$HOME/.m2/repository}"
version="$(sed -n '/<artifactId>bayeux-parent<\/artifactId>/,/<version>/s|.*<version>\(.*\)</version>.*|\1|p' "$ROOT/pom.xml")"
fail() { echo "check-published: $*" >&2; exit 1; }

[ -n "$version" ] || fail "no version found in $ROOT/pom.xml"
# One version for everything (docs/releasing.md): the npm package has none of Maven's snapshots.
npm_version="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ROOT/clients/bayeux-js-client/package.json")"
[ "$npm_version" = "${version%-SNAPSHOT}" ] || fail "bayeux-js-client/package.json has version $npm_version, Maven $version"
grep -q "<version>$version</version>" "$ROOT/bayeux-bom/pom.xml" || fail "bayeux-bom/pom.xml is not at version $version"
grep -q "<bayeux.version>$version</bayeux.version>" "$ROOT/examples/embedded-jetty/pom.xml" ||
  fail "examples/embedded-jetty/pom.xml does not name version $version"

[ -d "$repo/org/bayeux" ] || fail "nothing was published to $repo"
[ -d "$local_repo/org/eclipse/jetty" ] ||
  fail "no Jetty in $local_repo: set BAYEUX_M2_REPOSITORY to the local Maven repository the build used"
published=()
for dir in "$repo"/org/bayeux/*/; do
  name="$(basename "$dir")"
  [ -d "$dir$version" ] || fail "$name: no version $version in $repo"
  case "$name" in
    bayeux-parent|bayeux-bom) continue ;;
  esac
  case "$name" in
    bayeux-*) ;;
    *) fail "$name: a published artifact must be named bayeux-*" ;;
  esac
  published+=("$name")
  for kind in "" -sources -javadoc; do
    compgen -G "$dir$version/$name-*$kind.jar" >/dev/null || fail "$name: no ${kind#-}${kind:+ }jar published"
  done
  grep -q "<artifactId>$name</artifactId>" "$ROOT/bayeux-bom/pom.xml" || fail "bayeux-bom does not list $name"
done
for name in $(sed -n '/<dependencyManagement>/,/<\/dependencyManagement>/s|.*<artifactId>\(.*\)</artifactId>.*|\1|p' \
    "$ROOT/bayeux-bom/pom.xml"); do
  [ -d "$repo/org/bayeux/$name" ] || fail "bayeux-bom lists $name, which the build does not publish"
done
echo "check-published: ${#published[@]} libraries published with sources and Javadoc, all in bayeux-bom: ${published[*]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$ROOT/examples/embedded-jetty" "$work/app"
rm -rf "$work/app/target"
cat >"$work/settings.xml" <<SETTINGS
<settings>
  <localRepository>$work/repository</localRepository>
  <mirrors>
    <!-- Every repository but ours is this machine's local repository, read as a remote one. -->
    <mirror>
      <id>this-machine</id>
      <mirrorOf>*,!bayeux-published</mirrorOf>
      <url>file://$local_repo</url>
    </mirror>
  </mirrors>
  <profiles>
    <profile>
      <id>bayeux-published</id>
      <repositories>
        <repository>
          <id>bayeux-published</id>
          <url>file://$repo</url>
          <snapshots><enabled>true</enabled></snapshots>
        </repository>
      </repositories>
    </profile>
  </profiles>
  <activeProfiles>
    <activeProfile>bayeux-published</activeProfile>
  </activeProfiles>
</settings>
SETTINGS
MAVEN_OPTS="${JAVA_OPTS:-} ${MAVEN_OPTS:-}" mvn -B -ntp -s "$work/settings.xml" -f "$work/app/pom.xml" \
  -Dbayeux.version="$version" \
  -Dcometd.js.dir="$ROOT/tests/bayeux-interop-tests/node/node_modules/cometd" \
  -Dplaywright.core="$ROOT/clients/bayeux-js-client/node_modules/playwright-core" \
  -Dchromium="${BAYEUX_CHROMIUM:-/usr/bin/chromium}" \
  ${JAVA_OPTS:+-DargLine="$JAVA_OPTS"} \
  verify
echo "check-published: examples/embedded-jetty built from the published artifacts and its browser test passed"
