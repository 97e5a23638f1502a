// A test/support entry bundled once per test process into a plain node script (next to node_modules, its
// dependencies external: dockerode's optional native modules cannot be bundled), for tests that run an
// engine stand-in in a child process of its own (the runner conformance suite, the engine-survive test).
import { join } from 'node:path';

const bundles = new Map<string, Promise<string>>();

/** `test/support/<name>.ts` as a bundled .mjs, built on first use. */
export function bundledSupport(name: string): Promise<string> {
  let b = bundles.get(name);
  if (!b) {
    b = (async () => {
      const { build } = await import('esbuild');
      const root = join(import.meta.dirname, '..', '..');
      const outfile = join(root, 'node_modules', '.cache', 'hr-support', `${name}-${process.pid}.mjs`);
      await build({
        entryPoints: [join(import.meta.dirname, `${name}.ts`)],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        outfile,
        packages: 'external',
        logLevel: 'silent',
      });
      return outfile;
    })();
    bundles.set(name, b);
  }
  return b;
}
