// n8n's community-node lint: the configuration @n8n/node-cli 0.48.3 ships (`@n8n/node-cli/eslint`), made
// of the same plugins at the same versions. The CLI itself can't be installed on Node 20: its AI SDK
// dependency pulls n8n-workflow 2.41, which needs Node 22 (isolated-vm).
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
      'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
      'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
    },
  },
  {
    files: ['./nodes/**/*.ts'],
    rules: {
      ...n8nNodesBase.configs.nodes.rules,
      'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
      'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
      'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
    },
  },
);
