// The RFC 5424 syslog sink over TCP or TLS (AUDIT_SYSLOG_URL: tcp://host:514
// or tls://host:6514). A batch goes over one connection: every frame
// written, then the connection closed cleanly. TLS checks the server's
// certificate against the system's authorities plus NODE_EXTRA_CA_CERTS
// (Node's default), and its name against the URL's host.
import "server-only";
import { hostname } from "node:os";
import net from "node:net";
import tls from "node:tls";
import { formatSyslogMessage, frameOctetCounted, type SyslogOrigin } from "./syslog-format";
import { SinkError, type AuditSink } from "./sink";

const TIMEOUT_MS = 10_000;

export type SyslogTarget = { secure: boolean; host: string; port: number };

/** tcp://host[:port] or tls://host[:port] (ports 514 and 6514 by default); null if it is neither. */
export function parseSyslogUrl(raw: string): SyslogTarget | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "tcp:" && url.protocol !== "tls:") return null;
  if (!url.hostname || url.pathname.replace(/^\/$/, "") !== "" || url.search || url.username) return null;
  const secure = url.protocol === "tls:";
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { secure, host, port: url.port ? Number(url.port) : secure ? 6514 : 514 };
}

export function syslogSink(
  target: SyslogTarget,
  origin: SyslogOrigin = { hostname: hostname(), appName: "countersign", procId: String(process.pid) },
): AuditSink {
  return {
    name: "syslog",
    send: (events) =>
      sendFrames(
        target,
        events.map((ev) => frameOctetCounted(formatSyslogMessage(ev, origin))),
      ),
  };
}

function failureClass(e: unknown, timedOut: boolean): string {
  if (timedOut) return "timeout";
  const code = (e as { code?: unknown })?.code;
  if (code === "ECONNREFUSED") return "connection-refused";
  if (typeof code === "string" && (code.startsWith("ERR_TLS") || code.includes("CERT") || code === "DEPTH_ZERO_SELF_SIGNED_CERT")) return "tls";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  return "network";
}

function sendFrames(target: SyslogTarget, frames: Buffer[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let timedOut = false;
    let settled = false;
    const socket = target.secure
      ? tls.connect({ host: target.host, port: target.port, servername: net.isIP(target.host) ? undefined : target.host })
      : net.connect({ host: target.host, port: target.port });
    const finish = (e?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (e === undefined) resolve();
      else {
        socket.destroy();
        reject(new SinkError(failureClass(e, timedOut)));
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      finish(new Error("timeout"));
    }, TIMEOUT_MS);
    socket.on("error", (e) => finish(e));
    let written = false;
    // A close before every frame was written and our end sent, or with an error, is a failure.
    socket.on("close", (hadError) => finish(hadError || !written ? new Error("closed") : undefined));
    socket.on("data", () => undefined); // a receiver has nothing to say; read and drop it
    socket.once(target.secure ? "secureConnect" : "connect", () => {
      for (const f of frames) socket.write(f);
      // end() flushes what was written, sends FIN, and "close" follows once both sides are done.
      socket.end(() => {
        written = true;
      });
    });
  });
}
