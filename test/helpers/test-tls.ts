// A TLS certificate for this machine (127.0.0.1, ::1, localhost), made with
// openssl once per test run, for the local stand-ins of services that are
// https-only in production (a Web Push service, push-endpoint.ts). Node
// reads NODE_EXTRA_CA_CERTS only when a process starts, so the global set-up
// makes the certificate and names it there before any test worker or app
// is started: every process of the run trusts it as it would a real
// certificate authority, and nothing in the app skips a TLS check.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type TestCertificate = { keyFile: string; certFile: string; caFile: string };

const KEY = "COUNTERSIGN_TEST_TLS_KEY";
const CERT = "COUNTERSIGN_TEST_TLS_CERT";

/** Makes the certificate in `dir` and sets the environment every later process inherits. */
export function installTestCertificate(dir: string): TestCertificate {
  const keyFile = join(dir, "test-tls-key.pem");
  const certFile = join(dir, "test-tls-cert.pem");
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ].concat(["-subj", "/CN=countersign test", "-addext", "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost"]),
    { encoding: "utf8" },
  );
  if (made.status !== 0) throw new Error(`openssl could not make the test certificate: ${made.stderr}`);
  // Authorities the caller already trusts stay trusted.
  const caFile = join(dir, "test-ca-bundle.pem");
  const earlier = process.env.NODE_EXTRA_CA_CERTS;
  writeFileSync(caFile, (earlier && existsSync(earlier) ? `${readFileSync(earlier, "utf8")}\n` : "") + readFileSync(certFile, "utf8"));
  Object.assign(process.env, { NODE_EXTRA_CA_CERTS: caFile, [KEY]: keyFile, [CERT]: certFile });
  return { keyFile, certFile, caFile };
}

/** The run's certificate (made by test/global-setup.ts). */
export function testCertificate(): TestCertificate & { key: Buffer; cert: Buffer } {
  const keyFile = process.env[KEY];
  const certFile = process.env[CERT];
  const caFile = process.env.NODE_EXTRA_CA_CERTS;
  if (!keyFile || !certFile || !caFile) throw new Error("No test certificate: run the tests with Vitest (test/global-setup.ts makes it).");
  return { keyFile, certFile, caFile, key: readFileSync(keyFile), cert: readFileSync(certFile) };
}
