// Names of the built-in rules, as shown in redaction tags: "[redacted:<name>]".

export const BUILTIN_TEXT_RULES = [
  "pem",
  "aws_access_key_id",
  "aws_secret_access_key",
  "api_key",
  "slack_webhook",
  "bearer_token",
  "basic_auth",
  "jwt",
  "url_password",
  "secret_key",
  "seed_phrase",
  "email",
  "iban",
  "card_number",
] as const;

export type BuiltinTextRule = (typeof BUILTIN_TEXT_RULES)[number];

/**
 * Rule name for values hidden because their key is named like a secret: an
 * object key, or a name in text ("password=…", "Pwd=…;", `"token": "…"`).
 */
export const SECRET_KEY_RULE = "secret_key";

/** Shown when a value could not be read at all (fail closed). */
export const FAILURE_RULE = "error";

/** Names custom rules cannot take. */
export const RESERVED_RULE_NAMES: ReadonlySet<string> = new Set<string>([...BUILTIN_TEXT_RULES, SECRET_KEY_RULE, FAILURE_RULE]);

export const redactionTag = (rule: string): string => `[redacted:${rule}]`;
