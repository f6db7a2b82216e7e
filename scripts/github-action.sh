#!/usr/bin/env bash
# The body of action.yml: runs wafctl for one command and reports exit-code, has-changes, the
# markdown path and its comment-marker as step outputs. Inputs arrive as WAFCTL_* variables (never
# interpolated into the script: a path or URL can hold shell syntax). Exit 2 (changes, drift) is not
# a failure of the step.
#
# has-changes comes from the plan, never from exit 2 alone: a plan that --fail-on refused (exit 3)
# has changes too — the riskiest ones — and `if: has-changes == 'true'` must not skip it.
set -uo pipefail

wafctl=(node "$GITHUB_ACTION_PATH/dist/cli/main.js")
read -r -a paths <<< "${WAFCTL_PATHS:-.}"
command="${WAFCTL_COMMAND:-plan}"
common=()
[[ -n "${WAFCTL_URL:-}" ]] && common+=(--url "$WAFCTL_URL")
[[ -n "${WAFCTL_FAIL_ON:-}" ]] && common+=(--fail-on "$WAFCTL_FAIL_ON")
markdown="${RUNNER_TEMP:-/tmp}/wafctl-${command}.md"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
has_changes=false
code=0
refused=""

# A GitHub error annotation; the value it quotes is escaped so that it cannot start a workflow
# command of its own (a newline in an input would).
annotate() {
  local message="$1"
  message="${message//'%'/'%25'}"
  message="${message//$'\r'/'%0D'}"
  message="${message//$'\n'/'%0A'}"
  echo "::error::wafctl action: $message"
}

# environment: names of wafctl.yaml's environments (or `all`), separated by commas or spaces, each
# passed as --env NAME. Only plain names: a value is an argument, never shell, but a name that is not
# one is a mistake to report before anything runs.
environments=()
env_value="${WAFCTL_ENVIRONMENT:-}"
read -r -d '' -a environments <<< "${env_value//,/ }" || true
env_flags=()
for name in "${environments[@]}"; do
  if [[ "$name" == *[!A-Za-z0-9_-]* ]]; then
    refused="environment must be environment names of wafctl.yaml (letters, digits, - and _) or all, separated by commas or spaces, got '${env_value}'"
    break
  fi
  env_flags+=(--env "$name")
done

# The sticky-comment marker the markdown file starts with. wafctl's own (<!-- wafctl-plan -->, or
# <!-- wafctl-drift -->) without an environment or with several (one combined comment); with ONE
# environment, a marker of its own on the line before it (<!-- wafctl-plan:staging -->), so that the
# jobs of a matrix over environments each keep their own comment.
marker=""
own_marker=""
case "$command" in
  plan | drift) marker="<!-- wafctl-${command} -->" ;;
esac
if [[ -n "$marker" && ${#environments[@]} -eq 1 && "${environments[0]}" != all ]]; then
  marker="<!-- wafctl-${command}:${environments[0]} -->"
  own_marker=$marker
  # Room for the marker's line within GitHub's 65,536 characters, which wafctl fills at most.
  common+=(--max-chars "$((65536 - ${#marker} - 1))")
fi

if [[ -z "$refused" && ${#env_flags[@]} -gt 0 ]]; then
  if [[ -n "${WAFCTL_URL:-}" ]]; then
    refused="url cannot be combined with environment: each environment's URL comes from its url or url_env in wafctl.yaml"
  elif [[ ( "$command" == apply || "$command" == pull ) && (${#environments[@]} -gt 1 || "${environments[0]}" == all) ]]; then
    refused="$command takes one environment per run, got '${env_value}': run one job per environment (a matrix with max-parallel: 1)"
  fi
fi

# Prepends the environment's own marker (if any) to the markdown file wafctl wrote.
mark() {
  [[ -n "$own_marker" && -f "$markdown" ]] || return 0
  { printf '%s\n' "$own_marker"; cat "$markdown"; } > "$markdown.marked" && mv "$markdown.marked" "$markdown"
}

# apply --plan FILE --env NAME reads wafctl.yaml in the current directory: it runs in the
# configuration root (PATHS when it is one directory, as wafctl plan takes it), with FILE absolute.
apply_saved() {
  local file="$1"
  if [[ ${#env_flags[@]} -gt 0 && ${#paths[@]} -eq 1 && -d "${paths[0]}" ]]; then
    [[ "$file" == /* ]] || file="$PWD/$file"
    (cd "${paths[0]}" && "${wafctl[@]}" apply --plan "$file" "${common[@]}" "${env_flags[@]}")
  else
    "${wafctl[@]}" apply --plan "$file" "${common[@]}" "${env_flags[@]}"
  fi
}

# Whether a saved plan (plan --out; the JSON plan of the contract plus context) has changes, from its
# summary. A file that is missing or not a plan has none we know of: wafctl itself reports why.
plan_has_changes() {
  [[ -f "$1" ]] && node -e '
    const { summary: s } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    process.exit(s.create + s.update + s.replace + s.delete > 0 ? 0 : 1);
  ' "$1" 2> /dev/null
}

if [[ -n "$refused" ]]; then
  annotate "$refused"
  code=1
  markdown=""
  marker=""
else
  case "$command" in
    plan)
      "${wafctl[@]}" plan "${paths[@]}" "${common[@]}" "${env_flags[@]}" --detailed-exitcode --format markdown > "$markdown"
      code=$?
      mark
      cat "$markdown" >> "$summary"
      # 2: changes. 3: --fail-on refused a change, so there is one. (1: no complete plan.)
      [[ $code -eq 2 || $code -eq 3 ]] && has_changes=true
      ;;
    drift)
      "${wafctl[@]}" drift "${paths[@]}" "${common[@]}" "${env_flags[@]}" --format markdown --report "$markdown"
      code=$?
      mark
      [[ -f "$markdown" ]] && cat "$markdown" >> "$summary"
      # 2: drift. 3: --fail-on matched a drifted object, so there is drift.
      [[ $code -eq 2 || $code -eq 3 ]] && has_changes=true
      ;;
    apply)
      markdown=""
      if [[ -n "${WAFCTL_PLAN_FILE:-}" ]]; then
        plan_has_changes "$WAFCTL_PLAN_FILE" && has_changes=true
        apply_saved "$WAFCTL_PLAN_FILE"
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
        "${wafctl[@]}" plan "${paths[@]}" "${common[@]}" "${env_flags[@]}" --out "$saved" > "$printed" 2> "$errors"
        code=$?
        # Written even when --fail-on refuses the plan (exit 3): has-changes is true then too.
        plan_has_changes "$saved" && has_changes=true
        if [[ $code -eq 0 ]]; then
          cat "$errors" >&2
          apply_saved "$saved"
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
      "${wafctl[@]}" pull "${paths[@]}" "${pull_args[@]}" "${env_flags[@]}" --adopt
      code=$?
      ;;
    *)
      annotate "command must be plan, apply, drift or pull, got '${WAFCTL_COMMAND}'"
      code=1
      markdown=""
      ;;
  esac
fi

{
  echo "exit-code=$code"
  echo "has-changes=$has_changes"
  echo "markdown=$([[ -n "$markdown" && -f "$markdown" ]] && echo "$markdown")"
  echo "comment-marker=$marker"
} >> "${GITHUB_OUTPUT:-/dev/null}"

[[ $code -eq 2 ]] && exit 0
exit "$code"
