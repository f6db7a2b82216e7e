/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: expected messages quote ${VAR} references literally */
/**
 * The broken-configuration corpus: each case (a file or a directory under corpus/) and the exact
 * problem lines wafctl must print for it, in order. Paths are relative to the corpus directory.
 */

export interface CorpusCase {
  path: string;
  env?: Record<string, string>;
  expected: string[];
  /** The last line when the problems kept a check from running (`Not checked ...`). */
  notChecked?: string;
}

export const CORPUS_CASES: CorpusCase[] = [
  {
    path: 'admins-group.yaml',
    expected: [
      'admins-group.yaml:3:11 groups[0].name: the admins group is built into Seer Box and cannot be managed: the server refuses to edit or delete it (its members are administrators); remove it from the file (export lists it as a comment)',
    ],
  },
  {
    path: 'alias-bomb.yaml',
    expected: ['alias-bomb.yaml:2:8: too many alias expansions (limit 100): refusing a possible alias bomb'],
  },
  {
    path: 'comments-only.yaml',
    expected: ['comments-only.yaml:1:1: file is empty'],
  },
  {
    path: 'notification-dot-dot-name.yaml',
    expected: [
      'notification-dot-dot-name.yaml:2:11 notifications[0].name: ".." cannot name a notification: the API addresses notifications by name in the URL path, where it means a directory',
    ],
  },
  {
    path: 'complex-key.yaml',
    expected: ['complex-key.yaml:3:7: a mapping key must be a plain scalar, not a list or mapping'],
  },
  {
    path: 'constructor-key.yaml',
    expected: ['constructor-key.yaml:1:1: unknown field "constructor"'],
  },
  {
    path: 'cross-file-duplicate-group',
    expected: [
      'cross-file-duplicate-group/b.yaml:3:5 groups[1]: duplicate group "soc": also declared at cross-file-duplicate-group/a.yaml:2:5',
    ],
  },
  {
    path: 'cross-file-duplicate-rule',
    expected: [
      'cross-file-duplicate-rule/shop.yaml:2:5 application_rules[0]: duplicate application rule "shop.example.com/Block admin": also declared at cross-file-duplicate-rule/more/shop-again.yml:3:5',
    ],
  },
  {
    path: 'custom-tag.yaml',
    expected: ['custom-tag.yaml:3:18: unsupported tag !js/eval: tags are not allowed in wafctl files'],
  },
  {
    path: 'duplicate-action.yaml',
    expected: [
      'duplicate-action.yaml:11:9 application_rules[0].actions[1]: duplicate action "block" on "waf-eu-1": already listed at duplicate-action.yaml:10:9',
    ],
  },
  {
    path: 'duplicate-condition.yaml',
    expected: [
      'duplicate-condition.yaml:9:9 application_rules[0].conditions[1]: duplicate condition: already listed at duplicate-condition.yaml:6:9',
    ],
  },
  {
    path: 'duplicate-expression.yaml',
    expected: [
      'duplicate-expression.yaml:7:38 application_rules[0].conditions[0].expressions[2]: duplicate expression "sqlmap": already listed at duplicate-expression.yaml:7:23',
    ],
  },
  {
    path: 'duplicate-group.yaml',
    expected: [
      'duplicate-group.yaml:4:5 groups[2]: duplicate group "soc": also declared at duplicate-group.yaml:2:5',
    ],
  },
  {
    path: 'duplicate-host.yaml',
    expected: [
      'duplicate-host.yaml:3:48 schedules[0].hosts[2]: duplicate host "shop.example.com": already listed at duplicate-host.yaml:3:13',
    ],
  },
  {
    path: 'duplicate-permission.yaml',
    expected: [
      'duplicate-permission.yaml:6:9 groups[0].permissions[1]: duplicate permission "Explore alerts" for service "svc-shop": already listed at duplicate-permission.yaml:4:9',
    ],
  },
  {
    path: 'duplicate-rule.yaml',
    expected: [
      'duplicate-rule.yaml:12:5 application_rules[1]: duplicate application rule "shop.example.com/Block admin": also declared at duplicate-rule.yaml:2:5',
    ],
  },
  {
    path: 'duplicate-send-to.yaml',
    expected: [
      'duplicate-send-to.yaml:8:9 schedules[0].send_to[1]: duplicate recipient "secops@example.com": already listed at duplicate-send-to.yaml:7:9',
    ],
  },
  {
    path: 'duplicate-user.yaml',
    expected: [
      'duplicate-user.yaml:6:9 groups[0].users[2]: duplicate user "u-1001": already listed at duplicate-user.yaml:4:9',
    ],
  },
  {
    path: 'duplicate-yaml-key-flow.yaml',
    expected: [
      'duplicate-yaml-key-flow.yaml:2:15: duplicate key "name" (first at duplicate-yaml-key-flow.yaml:2:6)',
    ],
  },
  {
    path: 'duplicate-yaml-key.yaml',
    expected: [
      'duplicate-yaml-key.yaml:4:5: duplicate key "description" (first at duplicate-yaml-key.yaml:3:5)',
    ],
  },
  {
    path: 'empty-actions.yaml',
    expected: ['empty-actions.yaml:9:14 application_rules[0].actions: must not be empty'],
  },
  {
    path: 'empty-conditions.yaml',
    expected: ['empty-conditions.yaml:5:17 application_rules[0].conditions: must not be empty'],
  },
  {
    path: 'empty-file.yaml',
    expected: ['empty-file.yaml:1:1: file is empty'],
  },
  {
    path: 'empty-host.yaml',
    expected: ['empty-host.yaml:3:13 schedules[0].hosts[0]: must not be empty'],
  },
  {
    path: 'empty-rule-description.yaml',
    expected: ['empty-rule-description.yaml:3:18 application_rules[0].description: must not be empty'],
  },
  {
    path: 'empty-targets.yaml',
    expected: ['empty-targets.yaml:8:18 application_rules[0].conditions[0].targets: must not be empty'],
  },
  {
    path: 'explicit-null-document.yaml',
    expected: [
      'explicit-null-document.yaml:1:1: not a wafctl configuration file: expected a mapping with sections such as groups:, application_rules:, notifications:, schedules:, network_rule_settings:, settings:, got null',
    ],
  },
  {
    path: 'format-enum.yaml',
    expected: [
      'format-enum.yaml:7:15 notifications[0].settings.format: expected one of leef, cef, json, got string "cfe"',
    ],
  },
  {
    path: 'ignore-changes-natural-key.yaml',
    expected: [
      'ignore-changes-natural-key.yaml:3:22 groups[0].ignore_changes[0]: expected one of description, is_admin, permissions, users, got string "name"',
    ],
  },
  {
    path: 'ignore-changes-typo.yaml',
    expected: [
      'ignore-changes-typo.yaml:3:22 groups[0].ignore_changes[0]: expected one of description, is_admin, permissions, users, got string "descripton" (did you mean "description"?)',
    ],
  },
  {
    path: 'invalid-address-hostname.yaml',
    expected: [
      'invalid-address-hostname.yaml:5:28 notifications[0].settings.destination_address: expected an IPv4 or IPv6 address, got "siem.example.com"',
    ],
  },
  {
    path: 'invalid-email.yaml',
    expected: [
      'invalid-email.yaml:6:35 schedules[0].send_to[1]: expected an e-mail address, got "secops.example.com"',
    ],
  },
  {
    path: 'invalid-ipv4.yaml',
    expected: [
      'invalid-ipv4.yaml:5:28 notifications[0].settings.destination_address: expected an IPv4 or IPv6 address, got "10.0.0.500"',
    ],
  },
  {
    path: 'invalid-ipv6.yaml',
    expected: [
      'invalid-ipv6.yaml:5:28 notifications[0].settings.destination_address: expected an IPv4 or IPv6 address, got "2001:db8::zz"',
    ],
  },
  {
    path: 'invalid-variable-reference.yaml',
    expected: [
      'invalid-variable-reference.yaml:3:18 groups[0].description: invalid variable reference "${1ST_TEAM}": expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)',
    ],
  },
  {
    path: 'known-tag-binary.yaml',
    expected: ['known-tag-binary.yaml:3:18: unsupported tag !!binary: tags are not allowed in wafctl files'],
  },
  {
    path: 'manage-conflict',
    expected: [
      'manage-conflict/b.yaml:4:16 manage.application_rules.match.rq_host: already set at manage-conflict/a.yaml:5:16: settings and manage merge across files, and each field may be set only once',
    ],
  },
  {
    path: 'manage-empty-glob-list.yaml',
    expected: ['manage-empty-glob-list.yaml:4:13 manage.notifications.match.name: must not be empty'],
  },
  {
    path: 'manage-match-non-string-field.yaml',
    expected: [
      'manage-match-non-string-field.yaml:4:7 manage.application_rules.match: unknown field "enabled"',
    ],
  },
  {
    path: 'manage-prune-type.yaml',
    expected: ['manage-prune-type.yaml:3:12 manage.groups.prune: expected boolean, got string "yes"'],
  },
  {
    path: 'manage-unknown-kind-typo.yaml',
    expected: [
      'manage-unknown-kind-typo.yaml:2:3 manage: unknown field "aplication_rules" (did you mean "application_rules"?)',
    ],
  },
  {
    path: 'manage-unknown-kind.yaml',
    expected: ['manage-unknown-kind.yaml:2:3 manage: unknown field "rules"'],
  },
  {
    path: 'manage-unknown-match-field.yaml',
    expected: [
      'manage-unknown-match-field.yaml:4:7 manage.application_rules.match: unknown field "rq_hosts" (did you mean "rq_host"?)',
    ],
  },
  {
    path: 'merge-key.yaml',
    expected: ['merge-key.yaml:5:5 groups[1]: unknown field "<<"'],
  },
  {
    path: 'missing-name.yaml',
    expected: ['missing-name.yaml:2:5 groups[0]: required field "name" is missing'],
  },
  {
    path: 'missing-notification-settings.yaml',
    expected: [
      'missing-notification-settings.yaml:2:5 notifications[0]: required field "settings" is missing',
    ],
  },
  {
    path: 'missing-priority.yaml',
    expected: ['missing-priority.yaml:2:5 application_rules[0]: required field "priority" is missing'],
  },
  {
    path: 'missing-rule-description.yaml',
    expected: [
      'missing-rule-description.yaml:2:5 application_rules[0]: required field "description" is missing',
    ],
  },
  {
    path: 'missing-settings-field.yaml',
    expected: [
      'missing-settings-field.yaml:4:7 notifications[0].settings: required field "protocol" is missing',
    ],
  },
  {
    path: 'multi-document.yaml',
    expected: [
      'multi-document.yaml:7:15 groups[0].is_admin: expected boolean, got string "no"',
      'multi-document.yaml:11:65 notifications[0].settings.destination_port: expected an integer from 1 to 65535, got 99999',
    ],
  },
  {
    path: 'nested-directories',
    expected: [
      'nested-directories/sub/inner.yml:3:98 notifications[0].settings: unknown field "extra"',
      'nested-directories/top.yaml:3:15 groups[0].is_admin: expected boolean, got number 1',
    ],
  },
  {
    path: 'no-yaml-files',
    expected: ['no-yaml-files: no *.yaml or *.yml files in this directory'],
  },
  {
    path: 'null-section.yaml',
    expected: ['null-section.yaml:1:8 groups: expected a list, got null'],
  },
  {
    path: 'one-good-one-bad',
    expected: [
      'one-good-one-bad/bad.yaml:3:21 groups[0].users[1]: duplicate user "u-1002": already listed at one-good-one-bad/bad.yaml:3:13',
    ],
  },
  {
    path: 'outside-manage-scope',
    expected: [
      'outside-manage-scope/application-rules.yaml:7:14 application_rules[1].rq_host: rq_host "shop.other.org" is outside the manage scope: it matches none of manage.application_rules.match.rq_host ["*.example.com"] (set at outside-manage-scope/wafctl.yaml:7:16), so wafctl would never create or update this application rule',
      'outside-manage-scope/groups.yaml:3:11 groups[1].name: name "soc-analysts" is outside the manage scope: it matches none of manage.groups.match.name ["team-*"] (set at outside-manage-scope/wafctl.yaml:3:19), so wafctl would never create or update this group',
      'outside-manage-scope/notifications.yaml:5:5 notifications[1]: type "siem" (the default) is outside the manage scope: it matches none of manage.notifications.match.type ["generic"] (set at outside-manage-scope/wafctl.yaml:9:19), so wafctl would never create or update this notification',
      'outside-manage-scope/schedules.yaml:15:15 schedules[1].timezone: timezone "America/New_York" is outside the manage scope: it matches none of manage.schedules.match.timezone ["Europe/*"] (set at outside-manage-scope/wafctl.yaml:13:17), so wafctl would never create or update this schedule',
    ],
  },
  {
    path: 'outside-manage-scope-second-field.yaml',
    expected: [
      'outside-manage-scope-second-field.yaml:7:15 application_rules[0].priority: priority "low" is outside the manage scope: it matches none of manage.application_rules.match.priority ["high", "medium"] (set at outside-manage-scope-second-field.yaml:3:51), so wafctl would never create or update this application rule',
    ],
  },
  {
    path: 'permission-wrong-type.yaml',
    expected: [
      'permission-wrong-type.yaml:4:21 groups[0].permissions[0].permission: expected a permission name or an integer id >= 0, got boolean true',
    ],
  },
  {
    path: 'port-from-variable.yaml',
    env: { WAFCTL_VAR_SIEM_PORT: '514' },
    expected: [
      'port-from-variable.yaml:6:25 notifications[0].settings.destination_port: expected integer, got string "514"',
    ],
  },
  {
    path: 'port-quoted.yaml',
    expected: [
      'port-quoted.yaml:6:25 notifications[0].settings.destination_port: expected integer, got string "514"',
    ],
  },
  {
    path: 'port-too-large.yaml',
    expected: [
      'port-too-large.yaml:6:25 notifications[0].settings.destination_port: expected an integer from 1 to 65535, got 70000',
    ],
  },
  {
    path: 'port-zero.yaml',
    expected: [
      'port-zero.yaml:6:25 notifications[0].settings.destination_port: expected an integer from 1 to 65535, got 0',
    ],
  },
  {
    path: 'protect-wrong-type.yaml',
    expected: ['protect-wrong-type.yaml:3:14 groups[0].protect: expected boolean, got string "true"'],
  },
  {
    path: 'proto-key.yaml',
    expected: ['proto-key.yaml:3:5 groups[0]: unknown field "__proto__"'],
  },
  {
    path: 'protocol-enum.yaml',
    expected: [
      'protocol-enum.yaml:8:17 notifications[0].settings.protocol: expected one of tcp, udp, got string "http"',
    ],
  },
  {
    path: 'rq-host-slash.yaml',
    expected: [
      'rq-host-slash.yaml:2:14 application_rules[0].rq_host: rq_host must be a host name: it cannot contain \'/\', got "shop.example.com/admin"',
    ],
  },
  {
    path: 'rq-host-whitespace.yaml',
    expected: [
      'rq-host-whitespace.yaml:2:14 application_rules[0].rq_host: rq_host must be a host name: it cannot contain whitespace (U+0009), got "shop.example.com\\t"',
    ],
  },
  {
    path: 'services-wrong-type.yaml',
    expected: [
      'services-wrong-type.yaml:9:15 schedules[0].services: expected a list or null, got string "all"',
    ],
  },
  {
    path: 'settings-conflict',
    notChecked:
      'Not checked because of the problems above: firewall_actions conflicts (settings is set twice).',
    expected: [
      'settings-conflict/b.yaml:2:13 settings.username: already set at settings-conflict/a.yaml:2:13: settings and manage merge across files, and each field may be set only once',
    ],
  },
  {
    path: 'settings-min-existing-negative.yaml',
    expected: ['settings-min-existing-negative.yaml:3:19 settings.safety.min_existing: must be >= 0, got -1'],
  },
  {
    path: 'settings-percent-range.yaml',
    expected: [
      'settings-percent-range.yaml:3:25 settings.safety.max_delete_percent: must be between 0 and 100, got 150',
    ],
  },
  {
    path: 'settings-unknown-field.yaml',
    expected: ['settings-unknown-field.yaml:2:3 settings: unknown field "user"'],
  },
  {
    path: 'several-problems.yaml',
    expected: [
      'several-problems.yaml:3:5 groups[0]: unknown field "descripton" (did you mean "description"?)',
      'several-problems.yaml:5:21 groups[0].permissions[0].permission: unknown permission "Handle rule" (did you mean "Handle rules"?)',
      'several-problems.yaml:6:21 groups[0].users[1]: duplicate user "u-1001": already listed at several-problems.yaml:6:13',
      'several-problems.yaml:7:5 groups[1]: duplicate group "soc": also declared at several-problems.yaml:2:5',
      'several-problems.yaml:13:15 schedules[0].send_to[0]: expected an e-mail address, got "not-an-address"',
      'several-problems.yaml:15:15 schedules[0].timezone: unknown timezone "Nowhere/City"',
    ],
  },
  {
    path: 'start-time-negative.yaml',
    expected: ['start-time-negative.yaml:5:17 application_rules[0].start_time: must be >= 0, got -1'],
  },
  {
    path: 'syntax-bad-indent.yaml',
    expected: ['syntax-bad-indent.yaml:3:1: invalid YAML: Sequence item without - indicator'],
  },
  {
    path: 'syntax-tab-indent.yaml',
    expected: ['syntax-tab-indent.yaml:2:1: invalid YAML: Tabs are not allowed as indentation'],
  },
  {
    path: 'syntax-unclosed-flow.yaml',
    expected: [
      'syntax-unclosed-flow.yaml:4:3: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
  },
  {
    path: 'top-level-list.yaml',
    expected: [
      'top-level-list.yaml:1:1: not a wafctl configuration file: expected a mapping with sections such as groups:, application_rules:, notifications:, schedules:, network_rule_settings:, settings:, got a list',
    ],
  },
  {
    path: 'top-level-scalar.yaml',
    expected: [
      'top-level-scalar.yaml:1:1: not a wafctl configuration file: expected a mapping with sections such as groups:, application_rules:, notifications:, schedules:, network_rule_settings:, settings:, got string "just some text"',
    ],
  },
  {
    path: 'type-enum.yaml',
    expected: [
      'type-enum.yaml:3:11 notifications[0].type: expected one of siem, generic, got string "genric" (did you mean "generic"?)',
    ],
  },
  {
    path: 'unknown-alias.yaml',
    expected: ['unknown-alias.yaml:3:12: unknown alias *members: no anchor &members before it'],
  },
  {
    path: 'unknown-field-no-suggestion.yaml',
    expected: ['unknown-field-no-suggestion.yaml:3:5 groups[0]: unknown field "colour"'],
  },
  {
    path: 'unknown-field-typo.yaml',
    expected: [
      'unknown-field-typo.yaml:3:5 groups[0]: unknown field "descripton" (did you mean "description"?)',
    ],
  },
  {
    path: 'unknown-permission-id.yaml',
    expected: ['unknown-permission-id.yaml:4:21 groups[0].permissions[0].permission: must be >= 0, got -1'],
  },
  {
    path: 'unknown-permission-name.yaml',
    expected: [
      'unknown-permission-name.yaml:4:21 groups[0].permissions[0].permission: unknown permission "Superuser": expected one of Explore alerts, Handle rules, Load application rules, Load source rules, or an integer id (0..3 are those names; another id is kept as it is)',
    ],
  },
  {
    path: 'unknown-permission-typo.yaml',
    expected: [
      'unknown-permission-typo.yaml:4:21 groups[0].permissions[0].permission: unknown permission "Explore alert" (did you mean "Explore alerts"?)',
    ],
  },
  {
    path: 'unknown-timezone-far.yaml',
    expected: ['unknown-timezone-far.yaml:8:15 schedules[0].timezone: unknown timezone "Mars/Olympus_Mons"'],
  },
  {
    path: 'unknown-timezone.yaml',
    expected: [
      'unknown-timezone.yaml:8:15 schedules[0].timezone: unknown timezone "Europe/Pariss" (did you mean "Europe/Paris"?)',
    ],
  },
  {
    path: 'unknown-top-level-key.yaml',
    expected: ['unknown-top-level-key.yaml:1:1: unknown field "grups" (did you mean "groups"?)'],
  },
  {
    path: 'unset-variable-mid-scalar.yaml',
    expected: [
      'unset-variable-mid-scalar.yaml:3:30 groups[0].description: environment variable WAFCTL_VAR_TEAM_NAME is not set (use ${WAFCTL_VAR_TEAM_NAME:-default} for a default)',
    ],
  },
  {
    path: 'unset-variable-nested-default.yaml',
    expected: [
      'unset-variable-nested-default.yaml:3:46 groups[0].description: environment variable WAFCTL_VAR_OWNER is not set (use ${WAFCTL_VAR_OWNER:-default} for a default); it is needed because WAFCTL_VAR_DESC is unset or empty',
    ],
  },
  {
    path: 'unset-variable-quoted.yaml',
    expected: [
      'unset-variable-quoted.yaml:3:47 groups[0].description: environment variable WAFCTL_VAR_OWNER is not set (use ${WAFCTL_VAR_OWNER:-default} for a default)',
    ],
  },
  {
    path: 'unset-variable.yaml',
    expected: [
      'unset-variable.yaml:11:24 application_rules[0].actions[0].firewall_name: environment variable WAFCTL_VAR_FIREWALL is not set (use ${WAFCTL_VAR_FIREWALL:-default} for a default)',
    ],
  },
  {
    // The secret is set, and has a default: the name is refused all the same, and never read.
    path: 'variable-not-allowed.yaml',
    env: { GITLAB_API_TOKEN: 'glpat-SECRET-VALUE' },
    expected: [
      'variable-not-allowed.yaml:3:25 groups[0].description: variable GITLAB_API_TOKEN is not allowed: only environment variables named WAFCTL_VAR_* and names the trusted ref\'s "variables:" declares are read (export the value as WAFCTL_VAR_GITLAB_API_TOKEN and write ${WAFCTL_VAR_GITLAB_API_TOKEN})',
    ],
  },
  {
    path: 'variables-without-trusted-ref',
    env: { TEAM: 'soc' },
    expected: [
      'variables-without-trusted-ref/groups.yaml:3:18 groups[0].description: variable TEAM is not allowed: only environment variables named WAFCTL_VAR_* and names the trusted ref\'s "variables:" declares are read (export the value as WAFCTL_VAR_TEAM and write ${WAFCTL_VAR_TEAM})',
      'variables-without-trusted-ref/variables.yaml:2:13 variables[0]: TEAM cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as WAFCTL_VAR_TEAM and write ${WAFCTL_VAR_TEAM}, or pin the list with --trusted-ref REF',
    ],
  },
  {
    path: 'variables-invalid-name.yaml',
    expected: [
      'variables-invalid-name.yaml:1:13 variables[0]: TEAM cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as WAFCTL_VAR_TEAM and write ${WAFCTL_VAR_TEAM}, or pin the list with --trusted-ref REF',
      'variables-invalid-name.yaml:1:19 variables[1]: expected a variable name: letters, digits and _, not starting with a digit',
    ],
  },
  {
    path: 'variables-secret.yaml',
    expected: [
      'variables-secret.yaml:1:13 variables[0]: TEAM cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as WAFCTL_VAR_TEAM and write ${WAFCTL_VAR_TEAM}, or pin the list with --trusted-ref REF',
      "variables-secret.yaml:1:19 variables[1]: WAF_TOKEN cannot be declared: it is one of wafctl's own variables (WAF_*), and ${NAME} never reads a credential (a value the configuration must hold comes from a WAFCTL_VAR_* variable)",
    ],
  },
  {
    path: 'unterminated-variable-reference.yaml',
    expected: [
      'unterminated-variable-reference.yaml:3:18 groups[0].description: invalid variable reference "${WAFCTL_VAR_DESC:-${WAFCTL_VAR_OWNER:-nobody}": no closing }; expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)',
    ],
  },
  {
    path: 'wrong-type-boolean.yaml',
    expected: ['wrong-type-boolean.yaml:3:15 groups[0].is_admin: expected boolean, got string "yes"'],
  },
  {
    path: 'wrong-type-integer.yaml',
    expected: [
      'wrong-type-integer.yaml:5:15 application_rules[0].duration: expected integer or null, got number 1.5',
    ],
  },
  {
    path: 'wrong-type-list.yaml',
    expected: ['wrong-type-list.yaml:3:12 groups[0].users: expected a list, got string "u-1001"'],
  },
  {
    path: 'wrong-type-mapping-section.yaml',
    expected: ['wrong-type-mapping-section.yaml:2:3 groups: expected a list, got a mapping'],
  },
  {
    path: 'wrong-type-string.yaml',
    expected: ['wrong-type-string.yaml:2:11 groups[0].name: expected string, got number 42'],
  },
  {
    path: 'yaml-1.1-booleans.yaml',
    expected: ['yaml-1.1-booleans.yaml:5:15 groups[0].is_admin: expected boolean, got string "yes"'],
  },
];
