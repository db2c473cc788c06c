import { readFileSync } from 'node:fs';
import { type INode, type INodeTypes, Workflow } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

// What a person reads in n8n's human review of this node as an AI tool: the review node's message, an
// n8n expression over `$tool.name` and `$tool.parameters` (the arguments the model gave the tool, an
// object), rendered by n8n's own expression engine as the review renders it.

/** n8n 2.41.3's default review message: an object in a template reads "[object Object]". */
const N8N_DEFAULT_MESSAGE = '=The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ $tool.parameters }}';

interface WorkflowFile {
  nodes: Array<INode & { parameters: Record<string, unknown> }>;
}
const workflow = JSON.parse(
  readFileSync(new URL('./real-n8n/workflows-2.41/human-review.json', import.meta.url), 'utf8'),
) as WorkflowFile;
const review = workflow.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.chatHitlTool');
const tool = workflow.nodes.find((n) => n.type === 'n8n-nodes-agent-sessions.agentSessionsTool');

/** The tool's arguments as the model gives them: one per `$fromAI('key', …)` in the node's parameters. */
function argumentsOf(node: INode): Record<string, string> {
  const keys = [...JSON.stringify(node.parameters).matchAll(/\$fromAI\('([\w-]+)'/g)].map((m) => m[1] as string);
  return Object.fromEntries(keys.map((key) => [key, `the ${key}: tidy the changelog`]));
}

/** The message as n8n renders it for the review, with `$tool` set as the review sets it. */
function rendered(message: string, parameters: Record<string, string>): unknown {
  const nodeTypes = {
    getByName: () => ({ description: { properties: [] } }),
    getByNameAndVersion: () => ({ description: { properties: [] } }),
    getKnownTypes: () => ({}),
  } as unknown as INodeTypes;
  const node: INode = { id: 'r', name: 'Review', type: 'review', typeVersion: 1, position: [0, 0], parameters: {} };
  const engine = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
  const $tool = { name: tool?.name ?? '', parameters };
  return engine.expression.getParameterValue(message, null, 0, 0, node.name, [], 'manual', { $tool } as never);
}

describe('n8n’s human review of the node as an AI tool', () => {
  it('the documented review message shows the tool’s inputs as text: each argument, with its value', () => {
    if (!review || !tool) throw new Error('the human-review workflow has no review or no Agent Sessions tool');
    const parameters = argumentsOf(tool);
    expect(Object.keys(parameters)).toContain('goal');
    // Without a message of its own, the review would show n8n's default.
    const message = String(review.parameters.message ?? N8N_DEFAULT_MESSAGE);
    const text = rendered(message, parameters);
    expect(text).not.toContain('[object Object]');
    expect(text).toContain(tool.name);
    for (const [key, value] of Object.entries(parameters)) expect(text).toContain(`"${key}": "${value}"`);
  });

  it('n8n’s default message would read "[object Object]" (why the workflow sets its own)', () => {
    if (!tool) throw new Error('no Agent Sessions tool');
    expect(rendered(N8N_DEFAULT_MESSAGE, argumentsOf(tool))).toMatch(/Input:\n\[object Object\]$/);
  });
});
