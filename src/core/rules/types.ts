/**
 * The vocabulary of rule tests: the rules the evaluator reads, the requests a test case sends, what
 * it expects and what a run found. Pure types; the evaluator is `evaluate.ts`, the vendor's target
 * and operator catalog `catalog.ts`, and docs/rule-tests.md the semantics.
 */

/** One condition of an application rule, in the configuration's shape. */
export interface EvalCondition {
  readonly operator: string;
  readonly not_op: boolean;
  readonly expressions: readonly string[];
  readonly targets: readonly string[];
}

/** One action of an application rule: what one firewall does when the rule decides. */
export interface EvalAction {
  readonly firewall_action: string;
  readonly firewall_name: string;
}

/**
 * An application rule as the evaluator reads it: the configuration's (or the plan's attribute)
 * shape, with its natural key (`RQ_HOST/DESCRIPTION`). Other fields are ignored.
 */
export interface EvalRule {
  readonly key: string;
  readonly rq_host: string;
  readonly priority: string;
  readonly enabled: boolean;
  readonly conditions: readonly EvalCondition[];
  readonly actions: readonly EvalAction[];
}

/** The request of a test case, every default filled in (contract: "Rule tests"). */
export interface TestRequest {
  readonly method: string;
  readonly host: string;
  /** The path without the query. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  /** Header name -> value, names as written (matched ignoring case). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly protocol: string;
}

/** What must happen: the deciding rule's `firewall_action` (or `none`), optionally which rule and firewall. */
export interface TestExpectation {
  readonly action: string;
  readonly rule?: string | undefined;
  readonly firewall?: string | undefined;
}

/** A test case as the configuration declares it (`tests:`). */
export interface RuleTestCase {
  readonly name: string;
  readonly request: TestRequest;
  readonly expect: TestExpectation;
}

/** The extra names a firmware knows (`settings.extra_targets`, `settings.extra_operators`). */
export interface CatalogExtensions {
  readonly extraTargets: readonly string[];
  readonly extraOperators: readonly string[];
}

export const NO_EXTENSIONS: CatalogExtensions = { extraTargets: [], extraOperators: [] };
