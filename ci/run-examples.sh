#!/usr/bin/env bash
# The main job: run every example workflow (demo site + MiniWoB++) in Chromium, write Allure
# results, and generate the HTML report (allure-report/index.html, opens offline).
#
#   bash ci/run-examples.sh [extra pytest args, e.g. -n 2 or -m smoke]
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
bash ci/install.sh --report
# The demo site's login accepts this password; real sites take theirs from CI secrets.
export DEMO_PASSWORD="${DEMO_PASSWORD:-demo-pass}"
export ALLURE_NO_ANALYTICS=true
rm -rf allure-results
"$VENV/bin/python" -m pytest workflows -p no:cacheprovider --alluredir allure-results --reuseit-screenshots steps "$@"
status=$?
"$VENV/bin/reuseit" report --results allure-results --output allure-report || status=1
exit $status
