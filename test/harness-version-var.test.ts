// A built-in adapter moved to another release of its harness (bisect, a bump's tree, --harness-version)
// must name that release everywhere: a literal pin left in a path, an install step or a config file would
// run, unpack or pre-seed the old release beside the new one. {{harness_version}} (launch strings, files)
// and $HR_HARNESS_VERSION (install.command, install.warm) follow the pin; this checks every adapter.
import { describe, expect, it } from 'vitest';
import { listBuiltinAdapters, loadAdapter } from '../src/adapters/load.js';
import { harnessVersionOf, withHarnessVersion } from '../src/adapters/version-override.js';
import { mapStrings } from '../src/json-strings.js';

/** Every string of the adapter as a run would use it at `version`. */
function renderedStrings(adapter: ReturnType<typeof withHarnessVersion>, version: string): string[] {
  const out: string[] = [];
  mapStrings(adapter, (s) => {
    out.push(s.split('{{harness_version}}').join(version).split('$HR_HARNESS_VERSION').join(version));
    return s;
  });
  return out;
}

const pinned = listBuiltinAdapters()
  .map((name) => loadAdapter(name))
  .filter((a) => a.adapter.install?.npm);

describe('a built-in adapter moved to another release names only that release', () => {
  it('has pinned adapters to check', () => expect(pinned.length).toBeGreaterThanOrEqual(7));

  it.each(pinned.map((a) => [a.adapter.name, a] as const))('%s', (_name, loaded) => {
    const old = loaded.adapter.install!.npm!.version;
    const moved = withHarnessVersion(loaded.adapter, '0.0.1-hrtest');
    expect(harnessVersionOf(moved)).toBe('0.0.1-hrtest');
    const stale = renderedStrings(moved, '0.0.1-hrtest').filter((s) => s.includes(old));
    expect(stale, `strings still naming ${old}`).toEqual([]);
  });
});
