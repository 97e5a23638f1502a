// Another published version of an adapter's harness package, without editing the adapter: the bisect
// (baseline/bisect.ts) runs the releases between two pins. The adapter is rewritten in memory only:
// - with `install.npm`, the pin becomes the version and every path into the pin's install folder
//   (`{{cache}}/NAME-PIN`) points into the version's (`{{cache}}/NAME-VERSION`);
// - with a harness installed in the repository (`harness.package`, launched from
//   `{{repo}}/node_modules/…`), the version is installed into the cache like a pin, and the paths into
//   the repository's node_modules point into that install instead.
import { UserError } from '../errors.js';
import { mapStrings } from '../json-strings.js';
import type { Adapter } from './schema.js';

/** The npm package that is the adapter's harness: its pinned install, else the `harness:` declaration. */
export function harnessPackageOf(adapter: Adapter): string | undefined {
  return adapter.install?.npm?.package ?? adapter.harness?.package;
}

const VERSION_SHAPE = /^[0-9A-Za-z][0-9A-Za-z.+-]*$/;

export function withHarnessVersion(adapter: Adapter, version: string): Adapter {
  if (!VERSION_SHAPE.test(version))
    throw new UserError(
      `"${version}" is not a version of ${adapter.name}'s harness package`,
      'give an exact published version (`npm view PACKAGE versions`)',
    );
  const pin = adapter.install?.npm;
  const to = `{{cache}}/${adapter.name}-${version}`;
  if (pin) {
    const from = `{{cache}}/${adapter.name}-${pin.version}`;
    const moved = mapStrings(adapter, (s) => s.split(from).join(to)) as Adapter;
    return { ...moved, install: { ...moved.install, npm: { package: pin.package, version } } };
  }
  const pkg = adapter.harness?.package;
  if (!pkg)
    throw new UserError(
      `adapter ${adapter.name} names no harness package, so no other version of it can be installed`,
      'set install.npm (a pinned install) or harness.package (the npm package installed in the repository) in the adapter file',
    );
  const moved = mapStrings(adapter, (s) =>
    s.split('{{repo}}/node_modules/').join(`${to}/node_modules/`),
  ) as Adapter;
  return {
    ...moved,
    install: { ...moved.install, npm: { package: pkg, version } },
    harness: { ...moved.harness, version },
  };
}
