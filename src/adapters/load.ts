// Loading an adapter: a built-in name (adapters/NAME/adapter.yaml) or a path to a folder or YAML file.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { builtinAdaptersDir } from '../paths.js';
import { readYaml } from '../yaml-file.js';
import { indexedAdapter } from './adapter-index.js';
import { Adapter, type AdapterConfig, type LoadedAdapter } from './schema.js';

export function listBuiltinAdapters(): string[] {
  const dir = builtinAdaptersDir();
  return readdirSync(dir)
    .filter((n) => existsSync(join(dir, n, 'adapter.yaml')))
    .sort();
}

export function loadAdapter(nameOrPath: string, cwd = process.cwd()): LoadedAdapter {
  let file: string;
  if (
    /^[a-z0-9][a-z0-9-]*$/.test(nameOrPath) &&
    existsSync(join(builtinAdaptersDir(), nameOrPath, 'adapter.yaml'))
  ) {
    file = join(builtinAdaptersDir(), nameOrPath, 'adapter.yaml');
    const indexed = indexedAdapter(nameOrPath, file);
    if (indexed) return { adapter: indexed, dir: dirname(file), file };
  } else {
    const abs = resolve(cwd, nameOrPath);
    if (existsSync(abs) && statSync(abs).isDirectory()) file = join(abs, 'adapter.yaml');
    else file = abs;
    if (!existsSync(file)) {
      throw new UserError(
        `unknown adapter "${nameOrPath}": no built-in adapter of that name and no file ${file}`,
        `use one of ${listBuiltinAdapters().join(', ')}, or a path to a folder holding adapter.yaml`,
      );
    }
  }
  const { value } = readYaml(file, Adapter, 'adapter file');
  return { adapter: value, dir: dirname(file), file };
}

export function adapterConfig(loaded: LoadedAdapter, name: string): AdapterConfig {
  const config = loaded.adapter.configs[name];
  if (!config) {
    throw new UserError(
      `${loaded.file}: adapter "${loaded.adapter.name}" has no configuration "${name}"`,
      `use one of ${Object.keys(loaded.adapter.configs).join(', ')}`,
    );
  }
  return config;
}

/** An adapter that leaves launch.command empty (the built-in `acp`): it drives the ACP agent a run names. */
export const drivesNamedAgent = (loaded: LoadedAdapter): boolean =>
  loaded.adapter.launch.command.length === 0;

/**
 * The adapter with the run's ACP agent command (acp-command) as its launch.command. Only an adapter
 * speaking ACP takes one; one that leaves launch.command empty (the built-in `acp`) needs one.
 */
export function withAcpCommand(loaded: LoadedAdapter, command: string[] | undefined): LoadedAdapter {
  const { adapter } = loaded;
  if (command && adapter.protocol !== 'acp')
    throw new UserError(
      `acp-command was given, but ${loaded.file} does not speak ACP (protocol: ${adapter.protocol})`,
      'use --adapter acp (or an adapter with protocol: acp), or leave acp-command empty',
    );
  if (!command && drivesNamedAgent(loaded))
    throw new UserError(
      `${loaded.file}: adapter "${adapter.name}" has no launch.command: it drives the ACP agent you name`,
      'give the agent\'s command with --acp-command (action input acp-command), e.g. --acp-command "npx --offline my-agent --acp"',
    );
  if (!command) return loaded;
  return { ...loaded, adapter: { ...adapter, launch: { ...adapter.launch, command } } };
}
