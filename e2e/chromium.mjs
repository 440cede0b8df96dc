// How every browser run here launches Chromium: Debian's package (never a
// downloaded browser; CHROMIUM_PATH overrides the path), without the sandbox
// (containers), the GPU or any background traffic to Google. One home for the
// browser tests (playwright.config.ts), the bench's live-queue measurement
// (scripts/bench.mjs) and `npm test`'s check that the browser is installed.
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
  ],
};
