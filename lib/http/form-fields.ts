// Reading a submitted form's fields and a page's search parameters as text.
import { z } from "zod";

/** A form field as trimmed text ("" when missing). */
export function field(formData: FormData, name: string): string {
  const v = formData.get(name);
  return typeof v === "string" ? v.trim() : "";
}

/** A form field, or undefined when empty. */
export function optionalField(formData: FormData, name: string): string | undefined {
  return field(formData, name) || undefined;
}

/** A page's search parameter as one value: the first when the URL repeats it. */
export function firstParam(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** A list page's `page` search parameter: a whole number from 1, 1 when missing. */
export const pageNumberSchema = z.coerce
  .number({ message: "page must be a number" })
  .int("page must be a whole number")
  .min(1, "pages start at 1")
  .default(1);
