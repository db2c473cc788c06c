/** The agent platform's switches, as options, environment and CLI give them. */

import { CODE_CHANNEL_MODES, type CodeChannelMode } from './code-channels.js';
import { AGENT_FEATURE_MODES, type AgentFeatureMode } from './records.js';

export interface AgentOptions {
  /** `on` (default), `off` (the app is not an agent / the workspace lacks it), `unknown` (no such methods). */
  features?: AgentFeatureMode;
  /** Whether the app subscribes to `agent_session_stopped` (default true). */
  stopEventSubscribed?: boolean;
  /** Code channels: `on` (default), or `off` (the workspace refuses them: `missing_scope`). */
  codeChannels?: CodeChannelMode;
}

export function parseCodeChannelMode(value: unknown, name = 'code channels'): CodeChannelMode {
  if (typeof value === 'string' && (CODE_CHANNEL_MODES as readonly string[]).includes(value))
    return value as CodeChannelMode;
  throw new Error(`${name} must be one of ${CODE_CHANNEL_MODES.join(', ')}, got "${String(value)}"`);
}

export function parseAgentFeatures(value: unknown, name = 'agent features'): AgentFeatureMode {
  if (typeof value === 'string' && (AGENT_FEATURE_MODES as readonly string[]).includes(value))
    return value as AgentFeatureMode;
  throw new Error(`${name} must be one of ${AGENT_FEATURE_MODES.join(', ')}, got "${String(value)}"`);
}

/** SANDBOX_AGENT_FEATURES=on|off|unknown, SANDBOX_AGENT_STOP_EVENT=on|off and SANDBOX_CODE_CHANNELS=on|off. */
export function agentOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AgentOptions {
  const options: AgentOptions = {};
  const features = env.SANDBOX_AGENT_FEATURES?.trim();
  if (features) options.features = parseAgentFeatures(features, 'SANDBOX_AGENT_FEATURES');
  const stop = env.SANDBOX_AGENT_STOP_EVENT?.trim();
  if (stop) {
    if (stop !== 'on' && stop !== 'off')
      throw new Error(`SANDBOX_AGENT_STOP_EVENT must be "on" or "off", got "${stop}"`);
    options.stopEventSubscribed = stop === 'on';
  }
  const code = env.SANDBOX_CODE_CHANNELS?.trim();
  if (code) options.codeChannels = parseCodeChannelMode(code, 'SANDBOX_CODE_CHANNELS');
  return options;
}
