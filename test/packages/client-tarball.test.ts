// @countersign/client as a user gets it: packed with `npm pack`, installed
// from the tarball into an empty project, type-checked there, and the README's
// example run unchanged against the live app (request → a reviewer decides →
// consume → receipt verified), approved once, replayed, and denied.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import { approvalIdIn, codeBlock, packWorkspace, projectWith, runLines } from "../helpers/tarball-project";
import { linesNotInExample, readmeExcerpt } from "../helpers/readme-excerpt";

const root = resolve(import.meta.dirname, "../..");

describe("@countersign/client from its tarball (live, sqlite)", () => {
  const app = appFor("sqlite");
  let project = "";
  let files: string[] = [];

  beforeAll(() => {
    if (!app) return;
    const packed = packWorkspace("client", mkdtempSync(join(tmpdir(), "countersign-tgz-")));
    files = packed.files;
    project = projectWith([packed.tarball]);
    writeFileSync(join(project, "example.mjs"), codeBlock(join(root, "packages/client/README.md"), "js"));
  }, 180_000);

  it("the project README shows an excerpt of the package README's example, linking to it", () => {
    const example = codeBlock(join(root, "packages/client/README.md"), "js");
    expect(linesNotInExample(readmeExcerpt("(packages/client/README.md)", "js", root), example)).toEqual([]);
  });

  it.runIf(app)("ships only the built ESM, its declarations, the README and package.json", () => {
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("README.md");
    expect(files.filter((f) => !/^dist\/[a-z-]+\.(js|d\.ts)$/.test(f)).sort()).toEqual(["README.md", "package.json"]);
  });

  it.runIf(app)("type-checks a TypeScript caller against the installed declarations", () => {
    writeFileSync(
      join(project, "check.ts"),
      [
        'import { ApprovalPort, CountersignClient, type PortDecision } from "@countersign/client";',
        'const port = new ApprovalPort(new CountersignClient({ baseUrl: "http://x", serviceSlug: "s", webhookSecret: "w", apiToken: "t" }));',
        'const verdict: Promise<PortDecision> = port.ask({ run_id: "r", call_id: "c", tool: "t", arguments: {} });',
        "void verdict;",
        "// @ts-expect-error arguments must be an object",
        'void port.ask({ run_id: "r", call_id: "c", tool: "t", arguments: 1 });',
      ].join("\n"),
    );
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const args = [
      "--noEmit",
      "--strict",
      "--skipLibCheck",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "check.ts",
    ];
    expect(() => execFileSync(process.execPath, [tsc, ...args], { cwd: project, stdio: "pipe" })).not.toThrow();
  });

  it.runIf(app)("runs the README example: approved once with the approved arguments, refused when run again; denied with the reason", async () => {
    const f = await import("../helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const reviewer = await f.makeUser(["reviewer"]);

    async function runExample(decision: "approve" | "deny", reason: string) {
      const svc = await f.makeService();
      const env = {
        ...process.env,
        COUNTERSIGN_URL: app!.baseUrl,
        COUNTERSIGN_SLUG: svc.slug,
        COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
        COUNTERSIGN_API_TOKEN: svc.api_token,
      };
      const ids: string[] = [];
      const onLine = async (line: string) => {
        const id = approvalIdIn(line);
        if (!id) return;
        if (!ids.includes(id)) await recordReview(reviewer.id, { approvalId: id, decision, reason });
        ids.push(id);
      };
      const example = () => runLines(process.execPath, ["example.mjs"], { cwd: project, env }, onLine);
      const first = await example();
      const again = decision === "approve" ? await example() : [];
      return { first, again, ids };
    }

    const approved = await runExample("approve", "ticket 7");
    expect(approved.first.at(-1)).toBe("refunded 10 on A-1");
    // Run again (a new process, so a new salt and digest), the same ids are refused outright: never run twice.
    expect(approved.ids).toHaveLength(1);
    expect(approved.again.at(-1)).toMatch(/^not run \(call-reused\): approval failed, so the call is denied/);

    const denied = await runExample("deny", "wrong order");
    expect(denied.first.at(-1)).toBe("not run (denied): denied: wrong order");
  });
});
