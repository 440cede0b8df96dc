import { z } from "zod";
import { roleSchema } from "../users/schemas";

/**
 * A directory group's name as the company's identity provider sends it
 * (Okta and Keycloak: the group's name; Entra ID: its object id unless the
 * app is set to send names). Any printable text: it is matched exactly.
 */
export const groupNameSchema = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(256, "must be at most 256 characters")
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, "must not contain control or invisible characters");

export const groupMappingSchema = z.object({ group: groupNameSchema, role: roleSchema });
export type GroupMapping = z.infer<typeof groupMappingSchema>;

/** Where a membership or a mapping comes from. */
export const MEMBERSHIP_SOURCES = ["oidc", "scim"] as const;
export type MembershipSource = (typeof MEMBERSHIP_SOURCES)[number];
export const MAPPING_SOURCES = ["admin", "policy-file"] as const;
export type MappingSource = (typeof MAPPING_SOURCES)[number];

/** The most groups one sign-in's claim may name; past it the claim is refused as a whole (use SCIM instead). */
export const MAX_CLAIM_GROUPS = 1000;
