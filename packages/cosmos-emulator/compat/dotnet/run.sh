#!/usr/bin/env bash
# Runs the .NET Cosmos DB compatibility check (Microsoft.Azure.Cosmos, Gateway mode) against freshly started
# emulators on free ports: once over https with the emulator's --cert-out certificate trusted (one partition key range
# per container), once over plain http with four ranges per container (cross-range queries, leases shared by two
# change feed processors).
# The program itself runs every check twice, with endpoint discovery on and with LimitToEndpoint = true.
# Prints a SKIP line and exits 0 when dotnet is not installed, unless CI is set (then it fails).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
package="$(cd "$here/../.." && pwd)"
if ! command -v dotnet >/dev/null 2>&1; then
  if [ -n "${CI:-}" ]; then echo "FAIL: CI is set but dotnet is not on PATH; the .NET Cosmos compatibility check is required"; exit 1; fi
  echo "SKIP: dotnet not found on PATH; the .NET Cosmos compatibility check did not run"
  exit 0
fi
# Restores from NuGet on first use; later runs only build.
dotnet build "$here/CosmosCompat.csproj" -c Release --nologo -v quiet
dll="$here/bin/Release/net10.0/CosmosCompat.dll"

work="$(mktemp -d)"
pid=""
stop() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
  fi
}
cleanup() {
  stop
  if [ -n "${COSMOS_EMULATOR_LOG:-}" ]; then cat "$work"/*.log >"$COSMOS_EMULATOR_LOG" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# start_emulator <name> <emulator args...>: starts it and sets $endpoint from its listening line.
start_emulator() {
  local name="$1"; shift
  local log="$work/$name.log"
  # The package's command is a single process, so stop() ends exactly it.
  node "$package/bin/cosmos-emulator.mjs" --port 0 "$@" >"$log" 2>&1 &
  pid=$!
  # A hang guard only (10 minutes): a loaded machine may take long to start the emulator; death is detected at once.
  for _ in $(seq 1 6000); do
    grep -q 'emulator listening on ' "$log" && break
    kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "FAIL: the $name emulator did not start"; exit 1; }
    sleep 0.1
  done
  endpoint="$(sed -n 's/^Cosmos DB emulator listening on \(.*\)$/\1/p' "$log" | head -1)"
  [ -n "$endpoint" ] || { cat "$log"; echo "FAIL: no listening line from the $name emulator"; exit 1; }
  key="$(sed -n 's/^Connection string: .*AccountKey=\([^;]*\);.*$/\1/p' "$log" | head -1)"
  echo "emulator ($name): $endpoint"
}

status=0

start_emulator https --https --cert-out "$work/cosmos-cert.pem"
COSMOS_ENDPOINT="$endpoint" COSMOS_KEY="$key" COSMOS_CERT="$work/cosmos-cert.pem" dotnet "$dll" || status=1
stop

start_emulator http --partition-key-ranges 4
COSMOS_ENDPOINT="$endpoint" COSMOS_KEY="$key" dotnet "$dll" || status=1
stop

exit "$status"
