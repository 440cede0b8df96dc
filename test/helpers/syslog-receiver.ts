// A local syslog receiver over TCP or TLS: reads octet-counted frames (RFC
// 6587 §3.4.1) and parses each as an RFC 5424 message by the RFC's grammar
// (header fields, structured data with escapes, the MSG with its BOM), so a
// message that does not follow it is counted as malformed, not received. It
// can be stopped (the port closed, every connection cut) and started again
// on the same port, as a SIEM's collector that restarts.
import net, { type AddressInfo, type Socket } from "node:net";
import tls from "node:tls";
import { testCertificate } from "./test-tls";

export type SyslogMessage = {
  pri: number;
  version: number;
  timestamp: string;
  hostname: string;
  appName: string;
  procId: string;
  msgId: string;
  sd: Array<{ id: string; params: Record<string, string> }>;
  msg: string;
};

export type SyslogReceiver = {
  port: number;
  url: string;
  messages: SyslogMessage[];
  malformed: string[];
  stop(): Promise<void>;
  start(): Promise<void>;
};

/** Parses one RFC 5424 message; throws on anything the grammar does not allow. */
export function parseRfc5424(text: string): SyslogMessage {
  const head = /^<(\d{1,3})>([1-9]\d?) (\S+) ([\x21-\x7e]{1,255}) ([\x21-\x7e]{1,48}) ([\x21-\x7e]{1,128}) ([\x21-\x7e]{1,32}) /.exec(text);
  if (!head) throw new Error("bad header");
  const pri = Number(head[1]);
  if (pri > 191) throw new Error("bad PRI");
  const timestamp = head[3]!;
  if (timestamp !== "-" && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/.test(timestamp)) throw new Error("bad TIMESTAMP");
  let i = head[0].length;
  const sd: SyslogMessage["sd"] = [];
  if (text[i] === "-") i++;
  else {
    while (text[i] === "[") {
      i++;
      const id = /^[\x21-\x7e]+?(?=[ \]])/.exec(text.slice(i))?.[0];
      if (!id || /[=" ]/.test(id)) throw new Error("bad SD-ID");
      i += id.length;
      const params: Record<string, string> = {};
      while (text[i] === " ") {
        i++;
        const name = /^[^= \]"]{1,32}/.exec(text.slice(i))?.[0];
        if (!name || text[i + name.length] !== "=" || text[i + name.length + 1] !== '"') throw new Error("bad SD-PARAM");
        i += name.length + 2;
        let value = "";
        for (;;) {
          const c = text[i++];
          if (c === undefined) throw new Error("unterminated PARAM-VALUE");
          if (c === "\\" && ['"', "\\", "]"].includes(text[i]!)) value += text[i++];
          else if (c === '"') break;
          else if (c === "]") throw new Error("unescaped ] in PARAM-VALUE");
          else value += c;
        }
        params[name] = value;
      }
      if (text[i++] !== "]") throw new Error("bad SD-ELEMENT end");
      sd.push({ id, params });
    }
    if (sd.length === 0) throw new Error("bad STRUCTURED-DATA");
  }
  let msg = "";
  if (i < text.length) {
    if (text[i] !== " ") throw new Error("no SP before MSG");
    msg = text.slice(i + 1);
    if (msg.startsWith("\uFEFF")) msg = msg.slice(1);
  }
  return { pri, version: Number(head[2]), timestamp, hostname: head[4]!, appName: head[5]!, procId: head[6]!, msgId: head[7]!, sd, msg };
}

export async function syslogReceiver(secure: boolean): Promise<SyslogReceiver> {
  const sockets = new Set<Socket>();
  const receiver = { messages: [] as SyslogMessage[], malformed: [] as string[] } as SyslogReceiver;
  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const space = buffered.indexOf(0x20);
        if (space < 0) return;
        const lenText = buffered.subarray(0, space).toString("ascii");
        if (!/^[1-9]\d{0,8}$/.test(lenText)) {
          receiver.malformed.push(`bad frame length ${JSON.stringify(lenText)}`);
          socket.destroy();
          return;
        }
        const len = Number(lenText);
        if (buffered.length < space + 1 + len) return;
        const text = buffered.subarray(space + 1, space + 1 + len).toString("utf8");
        buffered = buffered.subarray(space + 1 + len);
        try {
          receiver.messages.push(parseRfc5424(text));
        } catch (e) {
          receiver.malformed.push(`${(e as Error).message}: ${text.slice(0, 200)}`);
        }
      }
    });
  };
  const cert = secure ? testCertificate() : null;
  const make = () => (cert ? tls.createServer({ key: cert.key, cert: cert.cert }, onConnection) : net.createServer(onConnection));
  let server = make();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  // TLS by name: the test certificate names localhost, as a real one names the collector's host.
  receiver.url = `${secure ? "tls" : "tcp"}://${secure ? "localhost" : "127.0.0.1"}:${receiver.port}`;
  receiver.stop = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  receiver.start = async () => {
    server = make();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(receiver.port, "127.0.0.1", resolve);
    });
  };
  return receiver;
}
