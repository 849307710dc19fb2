#!/usr/bin/env bash
# The Temporal time-skipping test server for the fast workflow tests (test/unit-workflows),
# offline. The SDK downloads a native build of it from temporal.download, which this project
# cannot reach; the same server is published on Maven Central as the Java artifact
# io.temporal:temporal-test-server. This script fetches that artifact and its runtime
# dependencies once into ${XDG_CACHE_HOME:-~/.cache}/webdata-temporal/test-server-<version>/lib
# (keyed by version, like the Temporal CLI) and writes an executable wrapper beside it:
#
#   <cache>/test-server-<version>/temporal-test-server <port> [--enable-time-skipping]
#
# the arguments sdk-core gives a test server (TestWorkflowEnvironment.createTimeSkipping with
# `executable: { type: 'existing-path', path }`). Prints the wrapper's path on stdout; progress
# goes to stderr. Needs Java 17+ and Maven (scripts/setup.sh installs them). Safe to run again.
set -euo pipefail

VERSION="${WEBDATA_TEST_SERVER_VERSION:-1.38.0}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/webdata-temporal"
DIR="$CACHE_ROOT/test-server-$VERSION"
WRAPPER="$DIR/temporal-test-server"

say() { echo "ensure-test-server.sh: $*" >&2; }

if [[ -x "$WRAPPER" && -f "$DIR/lib/temporal-test-server-$VERSION.jar" ]]; then
  echo "$WRAPPER"
  exit 0
fi

command -v java >/dev/null 2>&1 || { say "java not found (apt-get install openjdk-17-jre-headless)"; exit 1; }
command -v mvn >/dev/null 2>&1 || { say "mvn not found (apt-get install maven)"; exit 1; }

say "fetching io.temporal:temporal-test-server:$VERSION and its dependencies from Maven Central (once)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.webdata</groupId>
  <artifactId>test-server-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>$VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
# A private local repository: nothing is left in ~/.m2, the cache folder is all that stays.
mvn -q -B -Dstyle.color=never -f "$work/pom.xml" -Dmaven.repo.local="$work/repo" \
  dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$work/lib" >&2

# The wrapper is written last: it marks a complete cache (an interrupted run starts over). The
# class-data archive records the jars' paths, so it is made where they stay.
rm -rf "$DIR"
mkdir -p "$DIR"
mv "$work/lib" "$DIR/lib"

# A class-data archive of one start (classes loaded until the port answers), for quick starts.
say "recording a class-data archive of the server's start"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ArchiveClassesAtExit="$DIR/classes.jsa" \
  -cp "$DIR/lib/*" io.temporal.testserver.TestServer "$port" >/dev/null 2>&1 &
java_pid=$!
for _ in $(seq 1 600); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.2
done
kill "$java_pid" 2>/dev/null || true
wait "$java_pid" 2>/dev/null || true
[[ -f "$DIR/classes.jsa" ]] || say "no class-data archive written; the server starts without it"

cat >"$WRAPPER.partial" <<'WRAP'
#!/usr/bin/env bash
# Runs the Java Temporal test server: temporal-test-server <port> [--enable-time-skipping].
# sdk-core gives a test server 5 s to answer; the class-data archive made at install and the
# client-tier JIT bring a start under load (2 cores, load 18) from 7-10 s to 1-3 s.
here="$(cd "$(dirname "$0")" && pwd)"
cds=()
[[ -f "$here/classes.jsa" ]] && cds=(-XX:SharedArchiveFile="$here/classes.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off)
# The server outlives a process that started it without stopping it (sdk-core leaves a server
# that missed its 5 s running): stop it when that process is gone. Java keeps this shell's pid.
parent=$PPID
( while kill -0 "$parent" 2>/dev/null && kill -0 $$ 2>/dev/null; do sleep 2; done; kill $$ 2>/dev/null ) </dev/null >/dev/null 2>&1 &
# slf4j's three lines about having no logger are noise in test output.
exec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "${cds[@]}" ${WEBDATA_TEST_SERVER_JAVA_OPTS:-} \
  -cp "$here/lib/*" io.temporal.testserver.TestServer "$@" 2> >(grep -v '^SLF4J: ' >&2)
WRAP
chmod +x "$WRAPPER.partial"
mv "$WRAPPER.partial" "$WRAPPER"
say "test server $VERSION ready: $(du -sh "$DIR" | cut -f1) in $DIR"
echo "$WRAPPER"
