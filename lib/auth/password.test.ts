// Passwords (password.ts): hashed at the cost set, checked against their hash,
// and an unknown account checked against a fixed hash of that same cost, so
// it takes as long as a wrong password.
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { DUMMY_HASH, PASSWORD_HASH_COST, hashPassword, verifyPassword } from "./password";

describe("passwords", () => {
  it("hashes at the cost set and checks a password against its hash", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(bcrypt.getRounds(hash)).toBe(PASSWORD_HASH_COST);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", hash)).toBe(false);
  });

  it("compares an unknown account with a hash of the same cost, and never lets it in", async () => {
    expect(bcrypt.getRounds(DUMMY_HASH)).toBe(PASSWORD_HASH_COST);
    expect(await verifyPassword("", null)).toBe(false);
    expect(await verifyPassword("anything", undefined)).toBe(false);
  });
});
