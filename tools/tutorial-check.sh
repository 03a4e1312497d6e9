#!/bin/sh
# The DocC tutorial "Building a reminder service" (Sources/TriggerKit/TriggerKit.docc) as a
# reader builds it: its Package.swift and sources copied into a package of their own beside a
# link to this checkout, built, run, and its output compared with the tutorial's
# reminder-output.txt. Fails when the tutorial's code no longer compiles against the library
# or no longer prints what the tutorial shows. Needs only the Swift toolchain (and what
# `make deps` installs). Usage: tools/tutorial-check.sh [work directory]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RES="$ROOT/Sources/TriggerKit/TriggerKit.docc/Resources"
WORK=${1:-$(mktemp -d /tmp/triggerkit-tutorial.XXXXXX)}
mkdir -p "$WORK/ReminderService/Sources/ReminderService"
ln -sfn "$ROOT" "$WORK/TriggerKit"
cp "$RES/reminder-01-package.swift" "$WORK/ReminderService/Package.swift"
# The tutorial's last version of each file (02 is the first main, replaced by 10).
for f in "$RES"/reminder-0[3-9]-*.swift "$RES/reminder-10-main.swift"; do
  cp "$f" "$WORK/ReminderService/Sources/ReminderService/"
done
cd "$WORK/ReminderService"
${SWIFT:-swift} build --product ReminderService
timeout 120 .build/debug/ReminderService > "$WORK/output.txt"
if diff -u "$RES/reminder-output.txt" "$WORK/output.txt"; then
  echo "tutorial-check: the tutorial builds and prints what it shows"
else
  echo "tutorial-check: the tutorial's output differs (above)" >&2
  exit 1
fi
