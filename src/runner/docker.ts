// The `docker` runner lives in ./docker/ (one module per concern); this is its entry point.
export * from './docker/index.js';
