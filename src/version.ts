// Kept in step with package.json by the release process (checked by a test).
export const VERSION = '1.0.0';
