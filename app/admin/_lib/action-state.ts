// What every admin server action answers, shown by ActionForm. Secrets appear
// here once (a new service's credentials, a rotated secret) and nowhere else:
// a reload renders the page without them.
export type ActionState = {
  ok: boolean;
  message: string;
  detail?: string[];
  secrets?: Array<{ label: string; value: string }>;
} | null;

export type AdminAction = (prev: ActionState, formData: FormData) => Promise<ActionState>;
