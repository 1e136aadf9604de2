/**
 * A web ACL's cost against AWS WAF's fixed quotas, from its synthesized template: the capacity units (WCU)
 * of its rules by AWS's documented cost per statement, its rate-based rules and its reference statements
 * (https://docs.aws.amazon.com/waf/latest/developerguide/limits.html). A statement type not listed fails the
 * count, to be priced from AWS's documentation when the stack first uses it.
 */

/** AWS WAF's documented WCU per statement (each statement's page in the WAF Developer Guide). */
export const WCU = {
  /** Rate-based rule statement: 2 as a base cost, plus 30 per custom aggregation key. */
  rateBasedBase: 2,
  rateBasedCustomKey: 30,
  /** String match statement: 2 for exactly / starts with / ends with, 10 for contains / contains word. */
  byteMatch: { EXACTLY: 2, STARTS_WITH: 2, ENDS_WITH: 2, CONTAINS: 10, CONTAINS_WORD: 10 },
  /** Each text transformation of a match statement. */
  textTransformation: 10,
  /** Regex pattern set reference statement: 25, plus its text transformations. */
  regexPatternSetReference: 25,
  /** IP set reference statement. */
  ipSetReference: 1,
} as const;

/**
 * The AWS WAF documentation prices a rate-based rule's custom key at 30 and says nothing of the key's own
 * text transformations: they are counted here at a match statement's 10 each, so the figure is an upper
 * bound (AWS also counts a transformation shared by statements once, which this does not).
 */
const KEY_TRANSFORMATION = WCU.textTransformation;

// biome-ignore lint/suspicious/noExplicitAny: a template's statements, read loosely and checked here.
type Statement = Record<string, any>;

export interface WebAclCost {
  /** Web ACL capacity units of all its rules. */
  wcu: number;
  rateBasedRules: number;
  /** Statements that refer to a regex pattern set, an IP set or a rule group (WAF allows 50, fixed). */
  referenceStatements: number;
}

/** The cost of a synthesized AWS::WAFv2::WebACL's rules. */
export function webAclCost(properties: { Rules?: Array<{ Statement: Statement }> }): WebAclCost {
  const cost: WebAclCost = { wcu: 0, rateBasedRules: 0, referenceStatements: 0 };
  for (const rule of properties.Rules ?? []) cost.wcu += statementWcu(rule.Statement, cost);
  return cost;
}

function statementWcu(statement: Statement, cost: WebAclCost): number {
  const entries = Object.entries(statement);
  if (entries.length !== 1) throw new Error(`a statement of one type, not ${Object.keys(statement)}`);
  const [[type, body]] = entries as [[string, Statement]];
  const transformations = (b: Statement) => (b.TextTransformations?.length ?? 0) * WCU.textTransformation;
  switch (type) {
    case 'RateBasedStatement': {
      cost.rateBasedRules += 1;
      const keys: Statement[] = body.CustomKeys ?? [];
      const keyCost = keys.reduce(
        (sum, key) =>
          sum +
          WCU.rateBasedCustomKey +
          ((Object.values(key)[0] as Statement)?.TextTransformations?.length ?? 0) * KEY_TRANSFORMATION,
        0,
      );
      const scopeDown = body.ScopeDownStatement ? statementWcu(body.ScopeDownStatement, cost) : 0;
      return WCU.rateBasedBase + keyCost + scopeDown;
    }
    case 'ByteMatchStatement': {
      const base = WCU.byteMatch[body.PositionalConstraint as keyof typeof WCU.byteMatch];
      if (base === undefined) throw new Error(`no WCU for PositionalConstraint ${body.PositionalConstraint}`);
      if (!body.FieldToMatch?.SingleHeader) throw new Error('priced for a single header only');
      return base + transformations(body);
    }
    // Logical statements cost what their nested statements cost.
    case 'NotStatement':
      return statementWcu(body.Statement, cost);
    case 'OrStatement':
    case 'AndStatement':
      return (body.Statements as Statement[]).reduce((sum, nested) => sum + statementWcu(nested, cost), 0);
    case 'RegexPatternSetReferenceStatement':
      cost.referenceStatements += 1;
      return WCU.regexPatternSetReference + transformations(body);
    case 'IPSetReferenceStatement':
      cost.referenceStatements += 1;
      return WCU.ipSetReference;
    default:
      throw new Error(`no WCU for ${type}: price it from the AWS WAF Developer Guide`);
  }
}
