import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not allowed" };

export default function Forbidden() {
  return (
    <main id="main" className="mx-auto max-w-md p-6">
      <h1 className="mb-2 text-xl font-semibold">Not allowed</h1>
      <p className="mb-4 text-slate-700">Your account does not have the role this page needs. Ask an admin.</p>
      <Link href="/approvals" className="text-blue-700 underline">
        Back to the queue
      </Link>
    </main>
  );
}
