// Another published build of an adapter's harness package, without editing the adapter: the bisect
// (baseline/bisect.ts) runs the releases between two pins, and a run's `harness-package` names another
// package (a harness that moved to a new npm name) or version. The adapter is rewritten in memory only:
// - with `install.npm`, the pin becomes the version and every path into the pin's install folder
//   (`{{cache}}/NAME-PIN`) points into the version's (`{{cache}}/NAME-VERSION`); a new package name also
//   moves every path into the old package's folder (`node_modules/OLD/`) to the new one's;
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

/**
 * The version of the harness the adapter runs ({{harness_version}}, $HR_HARNESS_VERSION in install steps):
 * the pin, or the one `harness:` names. An override (bisect, a bump's tree) moves it with the pin, so a
 * string written with it follows where a literal version would not.
 */
export function harnessVersionOf(adapter: Adapter): string | undefined {
  return adapter.install?.npm?.version ?? adapter.harness?.version;
}

const VERSION_SHAPE = /^[0-9A-Za-z][0-9A-Za-z.+-]*$/;
// npm's rules for a (possibly scoped) package name: lower case, URL-safe, no leading dot or underscore.
const PACKAGE_SHAPE = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** A harness build to run instead of the pin: its npm package and exact version. */
export interface HarnessBuild {
  package: string;
  version: string;
}

/**
 * `NAME@VERSION` (`@scope/name@1.2.3`) as a build. Undefined with a reason when it is not one, for the
 * caller to name its field.
 */
export function parseHarnessBuild(spec: string): HarnessBuild | string {
  const s = spec.trim();
  const at = s.lastIndexOf('@');
  if (at <= 0)
    return `"${s.slice(0, 100)}" names no version; write PACKAGE@VERSION (e.g. @scope/agent@1.6.0)`;
  const pkg = s.slice(0, at);
  const version = s.slice(at + 1);
  if (!PACKAGE_SHAPE.test(pkg)) return `"${pkg.slice(0, 100)}" is not an npm package name`;
  if (!VERSION_SHAPE.test(version))
    return `"${version.slice(0, 60)}" is not an exact version; give one that \`npm view ${pkg} versions\` lists`;
  return { package: pkg, version };
}

export function withHarnessVersion(adapter: Adapter, version: string): Adapter {
  if (!VERSION_SHAPE.test(version))
    throw new UserError(
      `"${version}" is not a version of ${adapter.name}'s harness package`,
      'give an exact published version (`npm view PACKAGE versions`)',
    );
  const pkg = harnessPackageOf(adapter);
  if (!pkg)
    throw new UserError(
      `adapter ${adapter.name} names no harness package, so no other version of it can be installed`,
      'set install.npm (a pinned install) or harness.package (the npm package installed in the repository) in the adapter file',
    );
  return withHarnessBuild(adapter, { package: pkg, version });
}

/** The adapter launching `build` (another version, or another package) instead of its own harness. */
export function withHarnessBuild(adapter: Adapter, build: HarnessBuild): Adapter {
  const to = `{{cache}}/${adapter.name}-${build.version}`;
  const pin = adapter.install?.npm;
  const from = pin?.package ?? adapter.harness?.package;
  if (!from)
    throw new UserError(
      `adapter ${adapter.name} names no harness package, so no other build of it can be installed`,
      'set install.npm (a pinned install) or harness.package (the npm package installed in the repository) in the adapter file',
    );
  // The package's own folder, wherever a path leads into it (the launch command, install.command, env).
  const renamed = (s: string) =>
    from === build.package ? s : s.split(`node_modules/${from}/`).join(`node_modules/${build.package}/`);
  if (pin) {
    const old = `{{cache}}/${adapter.name}-${pin.version}`;
    const moved = mapStrings(adapter, (s) => renamed(s.split(old).join(to))) as Adapter;
    return { ...moved, install: { ...moved.install, npm: { ...build } } };
  }
  const moved = mapStrings(adapter, (s) =>
    renamed(s.split('{{repo}}/node_modules/').join(`${to}/node_modules/`)),
  ) as Adapter;
  return {
    ...moved,
    install: { ...moved.install, npm: { ...build } },
    harness: { ...moved.harness, package: build.package, version: build.version },
  };
}
