"use client";

// Shown when a page fails on the server (most often: the database is briefly
// unreachable). Loading a page only reads, so a retry is always safe; the
// reference matches the server's log line ("page failed", digest) for support.
export default function PageError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <main id="main" className="mx-auto max-w-md p-6">
      <h1 className="mb-2 text-xl font-semibold">This page could not be loaded</h1>
      <p className="mb-4 text-slate-700">
        Countersign could not finish loading it, often because its database is briefly unreachable. Try again in a moment: loading a page never
        changes anything.
      </p>
      <button type="button" onClick={() => retry()} className="rounded bg-slate-900 px-4 py-2 font-medium text-white">
        Try again
      </button>
      {digest ? <p className="mt-4 text-sm text-slate-500">Reference: {digest}</p> : null}
    </main>
  );
}
