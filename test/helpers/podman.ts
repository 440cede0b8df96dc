// Debian's podman for the container image test (test/container/): how it is
// called on these machines, and the Node base image the Dockerfile is built
// on where no image registry is reachable.
//
// podman here needs three settings (docs/testing.md, "The container image"):
// no default ulimits (the container may not raise RLIMIT_NOFILE), runc
// rather than crun, and cgroupfs rather than systemd's cgroups.
//
// The base is made on this machine: Debian (debootstrap's minimal variant of
// this machine's release) with this machine's Node, npm, Node's headers (for
// better-sqlite3's compile) and its certificate authorities (npm's registry
// may be reached through a proxy that signs with its own). It is kept in
// podman's store under a tag derived from those inputs and made again only
// when one of them changes.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const CONTAINERS_CONF = '[containers]\ndefault_ulimits = []\n[engine]\nevents_logger = "file"\n';
const GLOBAL_FLAGS = ["--runtime", "runc", "--cgroup-manager=cgroupfs"];
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
const DEBIAN_MIRROR = "http://deb.debian.org/debian";
const DEFAULT_REGISTRY = "https://registry.npmjs.org/";
/** Bump when the recipe below changes: the tag then names a new base. */
const RECIPE = "1";

/** The settings file, one per machine (the same text every time). */
function containersConf(): string {
  const file = join(tmpdir(), "countersign-podman", "containers.conf");
  if (!existsSync(file) || readFileSync(file, "utf8") !== CONTAINERS_CONF) {
    mkdirSync(dirname(file), { recursive: true });
    // Whole or not at all: another test process may be reading it.
    writeFileSync(`${file}.${process.pid}`, CONTAINERS_CONF);
    renameSync(`${file}.${process.pid}`, file);
  }
  return file;
}

const onPath = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;

/** Why the container test cannot run on this machine, or null when it can. */
export function podmanMissing(): string | null {
  const missing = ["podman", "runc"].filter((tool) => !onPath(tool));
  if (missing.length) return `${missing.join(" and ")} not installed (Debian: apt-get install -y podman runc)`;
  if (process.getuid?.() !== 0) return "podman runs rootful here and debootstrap needs root: run as root";
  const baseMade = () => spawnSync("podman", [...GLOBAL_FLAGS, "image", "exists", baseTag()], { env: podmanEnv() }).status === 0;
  if (!onPath("debootstrap") && !baseMade()) return "debootstrap not installed, and the base image is not made yet (apt-get install -y debootstrap)";
  return null;
}

export type Run = { code: number; stdout: string; stderr: string };

type RunOptions = { allowFailure?: boolean; stdin?: NodeJS.ReadableStream; echo?: boolean };

/** Runs a command; throws with its output unless it exits 0 (or `allowFailure`). */
function run(command: string, args: string[], opts: RunOptions & { env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: opts.env ?? process.env, stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"] });
    if (opts.stdin) opts.stdin.pipe(child.stdin!);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (opts.echo) process.stdout.write(d);
    });
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (opts.echo) process.stderr.write(d);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const result = { code: code ?? 1, stdout, stderr };
      if (result.code !== 0 && !opts.allowFailure) reject(new Error(`${command} ${args.join(" ")} exited ${result.code}:\n${stderr.slice(-4000)}`));
      else resolve(result);
    });
  });
}

const podmanEnv = () => ({ ...process.env, CONTAINERS_CONF: containersConf() });

/** Runs podman with this machine's settings; throws with its output unless it exits 0 (or `allowFailure`). */
export function podman(args: string[], opts: RunOptions = {}): Promise<Run> {
  return run("podman", [...GLOBAL_FLAGS, ...args], { ...opts, env: podmanEnv() });
}

/** Synchronous and quiet, for clean-up when the process exits. */
export function podmanNow(args: string[]): void {
  spawnSync("podman", [...GLOBAL_FLAGS, ...args], { env: podmanEnv(), stdio: "ignore" });
}

function debianRelease(): string {
  const osRelease = existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "";
  return /^VERSION_CODENAME=(\w+)$/m.exec(osRelease)?.[1] ?? "bookworm";
}

function npmRegistry(): string {
  const r = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : DEFAULT_REGISTRY;
}

const nodePrefix = () => dirname(dirname(process.execPath));

