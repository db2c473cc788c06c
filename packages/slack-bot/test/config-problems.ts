import { ConfigError, loadConfig } from '../src/config/index.js';

/** What loading `env` says is wrong with it ('' when nothing is): the one message naming every problem. */
export function configProblems(env: Record<string, string>): string {
  try {
    loadConfig(env);
    return '';
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message;
  }
}
