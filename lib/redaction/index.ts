// Redaction of tool-call arguments and summaries before they are stored or
// shown to reviewers. Pure module: no I/O, no global state, no server-only.
//
//   const redactor = compileRedactor([{ name: "employee_id", pattern: "\\bEMP-\\d{5}\\b" }]);
//   redactor.redactValue({ to: "ana@example.com", password: "x" })
//     -> { value: { to: "[redacted:email]", password: "[redacted:secret_key]" }, hits: 2 }
//   redactor.redactText("mail ana@example.com now") -> "mail [redacted:email] now"
//   findSecret("run-sk_live_abcdefghijklmnop") -> "api_key" (built-in rules only)

export { compileRedactor, findSecret, RedactionConfigError, type CustomRule, type RedactionResult, type Redactor } from "./redactor";
export { validateCustomPattern, type PatternCheck, CUSTOM_RULE_NAME_RE, MAX_PATTERN_LENGTH, MAX_REPEAT, COST_BUDGET } from "./custom-pattern";
export { customRuleSchema } from "./schema";
export { isSecretKeyName, keepsBooleanValue } from "./secret-keys";
export { BUILTIN_TEXT_RULES, SECRET_KEY_RULE, FAILURE_RULE, RESERVED_RULE_NAMES, redactionTag, type BuiltinTextRule } from "./names";
