/**
 * An app's custom steps as its manifest declares them (`functions`), and Slack's check of a step's
 * outputs against them: `functions.completeSuccess` is refused with `parameter_validation_failed` when
 * a required output is missing, an output is not declared, or one has the wrong type.
 */

export interface FunctionParameter {
  type: string;
  title?: string;
  description?: string;
}

export interface FunctionParameters {
  properties: Record<string, FunctionParameter>;
  required?: string[];
}

export interface FunctionDefinition {
  title: string;
  description?: string;
  input_parameters: FunctionParameters;
  output_parameters: FunctionParameters;
}

export type FunctionDefinitions = Record<string, FunctionDefinition>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parametersOf(value: unknown, where: string): FunctionParameters {
  if (value === undefined) return { properties: {} };
  if (!isObject(value) || !isObject(value.properties))
    throw new Error(`${where}: needs "properties", an object of parameters`);
  const properties: Record<string, FunctionParameter> = {};
  for (const [name, p] of Object.entries(value.properties)) {
    if (!isObject(p) || typeof p.type !== 'string') throw new Error(`${where}.${name}: needs a "type"`);
    properties[name] = {
      type: p.type,
      ...(typeof p.title === 'string' ? { title: p.title } : {}),
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
    };
  }
  const required = value.required;
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === 'string')))
    throw new Error(`${where}.required: a list of parameter names`);
  for (const name of required ?? [])
    if (!(name in properties)) throw new Error(`${where}.required: ${name} is not among its properties`);
  return { properties, ...(required ? { required } : {}) };
}

/** The `functions` of an app manifest (parsed from YAML or JSON), checked as Slack checks them. */
export function functionsFromManifest(manifest: unknown): FunctionDefinitions {
  const functions = isObject(manifest) ? manifest.functions : undefined;
  if (functions === undefined) return {};
  if (!isObject(functions)) throw new Error('manifest functions: an object of steps by callback id');
  const out: FunctionDefinitions = {};
  for (const [callbackId, f] of Object.entries(functions)) {
    if (!isObject(f) || typeof f.title !== 'string')
      throw new Error(`functions.${callbackId}: needs a "title"`);
    out[callbackId] = {
      title: f.title,
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
      input_parameters: parametersOf(f.input_parameters, `functions.${callbackId}.input_parameters`),
      output_parameters: parametersOf(f.output_parameters, `functions.${callbackId}.output_parameters`),
    };
  }
  return out;
}

/** Slack's ids by type: what a value of each `slack#/types/…` must look like. */
const ID_PATTERNS: Record<string, RegExp> = {
  'slack#/types/channel_id': /^[CGD][A-Z0-9]+$/,
  'slack#/types/user_id': /^[UW][A-Z0-9]+$/,
  'slack#/types/usergroup_id': /^S[A-Z0-9]+$/,
  'slack#/types/message_ts': /^\d+\.\d+$/,
};

/** Why `value` is not of `type`; undefined when it is. */
function typeProblem(type: string, value: unknown): string | undefined {
  switch (type) {
    case 'string':
    case 'slack#/types/rich_text':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'number':
    case 'slack#/types/timestamp':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'object':
      return isObject(value) ? undefined : 'must be an object';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be an array';
    default: {
      const pattern = ID_PATTERNS[type];
      if (!pattern) return undefined;
      return typeof value === 'string' && pattern.test(value) ? undefined : `must be a ${type.slice(13)}`;
    }
  }
}

/** Every problem with a step's outputs against its declaration, one line each; empty when they conform. */
export function outputProblems(definition: FunctionDefinition, outputs: unknown): string[] {
  if (!isObject(outputs)) return ['outputs: must be an object'];
  const { properties, required = [] } = definition.output_parameters;
  const problems: string[] = [];
  for (const name of required)
    if (outputs[name] === undefined || outputs[name] === null) problems.push(`${name}: is required`);
  for (const [name, value] of Object.entries(outputs)) {
    const declared = properties[name];
    if (!declared) {
      problems.push(`${name}: is not an output parameter of this function`);
      continue;
    }
    if (value === null || value === undefined) continue;
    const problem = typeProblem(declared.type, value);
    if (problem) problems.push(`${name}: ${problem}`);
  }
  return problems;
}
