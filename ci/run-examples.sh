#!/usr/bin/env bash
# The main job: run every example workflow (demo site, MiniWoB++, and the third-party
# applications of workflows/apps: Django's admin and TodoMVC) in Chromium, then the tests that run
# the application workflows and check their outcomes (tests/project/test_apps.py); write Allure results,
# and generate the HTML report (allure-report/index.html, opens offline).
#
#   bash ci/run-examples.sh [extra pytest args, e.g. -n 2 or -m smoke]
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
bash ci/install.sh --report
# The demo site's login accepts this password; real sites take theirs from CI secrets.
export DEMO_PASSWORD="${DEMO_PASSWORD:-demo-pass}"
# ADMIN_PASSWORD (the example admin site's superuser) may be left unset: each pytest process then
# picks a random one for the site it starts (workflows/apps/conftest.py).
export ALLURE_NO_ANALYTICS=true
rm -rf allure-results
"$VENV/bin/python" -m pytest workflows -p no:cacheprovider --alluredir allure-results --reuseit-screenshots steps "$@"
status=$?
"$VENV/bin/python" -m pytest tests/project/test_apps.py -p no:cacheprovider -q || status=1
"$VENV/bin/reuseit" report --results allure-results --output allure-report || status=1
exit $status
