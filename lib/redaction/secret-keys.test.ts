import { describe, expect, it } from "vitest";
import { isSecretKeyName } from "./index";
import { keyWords } from "./secret-keys";

describe("secret-named keys", () => {
  it("splits keys into words across -, _, spaces and camelCase", () => {
    expect(keyWords("apiKey")).toEqual(["api", "key"]);
    expect(keyWords("X-API-Key")).toEqual(["x", "api", "key"]);
    expect(keyWords("APIKey")).toEqual(["api", "key"]);
    expect(keyWords("client_secret")).toEqual(["client", "secret"]);
    expect(keyWords("oauth2Token")).toEqual(["oauth2", "token"]);
    expect(keyWords("--")).toEqual([]);
  });

  it.each([
    "password",
    "Password",
    "PASSWORD",
    "passwd",
    "pwd",
    "db_password",
    "dbPassword",
    "userpassword",
    "token",
    "accessToken",
    "access_token",
    "refresh_token",
    "refreshToken",
    "id_token",
    "csrfToken",
    "githubToken",
    "secret",
    "client_secret",
    "clientSecret",
    "aws_secret_access_key",
    "api_key",
    "apiKey",
    "API-KEY",
    "APIKEY",
    "x-api-key",
    "X-Api-Key",
    "private_key",
    "privateKey",
    "authorization",
    "Authorization",
    "auth",
    "basic_auth",
    "cookie",
    "Set-Cookie",
    "cookies",
    "session_token",
    "sessionToken",
    "session_id",
    "sessionId",
    "JSESSIONID",
    "credentials",
    "passphrase",
    "tokens",
    "password_hint",
    // more names, spelled with separators, folded forms and lookalikes.
    "key", // was a non-secret before the hardening round
    "private",
    "pass_word",
    "passcode",
    "pin",
    "otp",
    "cvv",
    "cvc",
    "card_cvv",
    "security_code",
    "PRIVATE_KEY",
    "secret",
    "\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44",
    "p\u0430ssword",
    "pass\u200Bword",
    "db-pass-word",
  ])("%s is a secret key", (key) => {
    expect(isSecretKeyName(key)).toBe(true);
  });

  it.each([
    "username",
    "email",
    "monkey",
    "idempotency_key",
    "cache_key",
    "sort_key",
    "public_key",
    "is_private",
    "pin_length",
    "otp_enabled",
    "compass_words",
    "keyboard",
    "description",
    "max_tokens",
    "input_tokens",
    "tokenizer",
    "token_count",
    "token_type",
    "secret_name",
    "secretName",
    "secret_id",
    "api_key_id",
    "accessKeyId",
    "private_key_id",
    "password_length",
    "access_token_expires_at",
    "auth_type",
    "author",
    "oauth",
    "passport",
    "bypass",
    "secretary",
    "",
  ])("%s is not a secret key", (key) => {
    expect(isSecretKeyName(key)).toBe(false);
  });

  // Short spellings, other languages and wallet secrets, after folding.
  it.each([
    "pw",
    "PW",
    "new_pw",
    "pwd",
    "pswd",
    "passwort",
    "Pass-Wort",
    "PassWort",
    "Paßwort",
    "db_kennwort",
    "Kennwort",
    "dbKennwort",
    "contrasena",
    "contraseña",
    "Contraseña",
    "CONTRASEÑA",
    "motdepasse",
    "mot_de_passe",
    "MOT_DE_PASSE",
    "mot-de-passe",
    "senha",
    "Senha",
    "parola",
    "haslo",
    "hasło",
    "HASŁO",
    "bearer",
    "Bearer",
    "seed",
    "random_seed",
    "wallet_seed",
    "seed_phrase",
    "seedPhrase",
    "walletSeedPhrase",
    "mnemonic",
    "Mnemonic",
    "wallet_mnemonic",
    "recovery_phrase",
    "recoveryPhrase",
    "RECOVERY-PHRASE",
    "\uFF4D\uFF4F\uFF54\uFF44\uFF45\uFF50\uFF41\uFF53\uFF53\uFF45", // full-width "motdepasse"
    "k\u0435nnwort", // Cyrillic е
    "mne\u200Bmonic",
  ])("%s is a secret key (§20)", (key) => {
    expect(isSecretKeyName(key)).toBe(true);
  });

  it.each(["seed_length", "seed_count", "seedling", "seeds_per_row", "pwm", "powder", "bearer_format", "mnemonic_id", "parolas", "senhance"])(
    "%s is not a secret key (§20 near misses)",
    (key) => {
      expect(isSecretKeyName(key)).toBe(false);
    },
  );
});
