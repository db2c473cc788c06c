// n8n's community-node lint, in full: @n8n/eslint-plugin-community-nodes' recommended rules and every rule
// of eslint-plugin-n8n-nodes-base's community, credentials and nodes sets, warnings failing the lint
// (`--max-warnings 0`). It is the configuration @n8n/node-cli 0.48.3 ships (`@n8n/node-cli/eslint`) and
// n8n's scanner runs, with two of the five rules they turn off turned back on (and met). The three left
// off contradict a newer rule of the same lint, which wins (docs/verification.md). The CLI itself can't
// be installed on Node 20: its AI SDK dependency pulls n8n-workflow 2.41, which needs Node 22.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const communityNodesRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
  globalIgnores(['dist', 'test', 'scripts', 'eslint.config.mjs', 'vitest.config.ts']),
  {
    files: ['**/*.ts'],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommended,
      communityNodesRecommended,
      importX.configs['flat/recommended'],
    ],
    rules: {
      'prefer-spread': 'off',
      'no-console': 'error',
    },
  },
  {
    plugins: { 'n8n-nodes-base': n8nNodesBase },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
  },
  {
    files: ['package.json'],
    extends: [communityNodesRecommended],
    rules: {
      ...n8nNodesBase.configs.community.rules,
    },
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { extraFileExtensions: ['.json'] },
    },
  },
  {
    files: ['./credentials/**/*.ts'],
    rules: {
      ...n8nNodesBase.configs.credentials.rules,
      // Wants a camelCase doc slug (n8n's own nodes); community-nodes/credential-documentation-url wants a URL.
      'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
    },
  },
  {
    files: ['./nodes/**/*.ts'],
    rules: {
      ...n8nNodesBase.configs.nodes.rules,
      // Both want the literal 'main'; community-nodes/node-connection-type-literal wants NodeConnectionTypes.Main.
      'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
      'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
    },
  },
);
