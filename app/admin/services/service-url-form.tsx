// One of a service's URLs (callback, notification webhook): a field to set
// it, and with `clearLabel`, a button that removes it.
import type { FormAction } from "@/lib/auth/guards";
import { ActionForm } from "../_components/action-form";
import { TextField } from "../_components/admin-page";

type Props = {
  action: FormAction;
  slug: string;
  /** The form field the action reads. */
  name: string;
  label: string;
  value: string | null;
  help: string;
  submitLabel: string;
  clearLabel?: string;
};

export function ServiceUrlForm({ action, slug, name, label, value, help, submitLabel, clearLabel }: Props) {
  return (
    <div className="flex flex-wrap items-end gap-3">
      <ActionForm action={action} submitLabel={submitLabel}>
        <input type="hidden" name="slug" value={slug} />
        <TextField label={label} name={name} type="url" defaultValue={value ?? ""} className="w-full sm:w-96" help={help} />
      </ActionForm>
      {clearLabel && value && (
        <ActionForm action={action} submitLabel={clearLabel}>
          <input type="hidden" name="slug" value={slug} />
        </ActionForm>
      )}
    </div>
  );
}
