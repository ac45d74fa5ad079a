/**
 * The SDK as a developer gets it (issue 31): `npm pack` in sdk/ makes a tarball, which installs into a new project
 * (its dependency, and React for the optional bindings, from the npm cache the repository's install filled),
 * type-checks there with the package's own declarations, and runs from its three entry points. Needs `npm run sdk:build` first (`npm test` does).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/databases";

const run = promisify(execFile);
const project = await mkdtemp(path.join(tmpdir(), "sdk-consumer-"));
afterAll(() => rm(project, { recursive: true, force: true }));

describe("the packed SDK", () => {
  it("installs from its tarball, type-checks and runs in a new project", async () => {
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", project], {
      cwd: path.join(ROOT, "sdk"),
    });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    // What the tarball holds: the built files and the README, never the sources.
    expect(packed!.files.map((file) => file.path).sort()).toEqual(
      expect.arrayContaining(["README.md", "dist/index.js", "dist/index.d.ts", "dist/react.js", "dist/webhooks.js"]),
    );
    expect(packed!.files.some((file) => file.path.startsWith("src/"))).toBe(false);

    await writeFile(
      path.join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    await run(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        `./${packed!.filename}`,
        "typescript@5",
        "react@18",
      ],
      { cwd: project, timeout: 300_000 },
    );
    expect(await readdir(path.join(project, "node_modules/@wishlist-service/sdk/dist"))).toContain("index.js");

    // The developer's own code, checked against the package's declarations under NodeNext resolution.
    await writeFile(
      path.join(project, "main.ts"),
      `import { createWishlistClient, isProblem, paginate } from "@wishlist-service/sdk";
import { verifyWebhook } from "@wishlist-service/sdk/webhooks";
const client = createWishlistClient({ baseUrl: "http://127.0.0.1:9", privateKey: "svc_sk_example" });
const lists = paginate((cursor) => client.GET("/lists", { params: { query: { cursor } } }));
const outcome = await verifyWebhook("{}", "t=1,v1=00", "whsec_x");
console.log(typeof lists[Symbol.asyncIterator], outcome.ok, isProblem(new Error("x"), "not-found"));
`,
    );
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
          lib: ["ES2022", "DOM"],
        },
        files: ["main.ts"],
      }),
    );
    await run(path.join(project, "node_modules/.bin/tsc"), ["-p", "."], { cwd: project });

    const { stdout: output } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const sdk = await import("@wishlist-service/sdk");
const react = await import("@wishlist-service/sdk/react");
const hooks = await import("@wishlist-service/sdk/webhooks");
console.log([typeof sdk.createWishlistClient, typeof react.WishlistProvider, typeof hooks.verifyWebhook].join(","));`,
      ],
      { cwd: project },
    );
    expect(output.trim()).toBe("function,function,function");
  }, 600_000);
});
