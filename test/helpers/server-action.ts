// Calls a real server action of the built app over HTTP the way the browser's
// React client does for a form (`next-action` header, the arguments encoded as
// multipart: the form's fields under the FormData reference's prefix "_1_", then
// "0" holding [previous state, that reference]). The action's id is read from the
// build's own manifest, so a renamed or moved action fails loudly.
import { readFileSync } from "node:fs";
import { join } from "node:path";

type Manifest = { node: Record<string, { filename: string; exportedName: string }> };

/** `manifestText`: another build's server-reference-manifest.json (a container's); by default this checkout's build. */
export function serverActionId(filename: string, exportedName: string, manifestText?: string): string {
  const dist = process.env.NEXT_DIST_DIR ?? ".next";
  const text = manifestText ?? readFileSync(join(process.cwd(), dist, "server", "server-reference-manifest.json"), "utf8");
  const manifest = JSON.parse(text) as Manifest;
  const hit = Object.entries(manifest.node).find(([, v]) => v.filename === filename && v.exportedName === exportedName);
  if (!hit) throw new Error(`no server action ${exportedName} in ${filename} in the build`);
  return hit[0];
}

/** Posts a form-state action (useActionState: (previous, formData)) and returns the status and the RSC answer as text. */
export async function postFormAction(
  pageUrl: string,
  actionId: string,
  fields: Record<string, string>,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const form = new FormData();
  // The root part last, as React sends it: the server resolves it as soon as it arrives.
  for (const [k, v] of Object.entries(fields)) form.append(`_1_${k}`, v);
  form.set("0", JSON.stringify([null, "$K1"]));
  const r = await fetch(pageUrl, {
    method: "POST",
    redirect: "manual",
    headers: { accept: "text/x-component", "next-action": actionId, ...headers },
    body: form,
  });
  return { status: r.status, body: await r.text() };
}
