import { SCENARIOS } from './scenarios.js';

/** One prompt for a chat surface (Slack's Messages tab): a short title, and the message it sends. */
export interface ScenarioPrompt {
  title: string;
  message: string;
}

/** The scenarios worth trying first, each as a goal whose `scenario:<name>` word picks it. */
const PICKS: Array<{ scenario: string; title: string; goal: string }> = [
  { scenario: 'approval', title: 'Deploy, with my approval', goal: 'deploy the API to production' },
  { scenario: 'single_select', title: 'Ask me which environment', goal: 'run the smoke tests' },
  { scenario: 'free_text', title: 'Ask me for a release name', goal: 'prepare the release notes' },
  { scenario: 'long', title: 'A long run to stop', goal: 'index the whole wiki' },
];

/** Up to four prompts that start the emulator's scenarios (npm start gives them to the bot's Messages tab). */
export function scenarioPrompts(): ScenarioPrompt[] {
  return PICKS.filter((p) => SCENARIOS[p.scenario] !== undefined).map((p) => ({
    title: p.title,
    message: `scenario:${p.scenario} ${p.goal}`,
  }));
}
