#!/usr/bin/env bash
# Runs the .NET compatibility check against a freshly started emulator on a free port.
# Prints a SKIP line and exits 0 when dotnet is not installed, unless CI is set (then it fails).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
package="$(cd "$here/../.." && pwd)"
if ! command -v dotnet >/dev/null 2>&1; then
  if [ -n "${CI:-}" ]; then echo "FAIL: CI is set but dotnet is not on PATH; the .NET compatibility check is required"; exit 1; fi
  echo "SKIP: dotnet not found on PATH; the .NET Service Bus compatibility check did not run"
  exit 0
fi
log="$(mktemp)"
# The admin port takes 0 as "off": ask the OS for a free one. HTTPS stays off, .NET speaks HTTP to the emulator.
admin_port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
# The package's command is a single process, so the trap below stops exactly it.
node "$package/bin/servicebus-emulator.mjs" --port 0 --admin-port "$admin_port" --admin-https-port 0 --config "$here/emulator.config.json" >"$log" 2>&1 &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ -n "${SB_EMULATOR_LOG:-}" ]; then cp "$log" "$SB_EMULATOR_LOG"; fi
  rm -f "$log"
}
trap cleanup EXIT
# A hang guard only (10 minutes): a loaded machine may take long to start the emulator; death is detected at once.
for _ in $(seq 1 6000); do
  grep -q '"listening"' "$log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "emulator failed to start"; exit 1; }
  sleep 0.1
done
listening() { node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").split("\n").find(x=>x.includes("\"listening\""));console.log(JSON.parse(l)[process.argv[2]])' "$log" "$1"; }
conn="$(listening connectionString)"
admin_conn="$(listening administrationConnectionString)"
echo "emulator: $conn"
echo "administration: $admin_conn"
SB_CONNECTION="$conn" SB_ADMIN_CONNECTION="$admin_conn" dotnet run --project "$here/ServiceBusCompat.csproj" -c Release
