#!/usr/bin/env bash
# The body of action.yml: runs wafctl for one command and reports exit-code, has-changes and the
# markdown path as step outputs. Inputs arrive as WAFCTL_* variables (never interpolated into the
# script: a path or URL can hold shell syntax). Exit 2 (changes, drift) is not a failure of the step.
set -uo pipefail

wafctl=(node "$GITHUB_ACTION_PATH/dist/cli/main.js")
read -r -a paths <<< "${WAFCTL_PATHS:-.}"
common=()
[[ -n "${WAFCTL_URL:-}" ]] && common+=(--url "$WAFCTL_URL")
[[ -n "${WAFCTL_FAIL_ON:-}" ]] && common+=(--fail-on "$WAFCTL_FAIL_ON")
markdown="${RUNNER_TEMP:-/tmp}/wafctl-${WAFCTL_COMMAND:-plan}.md"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"

case "${WAFCTL_COMMAND:-plan}" in
  plan)
    "${wafctl[@]}" plan "${paths[@]}" "${common[@]}" --detailed-exitcode --format markdown > "$markdown"
    code=$?
    cat "$markdown" >> "$summary"
    ;;
  drift)
    "${wafctl[@]}" drift "${paths[@]}" "${common[@]}" --format markdown --report "$markdown"
    code=$?
    [[ -f "$markdown" ]] && cat "$markdown" >> "$summary"
    ;;
  apply)
    markdown=""
    if [[ -n "${WAFCTL_PLAN_FILE:-}" ]]; then
      "${wafctl[@]}" apply --plan "$WAFCTL_PLAN_FILE" "${common[@]}"
    else
      # Plan, save, then apply exactly that plan: what the log shows is what was applied.
      saved="${RUNNER_TEMP:-/tmp}/wafctl-plan.json"
      "${wafctl[@]}" plan "${paths[@]}" "${common[@]}" --out "$saved" &&
        "${wafctl[@]}" apply --plan "$saved" "${common[@]}"
    fi
    code=$?
    ;;
  pull)
    # Writes the live changes (and undeclared in-scope objects) back into the checked-out files.
    markdown=""
    pull_args=()
    [[ -n "${WAFCTL_URL:-}" ]] && pull_args+=(--url "$WAFCTL_URL")
    "${wafctl[@]}" pull "${paths[@]}" "${pull_args[@]}" --adopt
    code=$?
    ;;
  *)
    echo "::error::wafctl action: command must be plan, apply, drift or pull, got '${WAFCTL_COMMAND}'"
    code=1
    ;;
esac

has_changes=false
[[ $code -eq 2 ]] && has_changes=true
{
  echo "exit-code=$code"
  echo "has-changes=$has_changes"
  echo "markdown=$([[ -n "$markdown" && -f "$markdown" ]] && echo "$markdown")"
} >> "${GITHUB_OUTPUT:-/dev/null}"

[[ $code -eq 2 ]] && exit 0
exit "$code"
