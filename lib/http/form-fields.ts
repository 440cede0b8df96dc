// Reading a submitted form's fields as text, for server actions.

/** A form field as trimmed text ("" when missing). */
export function field(formData: FormData, name: string): string {
  const v = formData.get(name);
  return typeof v === "string" ? v.trim() : "";
}

/** A form field, or undefined when empty. */
export function optionalField(formData: FormData, name: string): string | undefined {
  return field(formData, name) || undefined;
}
