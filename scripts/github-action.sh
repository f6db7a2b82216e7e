#!/usr/bin/env bash
# The body of action.yml: runs wafctl for one command and reports exit-code, has-changes and the
# markdown path as step outputs. Inputs arrive as WAFCTL_* variables (never interpolated into the
# script: a path or URL can hold shell syntax). Exit 2 (changes, drift) is not a failure of the step.
#
# has-changes comes from the plan, never from exit 2 alone: a plan that --fail-on refused (exit 3)
# has changes too — the riskiest ones — and `if: has-changes == 'true'` must not skip it.
set -uo pipefail

wafctl=(node "$GITHUB_ACTION_PATH/dist/cli/main.js")
read -r -a paths <<< "${WAFCTL_PATHS:-.}"
common=()
[[ -n "${WAFCTL_URL:-}" ]] && common+=(--url "$WAFCTL_URL")
[[ -n "${WAFCTL_FAIL_ON:-}" ]] && common+=(--fail-on "$WAFCTL_FAIL_ON")
markdown="${RUNNER_TEMP:-/tmp}/wafctl-${WAFCTL_COMMAND:-plan}.md"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
has_changes=false

# Whether a saved plan (plan --out; the JSON plan of the contract plus context) has changes, from its
# summary. A file that is missing or not a plan has none we know of: wafctl itself reports why.
plan_has_changes() {
  [[ -f "$1" ]] && node -e '
    const { summary: s } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    process.exit(s.create + s.update + s.replace + s.delete > 0 ? 0 : 1);
  ' "$1" 2> /dev/null
}

case "${WAFCTL_COMMAND:-plan}" in
  plan)
    "${wafctl[@]}" plan "${paths[@]}" "${common[@]}" --detailed-exitcode --format markdown > "$markdown"
    code=$?
    cat "$markdown" >> "$summary"
    # 2: changes. 3: --fail-on refused a change, so there is one. (1: no complete plan.)
    [[ $code -eq 2 || $code -eq 3 ]] && has_changes=true
    ;;
  drift)
    "${wafctl[@]}" drift "${paths[@]}" "${common[@]}" --format markdown --report "$markdown"
    code=$?
    [[ -f "$markdown" ]] && cat "$markdown" >> "$summary"
    # 2: drift. 3: --fail-on matched a drifted object, so there is drift.
    [[ $code -eq 2 || $code -eq 3 ]] && has_changes=true
    ;;
  apply)
    markdown=""
    if [[ -n "${WAFCTL_PLAN_FILE:-}" ]]; then
      plan_has_changes "$WAFCTL_PLAN_FILE" && has_changes=true
      "${wafctl[@]}" apply --plan "$WAFCTL_PLAN_FILE" "${common[@]}"
      code=$?
    else
      # Plan, save, then apply exactly that plan. The log shows the plan ONCE, and it is apply's:
      # `apply --plan` rebuilds the plan from the live objects and the saved intent, prints that, and
      # applies exactly what it printed (refusing a stale one). plan's own copy is printed only when
      # there is no apply to print one (plan failed, or --fail-on refused it: exit 1 or 3).
      saved="${RUNNER_TEMP:-/tmp}/wafctl-plan.json"
      printed="${RUNNER_TEMP:-/tmp}/wafctl-plan.txt"
      errors="${RUNNER_TEMP:-/tmp}/wafctl-plan.err"
      rm -f "$saved"
      "${wafctl[@]}" plan "${paths[@]}" "${common[@]}" --out "$saved" > "$printed" 2> "$errors"
      code=$?
      # Written even when --fail-on refuses the plan (exit 3): has-changes is true then too.
      plan_has_changes "$saved" && has_changes=true
      if [[ $code -eq 0 ]]; then
        cat "$errors" >&2
        "${wafctl[@]}" apply --plan "$saved" "${common[@]}"
        code=$?
      else
        # The plan, then its error ("see the Security impact section above"), in that order.
        cat "$printed"
        cat "$errors" >&2
      fi
    fi
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

{
  echo "exit-code=$code"
  echo "has-changes=$has_changes"
  echo "markdown=$([[ -n "$markdown" && -f "$markdown" ]] && echo "$markdown")"
} >> "${GITHUB_OUTPUT:-/dev/null}"

[[ $code -eq 2 ]] && exit 0
exit "$code"
