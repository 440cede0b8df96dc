import { describe, expect, it } from "vitest";
import { compileRedactor } from "./index";
import { ibanValid, luhnValid } from "./checksums";

const redactor = compileRedactor();
const redact = (text: string) => redactor.redactText(text);

describe("built-in rules: true positives and near misses", () => {
  it("email: replaces only the address", () => {
    expect(redact("mail ana@example.com now")).toBe("mail [redacted:email] now");
    expect(redact("<first.last+tag@mail.sub.example.co.uk>")).toBe("<[redacted:email]>");
    expect(redact("to: ana@example.com.")).toBe("to: [redacted:email].");
  });

  it("email: near misses stay", () => {
    for (const text of ["ana@localhost", "user@example", "@handle on social", "ana@example.c", "ana at example dot com", "ana@.com", "a@b.123"]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("bearer_token: keeps the scheme word, hides the token", () => {
    expect(redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl")).toBe(
      "Authorization: Bearer [redacted:bearer_token]",
    );
    expect(redact("curl -H 'authorization: bearer abcdefghijklmnop0123=='")).toBe("curl -H 'authorization: bearer [redacted:bearer_token]'");
  });

  it("bearer_token: near misses stay", () => {
    for (const text of ["the bearer of bad news", "Bearer short", "Bearer\nabcdefghijklmnopqrstu", "cupbearer abcdefghijklmnopqrstuvwxyz"]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("api_key: sk-/pk- keys, GitHub and Slack tokens", () => {
    expect(redact("key=sk-proj-AbCdEf0123456789xyz_-Q end")).toBe("key=[redacted:api_key] end");
    expect(redact("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc")).toBe("stripe [redacted:api_key]");
    expect(redact("pk-abcdefghijklmnop1234")).toBe("[redacted:api_key]");
    expect(redact("token ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toBe("token [redacted:api_key]");
    expect(redact("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz")).toBe("[redacted:api_key]");
    expect(redact("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKl and xoxp-1234-5678-abcdef")).toBe(
      "slack [redacted:api_key] and [redacted:api_key]",
    );
  });

  it("api_key: near misses stay", () => {
    for (const text of [
      "pip install sk-learn",
      "risk-assessment-framework-document",
      "task_force_alpha_bravo_charlie",
      "ghp_short",
      "xoxb-123",
      "desk-abcdefghijklmnopqrstuvwxyz",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("aws_access_key_id: 20-character key ids", () => {
    expect(redact("id AKIAIOSFODNN7EXAMPLE used")).toBe("id [redacted:aws_access_key_id] used");
    expect(redact("ASIAY34FZKBOKMUTVV7A")).toBe("[redacted:aws_access_key_id]");
  });

  it("aws_access_key_id: near misses stay", () => {
    for (const text of ["AKIAIOSFODNN7EXAMPL", "AKIAIOSFODNN7EXAMPLEX", "akiaiosfodnn7example", "XAKIAIOSFODNN7EXAMPLE"]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("pem: whole block, and an unterminated block to the end of the text", () => {
    const block = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----";
    expect(redact(`key:\n${block}\nthanks`)).toBe("key:\n[redacted:pem]\nthanks");
    expect(redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA")).toBe("[redacted:pem]");
    expect(
      redact("a -----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE----- b -----BEGIN CERTIFICATE-----\nMIID\n-----END CERTIFICATE----- c"),
    ).toBe("a [redacted:pem] b [redacted:pem] c");
  });

  it("pem: near misses stay", () => {
    for (const text of [
      "----BEGIN RSA PRIVATE KEY----\nabc",
      "paste the BEGIN CERTIFICATE line",
      "-----BEGIN -----",
      "-----END RSA PRIVATE KEY-----",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("iban: valid mod-97, grouped or not", () => {
    expect(redact("pay DE89 3704 0044 0532 0130 00 today")).toBe("pay [redacted:iban] today");
    expect(redact("GB82WEST12345698765432")).toBe("[redacted:iban]");
    expect(redact("FR14 2004 1010 0505 0001 3M02 606")).toBe("[redacted:iban]");
    expect(redact("NO9386011117947,")).toBe("[redacted:iban],");
    // A following upper-case word is not swallowed into the candidate.
    expect(redact("DE89 3704 0044 0532 0130 00 EUR")).toBe("[redacted:iban] EUR");
    // any case.
    expect(redact("gb82west12345698765432")).toBe("[redacted:iban]");
    expect(redact("iban de89 3704 0044 0532 0130 00.")).toBe("iban [redacted:iban].");
  });

  it("iban: invalid checksum or shape stays", () => {
    // IBANs count in any case, so the lower-case valid "gb82west…" is now hidden (see
    // the iban test above); a lower-case one with a bad checksum or wrong length still stays.
    for (const text of [
      "GB82WEST12345698765433",
      "GB00WEST12345698765432",
      "gb82west12345698765433",
      "gb82west1234569876543",
      "DE89 3704",
      "XGB82WEST12345698765432",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("card_number: 13-19 digits with spaces or dashes, valid Luhn", () => {
    expect(redact("card 4111 1111 1111 1111 exp 12/30")).toBe("card [redacted:card_number] exp 12/30");
    expect(redact("5555-5555-5555-4444")).toBe("[redacted:card_number]");
    expect(redact("amex 378282246310005.")).toBe("amex [redacted:card_number].");
    expect(redact("6011111111111117,4012888888881881")).toBe("[redacted:card_number],[redacted:card_number]");
    // A number in front does not hide the card behind it.
    expect(redact("1234 4111 1111 1111 1111")).toBe("1234 [redacted:card_number]");
    // any separators (this double-spaced one was a near miss before).
    expect(redact("4111  1111  1111  1111")).toBe("[redacted:card_number]");
    expect(redact("4111.1111.1111.1111 / 4111 - 1111 - 1111 - 1111")).toBe("[redacted:card_number] / [redacted:card_number]");
  });

  it("card_number: failing Luhn, too short, too long, or a decimal fraction stays", () => {
    for (const text of [
      "4111 1111 1111 1112",
      "4111111111111112",
      "411111111111", // 12 digits
      "41111111111111111111", // 20 digits (the first 19 are not a cut point)
      "4111.1111111111111", // one dot: a decimal number, not a card
      "pi is 3.4111111111111111",
      "1718900000000",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("checksum helpers", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(luhnValid("")).toBe(false);
    expect(ibanValid("DE89370400440532013000")).toBe(true);
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    expect(ibanValid("DE89 3704 0044 0532 0130 00")).toBe(false); // spaces are stripped by the caller
  });

  it("overlapping matches are merged so no part of either stays visible", () => {
    // The email rule and a card-like digit run overlap: one tag covers both.
    const out = redact("4111111111111111@example.com");
    expect(out).toBe("[redacted:email]");
  });

  it("a match that unblocks a neighbour is caught on the next pass", () => {
    // The AWS rule refuses a key followed by a letter or digit; once the card
    // number after it is hidden, the key stands alone and is hidden too.
    expect(redact("AKIAIOSFODNN7EXAMPLE4111111111111111")).toBe("[redacted:aws_access_key_id][redacted:card_number]");
  });

  it("existing tags are left alone, and lookalikes are not trusted", () => {
    expect(redact("x [redacted:email] y")).toBe("x [redacted:email] y");
    expect(redact("[redacted:ghp_abcdefghijklmnopqrstuvwxyz0123456789]")).toBe("[redacted:[redacted:api_key]]");
  });
});
