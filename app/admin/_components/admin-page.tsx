import { AppHeader } from "@/components/app-header";
import { signOutAction } from "@/app/actions/auth";

export function AdminPage({
  user,
  title,
  children,
}: {
  user: { email: string; roles: readonly string[] };
  title: string;
  children: React.ReactNode;
}) {
  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      <main id="main" className="mx-auto flex max-w-5xl flex-col gap-6 p-4">
        <h1 className="text-xl font-semibold">{title}</h1>
        {children}
      </main>
    </>
  );
}

export function Section({ title, id, children }: { title: string; id: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="rounded border border-slate-200 bg-white p-4">
      <h2 id={id} className="mb-3 font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** A labelled text input; the label wraps the control, so no ids are needed. */
export function TextField({
  label,
  name,
  defaultValue,
  type = "text",
  required,
  placeholder,
  help,
  className,
  readOnly,
}: {
  label: string;
  name: string;
  defaultValue?: string | number;
  type?: "text" | "email" | "password" | "number" | "url" | "datetime-local";
  required?: boolean;
  placeholder?: string;
  help?: string;
  className?: string;
  readOnly?: boolean;
}) {
  return (
    <label className={`flex min-w-0 flex-col gap-1 text-sm font-medium ${className ?? ""}`}>
      {label}
      <input
        name={name}
        type={type}
        defaultValue={defaultValue}
        required={required}
        placeholder={placeholder}
        readOnly={readOnly}
        autoComplete="off"
        className="rounded border border-slate-300 px-3 py-2 text-base font-normal read-only:bg-slate-100"
      />
      {help && <span className="text-xs font-normal text-slate-600">{help}</span>}
    </label>
  );
}

/**
 * "Save anyway": a change nobody could satisfy yet (lib/policies/reachability.ts)
 * is refused unless this is ticked, for admins preparing roles in advance.
 */
export function AnywayCheckbox({ label, help }: { label: string; help: string }) {
  return (
    <label className="flex items-center gap-2 text-sm">
      <input type="checkbox" name="anyway" className="h-5 w-5 rounded border-slate-300" />
      <span>
        <span className="font-medium">{label}</span>
        <span className="block text-xs text-slate-600">{help}</span>
      </span>
    </label>
  );
}
