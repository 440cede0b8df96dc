import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not found" };

// The same page for an unknown address and for a request the viewer may not see.
export default function NotFound() {
  return (
    <main id="main" className="mx-auto max-w-md p-6">
      <h1 className="mb-2 text-xl font-semibold">Page not found</h1>
      <p className="mb-4 text-slate-700">There is nothing here, or you may not see it.</p>
      <Link href="/approvals" className="text-blue-700 underline">
        Back to the queue
      </Link>
    </main>
  );
}