/** What the base is made of; its hash is the base's tag. */
function baseInputs() {
  const npmDir = join(nodePrefix(), "lib", "node_modules", "npm");
  return {
    recipe: RECIPE,
    release: debianRelease(),
    node: process.version,
    npm: JSON.parse(readFileSync(join(npmDir, "package.json"), "utf8")).version as string,
    registry: npmRegistry(),
    authorities: existsSync(CA_BUNDLE) ? createHash("sha256").update(readFileSync(CA_BUNDLE)).digest("hex") : "none",
  };
}

const baseTag = (inputs = baseInputs()) =>
  `localhost/countersign-test-base:${createHash("sha256").update(JSON.stringify(inputs)).digest("hex").slice(0, 16)}`;

/**
 * The base image's tag, made first if podman's store lacks it: debootstrap
 * (minbase) of this machine's Debian release, this Node and npm at the
 * places they have here, imported as one layer. A few minutes, once.
 */
export async function ensureBaseImage(log: (line: string) => void): Promise<string> {
  const inputs = baseInputs();
  const tag = baseTag(inputs);
  if ((await podman(["image", "exists", tag], { allowFailure: true })).code === 0) return tag;

  const started = Date.now();
  log(`making the base image ${tag} (${JSON.stringify(inputs)})`);
  const work = mkdtempSync(join(tmpdir(), "cs-base-"));
  const root = join(work, "rootfs");
  try {
    await run("debootstrap", ["--variant=minbase", inputs.release, root, DEBIAN_MIRROR]);
    // What apt fetched: not needed in the image (the Dockerfile runs apt-get update itself).
    for (const dir of ["var/cache/apt/archives", "var/lib/apt/lists"]) {
      rmSync(join(root, dir), { recursive: true, force: true });
      mkdirSync(join(root, dir, "partial"), { recursive: true });
    }
    // This Node, npm and Node's headers, at the prefix they have here.
    const prefix = nodePrefix();
    const inRoot = (path: string) => join(root, path);
    mkdirSync(inRoot(join(prefix, "bin")), { recursive: true });
    cpSync(process.execPath, inRoot(join(prefix, "bin", "node")));
    cpSync(join(prefix, "lib", "node_modules", "npm"), inRoot(join(prefix, "lib", "node_modules", "npm")), { recursive: true });
    for (const tool of ["npm", "npx"]) {
      rmSync(inRoot(join(prefix, "bin", tool)), { force: true });
      symlinkSync(`../lib/node_modules/npm/bin/${tool}-cli.js`, inRoot(join(prefix, "bin", tool)));
    }
    if (existsSync(join(prefix, "include", "node")))
      cpSync(join(prefix, "include", "node"), inRoot(join(prefix, "include", "node")), { recursive: true });
    const npmrc = [`nodedir=${prefix}`, ...(inputs.registry !== DEFAULT_REGISTRY ? [`registry=${inputs.registry}`] : [])];
    mkdirSync(inRoot(join(prefix, "etc")), { recursive: true });
    writeFileSync(inRoot(join(prefix, "etc", "npmrc")), npmrc.join("\n") + "\n");
    const changes = ['CMD ["node"]'];
    if (existsSync(CA_BUNDLE)) {
      mkdirSync(inRoot(dirname(CA_BUNDLE)), { recursive: true });
      cpSync(CA_BUNDLE, inRoot(CA_BUNDLE));
      changes.push(`ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`);
    }
    // /dev is the runtime's: its device nodes stay out of the image.
    const tar = spawn("tar", ["-C", root, "--exclude=./dev/*", "-c", "."], { stdio: ["ignore", "pipe", "inherit"] });
    await podman(["import", "--quiet", ...changes.flatMap((c) => ["--change", c]), "-", tag], { stdin: tar.stdout });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`base image made in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return tag;
}

export type TestImage = { tag: string; remove: () => Promise<void> };

/** An image's id and its layers' digests, or null when there is no such image. */
async function imageLayers(ref: string): Promise<{ id: string; layers: string[] } | null> {
  const r = await podman(["image", "inspect", "--format", "{{.Id}} {{range .RootFS.Layers}}{{.}} {{end}}", ref], { allowFailure: true });
  if (r.code !== 0) return null;
  const [id, ...layers] = r.stdout.trim().split(/\s+/);
  return { id: id!, layers };
}

/**
 * Removes the image a cache tag named before this build, unless the new one
 * is built on it: podman would delete its record (and its untagged parents'),
 * which are the cache the next build looks its steps up in.
 */
async function removeSuperseded(before: { id: string; layers: string[] } | null, tag: string): Promise<void> {
  const after = await imageLayers(tag);
  if (!before || !after || before.id === after.id) return;
  if (after.layers.includes(before.layers[before.layers.length - 1]!)) return;
  await podman(["rmi", before.id], { allowFailure: true });
}

/**
 * Builds the Dockerfile on `base` (docker format: OCI images carry no
 * HEALTHCHECK), in steps that give each stage worth keeping a tag: the
 * dependency stages ("prod-deps", which holds "deps", and "runtime") stay in
 * podman's store as the next run's cache; this run's build stage and image
 * are removed by `remove`. A cache that a new lockfile or base replaced is
 * removed here, with the layers only it held.
 */
export async function buildTestImage(root: string, base: string, log: (line: string) => void): Promise<TestImage> {
  const common = [
    "build",
    "--network=host",
    "--format=docker",
    "--layers",
    "--build-arg",
    `NODE_IMAGE=${base}`,
    // npm test's types step has checked the same sources.
    "--build-arg",
    "COUNTERSIGN_BUILD_TYPECHECKED=1",
    "--file",
    join(root, "Dockerfile"),
  ];
  const build = async (target: string | null, tag: string) => {
    const started = Date.now();
    const r = await podman([...common, ...(target ? ["--target", target] : []), "--tag", tag, root], { allowFailure: true });
    appendFileSync(buildLog, `=== ${target ?? "final"}\n${r.stdout}${r.stderr}`);
    if (r.code !== 0) throw new Error(`podman build ${target ?? "(final)"} exited ${r.code}:\n${(r.stdout + r.stderr).slice(-6000)}`);
    const cached = (r.stdout.match(/--> Using cache/g) ?? []).length;
    log(`stage ${target ?? "final"}: ${((Date.now() - started) / 1000).toFixed(0)} s (${cached} cached steps; output in .tmp/container-build.log)`);
  };
  // Every stage's output, for a look at what a build spent its time on.
  const buildLog = join(root, ".tmp", "container-build.log");
  mkdirSync(dirname(buildLog), { recursive: true });
  writeFileSync(buildLog, "");
  const prodDepsCache = "localhost/countersign-test-cache:prod-deps";
  const runtimeCache = "localhost/countersign-test-cache:runtime";
  await removeLeftovers();
  const run = `${process.pid}-${Date.now()}`;
  const buildTag = `localhost/countersign-test-build:${run}`;
  const imageTag = `localhost/countersign-test-image:${run}`;
  const remove = async () => void (await podman(["rmi", "--force", imageTag, buildTag], { allowFailure: true }));
  try {
    const prodDepsBefore = await imageLayers(prodDepsCache);
    await build("prod-deps", prodDepsCache);
    await removeSuperseded(prodDepsBefore, prodDepsCache);
    await build("build", buildTag);
    await build(null, imageTag);
    // The final stage is the runtime stage and one COPY: its parent is the runtime stage, kept as cache.
    const runtimeBefore = await imageLayers(runtimeCache);
    const runtime = (await podman(["image", "inspect", "--format", "{{.Parent}}", imageTag])).stdout.trim();
    await podman(["tag", runtime, runtimeCache]);
    await removeSuperseded(runtimeBefore, runtimeCache);
  } catch (err) {
    await remove();
    throw err;
  }
  return { tag: imageTag, remove };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * What an earlier run that was killed left behind (named after its process
 * id, now gone): its container, volume, build and image. The caches stay.
 */
export async function removeLeftovers(): Promise<void> {
  const gone = (name: string) => {
    const pid = /^(?:localhost\/)?countersign-test-(?:build:|image:|)(\d+)/.exec(name)?.[1];
    return pid !== undefined && Number(pid) !== process.pid && !alive(Number(pid));
  };
  const list = async (args: string[]) => (await podman(args)).stdout.split("\n").filter(gone);
  const containers = await list(["ps", "--all", "--format", "{{.Names}}"]);
  if (containers.length) await podman(["rm", "--force", "--volumes", ...containers], { allowFailure: true });
  const volumes = await list(["volume", "ls", "--format", "{{.Name}}"]);
  if (volumes.length) await podman(["volume", "rm", "--force", ...volumes], { allowFailure: true });
  const images = await list(["images", "--format", "{{.Repository}}:{{.Tag}}"]);
  if (images.length) await podman(["rmi", "--force", ...images], { allowFailure: true });
}
